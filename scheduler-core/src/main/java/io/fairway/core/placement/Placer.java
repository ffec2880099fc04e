package io.fairway.core.placement;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import io.fairway.core.PlacementStrategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The gang placement on a {@link CapacityPlan}: all members or none, in one cluster, required topology
 * constraints always honoured.
 *
 * <p>{@link PlacementStrategy#TOPOLOGY_AWARE} searches from the narrowest domain outwards: one node (the
 * best GPU set first, then best fit, then the node whose rack has least free), then the best-fit domain of
 * each topology level from the narrowest (rack) to the broadest (zone), then the whole cluster; a required
 * level caps how far out it goes. Inside a domain it fills the fewest children (largest first, the last
 * one best fit) recursively down to nodes, so large free domains stay intact. On a node, the GPUs of all its
 * members are chosen together by {@link GpuShape#choose}. Candidates come from the plan's indexes (nodes by
 * free GPU count, free capacity per domain), not from a scan of every node.
 *
 * <p>{@link PlacementStrategy#FIRST_FIT} is the topology-oblivious baseline: nodes in order, the lowest free
 * GPU indexes.
 */
public final class Placer {
    /** After a first candidate node is found, how many more of a bucket are examined for tie-breaks. */
    private static final int TIE_SCAN_LIMIT = 128;

    private final CapacityPlan cap;
    private final PlacementStrategy strategy;
    private final Map<List<Object>, PendingReason> neverCache = new HashMap<>();
    private final Map<Resources, long[]> vectors = new HashMap<>();

    Placer(CapacityPlan cap) {
        this(cap, PlacementStrategy.TOPOLOGY_AWARE);
    }

    public Placer(CapacityPlan cap, PlacementStrategy strategy) {
        this.cap = cap;
        this.strategy = strategy == null ? PlacementStrategy.TOPOLOGY_AWARE : strategy;
    }

    /** A successful placement, with what it took (for release). */
    public record Result(Placement placement, List<Taken> taken) {
    }

    /** Capacity taken on one node. */
    public record Taken(int node, long[] req, long gpuMask) {
    }

    /** The outcome: a result or a reason. */
    public record Outcome(Result result, PendingReason reason) {
    }

    /**
     * Finds and takes a placement.
     *
     * @param job the job
     * @param counts members per pod set
     * @param flavors flavor per pod set (may be empty)
     * @return the placement taken, or the reason none exists now (a reason that it never can only when no
     *     cluster could ever hold it)
     */
    public Outcome place(JobSpec job, Map<String, Integer> counts, Map<String, ResourceFlavor> flavors) {
        PendingReason notNow = null;
        PendingReason never = null;
        for (CapacityPlan.ClusterIndex ci : cap.clusters) {
            cap.begin();
            List<MemberPlacement> members = new ArrayList<>();
            List<Taken> taken = new ArrayList<>();
            PendingReason failed = null;
            for (PodSet ps : job.podSets()) {
                int m = counts.getOrDefault(ps.name(), ps.count());
                PendingReason r = placePodSet(ci, ps, m, flavors.get(ps.name()), members, taken);
                if (r != null) {
                    failed = r;
                    break;
                }
            }
            if (failed == null) {
                cap.commit();
                return new Outcome(new Result(describe(job, members), taken), null);
            }
            cap.rollback();
            if (failed.code() == PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN) {
                never = never == null ? failed : never;
            } else {
                notNow = notNow == null ? failed : notNow;
            }
        }
        PendingReason reason = notNow != null ? notNow : never;
        if (reason == null) {
            reason = PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "the cluster has no nodes");
        }
        return new Outcome(null, reason);
    }

    private PendingReason placePodSet(CapacityPlan.ClusterIndex ci, PodSet ps, int m, ResourceFlavor flavor,
                                      List<MemberPlacement> out, List<Taken> taken) {
        long[] req = vectors.computeIfAbsent(ps.resources(), cap.resources::vector);
        for (int r = cap.width; r < req.length; r++) {
            if (req[r] > 0) {
                return PendingReason.of(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN,
                        "pod set \"" + ps.name() + "\" needs " + cap.resources.name(r) + ", which no node has");
            }
        }
        int g = (int) ps.resources().gpus();
        if (g > ci.maxGpusPerNode) {
            return new PendingReason(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, "pod set \"" + ps.name() + "\": each member needs "
                    + g + " GPUs; the largest node of cluster " + ci.name + " has " + ci.maxGpusPerNode,
                    Map.of("gpusPerMember", (long) g, "largestNodeGpus", (long) ci.maxGpusPerNode));
        }
        TopologyRequest t = ps.topology();
        int host = ci.levels.size();
        int top = -1; // the broadest level the pod set may span; -1: the whole cluster, host: one node
        if (t.sameNvlinkDomain() || (t.required() && Node.HOSTNAME_LABEL.equals(t.level()))) {
            top = host;
        } else if (t.required()) {
            top = ci.levels.indexOf(t.level());
            if (top < 0) {
                return PendingReason.of(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, "pod set \"" + ps.name()
                        + "\" requires topology level " + t.level() + ", which cluster " + ci.name + " does not define (levels: "
                        + ci.levels + ")");
            }
        }
        PlaceState st = new PlaceState(ps, m, g, req, new NodeFilter(ps, flavor), t.sameNvlinkDomain(), out, taken);
        if ((long) m * g > ci.freeGpus) {
            return failure(ci, st, top, flavor); // not enough free GPUs in the whole cluster: no search needed
        }
        boolean placed = strategy == PlacementStrategy.FIRST_FIT ? firstFit(ci, st, top) : topologyAware(ci, st, top, t.spread());
        return placed ? null : failure(ci, st, top, flavor);
    }

    // ------------------------------------------------------------------ topology-aware search

    private boolean topologyAware(CapacityPlan.ClusterIndex ci, PlaceState st, int top, boolean spread) {
        if (spread && top < 0) {
            return spread(ci, st);
        }
        if (singleNode(ci, st)) {
            return true;
        }
        int host = ci.levels.size();
        if (top == host) {
            return false;
        }
        for (int l = host - 1; l >= Math.max(top, 0); l--) {
            if (inBestDomain(ci, l, st)) {
                return true;
            }
        }
        if (top >= 0) {
            return false;
        }
        return fillCluster(ci, st);
    }

    /**
     * All members on one node: the best GPU set first (one NVLink domain, then the node's own ideal ring
     * score), then the fewest free GPUs (best fit), then the least free narrowest domain, then node order.
     */
    private boolean singleNode(CapacityPlan.ClusterIndex ci, PlaceState st) {
        if (st.g == 0) {
            for (BitSet set : new BitSet[] {ci.cpuOnly, ci.members}) {
                for (int n = set.nextSetBit(0); n >= 0; n = set.nextSetBit(n + 1)) {
                    if (st.ok(n) && cap.membersFit(n, st.req, 0) >= st.m) {
                        st.put(n, st.m);
                        return true;
                    }
                }
            }
            return false;
        }
        long need = (long) st.m * st.g;
        if (need > 64) {
            return false;
        }
        int count = (int) need;
        boolean connectedPossible = count <= ci.maxNvlinkDomain;
        int narrow = ci.levels.size() - 1;
        int best = -1;
        long bestMask = 0;
        boolean bestConnected = false;
        double bestRel = -1;
        long bestDomainFree = Long.MAX_VALUE;
        int bestBucket = -1;
        for (int k = count, top = Math.min(64, ci.maxGpusPerNode); k <= top; k++) { // no node has more free GPUs than its size
            BitSet bucket = ci.byFreeGpus[k];
            int extra = 0;
            for (int n = bucket.nextSetBit(0); n >= 0; n = bucket.nextSetBit(n + 1)) {
                if (best >= 0 && extra++ >= TIE_SCAN_LIMIT) {
                    break;
                }
                long domainFree = narrow >= 0 ? ci.domainFree[narrow][ci.domainOf[narrow][n]] : 0;
                if (best >= 0 && bestRel >= 1 && (bestConnected || !connectedPossible)) {
                    // the best quality is already found: only a node of this bucket in a fuller rack can win
                    if (narrow < 0 || k != bestBucket) {
                        break;
                    }
                    if (domainFree >= bestDomainFree) {
                        continue;
                    }
                }
                if (!st.ok(n) || cap.membersFit(n, st.req, st.g) < st.m) {
                    continue;
                }
                GpuShape shape = cap.shapes[n];
                long mask = shape.choose(cap.freeGpuMask[n], count, st.nvlink);
                if (mask == 0) {
                    continue;
                }
                boolean connected = shape.inOneNvlinkDomain(mask);
                double ideal = shape.idealRing(count);
                double rel = ideal <= 0 ? 1 : Math.min(1, shape.ringScore(mask) / ideal);
                boolean better;
                if (best < 0 || connected != bestConnected) {
                    better = best < 0 || connected;
                } else if (rel != bestRel) {
                    better = rel > bestRel;
                } else {
                    // same quality: an earlier bucket (fewer free GPUs) already wins; in one bucket the least free rack
                    better = k == bestBucket && domainFree < bestDomainFree;
                }
                if (better) {
                    best = n;
                    bestBucket = k;
                    bestMask = mask;
                    bestConnected = connected;
                    bestRel = rel;
                    bestDomainFree = domainFree;
                }
            }
            if (best >= 0 && bestRel >= 1 && (bestConnected || !connectedPossible)) {
                break; // no larger bucket can do better
            }
        }
        if (best < 0) {
            return false;
        }
        st.put(best, st.m, bestMask);
        return true;
    }

    /** Tries the domains of a level that could hold the rest, best fit first (least room that suffices). */
    private boolean inBestDomain(CapacityPlan.ClusterIndex ci, int level, PlaceState st) {
        int want = st.remaining();
        int domains = ci.domainNodes[level].length;
        long[] est = new long[domains];
        int candidates = 0;
        Integer[] order = new Integer[domains];
        for (int d = 0; d < domains; d++) {
            est[d] = estimate(ci, level, d, st);
            if (est[d] >= want) {
                order[candidates++] = d;
            }
        }
        long[] free = ci.domainFree[level];
        Arrays.sort(order, 0, candidates, (a, b) -> {
            int c = Long.compare(est[a], est[b]);
            if (c == 0) {
                c = Long.compare(free[a], free[b]);
            }
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int i = 0; i < candidates; i++) {
            Savepoint sp = st.save();
            if (fillDomain(ci, level, order[i], want, st) == want) {
                return true;
            }
            st.restore(sp);
        }
        return false;
    }

    /** The whole cluster: the fewest broadest-level domains (or nodes), largest first, the last best fit. */
    private boolean fillCluster(CapacityPlan.ClusterIndex ci, PlaceState st) {
        Savepoint sp = st.save();
        int want = st.remaining();
        int got = ci.levels.isEmpty() ? fillByBuckets(ci, st, want) : fillChildren(ci, 0, ci.rootDomains, want, st);
        if (got == want) {
            return true;
        }
        st.restore(sp);
        return false;
    }

    /** An upper bound on the members a domain can take now, from its free GPUs and resources. */
    private long estimate(CapacityPlan.ClusterIndex ci, int level, int domain, PlaceState st) {
        long e = st.g > 0 ? ci.domainFree[level][domain] / st.g : Long.MAX_VALUE;
        long[] res = ci.domainFreeResources[level];
        for (int r = 0; r < st.req.length && r < cap.width; r++) {
            if (st.req[r] > 0 && r != cap.resources.gpu) {
                e = Math.min(e, res[domain * cap.width + r] / st.req[r]);
            }
        }
        return e;
    }

    /** Places up to {@code want} members inside one domain; returns how many it placed. */
    private int fillDomain(CapacityPlan.ClusterIndex ci, int level, int domain, int want, PlaceState st) {
        if (level == ci.levels.size() - 1) {
            return fillNodes(ci.domainNodes[level][domain], want, st);
        }
        return fillChildren(ci, level + 1, ci.domainChildren[level][domain], want, st);
    }

    /**
     * Fills child domains of level {@code level}: while no child can take the rest, the largest; then the
     * smallest child that takes the rest (best fit).
     */
    private int fillChildren(CapacityPlan.ClusterIndex ci, int level, int[] children, int want, PlaceState st) {
        int placed = 0;
        boolean[] used = new boolean[children.length];
        long[] free = ci.domainFree[level];
        while (placed < want) {
            int rest = want - placed;
            int fit = -1;
            long fitEst = Long.MAX_VALUE;
            int large = -1;
            long largeEst = 0;
            for (int i = 0; i < children.length; i++) {
                if (used[i]) {
                    continue;
                }
                long e = estimate(ci, level, children[i], st);
                if (e >= rest && (e < fitEst || (e == fitEst && free[children[i]] < free[children[fit]]))) {
                    fit = i;
                    fitEst = e;
                }
                if (e > largeEst) {
                    large = i;
                    largeEst = e;
                }
            }
            int pick = fit >= 0 ? fit : large;
            if (pick < 0) {
                break;
            }
            used[pick] = true;
            placed += fillDomain(ci, level, children[pick], rest, st);
        }
        return placed;
    }

    /** Fills nodes: while none takes the rest, the one taking most; then the smallest that takes the rest. */
    private int fillNodes(int[] nodes, int want, PlaceState st) {
        int placed = 0;
        boolean[] used = new boolean[nodes.length];
        while (placed < want) {
            int rest = want - placed;
            int fit = -1;
            int fitFree = Integer.MAX_VALUE;
            int large = -1;
            int largeFit = 0;
            for (int i = 0; i < nodes.length; i++) {
                int n = nodes[i];
                if (used[i] || !st.ok(n)) {
                    continue;
                }
                int f = cap.membersFit(n, st.req, st.g);
                int freeGpus = cap.freeGpuCount(n);
                if (f >= rest && freeGpus < fitFree) {
                    fit = i;
                    fitFree = freeGpus;
                }
                if (f > largeFit) {
                    large = i;
                    largeFit = f;
                }
            }
            int pick = fit >= 0 ? fit : large;
            if (pick < 0) {
                break;
            }
            used[pick] = true;
            int k = fit >= 0 ? rest : largeFit;
            st.put(nodes[pick], k);
            placed += k;
        }
        return placed;
    }

    /** A cluster without levels: nodes from the free-GPU buckets, largest first, the last best fit. */
    private int fillByBuckets(CapacityPlan.ClusterIndex ci, PlaceState st, int want) {
        int placed = 0;
        Set<Integer> used = new HashSet<>();
        while (placed < want) {
            int rest = want - placed;
            int n = bestFitNode(ci, st, rest, used);
            if (n >= 0) {
                st.put(n, rest);
                return want;
            }
            n = largestNode(ci, st, used);
            if (n < 0) {
                return placed;
            }
            used.add(n);
            int k = Math.min(rest, cap.membersFit(n, st.req, st.g));
            st.put(n, k);
            placed += k;
        }
        return placed;
    }

    private int bestFitNode(CapacityPlan.ClusterIndex ci, PlaceState st, int members, Set<Integer> used) {
        if (st.g == 0) {
            for (BitSet set : new BitSet[] {ci.cpuOnly, ci.members}) {
                for (int n = set.nextSetBit(0); n >= 0; n = set.nextSetBit(n + 1)) {
                    if (!used.contains(n) && st.ok(n) && cap.membersFit(n, st.req, 0) >= members) {
                        return n;
                    }
                }
            }
            return -1;
        }
        long need = (long) members * st.g;
        for (long k = need, top = Math.min(64, ci.maxGpusPerNode); k <= top; k++) {
            BitSet b = ci.byFreeGpus[(int) k];
            for (int n = b.nextSetBit(0); n >= 0; n = b.nextSetBit(n + 1)) {
                if (!used.contains(n) && st.ok(n) && cap.membersFit(n, st.req, st.g) >= members) {
                    return n;
                }
            }
        }
        return -1;
    }

    private int largestNode(CapacityPlan.ClusterIndex ci, PlaceState st, Set<Integer> used) {
        if (st.g == 0) {
            int best = -1;
            int bestFit = 0;
            for (int n = ci.members.nextSetBit(0); n >= 0; n = ci.members.nextSetBit(n + 1)) {
                if (!used.contains(n) && st.ok(n)) {
                    int f = cap.membersFit(n, st.req, 0);
                    if (f > bestFit) {
                        best = n;
                        bestFit = f;
                    }
                }
            }
            return best;
        }
        for (int k = 64; k >= st.g; k--) {
            BitSet b = ci.byFreeGpus[k];
            for (int n = b.nextSetBit(0); n >= 0; n = b.nextSetBit(n + 1)) {
                if (!used.contains(n) && st.ok(n) && cap.membersFit(n, st.req, st.g) >= 1) {
                    return n;
                }
            }
        }
        return -1;
    }

    /** One member per node, the nodes with most room first; round after round until all are placed. */
    private boolean spread(CapacityPlan.ClusterIndex ci, PlaceState st) {
        Savepoint sp = st.save();
        Set<Integer> used = new HashSet<>();
        while (st.remaining() > 0) {
            int n = largestNode(ci, st, used);
            if (n < 0) {
                used.clear(); // every node with room has one member: go round again
                n = largestNode(ci, st, used);
                if (n < 0) {
                    st.restore(sp);
                    return false;
                }
            }
            used.add(n);
            st.put(n, 1);
        }
        return true;
    }

    // ------------------------------------------------------------------ first fit

    /** Nodes in order, as many members as fit on each, lowest GPU indexes; required constraints hold. */
    private boolean firstFit(CapacityPlan.ClusterIndex ci, PlaceState st, int top) {
        int host = ci.levels.size();
        if (top == host) {
            for (int n = ci.members.nextSetBit(0); n >= 0; n = ci.members.nextSetBit(n + 1)) {
                if (st.ok(n) && cap.membersFit(n, st.req, st.g) >= st.m
                        && (st.g == 0 || cap.shapes[n].chooseFirstFit(cap.freeGpuMask[n], st.m * st.g, st.nvlink) != 0)) {
                    st.put(n, st.m);
                    return true;
                }
            }
            return false;
        }
        if (top >= 0) {
            for (int[] nodes : ci.domainNodes[top]) {
                Savepoint sp = st.save();
                if (firstFitNodes(nodes, st) == st.m) {
                    return true;
                }
                st.restore(sp);
            }
            return false;
        }
        Savepoint sp = st.save();
        int want = st.remaining();
        int placed = 0;
        BitSet full = ci.byFreeGpus[0];
        int n = ci.members.nextSetBit(0);
        while (n >= 0 && placed < want) {
            if (st.g > 0) {
                n = full.nextClearBit(n); // skip nodes without a free GPU
                if (n >= cap.nodes.length) {
                    break;
                }
                if (!ci.members.get(n)) {
                    n = ci.members.nextSetBit(n + 1);
                    continue;
                }
            }
            if (st.ok(n)) {
                int k = Math.min(want - placed, cap.membersFit(n, st.req, st.g));
                if (k > 0) {
                    st.put(n, k);
                    placed += k;
                }
            }
            n = ci.members.nextSetBit(n + 1);
        }
        if (placed == want) {
            return true;
        }
        st.restore(sp);
        return false;
    }

    private int firstFitNodes(int[] nodes, PlaceState st) {
        for (int n : nodes) {
            if (st.remaining() == 0) {
                break;
            }
            if (st.ok(n)) {
                int k = Math.min(st.remaining(), cap.membersFit(n, st.req, st.g));
                if (k > 0) {
                    st.put(n, k);
                }
            }
        }
        return st.placed;
    }

    // ------------------------------------------------------------------ reasons

    private PendingReason failure(CapacityPlan.ClusterIndex ci, PlaceState st, int top, ResourceFlavor flavor) {
        PendingReason never = neverFits(ci, st, top, flavor);
        if (never != null) {
            return never;
        }
        PodSet ps = st.ps;
        long gpus = (long) st.m * st.g;
        if (st.nvlink) {
            return new PendingReason(PendingReason.Code.NO_FITTING_TOPOLOGY, "pod set \"" + ps.name() + "\": no node has " + gpus
                    + " free GPUs in one NVLink domain now; at most " + cap.largestFree() + " GPUs are free on one node",
                    Map.of("neededGpus", gpus, "largestFreeOnOneNode", (long) cap.largestFree()));
        }
        if (top == ci.levels.size()) {
            return new PendingReason(PendingReason.Code.NO_FITTING_TOPOLOGY, "pod set \"" + ps.name() + "\": no node has room for all "
                    + st.m + " members now; at most " + cap.largestFree() + " GPUs are free on one node",
                    Map.of("neededGpus", gpus, "largestFreeOnOneNode", (long) cap.largestFree()));
        }
        if (top >= 0) {
            String lvl = ci.levels.get(top);
            long maxFree = 0;
            for (long f : ci.domainFree[top]) {
                maxFree = Math.max(maxFree, f);
            }
            return new PendingReason(PendingReason.Code.NO_FITTING_TOPOLOGY, "pod set \"" + ps.name() + "\" needs " + st.m + " members ("
                    + gpus + " GPUs) in one " + lvl + "; at most " + maxFree + " GPUs are free in one " + lvl + " now",
                    Map.of("neededGpus", gpus, "largestFreeInDomain", maxFree));
        }
        String need = st.g > 0 ? gpus + " GPUs" : st.m + " members of " + ps.resources();
        return new PendingReason(PendingReason.Code.INSUFFICIENT_CAPACITY, "pod set \"" + ps.name() + "\" needs " + need
                + " on matching nodes; " + cap.freeGpus + " GPUs are free, at most " + cap.largestFree() + " on one node",
                Map.of("neededGpus", gpus, "freeGpus", cap.freeGpus, "largestFreeOnOneNode", (long) cap.largestFree()));
    }

    /**
     * The reason a pod set can never be placed in this cluster, or null: even with every matching node empty
     * (cordoned ones included), no domain of the constrained level holds it.
     */
    private PendingReason neverFits(CapacityPlan.ClusterIndex ci, PlaceState st, int top, ResourceFlavor flavor) {
        List<Object> key = Arrays.asList(ci.name, st.ps, flavor, top);
        if (neverCache.containsKey(key)) {
            return neverCache.get(key);
        }
        int host = ci.levels.size();
        long[] perDomain = top >= 0 && top < host ? new long[ci.domainNodes[top].length] : null;
        long best = 0;
        long total = 0;
        for (int n = ci.members.nextSetBit(0); n >= 0; n = ci.members.nextSetBit(n + 1)) {
            if (!st.filter.matches(cap.nodes[n])) {
                continue;
            }
            long c = capacityMembers(n, st);
            best = Math.max(best, c);
            total += c;
            if (perDomain != null) {
                perDomain[ci.domainOf[top][n]] += c;
            }
        }
        String ps = "pod set \"" + st.ps.name() + "\"";
        long gpus = (long) st.m * st.g;
        PendingReason r = null;
        if (top == host && best < st.m) {
            r = new PendingReason(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, ps + " needs " + st.m + " members (" + gpus + " GPUs) on one node"
                    + (st.nvlink ? " in one NVLink domain" : "") + "; even empty, the largest matching node of cluster " + ci.name
                    + " holds " + best, Map.of("neededMembers", (long) st.m, "largestDomainMembers", best));
        } else if (perDomain != null) {
            long largest = Arrays.stream(perDomain).max().orElse(0);
            if (largest < st.m) {
                String lvl = ci.levels.get(top);
                r = new PendingReason(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, ps + " needs " + st.m + " members (" + gpus
                        + " GPUs) in one " + lvl + "; even empty, the largest " + lvl + " of cluster " + ci.name + " holds " + largest,
                        Map.of("neededMembers", (long) st.m, "largestDomainMembers", largest));
            }
        } else if (top < 0 && total < st.m) {
            r = new PendingReason(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, ps + " needs " + st.m + " members (" + gpus
                    + " GPUs); even empty, the matching nodes of cluster " + ci.name + " hold " + total,
                    Map.of("neededMembers", (long) st.m, "largestDomainMembers", total));
        }
        neverCache.put(key, r);
        return r;
    }

    /** Members a node could hold when empty (for an NVLink constraint: in its largest NVLink domain). */
    private long capacityMembers(int n, PlaceState st) {
        long c = Long.MAX_VALUE;
        for (int r = 0; r < st.req.length && r < cap.width; r++) {
            if (st.req[r] > 0 && r != cap.resources.gpu) {
                c = Math.min(c, cap.nodes[n].capacity().get(cap.resources.name(r)) / st.req[r]);
            }
        }
        if (st.g > 0) {
            GpuShape shape = cap.shapes[n];
            c = Math.min(c, (st.nvlink ? shape.largestNvlinkDomain() : shape.size()) / st.g);
        }
        return c == Long.MAX_VALUE ? Integer.MAX_VALUE : c;
    }

    // ------------------------------------------------------------------ state

    private record Savepoint(int capMark, int out, int taken, int placed) {
    }

    /** Per pod set working state. */
    private final class PlaceState {
        final PodSet ps;
        final int m;
        final int g;
        final long[] req;
        final NodeFilter filter;
        final boolean nvlink;
        final List<MemberPlacement> out;
        final List<Taken> taken;
        int placed;

        PlaceState(PodSet ps, int m, int g, long[] req, NodeFilter filter, boolean nvlink, List<MemberPlacement> out, List<Taken> taken) {
            this.ps = ps;
            this.m = m;
            this.g = g;
            this.req = req;
            this.filter = filter;
            this.nvlink = nvlink;
            this.out = out;
            this.taken = taken;
        }

        int remaining() {
            return m - placed;
        }

        boolean ok(int node) {
            return cap.schedulable[node] && filter.matches(cap.nodes[node]);
        }

        Savepoint save() {
            return new Savepoint(cap.mark(), out.size(), taken.size(), placed);
        }

        void restore(Savepoint sp) {
            cap.rollbackTo(sp.capMark());
            out.subList(sp.out(), out.size()).clear();
            taken.subList(sp.taken(), taken.size()).clear();
            placed = sp.placed();
        }

        /** Places k members on the node, choosing their GPUs together. */
        void put(int node, int k) {
            long mask = 0;
            if (g > 0) {
                GpuShape shape = cap.shapes[node];
                mask = strategy == PlacementStrategy.FIRST_FIT
                        ? shape.chooseFirstFit(cap.freeGpuMask[node], k * g, nvlink)
                        : shape.choose(cap.freeGpuMask[node], k * g, nvlink);
            }
            put(node, k, mask);
        }

        void put(int node, int k, long mask) {
            GpuShape shape = cap.shapes[node];
            if (g > 0 && Long.bitCount(mask) != k * g) {
                throw new IllegalStateException("no set of " + k * g + " GPUs on " + cap.nodes[node].name());
            }
            long[] total = new long[req.length];
            for (int r = 0; r < req.length; r++) {
                total[r] = req[r] * k;
            }
            cap.take(node, total, mask);
            taken.add(new Taken(node, total, mask));
            long left = mask;
            for (int i = 0; i < k; i++) {
                long sub = 0;
                if (g > 0) {
                    sub = strategy == PlacementStrategy.FIRST_FIT ? shape.chooseFirstFit(left, g, false) : shape.choose(left, g, false);
                }
                left &= ~sub;
                out.add(new MemberPlacement(ps.name(), placed++, cap.nodes[node].name(), shape.indexes(sub)));
            }
        }
    }

    // ------------------------------------------------------------------ description

    public Placement describePublic(JobSpec job, List<MemberPlacement> members) {
        return describe(job, members);
    }

    /**
     * Locality and throughput factor of a finished placement: one NVLink domain, one node, one domain of the
     * narrowest level above the host (a rack), or beyond.
     */
    private Placement describe(JobSpec job, List<MemberPlacement> members) {
        Set<String> nodes = Placement.nodesOf(members);
        Locality loc;
        if (nodes.size() <= 1) {
            loc = Locality.NVLINK_DOMAIN;
            if (nodes.size() == 1) {
                int n = cap.nodeIndex.get(nodes.iterator().next());
                long mask = 0;
                for (MemberPlacement mp : members) {
                    mask |= cap.shapes[n].maskOf(mp.gpus());
                }
                if (!cap.shapes[n].inOneNvlinkDomain(mask)) {
                    loc = Locality.NODE;
                }
            }
        } else {
            loc = sameNarrowestDomain(nodes) ? Locality.RACK : Locality.CLUSTER;
        }
        return new Placement(members, loc, job.sensitivity().factor(loc));
    }

    private boolean sameNarrowestDomain(Set<String> nodes) {
        int first = -1;
        int domain = -1;
        for (String name : nodes) {
            int n = cap.nodeIndex.get(name);
            CapacityPlan.ClusterIndex ci = cap.clusters.get(cap.clusterOf[n]);
            if (first >= 0 && cap.clusterOf[first] != cap.clusterOf[n]) {
                return false;
            }
            if (ci.levels.isEmpty()) {
                first = n;
                continue; // no topology known: the cluster counts as one rack
            }
            int d = ci.domainOf[ci.levels.size() - 1][n];
            if (first < 0) {
                first = n;
                domain = d;
            } else if (d != domain) {
                return false;
            }
        }
        return true;
    }

    /** Which nodes a pod set may use: its node selector, its flavor's labels, and tolerations for the taints. */
    static final class NodeFilter {
        private final Map<String, String> selector;
        private final Map<String, String> flavorLabels;
        private final List<Toleration> tolerations;

        NodeFilter(PodSet ps, ResourceFlavor flavor) {
            this.selector = ps.nodeSelector();
            this.flavorLabels = flavor == null ? Map.of() : flavor.nodeLabels();
            if (flavor == null || flavor.tolerations().isEmpty()) {
                this.tolerations = ps.tolerations();
            } else {
                List<Toleration> t = new ArrayList<>(ps.tolerations());
                t.addAll(flavor.tolerations());
                this.tolerations = t;
            }
        }

        boolean matches(Node n) {
            for (Map.Entry<String, String> e : selector.entrySet()) {
                if (!e.getValue().equals(n.label(e.getKey()))) {
                    return false;
                }
            }
            for (Map.Entry<String, String> e : flavorLabels.entrySet()) {
                if (!e.getValue().equals(n.label(e.getKey()))) {
                    return false;
                }
            }
            return n.taints().isEmpty() || Toleration.toleratesAll(tolerations, n.taints());
        }
    }
}
