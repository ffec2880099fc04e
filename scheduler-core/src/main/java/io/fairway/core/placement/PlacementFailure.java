package io.fairway.core.placement;

import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ResourceFlavor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Why a pod set found no placement in a cluster: not now (with the free room that falls short), or never (even
 * with every matching node empty, no domain of the constrained level holds it; remembered per pod set shape and member count).
 */
final class PlacementFailure {
    private final CapacityPlan cap;
    private final Map<List<Object>, PendingReason> neverCache = new HashMap<>();

    PlacementFailure(CapacityPlan cap) {
        this.cap = cap;
    }

    PendingReason failure(CapacityPlan.ClusterIndex ci, PlaceState st, int top, ResourceFlavor flavor) {
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
        // keyed by the members tried too: an elastic pod set's smaller attempt may fit where its full size never does
        List<Object> key = Arrays.asList(ci.name, st.ps, st.m, flavor, top);
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
}
