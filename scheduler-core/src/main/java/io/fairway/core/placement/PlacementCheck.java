package io.fairway.core.placement;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a given placement against every invariant and, when it holds, takes its capacity: nodes exist and
 * are schedulable and match the pod set (selector, flavor, taints); each member's GPUs exist, are free, are
 * not given twice and number exactly what it asks; resources fit; members are indexed 0..m-1 once each; the
 * gang is in one cluster; required topology holds.
 */
public final class PlacementCheck {
    public record Result(Placement placement, List<Placer.Taken> taken, String error) {
    }

    private PlacementCheck() {
    }

    /**
     * Checks a placement a policy supplied and, when it holds, takes its capacity.
     *
     * @param cap the plan's capacity
     * @param job the job
     * @param placement where each member runs
     * @param flavors the flavor per pod set
     * @return the placement taken (described), or the first constraint it breaks
     */
    public static Result takeIfValid(CapacityPlan cap, JobSpec job, Placement placement, Map<String, ResourceFlavor> flavors) {
        return takeIfValid(cap, job, placement, flavors, Set.of());
    }

    /**
     * @param cap the plan's capacity
     * @param job the job
     * @param placement where each member runs
     * @param flavors the flavor per pod set
     * @param staying members that already run where they are (a resize keeps them): a cordon of their node does not
     *     move them, so it is not held against them
     * @return the placement taken (described), or the first constraint it breaks
     */
    public static Result takeIfValid(CapacityPlan cap, JobSpec job, Placement placement, Map<String, ResourceFlavor> flavors,
                              Set<MemberPlacement> staying) {
        ResourceIndex resources = cap.resources;
        cap.begin();
        String error = check(cap, resources, job, placement, flavors, staying);
        if (error != null) {
            cap.rollback();
            return new Result(null, List.of(), error);
        }
        List<Placer.Taken> taken = new ArrayList<>();
        error = take(cap, resources, job, placement, taken);
        if (error != null) {
            cap.rollback();
            return new Result(null, List.of(), error);
        }
        cap.commit();
        return new Result(new Placer(cap).describe(job, placement.members()), taken, null);
    }

    /**
     * The constraints of a whole placement without its capacity: known nodes, not cordoned (members that stay are
     * exempt), one cluster, selectors and taints, member indexes and counts, required topology.
     *
     * @return the first constraint broken, or null
     */
    public static String constraintError(CapacityPlan cap, JobSpec job, Placement placement, Map<String, ResourceFlavor> flavors,
                                  Set<MemberPlacement> staying) {
        return check(cap, cap.resources, job, placement, flavors, staying);
    }

    private static String check(CapacityPlan cap, ResourceIndex resources, JobSpec job, Placement placement,
                                Map<String, ResourceFlavor> flavors, Set<MemberPlacement> staying) {
        Map<String, PodSet> podSets = new HashMap<>();
        for (PodSet ps : job.podSets()) {
            podSets.put(ps.name(), ps);
        }
        Map<String, Set<Integer>> indexes = new HashMap<>();
        int cluster = -1;
        for (MemberPlacement mp : placement.members()) {
            PodSet ps = podSets.get(mp.podSet());
            if (ps == null) {
                return "member of unknown pod set \"" + mp.podSet() + "\"";
            }
            if (!indexes.computeIfAbsent(mp.podSet(), k -> new HashSet<>()).add(mp.index())) {
                return "pod set \"" + mp.podSet() + "\": member " + mp.index() + " placed twice";
            }
            Integer n = cap.nodeIndex.get(mp.node());
            if (n == null) {
                return "node " + mp.node() + " does not exist";
            }
            if (!cap.schedulable[n] && !staying.contains(mp)) {
                return "node " + mp.node() + " is cordoned";
            }
            if (cluster < 0) {
                cluster = cap.clusterOf[n];
            } else if (cluster != cap.clusterOf[n]) {
                return "a gang must land in one cluster; members are in " + cap.clusters.get(cluster).name + " and "
                        + cap.clusters.get(cap.clusterOf[n]).name;
            }
            if (!new NodeFilter(ps, flavors.get(ps.name())).matches(cap.nodes[n])) {
                return "node " + mp.node() + " does not match pod set \"" + ps.name() + "\" (selector, flavor or taints)";
            }
            if (mp.gpus().size() != ps.resources().gpus()) {
                return "pod set \"" + ps.name() + "\" member " + mp.index() + ": " + mp.gpus().size() + " GPUs given, "
                        + ps.resources().gpus() + " needed";
            }
            if (new HashSet<>(mp.gpus()).size() != mp.gpus().size()) {
                return "member " + mp.index() + " is given GPU twice on " + mp.node();
            }
        }
        for (PodSet ps : job.podSets()) {
            Set<Integer> idx = indexes.getOrDefault(ps.name(), Set.of());
            for (int i = 0; i < idx.size(); i++) {
                if (!idx.contains(i)) {
                    return "pod set \"" + ps.name() + "\": member indexes must be 0.." + (idx.size() - 1);
                }
            }
            if (idx.size() < ps.minCount() || idx.size() > ps.count()) {
                return "pod set \"" + ps.name() + "\": " + idx.size() + " members placed, needs " + ps.minCount() + ".." + ps.count()
                        + " (a gang is placed whole or not at all)";
            }
            String topo = topologyError(cap, ps, placement);
            if (topo != null) {
                return topo;
            }
        }
        return null;
    }

    private static String topologyError(CapacityPlan cap, PodSet ps, Placement placement) {
        TopologyRequest t = ps.topology();
        if (!t.required()) {
            return null;
        }
        Set<Integer> nodes = new HashSet<>();
        for (MemberPlacement mp : placement.members()) {
            if (mp.podSet().equals(ps.name())) {
                nodes.add(cap.nodeIndex.get(mp.node()));
            }
        }
        if (nodes.isEmpty()) {
            return null;
        }
        if (t.sameNvlinkDomain() || Node.HOSTNAME_LABEL.equals(t.level())) {
            if (nodes.size() > 1) {
                return "pod set \"" + ps.name() + "\" must be on one node" + (t.sameNvlinkDomain() ? " (one NVLink domain)" : "");
            }
            if (t.sameNvlinkDomain()) {
                int n = nodes.iterator().next();
                long mask = 0;
                for (MemberPlacement mp : placement.members()) {
                    if (mp.podSet().equals(ps.name())) {
                        for (int g : mp.gpus()) {
                            mask |= 1L << cap.shapes[n].positionOf(g);
                        }
                    }
                }
                if (!cap.shapes[n].inOneNvlinkDomain(mask)) {
                    return "pod set \"" + ps.name() + "\": GPUs are not in one NVLink domain";
                }
            }
            return null;
        }
        int first = nodes.iterator().next();
        CapacityPlan.ClusterIndex ci = cap.clusters.get(cap.clusterOf[first]);
        int level = ci.levels.indexOf(t.level());
        if (level < 0) {
            return "pod set \"" + ps.name() + "\" requires topology level " + t.level() + ", which cluster " + ci.name + " lacks";
        }
        int d = ci.domainOf[level][first];
        for (int n : nodes) {
            if (ci.domainOf[level][n] != d) {
                return "pod set \"" + ps.name() + "\" must be in one " + t.level() + "; members span several";
            }
        }
        return null;
    }

    private static String take(CapacityPlan cap, ResourceIndex resources, JobSpec job, Placement placement, List<Placer.Taken> taken) {
        Map<String, long[]> reqs = new HashMap<>();
        for (PodSet ps : job.podSets()) {
            reqs.put(ps.name(), resources.vector(ps.resources()));
        }
        for (MemberPlacement mp : placement.members()) {
            int n = cap.nodeIndex.get(mp.node());
            long[] req = reqs.get(mp.podSet());
            for (int r = cap.width; r < req.length; r++) {
                if (req[r] > 0) {
                    return "no node has " + resources.name(r);
                }
            }
            long mask = 0;
            for (int g : mp.gpus()) {
                int pos = cap.shapes[n].positionOf(g);
                if (pos < 0) {
                    return "node " + mp.node() + " has no GPU " + g;
                }
                if ((cap.freeGpuMask[n] & (1L << pos)) == 0) {
                    return "GPU " + g + " of node " + mp.node() + " is not free (a GPU belongs to at most one job)";
                }
                mask |= 1L << pos;
            }
            for (int r = 0; r < req.length; r++) {
                if (r != resources.gpu && req[r] > cap.free(n, r)) {
                    return "node " + mp.node() + " has " + cap.free(n, r) + " " + resources.name(r) + " free, member needs " + req[r];
                }
            }
            cap.take(n, req, mask);
            taken.add(new Placer.Taken(n, req, mask));
        }
        return null;
    }
}
