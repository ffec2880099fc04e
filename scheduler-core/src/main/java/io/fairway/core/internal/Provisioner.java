package io.fairway.core.internal;

import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.Provision;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import io.fairway.core.Provisioning;
import io.fairway.core.Snapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Step 4 of the round: nodes for admitted-under-quota gangs that fit nowhere, as Karpenter does. For each
 * pending job whose quota fits but whose gang has no room (in submission order), quota is reserved and the
 * cheapest instance type of a matching pool that holds the whole gang is requested, within the pool's limits.
 * Jobs whose quota does not fit are never provisioned for (suspended jobs must not scale the cluster). Pool
 * nodes empty for longer than their pool's consolidation delay are removed.
 */
public final class Provisioner {
    /** What the step decided. */
    public record Outcome(List<Provision> provisions, List<Deprovision> deprovisions, Map<String, Provisioning.Reservation> reservations,
                          List<Provisioning.Request> requests, Map<String, PendingReason> reasons) {
    }

    private Provisioner() {
    }

    /**
     * @param snapshot the round's input
     * @param ctx the planned context (its quota includes the plan's admissions and current reservations)
     * @param reasons the pending reasons the plan produced
     * @param nextRequestId the id for the first new request
     * @return the node requests, reservations and removals
     */
    public static Outcome run(Snapshot snapshot, PlanContext ctx, Map<String, PendingReason> reasons, long nextRequestId) {
        Provisioning prov = snapshot.provisioning();
        List<Provision> provisions = new ArrayList<>();
        List<Deprovision> deprovisions = new ArrayList<>();
        Map<String, Provisioning.Reservation> reserved = new LinkedHashMap<>();
        List<Provisioning.Request> requests = new ArrayList<>();
        Map<String, PendingReason> newReasons = new LinkedHashMap<>();
        if (prov.pools().isEmpty()) {
            return new Outcome(provisions, deprovisions, reserved, requests, newReasons);
        }
        Map<String, Resources> poolUse = poolUsage(snapshot, prov);
        Map<String, Node> probes = new HashMap<>(); // one sample node per (pool, instance type)
        Map<String, Integer> fitCache = new HashMap<>(); // (job shape, flavors, pool, type) -> nodes
        long id = nextRequestId;
        for (JobStatus j : snapshot.pending()) {
            if (ctx.admitted.containsKey(j.id()) || prov.reservations().containsKey(j.id())) {
                continue;
            }
            PendingReason r = reasons.getOrDefault(j.id(), j.pendingReason());
            if (r == null || !(r.code() == PendingReason.Code.INSUFFICIENT_CAPACITY || r.code() == PendingReason.Code.NO_FITTING_TOPOLOGY
                    || r.code() == PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN)) {
                continue;
            }
            String cqName = ctx.clusterQueueOf(j);
            if (cqName == null) {
                continue;
            }
            ClusterQueue cq = snapshot.clusterQueues().get(cqName);
            Map<String, Integer> counts = PlanContext.fullCounts(j.spec());
            Assignment.Result ar = Assignment.assign(cq, snapshot.flavors(), ctx.quota, j.spec(), counts);
            if (ar.reason() != null) {
                newReasons.put(j.id(), ar.reason()); // quota does not fit (once earlier jobs reserved theirs): never provision for it
                continue;
            }
            Assignment.Choice choice = ar.choices().get(0);
            Candidate best = null;
            for (NodePool pool : prov.pools().values()) {
                for (InstanceType t : pool.instanceTypes()) {
                    Node sample = probes.computeIfAbsent(pool.name() + '\u0000' + t.name(), k -> pool.nodeOf(t, "probe"));
                    String key = shapeKey(j, choice.flavors()) + '\u0000' + pool.name() + '\u0000' + t.name();
                    int nodes = fitCache.computeIfAbsent(key, k -> nodesFor(j, counts, choice.flavors(), snapshot.flavors(), sample));
                    if (nodes <= 0) {
                        continue;
                    }
                    Resources add = t.totalCapacity().times(nodes);
                    Resources after = poolUse.getOrDefault(pool.name(), Resources.NONE).plus(add);
                    if (!withinLimits(after, pool.limits())) {
                        continue;
                    }
                    double cost = nodes * t.pricePerHour();
                    if (best == null || cost < best.cost || (cost == best.cost && nodes < best.nodes)) {
                        best = new Candidate(pool, t, nodes, cost);
                    }
                }
            }
            if (best == null) {
                newReasons.put(j.id(), PendingReason.of(r.code(), r.message() + "; no node pool has an instance type that holds it within its limits"));
                continue;
            }
            choice.usage().forEach((fr, v) -> ctx.quota.add(cqName, fr, v));
            poolUse.merge(best.pool.name(), best.type.totalCapacity().times(best.nodes), Resources::plus);
            long rid = id++;
            Provisioning.Request req = new Provisioning.Request(rid, best.pool.name(), best.type.name(), best.nodes, 0, snapshot.nowMillis(), List.of(j.id()));
            requests.add(req);
            provisions.add(new Provision(best.pool.name(), best.type.name(), best.nodes, "for job " + j.id() + " (request " + rid + ")"));
            reserved.put(j.id(), new Provisioning.Reservation(j.id(), cqName, choice.flavors(), counts, rid, snapshot.nowMillis()));
            newReasons.put(j.id(), new PendingReason(PendingReason.Code.WAITING_FOR_NODES, "quota reserved in ClusterQueue " + cqName + "; waiting for "
                    + best.nodes + " node(s) of " + best.type.name() + " from pool " + best.pool.name(),
                    Map.of("nodes", (long) best.nodes, "provisioningDelayMillis", best.pool.provisioningDelayMillis())));
        }
        // consolidation: empty pool nodes past their delay, unless a request is still waiting on their pool
        java.util.Set<String> usedNow = new java.util.HashSet<>();
        for (io.fairway.api.decision.Admit a : ctx.admitted.values()) {
            usedNow.addAll(a.placement().nodes());
        }
        for (Map.Entry<String, Long> e : prov.emptySince().entrySet()) {
            Node n = nodeNamed(snapshot, e.getKey());
            if (n == null || usedNow.contains(n.name())) {
                continue;
            }
            NodePool pool = prov.pools().get(n.labels().get(NodePool.POOL_LABEL));
            if (pool != null && snapshot.nowMillis() - e.getValue() >= pool.consolidationDelayMillis() && !waitingOn(prov, pool.name())) {
                deprovisions.add(new Deprovision(n.name(), "empty for " + (snapshot.nowMillis() - e.getValue()) / 1000 + " s (consolidation)"));
            }
        }
        return new Outcome(provisions, deprovisions, reserved, requests, newReasons);
    }

    private static boolean waitingOn(Provisioning prov, String pool) {
        for (Provisioning.Request r : prov.inFlight()) {
            if (r.pool().equals(pool)) {
                return true;
            }
        }
        return false;
    }

    private static Node nodeNamed(Snapshot s, String name) {
        for (Node n : s.nodes()) {
            if (n.name().equals(name)) {
                return n;
            }
        }
        return null;
    }

    private record Candidate(NodePool pool, InstanceType type, int nodes, double cost) {
    }

    private static String shapeKey(JobStatus j, Map<String, String> flavors) {
        StringBuilder sb = new StringBuilder();
        for (PodSet ps : j.spec().podSets()) {
            sb.append(ps.count()).append('x').append(ps.resources()).append(ps.nodeSelector()).append(ps.tolerations())
                    .append(flavors.get(ps.name())).append(';');
        }
        return sb.toString();
    }

    /** @return nodes like {@code sample} needed to hold every pod set, or 0 when a member does not fit one node */
    static int nodesFor(JobStatus j, Map<String, Integer> counts, Map<String, String> flavors, Map<String, ResourceFlavor> flavorSpecs,
                        Node sample) {
        int total = 0;
        for (PodSet ps : j.spec().podSets()) {
            ResourceFlavor f = flavorSpecs.get(flavors.get(ps.name()));
            List<Toleration> tol = new ArrayList<>(ps.tolerations());
            if (f != null) {
                tol.addAll(f.tolerations());
                if (!f.matches(sample)) {
                    return 0;
                }
            }
            for (Map.Entry<String, String> e : ps.nodeSelector().entrySet()) {
                if (!e.getValue().equals(sample.label(e.getKey()))) {
                    return 0;
                }
            }
            if (!Toleration.toleratesAll(tol, sample.taints())) {
                return 0;
            }
            long perNode = Long.MAX_VALUE;
            for (Map.Entry<String, Long> r : ps.resources().asMap().entrySet()) {
                long cap = sample.capacity().get(r.getKey());
                perNode = Math.min(perNode, cap / r.getValue());
            }
            if (perNode <= 0) {
                return 0;
            }
            int m = counts.getOrDefault(ps.name(), ps.count());
            total += (int) ((m + perNode - 1) / perNode);
        }
        return total;
    }

    private static boolean withinLimits(Resources use, Resources limits) {
        for (Map.Entry<String, Long> l : limits.asMap().entrySet()) {
            if (use.get(l.getKey()) > l.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Capacity of each pool: its nodes plus nodes requested and not yet arrived. */
    private static Map<String, Resources> poolUsage(Snapshot s, Provisioning prov) {
        Map<String, Resources> use = new HashMap<>();
        for (Node n : s.nodes()) {
            String pool = n.labels().get(NodePool.POOL_LABEL);
            if (pool != null) {
                use.merge(pool, n.capacity(), Resources::plus);
            }
        }
        for (Provisioning.Request r : prov.inFlight()) {
            NodePool p = prov.pools().get(r.pool());
            InstanceType t = p == null ? null : p.instanceType(r.instanceType());
            if (t != null && r.count() > r.arrived()) {
                use.merge(r.pool(), t.totalCapacity().times(r.count() - r.arrived()), Resources::plus);
            }
        }
        return use;
    }
}
