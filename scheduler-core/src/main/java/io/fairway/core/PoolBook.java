package io.fairway.core;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.fairway.core.snapshot.Provisioning;

/**
 * The engine's autoscaling bookkeeping (lock held by every caller): node pools, quota reserved for jobs waiting on
 * new nodes, node requests in flight, and since when each pool node is empty (for consolidation).
 */
final class PoolBook {
    private static final Logger LOG = LoggerFactory.getLogger(PoolBook.class);

    final Map<String, NodePool> nodePools = new TreeMap<>();
    final Map<String, Provisioning.Reservation> reservations = new TreeMap<>();
    final List<Provisioning.Request> inFlight = new ArrayList<>();
    final Map<String, Long> emptySince = new TreeMap<>();
    /** Pool nodes a job left since the last round, and when: a node empty since then is empty since that time. */
    private final Map<String, Long> releasedAt = new HashMap<>();

    /** @return what a snapshot carries about provisioning */
    Provisioning provisioning() {
        return nodePools.isEmpty() && reservations.isEmpty() ? Provisioning.NONE
                : new Provisioning(nodePools, reservations, inFlight, emptySince);
    }

    /** @return the full provisioning state, for export */
    Provisioning export() {
        return new Provisioning(nodePools, reservations, inFlight, emptySince);
    }

    void restore(Provisioning p) {
        reservations.putAll(p.reservations());
        inFlight.addAll(p.inFlight());
        emptySince.putAll(p.emptySince());
    }

    /** A node came up: it fulfils one node of the first matching request in flight. */
    void nodeArrived(Node node) {
        String pool = node.labels().get(NodePool.POOL_LABEL);
        String type = node.labels().get(NodePool.INSTANCE_TYPE_LABEL);
        for (int i = 0; i < inFlight.size(); i++) {
            Provisioning.Request r = inFlight.get(i);
            if (r.pool().equals(pool) && r.instanceType().equals(type)) {
                if (r.arrived() + 1 >= r.count()) {
                    inFlight.remove(i);
                } else {
                    inFlight.set(i, new Provisioning.Request(r.id(), r.pool(), r.instanceType(), r.count(), r.arrived() + 1,
                            r.requestedAtMillis(), r.jobs()));
                }
                return;
            }
        }
    }

    /** A job that held resources let them go at {@code now}: its pool nodes may be empty from then on. */
    void released(JobStatus old, long now) {
        if (old.admission() != null) {
            for (MemberPlacement m : old.admission().placement().members()) {
                releasedAt.put(m.node(), now);
            }
        }
    }

    /** Tracks since when each pool node is empty, and drops node requests that never came. */
    void trackPoolNodes(Collection<Node> nodes, Collection<JobStatus> holding, long now) {
        if (nodePools.isEmpty()) {
            releasedAt.clear();
            return;
        }
        Set<String> busy = new HashSet<>();
        for (JobStatus j : holding) {
            if (j.admission() != null) {
                for (MemberPlacement m : j.admission().placement().members()) {
                    busy.add(m.node());
                }
            }
        }
        for (Node n : nodes) {
            if (n.labels().containsKey(NodePool.POOL_LABEL)) {
                if (busy.contains(n.name())) {
                    emptySince.remove(n.name());
                } else {
                    // empty since its last job left (reported between rounds), else since this round
                    emptySince.putIfAbsent(n.name(), Math.min(now, releasedAt.getOrDefault(n.name(), now)));
                }
            }
        }
        releasedAt.clear();
        for (int i = inFlight.size() - 1; i >= 0; i--) {
            Provisioning.Request r = inFlight.get(i);
            NodePool p = nodePools.get(r.pool());
            long timeout = (p == null ? 0 : p.provisioningDelayMillis()) * 10 + 600_000;
            if (now - r.requestedAtMillis() > timeout) {
                LOG.warn("node request {} ({} x {} from {}) never completed; releasing its jobs", r.id(), r.count(), r.instanceType(), r.pool());
                inFlight.remove(i);
                for (String job : r.jobs()) {
                    reservations.remove(job);
                }
            }
        }
    }

    /**
     * @return the earliest time an empty pool node's consolidation delay runs out, or {@code Long.MAX_VALUE}; a node
     *         already past its delay is held by a node request, which an event (arrival, cancel) ends, not time
     */
    long nextConsolidation(Map<String, Node> nodes, long now) {
        long best = Long.MAX_VALUE;
        for (Map.Entry<String, Long> e : emptySince.entrySet()) {
            Node n = nodes.get(e.getKey());
            NodePool p = n == null ? null : nodePools.get(n.labels().get(NodePool.POOL_LABEL));
            if (p != null && e.getValue() + p.consolidationDelayMillis() > now) {
                best = Math.min(best, e.getValue() + p.consolidationDelayMillis());
            }
        }
        return best;
    }
}
