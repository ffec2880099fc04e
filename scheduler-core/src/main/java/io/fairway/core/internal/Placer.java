package io.fairway.core.internal;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Toleration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The default gang placement on a {@link CapacityPlan}: all members or none, in one cluster; the fewest
 * nodes (best fit first, then the largest free nodes); the GPUs of one node chosen together for the best
 * links; topology-level constraints (required or preferred) by best-fit domain; NVLink-domain constraints.
 */
public final class Placer {
    private final CapacityPlan cap;

    Placer(CapacityPlan cap) {
        this.cap = cap;
    }

    /** A successful placement, with what it took (for release). */
    record Result(Placement placement, List<Taken> taken) {
    }

    /** Capacity taken on one node. */
    record Taken(int node, long[] req, long gpuMask) {
    }

    /** The outcome: a result or a reason. */
    record Outcome(Result result, PendingReason reason) {
    }

    /**
     * Finds and takes a placement.
     *
     * @param job the job
     * @param counts members per pod set
     * @param flavors flavor per pod set (may be empty)
     * @return the placement taken, or the reason none exists now
     */
    Outcome place(JobSpec job, Map<String, Integer> counts, Map<String, ResourceFlavor> flavors) {
        PendingReason lastReason = null;
        for (CapacityPlan.ClusterIndex ci : cap.clusters) {
            cap.begin();
            List<MemberPlacement> members = new ArrayList<>();
            List<Taken> taken = new ArrayList<>();
            PendingReason failed = null;
            for (PodSet ps : job.podSets()) {
                int m = counts.getOrDefault(ps.name(), ps.count());
                PendingReason r = placePodSet(ci, job, ps, m, flavors.get(ps.name()), members, taken);
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
            lastReason = failed;
        }
        if (lastReason == null) {
            lastReason = PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "the cluster has no nodes");
        }
        return new Outcome(null, lastReason);
    }

    private PendingReason placePodSet(CapacityPlan.ClusterIndex ci, JobSpec job, PodSet ps, int m, ResourceFlavor flavor,
                                      List<MemberPlacement> out, List<Taken> taken) {
        long[] req = cap.resources.vector(ps.resources());
        for (int r = cap.width; r < req.length; r++) {
            if (req[r] > 0) {
                return PendingReason.of(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN,
                        "pod set \"" + ps.name() + "\" needs " + cap.resources.name(r) + ", which no node has");
            }
        }
        int g = (int) ps.resources().gpus();
        if (g > ci.maxGpusPerNode) {
            return PendingReason.of(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, "pod set \"" + ps.name() + "\": each member needs "
                    + g + " GPUs; the largest node of cluster " + ci.name + " has " + ci.maxGpusPerNode);
        }
        NodeFilter filter = new NodeFilter(ps, flavor);
        TopologyRequest t = ps.topology();
        PlaceState st = new PlaceState(ps, m, g, req, filter, out, taken);
        if (t.sameNvlinkDomain()) {
            if ((long) m * g > ci.maxGpusPerNode) {
                return PendingReason.of(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, "pod set \"" + ps.name() + "\" needs "
                        + (long) m * g + " GPUs in one NVLink domain; the largest node has " + ci.maxGpusPerNode);
            }
            return singleNode(ci, st, true) ? null : PendingReason.of(PendingReason.Code.NO_FITTING_TOPOLOGY,
                    "pod set \"" + ps.name() + "\": no node has " + (long) m * g + " free GPUs in one NVLink domain");
        }
        if (Node.HOSTNAME_LABEL.equals(t.level())) {
            if (singleNode(ci, st, false)) {
                return null;
            }
            return t.required() ? PendingReason.of(PendingReason.Code.NO_FITTING_TOPOLOGY,
                    "pod set \"" + ps.name() + "\": no node can hold all " + m + " members") : greedyOrReason(ci, st);
        }
        int level = t.level() == null ? -1 : ci.levels.indexOf(t.level());
        if (t.level() != null && level < 0) {
            if (t.required()) {
                return PendingReason.of(PendingReason.Code.NO_FITTING_TOPOLOGY, "pod set \"" + ps.name() + "\" requires topology level "
                        + t.level() + ", which cluster " + ci.name + " does not define (levels: " + ci.levels + ")");
            }
        }
        if (t.spread()) {
            return spread(ci, st) ? null : capacityReason(ps, m, g);
        }
        if (level < 0 && t.level() == null && !ci.levels.isEmpty() && (long) m * g > cap.largestFree()) {
            level = ci.levels.size() - 1; // multi-node gang: prefer the narrowest level (a rack) by default
        }
        if (level >= 0) {
            if (inBestDomain(ci, level, st)) {
                return null;
            }
            if (t.required()) {
                return domainReason(ci, level, ps, m, g);
            }
        }
        return greedyOrReason(ci, st);
    }

    private PendingReason greedyOrReason(CapacityPlan.ClusterIndex ci, PlaceState st) {
        return greedy(ci, null, st) ? null : capacityReason(st.ps, st.m, st.g);
    }

    private PendingReason capacityReason(PodSet ps, int m, int g) {
        String need = g > 0 ? (long) m * g + " GPUs" : m + " members of " + ps.resources();
        return new PendingReason(PendingReason.Code.INSUFFICIENT_CAPACITY, "pod set \"" + ps.name() + "\" needs " + need
                + " on matching nodes; " + cap.freeGpus + " GPUs are free, at most " + cap.largestFree() + " on one node",
                Map.of("neededGpus", (long) m * g, "freeGpus", cap.freeGpus, "largestFreeOnOneNode", (long) cap.largestFree()));
    }

    private PendingReason domainReason(CapacityPlan.ClusterIndex ci, int level, PodSet ps, int m, int g) {
        long biggestDomainTotal = 0;
        for (int[] nodes : ci.domainNodes[level]) {
            long total = 0;
            for (int n : nodes) {
                total += cap.shapes[n].size();
            }
            biggestDomainTotal = Math.max(biggestDomainTotal, total);
        }
        String lvl = ci.levels.get(level);
        if ((long) m * g > biggestDomainTotal) {
            return new PendingReason(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN, "pod set \"" + ps.name() + "\" needs "
                    + (long) m * g + " GPUs in one " + lvl + "; the largest " + lvl + " has " + biggestDomainTotal,
                    Map.of("neededGpus", (long) m * g, "largestDomainGpus", biggestDomainTotal));
        }
        long maxFree = 0;
        for (long f : ci.domainFree[level]) {
            maxFree = Math.max(maxFree, f);
        }
        return new PendingReason(PendingReason.Code.NO_FITTING_TOPOLOGY, "pod set \"" + ps.name() + "\" needs " + (long) m * g
                + " GPUs in one " + lvl + "; at most " + maxFree + " are free in one " + lvl,
                Map.of("neededGpus", (long) m * g, "largestFreeInDomain", maxFree));
    }

    /** Per pod set working state. */
    private final class PlaceState {
        final PodSet ps;
        final int m;
        final int g;
        final long[] req;
        final NodeFilter filter;
        final List<MemberPlacement> out;
        final List<Taken> taken;
        int placed;

        PlaceState(PodSet ps, int m, int g, long[] req, NodeFilter filter, List<MemberPlacement> out, List<Taken> taken) {
            this.ps = ps;
            this.m = m;
            this.g = g;
            this.req = req;
            this.filter = filter;
            this.out = out;
            this.taken = taken;
        }

        int remaining() {
            return m - placed;
        }

        boolean ok(int node) {
            return cap.schedulable[node] && filter.matches(cap.nodes[node]);
        }

        /** Places k members on the node, choosing their GPUs together. */
        void put(int node, int k, boolean nvlink) {
            long mask = 0;
            GpuShape shape = cap.shapes[node];
            if (g > 0) {
                mask = shape.choose(cap.freeGpuMask[node], k * g, nvlink);
                if (mask == 0) {
                    throw new IllegalStateException("no GPU set on " + cap.nodes[node].name());
                }
            }
            long[] total = new long[req.length];
            for (int r = 0; r < req.length; r++) {
                total[r] = req[r] * k;
            }
            cap.take(node, total, mask);
            taken.add(new Taken(node, total, mask));
            long left = mask;
            for (int i = 0; i < k; i++) {
                long sub = g > 0 ? shape.choose(left, g, false) : 0;
                left &= ~sub;
                out.add(new MemberPlacement(ps.name(), placed++, cap.nodes[node].name(), shape.indexes(sub)));
            }
        }
    }

    private boolean singleNode(CapacityPlan.ClusterIndex ci, PlaceState st, boolean nvlink) {
        int need = st.m * st.g;
        if (st.g == 0) {
            for (int n = ci.members.nextSetBit(0); n >= 0; n = ci.members.nextSetBit(n + 1)) {
                if (st.ok(n) && cap.membersFit(n, st.req, 0) >= st.m) {
                    st.put(n, st.m, false);
                    return true;
                }
            }
            return false;
        }
        for (int k = need; k <= 64; k++) {
            BitSet b = ci.byFreeGpus[k];
            for (int n = b.nextSetBit(0); n >= 0; n = b.nextSetBit(n + 1)) {
                if (st.ok(n) && cap.membersFit(n, st.req, st.g) >= st.m
                        && (!nvlink || cap.shapes[n].choose(cap.freeGpuMask[n], need, true) != 0)) {
                    st.put(n, st.m, nvlink);
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Fewest nodes: while the rest does not fit one node, take the node with the most free GPUs; then the
     * smallest node that holds the rest (best fit). {@code scope} null means the whole cluster.
     */
    private boolean greedy(CapacityPlan.ClusterIndex ci, int[] scope, PlaceState st) {
        int startPlaced = st.placed;
        int startOut = st.out.size();
        int startTaken = st.taken.size();
        int mark = cap.mark();
        Set<Integer> used = new java.util.HashSet<>();
        while (st.remaining() > 0) {
            int rest = st.remaining();
            int node = bestFit(ci, scope, st, rest, used);
            if (node >= 0) {
                st.put(node, rest, false);
                return true;
            }
            node = largest(ci, scope, st, used);
            if (node < 0) {
                // undo this pod set's partial placement in this scope
                cap.rollbackTo(mark);
                while (st.taken.size() > startTaken) {
                    st.taken.remove(st.taken.size() - 1);
                }
                while (st.out.size() > startOut) {
                    st.out.remove(st.out.size() - 1);
                }
                st.placed = startPlaced;
                return false;
            }
            used.add(node);
            st.put(node, Math.min(rest, cap.membersFit(node, st.req, st.g)), false);
        }
        return true;
    }

    private int bestFit(CapacityPlan.ClusterIndex ci, int[] scope, PlaceState st, int members, Set<Integer> used) {
        if (st.g == 0 || scope != null) {
            int best = -1;
            int bestFree = Integer.MAX_VALUE;
            if (scope == null) {
                // CPU-only members: nodes without GPUs first, then the rest, first fit
                for (BitSet set : new BitSet[] {ci.cpuOnly, ci.members}) {
                    for (int n = set.nextSetBit(0); n >= 0; n = set.nextSetBit(n + 1)) {
                        if (!used.contains(n) && st.ok(n) && cap.membersFit(n, st.req, 0) >= members) {
                            return n;
                        }
                    }
                }
                return -1;
            }
            for (int n : scope) {
                if (!used.contains(n) && st.ok(n) && cap.membersFit(n, st.req, st.g) >= members) {
                    int f = cap.freeGpuCount(n);
                    if (f < bestFree) {
                        best = n;
                        bestFree = f;
                    }
                }
            }
            return best;
        }
        long need = (long) members * st.g;
        for (long k = need; k <= 64; k++) {
            BitSet b = ci.byFreeGpus[(int) k];
            for (int n = b.nextSetBit(0); n >= 0; n = b.nextSetBit(n + 1)) {
                if (!used.contains(n) && st.ok(n) && cap.membersFit(n, st.req, st.g) >= members) {
                    return n;
                }
            }
        }
        return -1;
    }

    private int largest(CapacityPlan.ClusterIndex ci, int[] scope, PlaceState st, Set<Integer> used) {
        if (st.g == 0 || scope != null) {
            int best = -1;
            int bestFit = 0;
            Iterable<Integer> nodes = scope != null ? () -> java.util.Arrays.stream(scope).iterator() : () -> ci.members.stream().iterator();
            for (int n : nodes) {
                if (!used.contains(n) && st.ok(n)) {
                    int f = cap.membersFit(n, st.req, st.g);
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

    private boolean spread(CapacityPlan.ClusterIndex ci, PlaceState st) {
        Set<Integer> used = new java.util.HashSet<>();
        while (st.remaining() > 0) {
            int n = largest(ci, null, st, used);
            if (n < 0) {
                used.clear(); // every node has one member: go round again
                n = largest(ci, null, st, used);
                if (n < 0) {
                    return false;
                }
            }
            used.add(n);
            st.put(n, 1, false);
        }
        return true;
    }

    /** Tries the domains of a level in best-fit order (least free GPUs that could hold the pod set first). */
    private boolean inBestDomain(CapacityPlan.ClusterIndex ci, int level, PlaceState st) {
        long need = (long) st.remaining() * st.g;
        long[] freeByDomain = ci.domainFree[level];
        Integer[] order = new Integer[freeByDomain.length];
        for (int d = 0; d < order.length; d++) {
            order[d] = d;
        }
        java.util.Arrays.sort(order, (a, b) -> {
            int c = Long.compare(freeByDomain[a], freeByDomain[b]);
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int d : order) {
            if (freeByDomain[d] < need) {
                continue;
            }
            if (greedy(ci, ci.domainNodes[level][d], st)) {
                return true;
            }
        }
        return false;
    }

    Placement describePublic(JobSpec job, List<MemberPlacement> members) {
        return describe(job, members);
    }

    /** Locality and throughput factor of a finished placement. */
    private Placement describe(JobSpec job, List<MemberPlacement> members) {
        Set<String> nodes = new LinkedHashSet<>();
        for (MemberPlacement mp : members) {
            nodes.add(mp.node());
        }
        Locality loc;
        if (nodes.size() <= 1) {
            loc = Locality.NVLINK_DOMAIN;
            if (nodes.size() == 1) {
                int n = cap.nodeIndex.get(nodes.iterator().next());
                long mask = 0;
                for (MemberPlacement mp : members) {
                    for (int gi : mp.gpus()) {
                        mask |= 1L << cap.shapes[n].positionOf(gi);
                    }
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
            if (ci.levels.isEmpty()) {
                return true; // no topology known: treat the cluster as one rack
            }
            int d = ci.domainOf[ci.levels.size() - 1][n];
            if (first < 0) {
                first = n;
                domain = d;
            } else if (d != domain || cap.clusterOf[first] != cap.clusterOf[n]) {
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
