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
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntToLongFunction;

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
    private final PlacementFailure failures;
    /** While true ({@link #placeIfPossible}), a failure is not explained: one shared answer stands for every "no". */
    private boolean quiet;
    private static final PendingReason NOT_NOW = PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "no placement now");
    private final Map<Resources, long[]> vectors = new HashMap<>();

    Placer(CapacityPlan cap) {
        this(cap, PlacementStrategy.TOPOLOGY_AWARE);
    }

    public Placer(CapacityPlan cap, PlacementStrategy strategy) {
        this.cap = cap;
        this.strategy = strategy == null ? PlacementStrategy.TOPOLOGY_AWARE : strategy;
        this.failures = new PlacementFailure(cap);
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
            int shared = strategy == PlacementStrategy.TOPOLOGY_AWARE ? WholeJobDomain.sharedLevel(job, ci) : -1;
            int[] domains = shared < 0 ? new int[] {-1} : WholeJobDomain.byFit(ci, shared, job, counts);
            PendingReason failed = null;
            for (int d : domains) {
                cap.begin();
                List<MemberPlacement> members = new ArrayList<>();
                List<Taken> taken = new ArrayList<>();
                failed = null;
                for (PodSet ps : job.podSets()) {
                    int m = counts.getOrDefault(ps.name(), ps.count());
                    PendingReason r = placePodSet(ci, ps, m, flavors.get(ps.name()), members, taken, shared, d);
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
            }
            if (failed == null && quiet) {
                failed = NOT_NOW;
            } else if (failed == null) { // no domain of the shared level has room for the whole job's GPUs
                String level = ci.levels.get(shared);
                failed = PendingReason.of(ci.domainNames[shared].length == 0 || WholeJobDomain.totalGpus(job, counts) > WholeJobDomain.largest(cap, ci, shared)
                        ? PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN : PendingReason.Code.NO_FITTING_TOPOLOGY,
                        "every pod set requires " + level + ": the whole job (" + WholeJobDomain.totalGpus(job, counts) + " GPUs) must fit in one "
                                + level + " of cluster " + ci.name + ", and none can hold it now");
            }
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

    /**
     * Finds and takes a placement as {@link #place} does, without working out why there is none: for a caller that
     * only asks whether the job fits (a preemption search after each victim), the same placement or none.
     *
     * @param job the job
     * @param counts members per pod set
     * @param flavors flavor per pod set (may be empty)
     * @return the placement taken, or null when none exists now
     */
    public Result placeIfPossible(JobSpec job, Map<String, Integer> counts, Map<String, ResourceFlavor> flavors) {
        quiet = true;
        try {
            return place(job, counts, flavors).result();
        } finally {
            quiet = false;
        }
    }

    /**
     * Whether a job of these pod sets may be placed as a whole in one domain of a level all of them require
     * ({@link PlacementStrategy#TOPOLOGY_AWARE}, in every cluster that defines the level). Such a placement reads more
     * than the nodes its flavors select: which domains it tries, and whether its failure is "not now" or "never",
     * follow the free GPUs of each domain of the level counted over every node of the cluster, whatever flavor each
     * carries (and in every such cluster, also one none of the job's flavors has a node in).
     *
     * @param podSets a job's pod sets
     * @return true when the job's placement reads the free room of whole domains of every cluster with topology levels
     */
    public static boolean placesWholeJobInOneDomain(List<PodSet> podSets) {
        return WholeJobDomain.sharedLevelName(podSets) != null;
    }

    private PendingReason placePodSet(CapacityPlan.ClusterIndex ci, PodSet ps, int m, ResourceFlavor flavor,
                                      List<MemberPlacement> out, List<Taken> taken, int pinLevel, int pinDomain) {
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
        PlaceState st = new PlaceState(cap, strategy, ps, m, g, req, new NodeFilter(ps, flavor), t.sameNvlinkDomain(), out, taken);
        if (pinDomain >= 0) {
            st.pin(ci.domainOf[pinLevel], pinDomain);
        }
        if ((long) m * g > ci.freeGpus) {
            return failure(ci, st, top, flavor); // not enough free GPUs in the whole cluster: no search needed
        }
        boolean placed = strategy == PlacementStrategy.FIRST_FIT ? FirstFit.place(cap, ci, st, top) : topologyAware(ci, st, top, t.spread());
        return placed ? null : failure(ci, st, top, flavor);
    }

    /** Why the pod set cannot be placed now, or, for {@link #placeIfPossible}, the one shared "no". */
    private PendingReason failure(CapacityPlan.ClusterIndex ci, PlaceState st, int top, ResourceFlavor flavor) {
        return quiet ? NOT_NOW : failures.failure(ci, st, top, flavor);
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
        if (top == host || st.g == 0 && st.remaining() == 1) {
            return false; // one member without GPUs: the single-node scan tried every node any search could give it
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
            return singleNodeWithoutGpus(ci, st);
        }
        long need = (long) st.m * st.g;
        if (need > 64) {
            return false;
        }
        NodeChoice best = bestSingleNode(ci, st, (int) need);
        if (best.node < 0) {
            return false;
        }
        st.put(best.node, st.m, best.mask);
        return true;
    }

    /** Members without GPUs: the first node, CPU-only nodes before GPU nodes, that takes them all. */
    private boolean singleNodeWithoutGpus(CapacityPlan.ClusterIndex ci, PlaceState st) {
        BitSet drained = cap.drainedFor(st.req); // nodes where it cannot fit, skipped a run at a time
        for (BitSet set : new BitSet[] {ci.cpuOnly, ci.members}) {
            for (int n = set.nextSetBit(0); n >= 0; n = set.nextSetBit(n + 1)) {
                if (drained != null && drained.get(n)) {
                    n = drained.nextClearBit(n) - 1;
                    continue;
                }
                if (st.ok(n) && cap.membersFit(n, st.req, 0) >= st.m) {
                    st.put(n, st.m);
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Scans the nodes by free GPUs, fewest first from {@code count}, for the best node for {@code count} GPUs (the
     * order of {@link #singleNode}); stops once no later node can do better.
     */
    private NodeChoice bestSingleNode(CapacityPlan.ClusterIndex ci, PlaceState st, int count) {
        NodeChoice best = new NodeChoice(count <= ci.maxNvlinkDomain);
        int narrow = ci.levels.size() - 1;
        for (int k = count, top = Math.min(64, ci.maxGpusPerNode); k <= top; k++) { // no node has more free GPUs than its size
            BitSet bucket = ci.byFreeGpus[k];
            int extra = 0;
            for (int n = bucket.nextSetBit(0); n >= 0; n = bucket.nextSetBit(n + 1)) {
                if (best.node >= 0 && extra++ >= TIE_SCAN_LIMIT) {
                    break;
                }
                long domainFree = narrow >= 0 ? ci.domainFree[narrow][ci.domainOf[narrow][n]] : 0;
                if (best.settled()) {
                    // the best quality is already found: only a node of this bucket in a fuller rack can win
                    if (narrow < 0 || k != best.bucket) {
                        break;
                    }
                    if (domainFree >= best.domainFree) {
                        continue;
                    }
                }
                if (!st.ok(n) || cap.membersFit(n, st.req, st.g) < st.m) {
                    continue;
                }
                GpuShape shape = cap.shapes[n];
                long mask = shape.choose(cap.freeGpuMask[n], count, st.nvlink);
                if (mask != 0) {
                    double ideal = shape.idealRing(count);
                    double rel = ideal <= 0 ? 1 : Math.min(1, shape.ringScore(mask) / ideal);
                    best.offer(n, k, mask, shape.inOneNvlinkDomain(mask), rel, domainFree);
                }
            }
            if (best.settled()) {
                break; // no larger bucket can do better
            }
        }
        return best;
    }

    /** The best node found so far for a single-node placement, and the GPU set it would give. */
    private static final class NodeChoice {
        private final boolean connectedPossible;
        private int node = -1;
        private int bucket = -1;
        private long mask;
        private boolean connected;
        private double rel = -1;
        private long domainFree = Long.MAX_VALUE;

        NodeChoice(boolean connectedPossible) {
            this.connectedPossible = connectedPossible;
        }

        /** @return whether the best quality possible is found (its GPUs as connected and as well ringed as can be) */
        boolean settled() {
            return node >= 0 && rel >= 1 && (connected || !connectedPossible);
        }

        /** Takes a node whose GPU set is better, or as good and in the same bucket but a less free narrowest domain. */
        void offer(int n, int k, long m, boolean c, double r, long free) {
            boolean better;
            if (node < 0 || c != connected) {
                better = node < 0 || c;
            } else if (r != rel) {
                better = r > rel;
            } else {
                // same quality: an earlier bucket (fewer free GPUs) already wins; in one bucket the least free rack
                better = k == bucket && free < domainFree;
            }
            if (better) {
                node = n;
                bucket = k;
                mask = m;
                connected = c;
                rel = r;
                domainFree = free;
            }
        }
    }

    /**
     * Tries the domains of a level that could hold the rest, best fit first (least room that suffices). For a gang
     * of GPUs only the domains with as many GPUs free are read (by the level's index of domains by free GPUs).
     */
    private boolean inBestDomain(CapacityPlan.ClusterIndex ci, int level, PlaceState st) {
        int want = st.remaining();
        int domains = ci.domainNodes[level].length;
        long[] free = ci.domainFree[level];
        long[] est = new long[domains];
        int candidates = 0;
        Integer[] order = new Integer[domains];
        if (st.g > 0) {
            long need = (long) want * st.g; // an estimate is at most a domain's free GPUs over each member's
            BitSet[] byFree = ci.domainsByFree[level];
            for (int b = CapacityPlan.bucket(ci, level, need); b < byFree.length; b++) {
                for (int d = byFree[b].nextSetBit(0); d >= 0; d = byFree[b].nextSetBit(d + 1)) {
                    if (free[d] >= need && (est[d] = estimate(ci, level, d, st)) >= want) {
                        order[candidates++] = d;
                    }
                }
            }
        } else {
            for (int d = 0; d < domains; d++) {
                est[d] = estimate(ci, level, d, st);
                if (est[d] >= want) {
                    order[candidates++] = d;
                }
            }
        }
        Arrays.sort(order, 0, candidates, (a, b) -> {
            int c = Long.compare(est[a], est[b]);
            if (c == 0) {
                c = Long.compare(free[a], free[b]);
            }
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int i = 0; i < candidates; i++) {
            PlaceState.Savepoint sp = st.save();
            if (fillDomain(ci, level, order[i], want, st) == want) {
                return true;
            }
            st.restore(sp);
        }
        return false;
    }

    /** The whole cluster: the fewest broadest-level domains (or nodes), largest first, the last best fit. */
    private boolean fillCluster(CapacityPlan.ClusterIndex ci, PlaceState st) {
        PlaceState.Savepoint sp = st.save();
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
            IntToLongFunction estimate = i -> estimate(ci, level, children[i], st);
            int pick = bestFitElseLargest(used, rest, estimate, estimate, i -> free[children[i]]);
            if (pick < 0) {
                break;
            }
            used[pick] = true;
            placed += fillDomain(ci, level, children[pick], rest, st);
        }
        return placed;
    }

    /** Fills nodes: while none takes the rest, the one taking most; then the one with fewest free GPUs that takes the rest. */
    private int fillNodes(int[] nodes, int want, PlaceState st) {
        int placed = 0;
        boolean[] used = new boolean[nodes.length];
        IntToLongFunction fits = i -> st.ok(nodes[i]) ? cap.membersFit(nodes[i], st.req, st.g) : 0;
        while (placed < want) {
            int rest = want - placed;
            int pick = bestFitElseLargest(used, rest, fits, i -> 0, i -> cap.freeGpuCount(nodes[i]));
            if (pick < 0) {
                break;
            }
            used[pick] = true;
            int k = (int) Math.min(rest, fits.applyAsLong(pick));
            st.put(nodes[pick], k);
            placed += k;
        }
        return placed;
    }

    /**
     * The choice both levels of the topology search make: among the candidates not yet used, the first that has room
     * for all of {@code rest} and is least by {@code size} (then by {@code tie}); when none has room for it, the first
     * with the most room. Candidates without room are never chosen.
     *
     * @param used which candidates are taken already
     * @param rest the members still to place
     * @param room how many of them candidate {@code i} can take
     * @param size the best fit's first key (smaller is better)
     * @param tie the best fit's second key (smaller is better)
     * @return the candidate's index, or -1 when none has room
     */
    private static int bestFitElseLargest(boolean[] used, int rest, IntToLongFunction room, IntToLongFunction size,
            IntToLongFunction tie) {
        int fit = -1;
        long fitSize = 0;
        long fitTie = 0;
        int large = -1;
        long largeRoom = 0;
        for (int i = 0; i < used.length; i++) {
            if (used[i]) {
                continue;
            }
            long r = room.applyAsLong(i);
            if (r >= rest) {
                long sz = size.applyAsLong(i);
                long t = tie.applyAsLong(i);
                if (fit < 0 || sz < fitSize || (sz == fitSize && t < fitTie)) {
                    fit = i;
                    fitSize = sz;
                    fitTie = t;
                }
            }
            if (r > largeRoom) {
                large = i;
                largeRoom = r;
            }
        }
        return fit >= 0 ? fit : large;
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
        PlaceState.Savepoint sp = st.save();
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

    // ------------------------------------------------------------------ description

    /**
     * Locality and throughput factor of a finished placement: one NVLink domain, one node, one domain of the
     * narrowest level above the host (a rack), or beyond.
     *
     * @param job the job
     * @param members where its members run
     * @return the placement with its locality and throughput factor
     */
    public Placement describe(JobSpec job, List<MemberPlacement> members) {
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
}
