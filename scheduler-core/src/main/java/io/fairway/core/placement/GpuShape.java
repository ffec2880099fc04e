package io.fairway.core.placement;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;

/**
 * A node's GPU interconnect, precomputed for placement. GPU positions (0..n-1) are the order of
 * {@link GpuTopology#gpus()}; {@link #gpuIndex(int)} maps a position back to the GPU's index.
 *
 * <p>The quality of a set of GPUs is judged the way collective communication uses it:
 * <ol>
 *   <li>whether the set is one <em>NVLink domain</em>: its GPUs are connected by NVLink/NVSwitch links
 *       among themselves (a GPU outside the set forwards nothing);</li>
 *   <li>its <em>ring score</em>: the bottleneck of the best ring through the set (ring all-reduce runs at
 *       the speed of the slowest link of its ring). On a DGX-1 hybrid cube-mesh, {2,3,6,7} forms an NVLink
 *       ring although 2–7 and 3–6 are not linked;</li>
 *   <li>its <em>worst pair</em>: the slowest link any two of its GPUs must cross (all-to-all traffic);</li>
 *   <li>the sum of its pairwise scores.</li>
 * </ol>
 * A pair's score is its best direct link's bandwidth, or half the bottleneck of the widest multi-hop path
 * when no direct link exists. Ring scores are exact for nodes of up to 8 GPUs and fall back to the worst
 * pair on larger nodes.
 */
final class GpuShape {
    private static final ConcurrentHashMap<GpuTopology, GpuShape> CACHE = new ConcurrentHashMap<>();
    private static final Cache<GpuTopology, GpuShape> BY_IDENTITY = CacheBuilder.newBuilder().weakKeys().build();
    /** Nodes up to this size get exact ring scores, memoised for every subset. */
    private static final int RING_LIMIT = 8;
    /** Nodes up to this size get an exhaustive best-subset search; larger ones the lowest free positions. */
    private static final int ENUMERATION_LIMIT = 16;

    private final int n;
    private final int[] indexOf;           // position -> GPU index
    private final int[] posOf;             // GPU index -> position, -1 when absent
    private final double[][] pairScore;    // position x position
    private final long[] nvlinkNeighbours; // position -> mask of positions joined to it by NVLink/NVSwitch
    private final int largestNvlinkDomain;
    private final Graph<Integer, DefaultWeightedEdge> graph;
    private final double[] ringMemo;       // for n <= RING_LIMIT: ring score of every subset
    private final ConcurrentHashMap<Long, Long> bestCache = new ConcurrentHashMap<>();
    // for n <= RING_LIMIT, choose() results without boxing: index (free << 5 | count << 1 | nvlink), value mask + 1
    private final AtomicLongArray smallChoose;
    private final double[] idealRing;      // for n <= RING_LIMIT: ring score of the best set of each size
    private final ConcurrentHashMap<Integer, Double> idealRingCache = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> firstFitCache = new ConcurrentHashMap<>();

    private GpuShape(GpuTopology t) {
        n = t.size();
        indexOf = new int[n];
        posOf = new int[64];
        Arrays.fill(posOf, -1);
        for (int i = 0; i < n; i++) {
            indexOf[i] = t.gpus().get(i).index();
            posOf[indexOf[i]] = i;
        }
        // The interconnect as a JGraphT graph: one vertex per GPU position, each edge the best link of a pair.
        graph = new SimpleWeightedGraph<>(DefaultWeightedEdge.class);
        for (int i = 0; i < n; i++) {
            graph.addVertex(i);
        }
        double[][] direct = new double[n][n];
        nvlinkNeighbours = new long[n];
        for (GpuLink l : t.links()) {
            int a = posOf[l.a()];
            int b = posOf[l.b()];
            if (l.bandwidthGBps() > direct[a][b]) {
                direct[a][b] = l.bandwidthGBps();
                direct[b][a] = l.bandwidthGBps();
                DefaultWeightedEdge e = graph.getEdge(a, b);
                if (e == null) {
                    e = graph.addEdge(a, b);
                }
                graph.setEdgeWeight(e, l.bandwidthGBps());
            }
            if (l.kind().isNvlink()) {
                nvlinkNeighbours[a] |= 1L << b;
                nvlinkNeighbours[b] |= 1L << a;
            }
        }
        // Widest path (max-min bandwidth) between every pair, Floyd–Warshall over the graph's edges.
        double[][] widest = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                DefaultWeightedEdge e = i == j ? null : graph.getEdge(i, j);
                widest[i][j] = i == j ? Double.MAX_VALUE : e == null ? 0 : graph.getEdgeWeight(e);
            }
        }
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    double via = Math.min(widest[i][k], widest[k][j]);
                    if (via > widest[i][j]) {
                        widest[i][j] = via;
                    }
                }
            }
        }
        pairScore = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                // A direct link is worth its bandwidth; a multi-hop path half its bottleneck.
                pairScore[i][j] = direct[i][j] > 0 ? direct[i][j] : widest[i][j] * 0.5;
            }
        }
        int largest = 0;
        for (int i = 0; i < n; i++) {
            largest = Math.max(largest, Long.bitCount(component(i, fullMask())));
        }
        largestNvlinkDomain = largest;
        if (n <= RING_LIMIT) {
            ringMemo = new double[1 << n];
            for (int mask = 0; mask < ringMemo.length; mask++) {
                ringMemo[mask] = computeRing(mask);
            }
            smallChoose = new AtomicLongArray(1 << 13);
            idealRing = new double[n + 1];
            for (int c = 1; c <= n; c++) {
                idealRing[c] = ringScore(choose(fullMask(), c, false));
            }
        } else {
            ringMemo = null;
            smallChoose = null;
            idealRing = null;
        }
    }

    /**
     * @param count a GPU count
     * @return the ring score of the best {@code count} GPUs of an empty node of this shape
     */
    public double idealRing(int count) {
        if (count <= 0 || count > n) {
            return 0;
        }
        if (idealRing != null) {
            return idealRing[count];
        }
        return idealRingCache.computeIfAbsent(count, c -> ringScore(ideal(c)));
    }

    /**
     * @param t a GPU topology
     * @return its precomputed shape (shared by every node of that topology)
     */
    public static GpuShape of(GpuTopology t) {
        // By identity first: a node keeps its topology instance from round to round, and hashing a topology
        // (every GPU and link) costs more than the lookup.
        GpuShape s = BY_IDENTITY.getIfPresent(t);
        if (s == null) {
            s = CACHE.computeIfAbsent(t, GpuShape::new);
            BY_IDENTITY.put(t, s);
        }
        return s;
    }

    /** @return number of GPUs */
    public int size() {
        return n;
    }

    /** @return the mask of all GPU positions */
    public long fullMask() {
        return n == 64 ? -1L : (1L << n) - 1;
    }

    /** @param position a position @return the GPU index at it */
    public int gpuIndex(int position) {
        return indexOf[position];
    }

    /** @return the interconnect graph (read-only use) */
    public Graph<Integer, DefaultWeightedEdge> graph() {
        return graph;
    }

    /** @return the size of the largest NVLink domain of the node (1 on a node without NVLink, 0 without GPUs) */
    public int largestNvlinkDomain() {
        return largestNvlinkDomain;
    }

    /**
     * @param a a position
     * @param b another position
     * @return the pair's score (GB/s of its direct link, or half the bottleneck of its widest path)
     */
    public double pairScore(int a, int b) {
        return pairScore[a][b];
    }

    /** The positions reachable from {@code start} over NVLink links between members of {@code within}. */
    private long component(int start, long within) {
        long reached = 1L << start;
        long frontier = reached;
        while (frontier != 0) {
            long next = 0;
            for (long f = frontier; f != 0; f &= f - 1) {
                next |= nvlinkNeighbours[Long.numberOfTrailingZeros(f)];
            }
            next &= within & ~reached;
            reached |= next;
            frontier = next;
        }
        return reached;
    }

    /**
     * @param mask a set of GPU positions
     * @return true when its GPUs are connected by NVLink/NVSwitch links among themselves (a single GPU counts)
     */
    public boolean inOneNvlinkDomain(long mask) {
        if (mask == 0) {
            return true;
        }
        return component(Long.numberOfTrailingZeros(mask), mask) == mask;
    }

    /** @param mask GPU positions @return the largest NVLink domain (connected among themselves) within the mask */
    public int largestNvlinkDomainIn(long mask) {
        int best = 0;
        long seen = 0;
        for (long m = mask & ~seen; m != 0; m = mask & ~seen) {
            long c = component(Long.numberOfTrailingZeros(m), mask);
            seen |= c;
            best = Math.max(best, Long.bitCount(c));
        }
        return best;
    }

    /**
     * The worst pairwise score of a set: the slowest link the set must cross.
     *
     * @param mask GPU positions
     * @return the minimum pair score, or {@code Double.MAX_VALUE} for fewer than two GPUs
     */
    public double worstPair(long mask) {
        double worst = Double.MAX_VALUE;
        for (long a = mask; a != 0; a &= a - 1) {
            int i = Long.numberOfTrailingZeros(a);
            for (long b = a & (a - 1); b != 0; b &= b - 1) {
                worst = Math.min(worst, pairScore[i][Long.numberOfTrailingZeros(b)]);
            }
        }
        return worst;
    }

    private double sumPairs(long mask) {
        double s = 0;
        for (long a = mask; a != 0; a &= a - 1) {
            int i = Long.numberOfTrailingZeros(a);
            for (long b = a & (a - 1); b != 0; b &= b - 1) {
                s += pairScore[i][Long.numberOfTrailingZeros(b)];
            }
        }
        return s;
    }

    /**
     * The ring score of a set: the bottleneck of the best ring visiting each of its GPUs once (exact up to 8
     * GPUs per node, the worst pair beyond).
     *
     * @param mask GPU positions
     * @return the ring score, {@code Double.MAX_VALUE} for fewer than two GPUs
     */
    public double ringScore(long mask) {
        if (ringMemo != null) {
            return ringMemo[(int) mask];
        }
        return worstPair(mask);
    }

    /** Bottleneck travelling salesman over the set, by dynamic programming over its subsets (k ≤ 8). */
    private double computeRing(long mask) {
        int k = Long.bitCount(mask);
        if (k <= 2) {
            return worstPair(mask);
        }
        int[] p = new int[k];
        int c = 0;
        for (long m = mask; m != 0; m &= m - 1) {
            p[c++] = Long.numberOfTrailingZeros(m);
        }
        // best[s][j]: the widest path from p[0] through the members of s (a set over 1..k-1) ending at p[j]
        double[][] best = new double[1 << k][k];
        best[1][0] = Double.MAX_VALUE;
        for (int s = 1; s < (1 << k); s += 2) {
            for (int j = 0; j < k; j++) {
                double here = best[s][j];
                if (here <= 0) {
                    continue;
                }
                for (int nx = 1; nx < k; nx++) {
                    if ((s & (1 << nx)) == 0) {
                        double w = Math.min(here, pairScore[p[j]][p[nx]]);
                        int t = s | (1 << nx);
                        if (w > best[t][nx]) {
                            best[t][nx] = w;
                        }
                    }
                }
            }
        }
        double ring = 0;
        int all = (1 << k) - 1;
        for (int j = 1; j < k; j++) {
            ring = Math.max(ring, Math.min(best[all][j], pairScore[p[j]][p[0]]));
        }
        return ring;
    }

    /**
     * Compares two sets of the same size: NVLink domain first, then ring score, worst pair and sum.
     *
     * @return positive when {@code a} is better
     */
    public int compareQuality(long a, long b) {
        int c = Boolean.compare(inOneNvlinkDomain(a), inOneNvlinkDomain(b));
        if (c != 0) {
            return c;
        }
        c = Double.compare(ringScore(a), ringScore(b));
        if (c != 0) {
            return c;
        }
        c = Double.compare(worstPair(a), worstPair(b));
        return c != 0 ? c : Double.compare(sumPairs(a), sumPairs(b));
    }

    /**
     * @param count GPUs wanted
     * @return the best set of {@code count} GPUs on an empty node of this shape, or 0 when it has fewer
     */
    public long ideal(int count) {
        return choose(fullMask(), count, false);
    }

    /**
     * Chooses {@code count} GPUs out of {@code free}, topology-aware: the best set by
     * {@link #compareQuality}; among equals, the one leaving the best-connected free set behind (the sum of
     * the pair scores that stay free, then their ring score and worst pair): it takes GPUs whose links to
     * the rest are already cut, so large well-linked domains stay intact; then the lowest positions.
     *
     * @param free mask of free positions
     * @param count GPUs wanted
     * @param requireNvlink true to accept only sets forming one NVLink domain
     * @return the chosen mask, or 0 when impossible
     */
    public long choose(long free, int count, boolean requireNvlink) {
        if (count <= 0 || Long.bitCount(free) < count) {
            return 0;
        }
        if (Long.bitCount(free) == count) {
            return !requireNvlink || inOneNvlinkDomain(free) ? free : 0;
        }
        if (n > ENUMERATION_LIMIT) {
            return lowest(free, count, requireNvlink);
        }
        int small = -1;
        if (smallChoose != null) {
            small = (int) (free << 5) | (count << 1) | (requireNvlink ? 1 : 0);
            long v = smallChoose.get(small);
            if (v != 0) {
                return v - 1;
            }
        }
        long key = (free << 8) | ((long) count << 1) | (requireNvlink ? 1 : 0);
        Long cached = small < 0 ? bestCache.get(key) : null;
        if (cached != null) {
            return cached;
        }
        long best = 0;
        double[] bestKey = null;
        // Enumerate the subsets of `free` with `count` bits (at most C(16,8) = 12,870), in descending
        // numeric order: on a full tie the later (lower) set wins.
        for (long s = free; s != 0; s = (s - 1) & free) {
            if (Long.bitCount(s) != count) {
                continue;
            }
            boolean nv = inOneNvlinkDomain(s);
            if (requireNvlink && !nv) {
                continue;
            }
            long left = free & ~s;
            boolean leftScored = Long.bitCount(left) >= 2;
            double[] k = {
                nv ? 1 : 0, ringScore(s), worstPair(s), sumPairs(s),
                leftScored ? sumPairs(left) : 0, leftScored ? ringScore(left) : 0, leftScored ? worstPair(left) : 0,
            };
            if (bestKey == null || compareKeys(k, bestKey) >= 0) {
                best = s;
                bestKey = k;
            }
        }
        if (small >= 0) {
            smallChoose.set(small, best + 1);
        } else {
            bestCache.put(key, best);
        }
        return best;
    }

    private static int compareKeys(double[] a, double[] b) {
        for (int i = 0; i < a.length; i++) {
            int c = Double.compare(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /**
     * Chooses {@code count} GPUs out of {@code free}, topology-oblivious: the lowest free positions (with
     * an NVLink requirement, the lowest set that forms one NVLink domain).
     *
     * @param free mask of free positions
     * @param count GPUs wanted
     * @param requireNvlink true to accept only sets forming one NVLink domain
     * @return the chosen mask, or 0 when impossible
     */
    public long chooseFirstFit(long free, int count, boolean requireNvlink) {
        if (count <= 0 || Long.bitCount(free) < count) {
            return 0;
        }
        long s = lowest(free, count, false);
        if (!requireNvlink || inOneNvlinkDomain(s)) {
            return s;
        }
        if (n > ENUMERATION_LIMIT) {
            return 0;
        }
        long key = (free << 8) | count;
        Long cached = firstFitCache.get(key);
        if (cached != null) {
            return cached;
        }
        long best = 0;
        for (long t = free; t != 0; t = (t - 1) & free) {
            if (Long.bitCount(t) == count && inOneNvlinkDomain(t)) {
                best = t; // descending order: the last one found is the numerically lowest
            }
        }
        firstFitCache.put(key, best);
        return best;
    }

    private long lowest(long free, int count, boolean requireNvlink) {
        long s = 0;
        long f = free;
        for (int i = 0; i < count; i++) {
            long bit = Long.lowestOneBit(f);
            s |= bit;
            f &= ~bit;
        }
        return requireNvlink && !inOneNvlinkDomain(s) ? 0 : s;
    }

    /**
     * @param mask GPU positions
     * @return their GPU indexes, ascending by position
     */
    public List<Integer> indexes(long mask) {
        Integer[] out = new Integer[Long.bitCount(mask)];
        int k = 0;
        for (long m = mask; m != 0; m &= m - 1) {
            out[k++] = indexOf[Long.numberOfTrailingZeros(m)];
        }
        return List.of(out);
    }

    /**
     * @param gpuIndex a GPU index
     * @return its position, or -1
     */
    public int positionOf(int gpuIndex) {
        return gpuIndex >= 0 && gpuIndex < 64 ? posOf[gpuIndex] : -1;
    }

    /**
     * @param gpuIndexes GPU indexes of this node
     * @return their positions as a mask (unknown indexes are ignored)
     */
    public long maskOf(List<Integer> gpuIndexes) {
        long m = 0;
        for (int g : gpuIndexes) {
            int p = positionOf(g);
            if (p >= 0) {
                m |= 1L << p;
            }
        }
        return m;
    }
}
