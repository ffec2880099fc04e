package io.fairway.core.internal;

import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LinkKind;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;

/**
 * A node's GPU interconnect, precomputed for placement: the pairwise link quality (the best direct link, or
 * the bottleneck of the widest path with a multi-hop penalty), NVLink domains, and, per free-GPU mask and
 * GPU count, the best subset to hand out. GPU positions (0..n-1) are the order of {@link GpuTopology#gpus()};
 * {@link #gpuIndex(int)} maps a position back to the GPU's index.
 */
public final class GpuShape {
    private static final ConcurrentHashMap<GpuTopology, GpuShape> CACHE = new ConcurrentHashMap<>();

    private final int n;
    private final int[] indexOf;           // position -> GPU index
    private final double[][] pairScore;    // position x position
    private final boolean[][] nvlinkDirect;
    private final long[] nvlinkComponent;  // position -> mask of its NVLink-connected component
    private final Graph<Integer, DefaultWeightedEdge> graph;
    private final ConcurrentHashMap<Long, Long> bestCache = new ConcurrentHashMap<>();

    private GpuShape(GpuTopology t) {
        n = t.size();
        indexOf = new int[n];
        int[] posOf = new int[64];
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
        nvlinkDirect = new boolean[n][n];
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
                nvlinkDirect[a][b] = true;
                nvlinkDirect[b][a] = true;
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
        nvlinkComponent = new long[n];
        for (int i = 0; i < n; i++) {
            long comp = 1L << i;
            boolean grown = true;
            while (grown) {
                grown = false;
                for (int a = 0; a < n; a++) {
                    if ((comp & (1L << a)) == 0) {
                        continue;
                    }
                    for (int b = 0; b < n; b++) {
                        if (nvlinkDirect[a][b] && (comp & (1L << b)) == 0) {
                            comp |= 1L << b;
                            grown = true;
                        }
                    }
                }
            }
            nvlinkComponent[i] = comp;
        }
    }

    /**
     * @param t a GPU topology
     * @return its precomputed shape (shared by every node of that topology)
     */
    public static GpuShape of(GpuTopology t) {
        return CACHE.computeIfAbsent(t, GpuShape::new);
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

    /**
     * @param mask a set of GPU positions
     * @return true when they all lie in one NVLink-connected component (a single GPU counts)
     */
    public boolean inOneNvlinkDomain(long mask) {
        if (mask == 0) {
            return true;
        }
        int first = Long.numberOfTrailingZeros(mask);
        return (nvlinkComponent[first] & mask) == mask;
    }

    /** @param mask GPU positions @return the largest NVLink domain size contained in the mask */
    public int largestNvlinkDomainIn(long mask) {
        int best = 0;
        long seen = 0;
        for (int i = 0; i < n; i++) {
            if ((mask & (1L << i)) != 0 && (seen & (1L << i)) == 0) {
                long c = nvlinkComponent[i] & mask;
                seen |= c;
                best = Math.max(best, Long.bitCount(c));
            }
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
        for (int i = 0; i < n; i++) {
            if ((mask & (1L << i)) == 0) {
                continue;
            }
            for (int j = i + 1; j < n; j++) {
                if ((mask & (1L << j)) != 0) {
                    worst = Math.min(worst, pairScore[i][j]);
                }
            }
        }
        return worst;
    }

    private double sumPairs(long mask) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            if ((mask & (1L << i)) == 0) {
                continue;
            }
            for (int j = i + 1; j < n; j++) {
                if ((mask & (1L << j)) != 0) {
                    s += pairScore[i][j];
                }
            }
        }
        return s;
    }

    /**
     * Chooses {@code count} GPUs out of {@code free}: the set whose slowest link is fastest, then the one
     * that leaves the best-connected free set behind (keeping large domains intact), then the lowest indexes.
     *
     * @param free mask of free positions
     * @param count GPUs wanted
     * @param requireNvlink true to accept only sets within one NVLink domain
     * @return the chosen mask, or 0 when impossible
     */
    public long choose(long free, int count, boolean requireNvlink) {
        if (count <= 0 || Long.bitCount(free) < count) {
            return 0;
        }
        if (n > 16) {
            return lowest(free, count, requireNvlink);
        }
        long key = (free << 8) | ((long) count << 1) | (requireNvlink ? 1 : 0);
        Long cached = bestCache.get(key);
        if (cached != null) {
            return cached;
        }
        long best = 0;
        double bestWorst = -1;
        double bestSum = -1;
        double bestLeft = -1;
        // Enumerate the subsets of `free` with `count` bits (at most C(16,8) = 12,870).
        for (long s = free; ; s = (s - 1) & free) {
            if (Long.bitCount(s) == count && (!requireNvlink || inOneNvlinkDomain(s))) {
                double w = worstPair(s);
                double sum = sumPairs(s);
                long left = free & ~s;
                double l = Long.bitCount(left) >= 2 ? worstPair(left) + sumPairs(left) * 1e-6 : 0;
                // Subsets come in descending numeric order: on a full tie the later (lower) set wins.
                boolean better = w > bestWorst
                        || (w == bestWorst && sum > bestSum)
                        || (w == bestWorst && sum == bestSum && l >= bestLeft);
                if (better) {
                    best = s;
                    bestWorst = w;
                    bestSum = sum;
                    bestLeft = l;
                }
            }
            if (s == 0) {
                break;
            }
        }
        bestCache.put(key, best);
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
        for (int i = 0; i < n; i++) {
            if ((mask & (1L << i)) != 0) {
                out[k++] = indexOf[i];
            }
        }
        return List.of(out);
    }

    /**
     * @param gpuIndex a GPU index
     * @return its position, or -1
     */
    public int positionOf(int gpuIndex) {
        for (int i = 0; i < n; i++) {
            if (indexOf[i] == gpuIndex) {
                return i;
            }
        }
        return -1;
    }
}
