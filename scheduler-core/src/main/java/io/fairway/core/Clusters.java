package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import io.fairway.core.snapshot.Provisioning;

/**
 * A scheduler's capacity: clusters, their nodes (added, changed, cordoned, drained, lost) and node pools it may
 * provision from. Obtained from {@link Scheduler#clusters()}.
 *
 * <pre>{@code
 * scheduler.clusters().addNode(Node.builder("n2").capacity(Resources.builder().cpu(96).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
 * scheduler.clusters().drainNode("n1", "spot interruption notice");   // its jobs migrate (from a checkpoint where they have one)
 * }</pre>
 *
 * <p>A change that takes resources from jobs (a node lost, drained, or left without the GPUs a job used) sends
 * those jobs back to pending and hands the actuator a {@link Preempt} for each, so their other members stop too.
 */
public final class Clusters {
    private final EngineState state;

    Clusters(EngineState state) {
        this.state = state;
    }

    /**
     * @param cluster a cluster spec (its topology levels)
     * @throws InvalidSpecException when a cluster of that name exists
     */
    public void addCluster(ClusterSpec cluster) {
        InvalidSpecException.requireNonNull("cluster", cluster);
        state.withLock(() -> {
            InvalidSpecException.check(!state.clusters.containsKey(cluster.name()), "cluster.name", cluster.name(), "cluster %s already exists",
                    cluster.name());
            state.clusters.put(cluster.name(), cluster);
        });
    }

    /**
     * Removes a whole cluster (it left, or it was declared lost): its nodes go, and every job with a member
     * there goes back to pending (from its last checkpoint where it has one); the actuator receives a
     * {@link Preempt} for each so members elsewhere stop too. Other clusters are not disturbed.
     *
     * @param cluster the cluster name
     * @return the ids of the jobs sent back to pending
     */
    public List<String> removeCluster(String cluster) {
        InvalidSpecException.requireNonNull("cluster", cluster);
        List<String> names = state.read(() -> {
            List<String> l = new ArrayList<>();
            for (Node n : state.nodes.values()) {
                if (n.cluster().equals(cluster)) {
                    l.add(n.name());
                }
            }
            return l;
        });
        List<String> requeued = new ArrayList<>();
        for (String n : names) {
            try {
                requeued.addAll(removeNode(n));
            } catch (InvalidSpecException gone) {
                // removed concurrently: nothing to do
            }
        }
        return requeued;
    }

    /**
     * Drains a cluster without disruption: its nodes are cordoned, so nothing new lands there, and what runs
     * there finishes.
     *
     * @param cluster the cluster name
     * @param drained true to drain, false to take it back into service
     * @return the number of nodes affected
     */
    public int drainCluster(String cluster, boolean drained) {
        InvalidSpecException.requireNonNull("cluster", cluster);
        return state.withLock(() -> {
            int n = 0;
            for (Map.Entry<String, Node> e : state.nodes.entrySet()) {
                if (e.getValue().cluster().equals(cluster)) {
                    e.setValue(e.getValue().withUnschedulable(drained));
                    n++;
                }
            }
            return n;
        });
    }

    /**
     * @param node a node (when it comes from a node pool's request, it fulfils that request)
     * @throws InvalidSpecException when a node of that name exists
     */
    public void addNode(Node node) {
        InvalidSpecException.requireNonNull("node", node);
        state.withLock(() -> {
            InvalidSpecException.check(!state.nodes.containsKey(node.name()), "node.name", node.name(), "node %s already exists", node.name());
            state.nodes.put(node.name(), node);
            state.pools.nodeArrived(node);
        });
    }

    /**
     * Changes a node in place (labels, taints, capacity, cordon) without disturbing what runs on it. Jobs placed
     * on GPUs the node no longer has go back to pending, as for a lost node; so do, when the node's new capacity no
     * longer covers what runs on it (in any resource), the jobs admitted first stay while they fit and the others go
     * back — a node is never committed beyond its capacity.
     *
     * @param node the node's new definition (same name)
     * @return the ids of jobs sent back to pending
     * @throws InvalidSpecException when no node of that name exists
     */
    public List<String> updateNode(Node node) {
        InvalidSpecException.requireNonNull("node", node);
        Set<Integer> gpus = new HashSet<>();
        node.gpus().gpus().forEach(g -> gpus.add(g.index()));
        String why = "node " + node.name() + " no longer has the GPUs or the capacity the job used";
        Set<String> overflow = new HashSet<>();
        return evict(() -> {
            InvalidSpecException.check(state.nodes.containsKey(node.name()), "node.name", node.name(), "node %s does not exist", node.name());
            state.nodes.put(node.name(), node);
            overflow.addAll(beyondCapacity(node, gpus));
        }, j -> overflow.contains(j.id()) || j.admission().placement().members().stream()
                        .anyMatch(m -> m.node().equals(node.name()) && !gpus.containsAll(m.gpus())),
                PendingReason.of(PendingReason.Code.PREEMPTED, why), EventType.REQUEUED, why, false);
    }

    /**
     * The jobs to send back so that what stays on a node fits its capacity: those whose GPUs are gone leave anyway;
     * of the rest, in admission order, each stays if it fits beside those staying before it (lock held).
     */
    private Set<String> beyondCapacity(Node node, Set<Integer> gpus) {
        List<JobStatus> on = new ArrayList<>();
        for (JobStatus j : state.jobs.holding.values()) {
            if (usesNode(j, node.name()) && j.admission().placement().members().stream()
                    .noneMatch(m -> m.node().equals(node.name()) && !gpus.containsAll(m.gpus()))) {
                on.add(j);
            }
        }
        on.sort(java.util.Comparator.comparingLong((JobStatus j) -> j.admission().admittedAtMillis())
                .thenComparingLong(j -> j.admission().admissionOrder()).thenComparingLong(JobStatus::sequence));
        Set<String> out = new HashSet<>();
        io.fairway.api.model.Resources used = io.fairway.api.model.Resources.NONE;
        for (JobStatus j : on) {
            io.fairway.api.model.Resources mine = io.fairway.api.model.Resources.NONE;
            for (MemberPlacement m : j.admission().placement().members()) {
                if (m.node().equals(node.name())) {
                    for (io.fairway.api.job.PodSet ps : j.spec().podSets()) {
                        if (ps.name().equals(m.podSet())) {
                            mine = mine.plus(ps.resources());
                        }
                    }
                }
            }
            io.fairway.api.model.Resources with = used.plus(mine);
            if (with.fitsIn(node.capacity())) {
                used = with;
            } else {
                out.add(j.id());
            }
        }
        return out;
    }

    /**
     * Removes a node (lost, drained or deprovisioned). Jobs with a member on it go back to pending and the
     * actuator receives a {@link Preempt} for each, so their other members stop too.
     *
     * @param name the node
     * @return the ids of the jobs sent back to pending
     */
    public List<String> removeNode(String name) {
        InvalidSpecException.requireNonNull("name", name);
        String why = "node " + name + " was lost";
        return evict(() -> {
            if (state.nodes.remove(name) == null) {
                throw new InvalidSpecException("node", name, "node " + name + " does not exist");
            }
            state.pools.emptySince.remove(name);
        }, j -> usesNode(j, name), PendingReason.of(PendingReason.Code.PREEMPTED, why), EventType.REQUEUED, why, false);
    }

    /**
     * Drains a node for a spot interruption notice, a consolidation or maintenance: it is cordoned, and every job
     * with a member on it is preempted as a migration (with a checkpoint when the job declares checkpointing) and
     * goes back to pending, to restart elsewhere. The actuator receives the {@link Preempt} decisions.
     *
     * @param name the node
     * @param why the reason, e.g. {@code "spot interruption notice"}
     * @return the ids of the jobs migrated
     */
    public List<String> drainNode(String name, String why) {
        InvalidSpecException.requireNonNull("name", name);
        return evict(() -> cordonLocked(name, true), j -> usesNode(j, name), PendingReason.of(PendingReason.Code.PREEMPTED, "migrating: " + why),
                EventType.PREEMPTED, why, true);
    }

    /**
     * Cordons or uncordons a node: nothing new is placed on a cordoned node; what runs there stays.
     *
     * @param name the node
     * @param cordoned the new state
     */
    public void cordon(String name, boolean cordoned) {
        InvalidSpecException.requireNonNull("name", name);
        state.withLock(() -> cordonLocked(name, cordoned));
    }

    private void cordonLocked(String name, boolean cordoned) {
        Node n = state.nodes.get(name);
        if (n == null) {
            throw new InvalidSpecException("node", name, "node " + name + " does not exist");
        }
        state.nodes.put(name, n.withUnschedulable(cordoned));
    }

    /** @return the nodes, in the order added */
    public List<Node> nodes() {
        return state.read(() -> new ArrayList<>(state.nodes.values()));
    }

    /**
     * @param node a node name
     * @return its cluster, or null when the node is unknown
     */
    public String clusterOfNode(String node) {
        return state.read(() -> {
            Node n = state.nodes.get(node);
            return n == null ? null : n.cluster();
        });
    }

    /**
     * @param jobId a job
     * @return the cluster its current admission placed it in, or null
     */
    public String clusterOf(String jobId) {
        return state.read(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j == null || j.admission() == null || j.admission().placement().members().isEmpty()) {
                return null;
            }
            Node n = state.nodes.get(j.admission().placement().members().get(0).node());
            return n == null ? null : n.cluster();
        });
    }

    /**
     * Adds a node pool: from now on, admitted-under-quota gangs that fit no node make the round request nodes
     * from it ({@code Provision} decisions to the actuator, which adds the nodes with {@link #addNode} when they
     * come up; nodes of one request should share one topology domain so gang constraints hold), and its empty
     * nodes are removed after its consolidation delay ({@code Deprovision}).
     *
     * @param pool the node pool
     * @throws InvalidSpecException when a pool of that name exists
     */
    public void addNodePool(NodePool pool) {
        InvalidSpecException.requireNonNull("pool", pool);
        state.withLock(() -> {
            InvalidSpecException.check(!state.pools.nodePools.containsKey(pool.name()), "nodePool.name", pool.name(), "node pool %s already exists",
                    pool.name());
            state.pools.nodePools.put(pool.name(), pool);
        });
    }

    /** @return node requests made and not yet fulfilled */
    public List<Provisioning.Request> pendingNodeRequests() {
        return state.read(() -> List.copyOf(state.pools.inFlight));
    }

    private static boolean usesNode(JobStatus j, String node) {
        if (j.admission() == null) {
            return false;
        }
        for (MemberPlacement m : j.admission().placement().members()) {
            if (m.node().equals(node)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The shared way nodes going away or changing send jobs back: under the lock, apply the change, then requeue
     * every job holding resources that {@code affected} selects; afterwards dispatch the events and hand the
     * actuator a {@link Preempt} per job so its members stop.
     */
    private List<String> evict(Runnable change, Predicate<JobStatus> affected, PendingReason reason, EventType type, String why, boolean migration) {
        List<SchedulerEvent> events = state.outbox.eventList();
        List<Decision> stops = new ArrayList<>();
        Outbox.Outgoing[] sent = new Outbox.Outgoing[1];
        List<String> ids = state.withLock(() -> {
            change.run();
            List<String> out = new ArrayList<>();
            for (JobStatus j : new ArrayList<>(state.jobs.holding.values())) {
                if (affected.test(j)) {
                    out.add(j.id());
                    state.jobs.requeue(j, reason, type, why, events);
                    stops.add(new Preempt(j.id(), why, j.spec().checkpointing() != null, migration));
                }
            }
            sent[0] = state.outbox.publish(events, stops);
            return out;
        });
        state.outbox.deliver(sent[0]);
        return ids;
    }
}
