package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.event.SchedulerListener;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.spi.Actuator;
import io.fairway.api.spi.AdmissionCheck;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.plan.PendingIndex;
import io.fairway.core.validation.Invariants;
import io.fairway.core.validation.Validator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine around the pure round: it takes submissions and cluster changes (thread-safe, also while a
 * round runs), snapshots, runs {@link Rounds#run}, applies the decisions to its state, hands them to the
 * {@link Actuator} and records what the actuator reports back.
 *
 * <pre>{@code
 * Scheduler scheduler = Scheduler.builder()
 *     .policy("best-effort-fifo")
 *     .flavor(ResourceFlavor.of("default"))
 *     .clusterQueue(ClusterQueue.builder("team-a").quota("default", Resources.builder().cpu(64).gpus(16).build()).build())
 *     .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
 *     .node(Node.builder("n1").capacity(Resources.builder().cpu(96).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
 *     .actuator(decisions -> decisions.forEach(System.out::println))
 *     .build();
 * scheduler.submit(JobSpec.builder("j1").namespace("team-a").queue("gpu").members(2, Resources.builder().cpu(8).gpus(4).build()).build());
 * RoundResult r = scheduler.runRound();     // Admit j1: n1 GPUs [0..3] and [4..7]
 * scheduler.reportStarted("j1");
 * }</pre>
 *
 * <p>Every method that changes state validates first and changes nothing when it throws.
 */
public final class Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final SchedulingPolicy policy;
    private final Actuator actuator;
    private final Clock clock;
    private final long seed;
    private final PlacementStrategy placement;

    private final Map<String, ClusterSpec> clusters = new TreeMap<>();
    private final LinkedHashMap<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, ResourceFlavor> flavors = new TreeMap<>();
    private final Map<String, ClusterQueue> clusterQueues = new TreeMap<>();
    private final Map<String, Cohort> cohorts = new TreeMap<>();
    private final Map<String, LocalQueue> localQueues = new TreeMap<>();
    private final HashMap<String, JobStatus> jobs = new HashMap<>();
    /**
     * Pending jobs by sequence. A hash map: the hot paths only put, get and remove (a tree costs a walk of scattered
     * nodes per operation); the few readers that need submission order sort ({@link #pendingInOrder()}).
     */
    private final HashMap<Long, JobStatus> pending = new HashMap<>();
    /** The same pending jobs grouped by what they need, kept up to date so a snapshot costs only what changed. */
    private final PendingIndex.Builder pendingIndex = new PendingIndex.Builder();
    private final TreeMap<Long, JobStatus> holding = new TreeMap<>();
    private long nextSequence;
    private long round;
    private long modCount;
    private final Map<String, AdmissionCheck> admissionChecks = new TreeMap<>();
    private final long usageHalfLifeMillis;
    private final Map<String, Double> decayedUsage = new TreeMap<>();
    private final Map<String, NodePool> nodePools = new TreeMap<>();
    private final Map<String, Provisioning.Reservation> reservations = new TreeMap<>();
    private final List<Provisioning.Request> inFlight = new ArrayList<>();
    private final Map<String, Long> emptySince = new TreeMap<>();
    /** Pool nodes a job left since the last round, and when: a node empty since then is empty since that time. */
    private final Map<String, Long> releasedAt = new HashMap<>();
    /** When the last round's policy asked for its next round ({@link RoundResult#NO_WAKE}: it did not). */
    private long policyWakeAt = RoundResult.NO_WAKE;
    private long usageUpdatedAt = Long.MIN_VALUE;

    private final List<SchedulerListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, List<SchedulerListener>> jobSetListeners = new ConcurrentHashMap<>();

    private Scheduler(Builder b) {
        this.policy = b.policy != null ? b.policy : Policies.create(b.policyName, b.policyParameters);
        this.actuator = b.actuator;
        this.clock = b.clock;
        this.seed = b.seed;
        this.placement = b.placement;
        this.usageHalfLifeMillis = b.usageHalfLifeMillis;
        listeners.addAll(b.listeners);
        for (AdmissionCheck c : b.admissionChecks) {
            admissionChecks.put(c.name(), c);
        }
        for (ClusterSpec c : b.clusters) {
            addCluster(c);
        }
        for (ResourceFlavor f : b.flavors) {
            addFlavor(f);
        }
        for (Cohort c : b.cohorts) {
            addCohort(c);
        }
        for (ClusterQueue q : b.clusterQueues) {
            addClusterQueue(q);
        }
        for (LocalQueue q : b.localQueues) {
            addLocalQueue(q);
        }
        for (Node n : b.nodes) {
            addNode(n);
        }
        for (NodePool p : b.nodePools) {
            addNodePool(p);
        }
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
        withLock(() -> {
            InvalidSpecException.check(!nodePools.containsKey(pool.name()), "nodePool.name", pool.name(), "node pool %s already exists", pool.name());
            nodePools.put(pool.name(), pool);
        });
    }

    /** @return node requests made and not yet fulfilled */
    public List<Provisioning.Request> pendingNodeRequests() {
        lock.lock();
        try {
            return List.copyOf(inFlight);
        } finally {
            lock.unlock();
        }
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the policy */
    public SchedulingPolicy policy() {
        return policy;
    }

    // ---------------------------------------------------------------- configuration

    /**
     * @param cluster a cluster spec (its topology levels)
     * @throws InvalidSpecException when a cluster of that name exists
     */
    public void addCluster(ClusterSpec cluster) {
        InvalidSpecException.requireNonNull("cluster", cluster);
        withLock(() -> {
            InvalidSpecException.check(!clusters.containsKey(cluster.name()), "cluster.name", cluster.name(), "cluster %s already exists", cluster.name());
            clusters.put(cluster.name(), cluster);
        });
    }

    /**
     * @param flavor a ResourceFlavor
     * @throws InvalidSpecException when a flavor of that name exists
     */
    public void addFlavor(ResourceFlavor flavor) {
        InvalidSpecException.requireNonNull("flavor", flavor);
        withLock(() -> {
            InvalidSpecException.check(!flavors.containsKey(flavor.name()), "flavor.name", flavor.name(), "flavor %s already exists", flavor.name());
            flavors.put(flavor.name(), flavor);
        });
    }

    /**
     * @param cohort a cohort
     * @throws InvalidSpecException when it exists or its parent chain would form a cycle
     */
    public void addCohort(Cohort cohort) {
        InvalidSpecException.requireNonNull("cohort", cohort);
        withLock(() -> {
            InvalidSpecException.check(!cohorts.containsKey(cohort.name()), "cohort.name", cohort.name(), "cohort %s already exists", cohort.name());
            addCohortLocked(cohort);
        });
    }

    private void addCohortLocked(Cohort cohort) {
        checkCohortQuota(cohort);
        Set<String> seen = new HashSet<>();
        seen.add(cohort.name());
        String p = cohort.parent();
        List<String> path = new ArrayList<>(List.of(cohort.name()));
        while (p != null) {
            path.add(p);
            InvalidSpecException.check(seen.add(p), "cohort[" + cohort.name() + "].parent", cohort.parent(),
                    "cohort %s: parent %s would make a cycle in the cohort tree: %s", cohort.name(), cohort.parent(), String.join(" -> ", path));
            Cohort pc = cohorts.get(p);
            p = pc == null ? null : pc.parent();
        }
        cohorts.put(cohort.name(), cohort);
    }

    private void checkCohortQuota(Cohort cohort) {
        cohort.resourceGroups().forEach(g -> g.flavors().forEach(f -> InvalidSpecException.check(flavors.containsKey(f.flavor()),
                "cohort[" + cohort.name() + "].flavors", f.flavor(), "cohort %s: flavor %s is not defined", cohort.name(), f.flavor())));
    }

    /**
     * Adds a ClusterQueue, or replaces one of the same name (its admitted jobs keep their admission).
     *
     * @param queue the ClusterQueue
     * @throws InvalidSpecException when it names a flavor that is not defined
     */
    public void addClusterQueue(ClusterQueue queue) {
        InvalidSpecException.requireNonNull("queue", queue);
        withLock(() -> {
            for (String f : queue.flavorNames()) {
                InvalidSpecException.check(flavors.containsKey(f), "clusterQueue[" + queue.name() + "].flavors", f,
                        "ClusterQueue %s: flavor %s is not defined (defined: %s)", queue.name(), f, flavors.keySet());
            }
            for (String c : queue.admissionChecks()) {
                InvalidSpecException.check(admissionChecks.containsKey(c), "clusterQueue[" + queue.name() + "].admissionChecks", c,
                        "ClusterQueue %s: admission check %s is not registered (registered: %s)", queue.name(), c, admissionChecks.keySet());
            }
            clusterQueues.put(queue.name(), queue);
        });
    }

    /**
     * Removes a ClusterQueue that holds nothing; its pending jobs wait with reason {@code CLUSTER_QUEUE_NOT_FOUND}
     * (and are admitted again if a ClusterQueue of that name comes back).
     *
     * <p>A ClusterQueue whose jobs still hold resources (quota reserved, admitted or running) or quota reserved
     * for a node request is not removed: the call is refused, naming those jobs, and nothing changes (as Kueue
     * keeps a ClusterQueue with admitted workloads until they finish). To retire a busy queue, stop it
     * ({@link #stopClusterQueue}) and let its jobs finish, or cancel them ({@link #cancelQueue}), then remove it.
     *
     * @param name the ClusterQueue
     * @return true when it existed (and was removed), false when there was none
     * @throws InvalidSpecException when jobs still hold resources in it
     */
    public boolean removeClusterQueue(String name) {
        InvalidSpecException.requireNonNull("name", name);
        return withLock(() -> {
            if (!clusterQueues.containsKey(name)) {
                return false;
            }
            List<String> holders = new ArrayList<>();
            for (JobStatus j : holding.values()) {
                if (j.admission() != null && name.equals(j.admission().clusterQueue())) {
                    holders.add(j.id());
                }
            }
            for (Provisioning.Reservation r : reservations.values()) {
                if (name.equals(r.clusterQueue())) {
                    holders.add(r.jobId());
                }
            }
            if (!holders.isEmpty()) {
                throw new InvalidSpecException("clusterQueue", name, "ClusterQueue " + name + " still holds resources for " + holders.size()
                        + " job(s) " + holders.subList(0, Math.min(10, holders.size())) + (holders.size() > 10 ? "…" : "")
                        + "; stop it and let them finish, or cancel them (cancelQueue), before removing it");
            }
            return clusterQueues.remove(name) != null;
        });
    }

    /**
     * Removes a LocalQueue; jobs submitted to it wait with reason {@code QUEUE_NOT_FOUND} (none is dropped).
     *
     * @param namespace its namespace
     * @param name its name
     * @return true when it existed
     */
    public boolean removeLocalQueue(String namespace, String name) {
        return withLock(() -> localQueues.remove(namespace + "/" + name) != null);
    }

    /**
     * Replaces a flavor's definition (its node labels, taints, tolerations); admitted jobs keep their placement.
     *
     * @param flavor the new definition
     * @throws InvalidSpecException when no flavor of that name exists
     */
    public void updateFlavor(ResourceFlavor flavor) {
        InvalidSpecException.requireNonNull("flavor", flavor);
        withLock(() -> {
            InvalidSpecException.check(flavors.containsKey(flavor.name()), "flavor.name", flavor.name(), "flavor %s does not exist", flavor.name());
            flavors.put(flavor.name(), flavor);
        });
    }

    /**
     * Removes a flavor no ClusterQueue or cohort refers to.
     *
     * @param name the flavor
     * @return true when it existed
     * @throws InvalidSpecException naming a queue that still refers to it
     */
    public boolean removeFlavor(String name) {
        InvalidSpecException.requireNonNull("name", name);
        return withLock(() -> {
            for (ClusterQueue q : clusterQueues.values()) {
                InvalidSpecException.check(!q.flavorNames().contains(name), "flavor", name,
                        "flavor %s is still used by ClusterQueue %s", name, q.name());
            }
            for (Cohort c : cohorts.values()) {
                c.resourceGroups().forEach(g -> g.flavors().forEach(f -> InvalidSpecException.check(!f.flavor().equals(name), "flavor", name,
                        "flavor %s is still used by cohort %s", name, c.name())));
            }
            return flavors.remove(name) != null;
        });
    }

    /**
     * Replaces a cohort's definition (its parent, quota and weight), refusing a cycle.
     *
     * @param cohort the new definition
     */
    public void updateCohort(Cohort cohort) {
        InvalidSpecException.requireNonNull("cohort", cohort);
        withLock(() -> {
            Cohort old = cohorts.remove(cohort.name());
            try {
                addCohortLocked(cohort);
            } catch (InvalidSpecException e) {
                if (old != null) {
                    cohorts.put(old.name(), old);
                }
                throw e;
            }
        });
    }

    /**
     * Removes a cohort; queues naming it keep an implicit cohort of that name without quota of its own.
     *
     * @param name the cohort
     * @return true when it existed
     */
    public boolean removeCohort(String name) {
        InvalidSpecException.requireNonNull("name", name);
        return withLock(() -> cohorts.remove(name) != null);
    }

    /**
     * Adds a LocalQueue (its ClusterQueue may be created later: jobs wait with that reason meanwhile).
     *
     * @param queue the LocalQueue
     * @throws InvalidSpecException when one with that namespace and name exists
     */
    public void addLocalQueue(LocalQueue queue) {
        InvalidSpecException.requireNonNull("queue", queue);
        withLock(() -> {
            InvalidSpecException.check(!localQueues.containsKey(queue.key()), "localQueue", queue.key(), "LocalQueue %s already exists", queue.key());
            localQueues.put(queue.key(), queue);
        });
    }

    /**
     * @param node a node
     * @throws InvalidSpecException when a node of that name exists
     */
    public void addNode(Node node) {
        InvalidSpecException.requireNonNull("node", node);
        withLock(() -> {
            InvalidSpecException.check(!nodes.containsKey(node.name()), "node.name", node.name(), "node %s already exists", node.name());
            nodes.put(node.name(), node);
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
                    break;
                }
            }
        });
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
            if (nodes.remove(name) == null) {
                throw new InvalidSpecException("node", name, "node " + name + " does not exist");
            }
            emptySince.remove(name);
        }, j -> usesNode(j, name), PendingReason.of(PendingReason.Code.PREEMPTED, why), EventType.REQUEUED, why, false);
    }

    /**
     * The shared way nodes going away or changing send jobs back: under the lock, apply the change, then requeue
     * every job holding resources that {@code affected} selects; afterwards dispatch the events and hand the
     * actuator a {@link Preempt} per job so its members stop.
     */
    private List<String> evict(Runnable change, java.util.function.Predicate<JobStatus> affected, PendingReason reason, EventType type,
                               String why, boolean migration) {
        List<SchedulerEvent> events = eventList();
        List<Decision> stops = new ArrayList<>();
        Outgoing[] sent = new Outgoing[1];
        List<String> ids = withLock(() -> {
            change.run();
            List<String> out = new ArrayList<>();
            for (JobStatus j : new ArrayList<>(holding.values())) {
                if (affected.test(j)) {
                    out.add(j.id());
                    requeue(j, reason, type, why, events);
                    stops.add(new Preempt(j.id(), why, j.spec().checkpointing() != null, migration));
                }
            }
            sent[0] = publish(events, stops);
            return out;
        });
        deliver(sent[0]);
        return ids;
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
        List<String> names = new ArrayList<>();
        lock.lock();
        try {
            for (Node n : nodes.values()) {
                if (n.cluster().equals(cluster)) {
                    names.add(n.name());
                }
            }
        } finally {
            lock.unlock();
        }
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
        return withLock(() -> {
            int n = 0;
            for (Map.Entry<String, Node> e : nodes.entrySet()) {
                if (e.getValue().cluster().equals(cluster)) {
                    e.setValue(e.getValue().withUnschedulable(drained));
                    n++;
                }
            }
            return n;
        });
    }

    /**
     * Cordons a ClusterQueue (Armada: cordon a queue): it admits nothing new; what runs keeps running.
     *
     * @param clusterQueue the ClusterQueue
     * @param stopped true to cordon, false to reopen
     */
    public void stopClusterQueue(String clusterQueue, boolean stopped) {
        InvalidSpecException.requireNonNull("clusterQueue", clusterQueue);
        withLock(() -> {
            ClusterQueue q = clusterQueues.get(clusterQueue);
            if (q == null) {
                throw new InvalidSpecException("clusterQueue", clusterQueue, "ClusterQueue " + clusterQueue + " does not exist");
            }
            clusterQueues.put(clusterQueue, q.withStopped(stopped));
        });
    }

    /**
     * Cancels every live job of a job set (Armada's {@code cancel --jobset}).
     *
     * @param jobSet the job set
     * @return the ids cancelled
     */
    public List<String> cancelJobSet(String jobSet) {
        InvalidSpecException.requireNonNull("jobSet", jobSet);
        List<String> ids = new ArrayList<>();
        for (JobStatus j : liveJobs(j -> j.spec().jobSet().equals(jobSet))) {
            if (cancel(j.id())) {
                ids.add(j.id());
            }
        }
        return ids;
    }

    /**
     * Changes the priority of every live job of a job set.
     *
     * @param jobSet the job set
     * @param priority the new priority
     * @return the number of jobs changed
     */
    public int setJobSetPriority(String jobSet, int priority) {
        InvalidSpecException.requireNonNull("jobSet", jobSet);
        int n = 0;
        for (JobStatus j : liveJobs(j -> j.spec().jobSet().equals(jobSet))) {
            if (setPriority(j.id(), priority)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Cancels every live job submitted through the LocalQueues of a ClusterQueue (a whole queue).
     *
     * @param clusterQueue the ClusterQueue
     * @return the ids cancelled
     */
    public List<String> cancelQueue(String clusterQueue) {
        InvalidSpecException.requireNonNull("clusterQueue", clusterQueue);
        Set<String> lqs = new HashSet<>();
        lock.lock();
        try {
            for (LocalQueue lq : localQueues.values()) {
                if (lq.clusterQueue().equals(clusterQueue)) {
                    lqs.add(lq.key());
                }
            }
        } finally {
            lock.unlock();
        }
        List<String> ids = new ArrayList<>();
        for (JobStatus j : liveJobs(j -> lqs.contains(j.spec().localQueueKey()))) {
            if (cancel(j.id())) {
                ids.add(j.id());
            }
        }
        return ids;
    }

    private List<JobStatus> liveJobs(java.util.function.Predicate<JobStatus> filter) {
        lock.lock();
        try {
            List<JobStatus> l = new ArrayList<>();
            for (JobStatus j : pending.values()) {
                if (filter.test(j)) {
                    l.add(j);
                }
            }
            for (JobStatus j : holding.values()) {
                if (filter.test(j)) {
                    l.add(j);
                }
            }
            l.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
            return l;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The epoch of a job's current admission: it grows each time the job goes back to pending, so a report about
     * an older run (from an executor that was declared lost and came back) can be told apart and refused.
     *
     * @param jobId a job
     * @return its epoch, or -1 when unknown
     */
    public long epoch(String jobId) {
        lock.lock();
        try {
            JobStatus j = jobs.get(jobId);
            return j == null ? -1 : j.preemptions();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reports a job started, if the report is about its current run.
     *
     * @param jobId the job
     * @param epoch the epoch of the admission the executor applied
     * @return true when accepted; false for a stale epoch (that run must be stopped)
     */
    public boolean reportStarted(String jobId, long epoch) {
        return ifCurrent(jobId, epoch, () -> reportStarted(jobId));
    }

    /** Runs a report atomically with the check that it is about the job's current run. */
    private boolean ifCurrent(String jobId, long epoch, java.util.function.BooleanSupplier report) {
        boolean ok;
        lock.lock();
        try {
            ok = epoch == epoch(jobId) && report.getAsBoolean();
        } finally {
            lock.unlock();
        }
        deliver(null); // the report published under this lock; delivered once it is released
        return ok;
    }

    /**
     * Reports a job finished, if the report is about its current run.
     *
     * @param jobId the job
     * @param epoch the epoch of the admission the executor applied
     * @return true when accepted
     */
    public boolean reportFinished(String jobId, long epoch) {
        return ifCurrent(jobId, epoch, () -> reportFinished(jobId));
    }

    /**
     * Reports a job failed, if the report is about its current run.
     *
     * @param jobId the job
     * @param epoch the epoch of the admission the executor applied
     * @param message why
     * @return true when accepted
     */
    public boolean reportFailed(String jobId, long epoch, String message) {
        return ifCurrent(jobId, epoch, () -> reportFailed(jobId, message));
    }

    /**
     * @param node a node name
     * @return its cluster, or null when the node is unknown
     */
    public String clusterOfNode(String node) {
        lock.lock();
        try {
            Node n = nodes.get(node);
            return n == null ? null : n.cluster();
        } finally {
            lock.unlock();
        }
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
        return evict(() -> {
            Node n = nodes.get(name);
            if (n == null) {
                throw new InvalidSpecException("node", name, "node " + name + " does not exist");
            }
            nodes.put(name, n.withUnschedulable(true));
        }, j -> usesNode(j, name), PendingReason.of(PendingReason.Code.PREEMPTED, "migrating: " + why), EventType.PREEMPTED, why, true);
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
     * Changes a node in place (labels, taints, capacity, cordon) without disturbing what runs on it. Jobs placed
     * on GPUs the node no longer has go back to pending, as for a lost node.
     *
     * @param node the node's new definition (same name)
     * @return the ids of jobs sent back to pending
     * @throws InvalidSpecException when no node of that name exists
     */
    public List<String> updateNode(Node node) {
        InvalidSpecException.requireNonNull("node", node);
        Set<Integer> gpus = new HashSet<>();
        node.gpus().gpus().forEach(g -> gpus.add(g.index()));
        String why = "node " + node.name() + " no longer has the GPUs the job used";
        return evict(() -> {
            InvalidSpecException.check(nodes.containsKey(node.name()), "node.name", node.name(), "node %s does not exist", node.name());
            nodes.put(node.name(), node);
        }, j -> j.admission().placement().members().stream().anyMatch(m -> m.node().equals(node.name()) && !gpus.containsAll(m.gpus())),
                PendingReason.of(PendingReason.Code.PREEMPTED, why), EventType.REQUEUED, why, false);
    }

    /**
     * Forgets a job that has ended (succeeded, failed or cancelled), so a long-running controller's memory stays
     * bounded. Its id may then be submitted again.
     *
     * @param jobId the job
     * @return true when it was known and ended
     */
    public boolean forget(String jobId) {
        return withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j == null || !j.state().isTerminal()) {
                return false;
            }
            jobs.remove(jobId);
            return true;
        });
    }

    /**
     * Replaces the spec of a pending job (e.g. its parallelism or requests changed). The new spec is validated
     * like a submission; the job keeps its place (its sequence) in the queue.
     *
     * @param spec the new spec (same id)
     * @return true when the job was pending and was updated
     */
    public boolean updateSpec(JobSpec spec) {
        InvalidSpecException.requireNonNull("spec", spec);
        return withLock(() -> {
            JobStatus j = jobs.get(spec.id());
            if (j == null || j.state() != JobState.PENDING) {
                return false;
            }
            reservations.remove(spec.id());
            replace(j, new JobStatus(spec, JobState.PENDING, j.pendingReason(), null, j.stateSinceMillis(), j.preemptions(), j.sequence(),
                    j.attainedGpuMillis(), j.runningMillis(), j.progress()));
            return true;
        });
    }

    /**
     * Cordons or uncordons a node: nothing new is placed on a cordoned node; what runs there stays.
     *
     * @param name the node
     * @param cordoned the new state
     */
    public void cordon(String name, boolean cordoned) {
        InvalidSpecException.requireNonNull("name", name);
        withLock(() -> {
            Node n = nodes.get(name);
            if (n == null) {
                throw new InvalidSpecException("node", name, "node " + name + " does not exist");
            }
            nodes.put(name, n.withUnschedulable(cordoned));
        });
    }

    // ---------------------------------------------------------------- jobs

    /**
     * Submits a job. It starts pending (suspended: no pods, nothing provisioned) until a round admits it.
     *
     * @param job the job
     * @return its status
     * @throws InvalidSpecException when a job with that id exists
     */
    public JobStatus submit(JobSpec job) {
        InvalidSpecException.requireNonNull("job", job);
        return submitAll(List.of(job)).get(0);
    }

    /**
     * Submits several jobs atomically: all are accepted, or (on a duplicate id) none.
     *
     * @param batch the jobs
     * @return their statuses
     */
    public List<JobStatus> submitAll(Collection<JobSpec> batch) {
        InvalidSpecException.requireNonNull("batch", batch);
        int at = 0;
        for (JobSpec j : batch) {
            InvalidSpecException.requireNonNull("batch[" + at++ + "]", j);
        }
        List<SchedulerEvent> events = eventList();
        List<JobStatus> out = withLock(() -> {
            Set<String> ids = new HashSet<>();
            for (JobSpec j : batch) {
                if (jobs.containsKey(j.id()) || !ids.add(j.id())) {
                    InvalidSpecException.check(false, "job.id", j.id(), "job id %s already exists", j.id());
                }
            }
            long now = clock.millis();
            List<JobStatus> added = new ArrayList<>(batch.size());
            PendingReason fresh = PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "submitted; waiting for the next round");
            Map<String, PendingReason> initialByQueue = new HashMap<>();
            for (JobSpec given : batch) {
                // submitTimeMillis 0 means "at submission" (JobSpec): stamp the clock, so that ages and finish-time
                // estimates count from when the scheduler saw the job, not from the clock's epoch
                JobSpec j = shared(given, given.submitTimeMillis() == 0 ? now : given.submitTimeMillis());
                // a job whose queue resolves starts with the reason it keeps until a round reaches it
                String queueKey = j.localQueueKey();
                PendingReason initial = initialByQueue.computeIfAbsent(queueKey, key -> {
                    LocalQueue lq = localQueues.get(key);
                    return lq != null && clusterQueues.containsKey(lq.clusterQueue())
                            ? io.fairway.core.plan.PlanOutput.notReached(lq.clusterQueue()) : fresh;
                });
                JobStatus s = new JobStatus(j, JobState.PENDING, initial, null, now, 0, nextSequence++, 0, 0, -1);
                jobs.put(j.id(), s);
                pending.put(s.sequence(), s);
                pendingIndex.add(s);
                added.add(s);
                events.add(new SchedulerEvent(now, j.id(), j.jobSet(), EventType.SUBMITTED, queueKey));
            }
            publish(events, List.of());
            return added;
        });
        deliver(null);
        return out;
    }

    /*
     * Jobs submitted by a driver that parses each request carry their own copy of what many jobs share: pod sets,
     * node selectors, queue and owner names (most of a pending job's heap with realistic specs). The engine keeps one
     * copy of each: equal pod set lists and names are interned (weakly: a copy goes when no job holds it).
     */
    private final com.google.common.collect.Interner<List<io.fairway.api.job.PodSet>> podSetLists =
            com.google.common.collect.Interners.newWeakInterner();
    private final com.google.common.collect.Interner<String> names = com.google.common.collect.Interners.newWeakInterner();

    /**
     * Equal pending reasons, kept as one object (weakly): a group's jobs given equal reasons in different rounds then
     * share one, and comparing them (a freeze of the pending index compares a group's reasons) is an identity check
     * instead of comparing texts and details.
     */
    private final com.google.common.collect.Interner<PendingReason> reasonCopies = com.google.common.collect.Interners.newWeakInterner();

    private PendingReason sharedReason(PendingReason r) {
        return reasonCopies.intern(r);
    }

    /**
     * @param j a submitted spec
     * @param submitTimeMillis its submission time (the clock's when it came without one)
     * @return the spec with that time and its pod sets and names shared with the engine's other jobs (one copy at most)
     */
    private JobSpec shared(JobSpec j, long submitTimeMillis) {
        List<io.fairway.api.job.PodSet> podSets = podSetLists.intern(j.podSets());
        String namespace = names.intern(j.namespace());
        String queue = names.intern(j.queue());
        String owner = j.owner().isEmpty() ? j.owner() : names.intern(j.owner());
        String jobSet = j.jobSet().equals(j.id()) ? j.jobSet() : names.intern(j.jobSet()); // a job set per job stays the id
        if (podSets == j.podSets() && namespace == j.namespace() && queue == j.queue() && owner == j.owner() && jobSet == j.jobSet()
                && submitTimeMillis == j.submitTimeMillis()) {
            return j;
        }
        return new JobSpec(j.id(), namespace, queue, jobSet, owner, j.priority(), submitTimeMillis, podSets, j.estimatedSeconds(),
                j.sensitivity(), j.checkpointing());
    }

    /**
     * Cancels a job. A job holding resources releases them, and the actuator receives a {@link Preempt} to stop it.
     *
     * @param jobId the job
     * @return true when it was live and is now cancelled
     */
    public boolean cancel(String jobId) {
        List<SchedulerEvent> events = eventList();
        List<Decision> stops = new ArrayList<>();
        Outgoing[] sent = new Outgoing[1];
        boolean done = withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j == null || j.state().isTerminal()) {
                return false;
            }
            if (j.state().holdsResources()) {
                stops.add(new Preempt(jobId, "cancelled", false, false));
            }
            reservations.remove(jobId);
            finish(j, JobState.CANCELLED, "cancelled", events);
            sent[0] = publish(events, stops);
            return true;
        });
        deliver(sent[0]);
        return done;
    }

    /**
     * Changes a live job's priority.
     *
     * @param jobId the job
     * @param priority the new priority
     * @return true when the job is live
     */
    public boolean setPriority(String jobId, int priority) {
        List<SchedulerEvent> events = eventList();
        boolean done = withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j == null || j.state().isTerminal()) {
                return false;
            }
            replace(j, new JobStatus(j.spec().withPriority(priority), j.state(), j.pendingReason(), j.admission(), j.stateSinceMillis(),
                    j.preemptions(), j.sequence(), j.attainedGpuMillis(), j.runningMillis(), j.progress()));
            events.add(event(j, EventType.PRIORITY_CHANGED, "priority " + j.spec().priority() + " -> " + priority));
            publish(events, List.of());
            return true;
        });
        deliver(null);
        return done;
    }

    /**
     * The actuator reports that an admitted job runs.
     *
     * @param jobId the job
     * @return true when the job was admitted (false, with a warning, otherwise)
     */
    public boolean reportStarted(String jobId) {
        List<SchedulerEvent> events = eventList();
        boolean ok = withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j == null || j.state() != JobState.ADMITTED) {
                LOG.warn("reportStarted({}): job is {}", jobId, j == null ? "unknown" : j.state());
                return false;
            }
            long now = clock.millis();
            replace(j, new JobStatus(j.spec(), JobState.RUNNING, null, j.admission(), now, j.preemptions(), j.sequence(),
                    j.attainedGpuMillis(), j.runningMillis(), j.progress()));
            events.add(event(j, EventType.STARTED, ""));
            publish(events, List.of());
            return true;
        });
        deliver(null);
        return ok;
    }

    /**
     * The actuator reports progress (for finish-time estimates).
     *
     * @param jobId the job
     * @param fraction work done, 0..1
     */
    public void reportProgress(String jobId, double fraction) {
        InvalidSpecException.check(fraction >= 0 && fraction <= 1, "progress", fraction, "progress must be in 0..1, was %s", fraction);
        withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j != null && !j.state().isTerminal()) {
                replace(j, new JobStatus(j.spec(), j.state(), j.pendingReason(), j.admission(), j.stateSinceMillis(), j.preemptions(),
                        j.sequence(), j.attainedGpuMillis(), j.runningMillis(), fraction));
            }
        });
    }

    /**
     * The actuator reports that a job finished successfully.
     *
     * @param jobId the job
     * @return true when it was admitted or running
     */
    public boolean reportFinished(String jobId) {
        return reportEnd(jobId, JobState.SUCCEEDED, "");
    }

    /**
     * The actuator reports that a job failed.
     *
     * @param jobId the job
     * @param message why
     * @return true when it was admitted or running
     */
    public boolean reportFailed(String jobId, String message) {
        return reportEnd(jobId, JobState.FAILED, message);
    }

    private boolean reportEnd(String jobId, JobState end, String message) {
        List<SchedulerEvent> events = eventList();
        boolean ok = withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j == null || !j.state().holdsResources()) {
                LOG.warn("report {}({}): job is {}", end, jobId, j == null ? "unknown" : j.state());
                return false;
            }
            finish(j, end, message, events);
            publish(events, List.of());
            return true;
        });
        deliver(null);
        return ok;
    }

    /**
     * The actuator reports that it preempted a running job on its own (a spot interruption, say): the job goes
     * back to pending.
     *
     * @param jobId the job
     * @param why the reason
     * @return true when it held resources
     */
    public boolean reportEvicted(String jobId, String why) {
        List<SchedulerEvent> events = eventList();
        boolean ok = withLock(() -> {
            JobStatus j = jobs.get(jobId);
            if (j == null || !j.state().holdsResources()) {
                return false;
            }
            requeue(j, PendingReason.of(PendingReason.Code.PREEMPTED, why), EventType.REQUEUED, why, events);
            publish(events, List.of());
            return true;
        });
        deliver(null);
        return ok;
    }

    // ---------------------------------------------------------------- rounds

    /**
     * Runs one round: snapshot, plan, validate, apply, actuate.
     *
     * @return what the round decided (after re-validation against changes made while it ran)
     */
    public RoundResult runRound() {
        Snapshot s;
        long mod;
        List<SchedulerEvent> checkEvents = new ArrayList<>();
        List<Decision> checkAdmits = new ArrayList<>();
        Outgoing checksSent;
        lock.lock();
        try {
            round++;
            decayUsage();
            trackPoolNodes(clock.millis());
            evaluateAdmissionChecks(checkEvents, checkAdmits);
            s = snapshotLocked();
            mod = modCount;
            checksSent = publish(listeners.isEmpty() && jobSetListeners.isEmpty() ? List.of() : checkEvents, checkAdmits);
        } finally {
            lock.unlock();
        }
        deliver(checksSent);
        RoundResult r = Rounds.run(s, policy);
        List<SchedulerEvent> events = eventList();
        List<Decision> applied = new ArrayList<>();
        RoundResult finalResult;
        Outgoing sent;
        lock.lock();
        try {
            List<Preempt> preempts = new ArrayList<>();
            List<Admit> admits = new ArrayList<>();
            List<io.fairway.api.decision.Resize> resizes = new ArrayList<>();
            for (Decision d : r.decisions()) {
                if (d instanceof Preempt p) {
                    preempts.add(p);
                } else if (d instanceof Admit a) {
                    admits.add(a);
                } else if (d instanceof io.fairway.api.decision.Resize rz) {
                    resizes.add(rz);
                }
            }
            // the round's reasons as they are (a million pending jobs' worth is not copied), unless some must change
            Map<String, PendingReason> reasons = r.pendingReasons();
            List<String> refused = new ArrayList<>(r.refused());
            if (modCount != mod) {
                // State changed while the round ran: keep only what still holds.
                Validator.Outcome v = Validator.validate(snapshotLocked(), preempts, admits);
                preempts = v.preemptions();
                admits = v.admissions();
                refused.addAll(v.refused());
                Map<String, PendingReason> changed = new LinkedHashMap<>(reasons);
                reasons = changed;
                v.refusedAdmissions().forEach((id, err) -> changed.put(id, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS,
                        "state changed during the round: " + err)));
            }
            long now = s.nowMillis();
            for (io.fairway.api.decision.Resize rz : resizes) {
                JobStatus j = jobs.get(rz.jobId());
                if (j == null || !j.state().holdsResources() || j.admission() == null) {
                    refused.add("resize " + rz.jobId() + ": the job no longer holds resources");
                    continue;
                }
                if (modCount != mod && !stillFree(j, rz)) {
                    refused.add("resize " + rz.jobId() + ": state changed during the round");
                    continue;
                }
                Map<String, Integer> counts = new LinkedHashMap<>(j.admission().counts());
                counts.put(rz.podSet(), rz.targetCount());
                Admit a = j.admission();
                Admit next = new Admit(a.jobId(), a.clusterQueue(), a.flavors(), counts, rz.placement(), a.admittedAtMillis(), a.leaseExpiresAtMillis(),
                        a.admissionOrder());
                JobStatus l = j.state() == JobState.RUNNING ? live(j, now) : j;
                // attained service so far is kept; the running clock restarts with the new size
                replace(j, new JobStatus(j.spec(), j.state(), null, next, j.state() == JobState.RUNNING ? now : j.stateSinceMillis(),
                        j.preemptions(), j.sequence(), l.attainedGpuMillis(), l.runningMillis(), j.progress()));
                events.add(event(j, EventType.RESIZED, rz.podSet() + " " + a.counts().get(rz.podSet()) + " -> " + rz.targetCount()));
                applied.add(rz);
            }
            for (Preempt p : preempts) {
                JobStatus j = jobs.get(p.jobId());
                requeue(j, PendingReason.of(PendingReason.Code.PREEMPTED, "preempted: " + p.reason()), EventType.PREEMPTED, p.reason(), events);
                applied.add(p);
            }
            List<Admit> reserved = new ArrayList<>();
            for (Admit a : admits) {
                JobStatus j = jobs.get(a.jobId());
                ClusterQueue cq = clusterQueues.get(a.clusterQueue());
                boolean checked = cq != null && !cq.admissionChecks().isEmpty();
                JobStatus n = new JobStatus(j.spec(), checked ? JobState.QUOTA_RESERVED : JobState.ADMITTED, null, a, now, j.preemptions(),
                        j.sequence(), j.attainedGpuMillis(), j.runningMillis(), j.progress());
                replace(j, n);
                if (checked) {
                    reserved.add(a);
                    events.add(event(n, EventType.PENDING, "quota reserved in " + a.clusterQueue() + "; admission checks " + cq.admissionChecks()));
                } else {
                    if (events != UNHEARD) {
                        events.add(admittedEvent(n, a));
                    }
                    applied.add(a);
                }
            }
            if (!reserved.isEmpty()) {
                List<Decision> ready = new ArrayList<>();
                evaluateAdmissionChecks(events, ready);
                applied.addAll(ready);
            }
            PendingReason lastReason = null; // jobs answered together share one reason object: its text is built once
            String lastText = null;
            for (Map.Entry<String, PendingReason> e : reasons.entrySet()) {
                JobStatus j = jobs.get(e.getKey());
                if (j != null && j.state() == JobState.PENDING && !e.getValue().equals(j.pendingReason())) {
                    replace(j, new JobStatus(j.spec(), JobState.PENDING, sharedReason(e.getValue()), null, j.stateSinceMillis(), j.preemptions(),
                            j.sequence(), j.attainedGpuMillis(), j.runningMillis(), j.progress()));
                    if (events != UNHEARD) {
                        if (e.getValue() != lastReason) {
                            lastReason = e.getValue();
                            lastText = lastReason.code() + ": " + lastReason.message();
                        }
                        events.add(new SchedulerEvent(now, j.id(), j.spec().jobSet(), EventType.PENDING, lastText));
                    }
                }
            }
            for (String ref : refused) {
                events.add(new SchedulerEvent(now, null, null, EventType.PLAN_REFUSED, ref));
            }
            Map<String, Long> renewed = new LinkedHashMap<>();
            for (Map.Entry<String, Long> e : r.leaseRenewals().entrySet()) {
                JobStatus j = jobs.get(e.getKey());
                if (j != null && j.state().holdsResources() && j.admission() != null) {
                    replace(j, new JobStatus(j.spec(), j.state(), j.pendingReason(), j.admission().withLease(e.getValue()), j.stateSinceMillis(),
                            j.preemptions(), j.sequence(), j.attainedGpuMillis(), j.runningMillis(), j.progress()));
                    renewed.put(e.getKey(), e.getValue());
                }
            }
            for (Admit a : admits) {
                reservations.remove(a.jobId());
                if (!emptySince.isEmpty()) {
                    emptySince.keySet().removeAll(a.placement().nodes());
                }
            }
            Map<String, Provisioning.Reservation> newReservations = new LinkedHashMap<>();
            for (Provisioning.Reservation res : r.reservations().values()) {
                JobStatus j = jobs.get(res.jobId());
                if (j != null && j.state() == JobState.PENDING) {
                    reservations.put(res.jobId(), res);
                    newReservations.put(res.jobId(), res);
                }
            }
            io.fairway.core.provisioning.Provisioner.mergeRequests(inFlight, r.requests()); // a request handed to other jobs replaces itself
            for (Decision d : r.decisions()) {
                if (d instanceof io.fairway.api.decision.Provision || d instanceof Deprovision) {
                    applied.add(d);
                    events.add(new SchedulerEvent(now, null, null, d instanceof Deprovision ? EventType.DEPROVISIONED : EventType.PROVISIONED,
                            d.toString()));
                }
                if (d instanceof Deprovision dp && nodes.containsKey(dp.node())) {
                    nodes.put(dp.node(), nodes.get(dp.node()).withUnschedulable(true)); // nothing new lands on a node going away
                    emptySince.remove(dp.node());
                }
            }
            policyWakeAt = r.wakeAtMillis();
            finalResult = new RoundResult(r.round(), r.nowMillis(), applied, reasons, refused, r.computeNanos(), renewed,
                    newReservations, r.requests(), r.wakeAtMillis());
            sent = publish(events, applied);
        } finally {
            lock.unlock();
        }
        deliver(sent);
        return finalResult;
    }

    private SchedulerEvent admittedEvent(JobStatus n, Admit a) {
        return event(n, EventType.ADMITTED, a.clusterQueue() + " " + a.flavors() + " on " + a.placement().nodes()
                + " (" + a.placement().locality() + ", x" + Math.round(a.placement().throughputFactor() * 100) / 100.0 + ")");
    }

    /** Asks the admission checks about every job with reserved quota (lock held). */
    private void evaluateAdmissionChecks(List<SchedulerEvent> events, List<Decision> admitted) {
        long now = clock.millis();
        List<JobStatus> reserved = new ArrayList<>(); // collected first: deciding changes the holding index
        for (JobStatus j : holding.values()) {
            if (j.state() == JobState.QUOTA_RESERVED) {
                reserved.add(j);
            }
        }
        for (JobStatus j : reserved) {
            ClusterQueue cq = clusterQueues.get(j.admission().clusterQueue());
            List<String> names = cq == null ? List.of() : cq.admissionChecks();
            String rejected = null;
            boolean allReady = true;
            for (String name : names) {
                AdmissionCheck c = admissionChecks.get(name);
                AdmissionCheck.Result res;
                try {
                    res = c == null ? AdmissionCheck.Result.rejected("admission check " + name + " is not registered")
                            : c.evaluate(j, j.admission(), now);
                } catch (RuntimeException e) {
                    LOG.warn("admission check {} failed on {}", name, j.id(), e);
                    res = AdmissionCheck.Result.pending("admission check " + name + " failed: " + e.getMessage());
                }
                if (res.verdict() == AdmissionCheck.Verdict.REJECTED) {
                    rejected = name + ": " + res.message();
                    break;
                }
                if (res.verdict() != AdmissionCheck.Verdict.READY) {
                    allReady = false;
                }
            }
            if (rejected != null) {
                replace(j, new JobStatus(j.spec(), JobState.PENDING, PendingReason.of(PendingReason.Code.ADMISSION_CHECK,
                        "admission check rejected the job: " + rejected), null, now, j.preemptions(), j.sequence(),
                        j.attainedGpuMillis(), j.runningMillis(), j.progress()));
                events.add(event(j, EventType.PENDING, "admission check rejected the job: " + rejected));
            } else if (allReady) {
                JobStatus n = new JobStatus(j.spec(), JobState.ADMITTED, null, j.admission(), now, j.preemptions(), j.sequence(),
                        j.attainedGpuMillis(), j.runningMillis(), j.progress());
                replace(j, n);
                events.add(admittedEvent(n, j.admission()));
                admitted.add(j.admission());
            }
        }
    }

    /**
     * Fair share over time: each ClusterQueue's usage (its dominant share of the cluster) decays with the
     * half-life, as HTCondor's RUP(t) = β·RUP(t−δt) + (1−β)·usage, β = 0.5^(δt / half-life). Lock held.
     */
    private void decayUsage() {
        long now = clock.millis();
        if (usageUpdatedAt == Long.MIN_VALUE) {
            usageUpdatedAt = now;
            return;
        }
        long dt = now - usageUpdatedAt;
        if (dt <= 0) {
            return;
        }
        Map<String, Long> total = new HashMap<>();
        for (Node n : nodes.values()) {
            n.capacity().asMap().forEach((r, v) -> total.merge(r, v, Long::sum));
        }
        Map<String, Map<String, Long>> used = new HashMap<>();
        for (JobStatus j : holding.values()) {
            Admit a = j.admission();
            for (var ps : j.spec().podSets()) {
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                ps.total(m).asMap().forEach((r, v) -> used.computeIfAbsent(a.clusterQueue(), k -> new HashMap<>()).merge(r, v, Long::sum));
            }
        }
        double beta = Math.pow(0.5, (double) dt / usageHalfLifeMillis);
        Set<String> names = new HashSet<>(clusterQueues.keySet());
        names.addAll(decayedUsage.keySet());
        for (String cq : names) {
            double share = 0;
            for (Map.Entry<String, Long> e : used.getOrDefault(cq, Map.of()).entrySet()) {
                long t = total.getOrDefault(e.getKey(), 0L);
                if (t > 0) {
                    share = Math.max(share, (double) e.getValue() / t);
                }
            }
            double v = beta * decayedUsage.getOrDefault(cq, 0.0) + (1 - beta) * share;
            decayedUsage.put(cq, v);
        }
        usageUpdatedAt = now;
    }

    /**
     * Why a job waits, in words and numbers, with its place in its ClusterQueue.
     *
     * @param jobId a job
     * @return the explanation, or empty when the job is unknown
     */
    public Optional<PendingExplanation> explain(String jobId) {
        lock.lock();
        try {
            JobStatus j = jobs.get(jobId);
            if (j == null) {
                return Optional.empty();
            }
            LocalQueue lq = localQueues.get(j.spec().localQueueKey());
            String cq = j.admission() != null ? j.admission().clusterQueue() : lq == null ? null : lq.clusterQueue();
            int ahead = 0;
            if (j.state() == JobState.PENDING && cq != null) {
                for (JobStatus o : pending.values()) {
                    LocalQueue olq = localQueues.get(o.spec().localQueueKey());
                    if (o != j && olq != null && cq.equals(olq.clusterQueue()) && io.fairway.core.plan.PlanContext.KUEUE_ORDER.compare(o, j) < 0) {
                        ahead++;
                    }
                }
            }
            return Optional.of(new PendingExplanation(j, cq, j.state() == JobState.PENDING ? ahead : -1, j.pendingReason()));
        } finally {
            lock.unlock();
        }
    }

    /** @return each ClusterQueue's decayed usage (fair share over time) */
    public Map<String, Double> decayedUsage() {
        lock.lock();
        try {
            return Map.copyOf(decayedUsage);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Captures the engine's whole state (see {@link SchedulerState}); with {@link #restore} a run stopped at any
     * point continues exactly as it would have.
     *
     * @return the state
     */
    public SchedulerState exportState() {
        lock.lock();
        try {
            List<JobStatus> all = new ArrayList<>(jobs.values());
            all.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
            return new SchedulerState(seed, placement, usageHalfLifeMillis, round, nextSequence, usageUpdatedAt,
                    new ArrayList<>(clusters.values()), new ArrayList<>(flavors.values()), new ArrayList<>(cohorts.values()),
                    new ArrayList<>(clusterQueues.values()), new ArrayList<>(localQueues.values()), new ArrayList<>(nodes.values()),
                    new ArrayList<>(nodePools.values()), all, decayedUsage,
                    new Provisioning(nodePools, reservations, inFlight, emptySince));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Builds a scheduler from a captured state. The builder supplies what is not state — the policy, the actuator,
     * the clock, listeners, admission checks; the state supplies everything else (its seed, placement strategy and
     * half-life override the builder's).
     *
     * <p>The state is checked first (see {@code StateCheck}): a job on a node the state does not have, two jobs on
     * one GPU, a job whose state disagrees with its admission, a reservation for a job that is not pending — any
     * such inconsistency refuses the whole state with an {@link InvalidSpecException} listing what is wrong, and
     * nothing is built.
     *
     * @param state the captured state
     * @param builder policy, actuator, clock and listeners
     * @return the restored scheduler
     * @throws InvalidSpecException when the state is inconsistent or its configuration invalid
     */
    public static Scheduler restore(SchedulerState state, Builder builder) {
        InvalidSpecException.requireNonNull("state", state);
        InvalidSpecException.requireNonNull("builder", builder);
        StateCheck.check(state);
        builder.seed(state.seed()).placement(state.placement()).usageHalfLife(java.time.Duration.ofMillis(state.usageHalfLifeMillis()));
        state.clusters().forEach(builder::cluster);
        state.flavors().forEach(builder::flavor);
        state.cohorts().forEach(builder::cohort);
        state.clusterQueues().forEach(builder::clusterQueue);
        state.localQueues().forEach(builder::localQueue);
        builder.nodes(state.nodes());
        state.nodePools().forEach(builder::nodePool);
        Scheduler s = builder.build();
        s.lock.lock();
        try {
            for (JobStatus j : state.jobs()) {
                s.jobs.put(j.id(), j);
                if (j.state() == JobState.PENDING) {
                    s.pending.put(j.sequence(), j);
                    s.pendingIndex.add(j);
                } else if (j.state().holdsResources()) {
                    s.holding.put(j.sequence(), j);
                }
            }
            s.round = state.round();
            s.nextSequence = state.nextSequence();
            s.usageUpdatedAt = state.usageUpdatedAt();
            s.decayedUsage.putAll(state.decayedUsage());
            s.reservations.putAll(state.provisioning().reservations());
            s.inFlight.addAll(state.provisioning().inFlight());
            s.emptySince.putAll(state.provisioning().emptySince());
            s.modCount++;
        } finally {
            s.lock.unlock();
        }
        return s;
    }

    /** @return a snapshot of the whole state, for dry runs and tests */
    public Snapshot snapshot() {
        lock.lock();
        try {
            return snapshotLocked();
        } finally {
            lock.unlock();
        }
    }

    private Snapshot snapshotLocked() {
        long now = clock.millis();
        List<JobStatus> held = new ArrayList<>(holding.size());
        for (JobStatus j : holding.values()) {
            held.add(j.state() == JobState.RUNNING ? live(j, now) : j);
        }
        Provisioning prov = nodePools.isEmpty() && reservations.isEmpty() ? Provisioning.NONE
                : new Provisioning(nodePools, reservations, inFlight, emptySince);
        PendingIndex idx = pendingIndex.freeze();
        return new Snapshot(round, now, seed, clusters, new ArrayList<>(nodes.values()), flavors, clusterQueues, cohorts, localQueues,
                idx.inSubmissionOrder(), held, decayedUsage, placement, prov, idx);
    }

    /** After a concurrent change: a resize is kept only if its new members' nodes still exist. */
    private boolean stillFree(JobStatus j, io.fairway.api.decision.Resize rz) {
        for (MemberPlacement m : rz.placement().members()) {
            if (!nodes.containsKey(m.node())) {
                return false;
            }
        }
        return true;
    }

    /**
     * When a round would next have something to do without any new event: the time the last round's policy asked
     * for ({@link io.fairway.api.spi.PolicyContext#wakeAt}), a lease expiring, a pool node's consolidation delay
     * running out, or an admission check to ask again. Simulators and controllers use it to schedule their next
     * round.
     *
     * @param checkRetryMillis how soon to ask pending admission checks again
     * @return the earliest such time, or empty when nothing is due
     */
    public java.util.OptionalLong nextWakeupMillis(long checkRetryMillis) {
        lock.lock();
        try {
            long now = clock.millis();
            long best = policyWakeAt > now ? policyWakeAt : Long.MAX_VALUE;
            for (JobStatus j : holding.values()) {
                Admit a = j.admission();
                if (a != null && a.leaseExpiresAtMillis() != Admit.NO_LEASE && a.leaseExpiresAtMillis() > now) {
                    best = Math.min(best, a.leaseExpiresAtMillis());
                }
                if (j.state() == JobState.QUOTA_RESERVED) {
                    best = Math.min(best, now + checkRetryMillis);
                }
            }
            for (Map.Entry<String, Long> e : emptySince.entrySet()) {
                Node n = nodes.get(e.getKey());
                NodePool p = n == null ? null : nodePools.get(n.labels().get(NodePool.POOL_LABEL));
                if (p != null && e.getValue() + p.consolidationDelayMillis() > now) {
                    // a node already past its delay is held by a node request: an event (arrival, cancel) ends that, not time
                    best = Math.min(best, e.getValue() + p.consolidationDelayMillis());
                }
            }
            return best == Long.MAX_VALUE ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(best);
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param jobId a job
     * @return the cluster its current admission placed it in, or null
     */
    public String clusterOf(String jobId) {
        lock.lock();
        try {
            JobStatus j = jobs.get(jobId);
            if (j == null || j.admission() == null || j.admission().placement().members().isEmpty()) {
                return null;
            }
            Node n = nodes.get(j.admission().placement().members().get(0).node());
            return n == null ? null : n.cluster();
        } finally {
            lock.unlock();
        }
    }

    /** Tracks since when each pool node is empty, and drops node requests that never came (lock held). */
    private void trackPoolNodes(long now) {
        if (nodePools.isEmpty()) {
            releasedAt.clear();
            return;
        }
        Set<String> busy = new HashSet<>();
        for (JobStatus j : holding.values()) {
            if (j.admission() != null) {
                for (MemberPlacement m : j.admission().placement().members()) {
                    busy.add(m.node());
                }
            }
        }
        for (Node n : nodes.values()) {
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

    /** A running job's status with attained service brought up to {@code now}. */
    private static JobStatus live(JobStatus j, long now) {
        long ran = Math.max(0, now - j.stateSinceMillis());
        int gpus = j.admission() == null ? 0 : j.admission().placement().gpuCount();
        return new JobStatus(j.spec(), j.state(), j.pendingReason(), j.admission(), j.stateSinceMillis(), j.preemptions(), j.sequence(),
                j.attainedGpuMillis() + ran * gpus, j.runningMillis() + ran, j.progress());
    }

    // ---------------------------------------------------------------- queries

    /**
     * @param jobId a job
     * @return its status (running jobs with attained service up to now)
     */
    public Optional<JobStatus> status(String jobId) {
        lock.lock();
        try {
            JobStatus j = jobs.get(jobId);
            return Optional.ofNullable(j == null ? null : j.state() == JobState.RUNNING ? live(j, clock.millis()) : j);
        } finally {
            lock.unlock();
        }
    }

    /** @return every job ever submitted, in submission order */
    public List<JobStatus> jobs() {
        lock.lock();
        try {
            List<JobStatus> all = new ArrayList<>(jobs.values());
            all.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
            return all;
        } finally {
            lock.unlock();
        }
    }

    /** @return pending jobs in submission order */
    public List<JobStatus> pendingJobs() {
        lock.lock();
        try {
            return pendingInOrder();
        } finally {
            lock.unlock();
        }
    }

    /** @return the nodes, in the order added */
    public List<Node> nodes() {
        lock.lock();
        try {
            return new ArrayList<>(nodes.values());
        } finally {
            lock.unlock();
        }
    }

    /** @return rounds run so far */
    public long round() {
        lock.lock();
        try {
            return round;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Checks every invariant of ARCHITECTURE.md on the current state: each job in exactly one state and
     * index, no capacity or GPU overcommitted, quota within limits at every level of the cohort tree, gangs
     * whole, a reason on every pending job.
     *
     * @return the violations found (empty when all hold)
     */
    public List<String> checkInvariants() {
        lock.lock();
        try {
            List<String> v = new ArrayList<>();
            for (JobStatus j : jobs.values()) {
                boolean inPending = pending.get(j.sequence()) == j;
                boolean inHolding = holding.get(j.sequence()) == j;
                boolean ok = switch (j.state()) {
                    case PENDING -> inPending && !inHolding && j.pendingReason() != null && j.admission() == null;
                    case QUOTA_RESERVED, ADMITTED, RUNNING -> inHolding && !inPending && j.admission() != null;
                    default -> !inPending && !inHolding;
                };
                if (!ok) {
                    v.add("job " + j.id() + " in state " + j.state() + " is inconsistent (pending index " + inPending + ", holding index " + inHolding
                            + ", reason " + j.pendingReason() + ")");
                }
            }
            PendingIndex idx = pendingIndex.freeze();
            List<JobStatus> inOrder = pendingInOrder();
            if (idx.size() != pending.size() || !idx.equals(PendingIndex.of(inOrder)) || !idx.inSubmissionOrder().equals(inOrder)) {
                v.add("the pending index holds " + idx.size() + " jobs in its groups, the pending list " + pending.size());
            }
            if (pending.size() + holding.size() > jobs.size()) {
                v.add("indexes hold " + (pending.size() + holding.size()) + " jobs, more than the " + jobs.size() + " known");
            }
            v.addAll(Invariants.check(snapshotLocked()));
            return v;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- listeners

    /**
     * Events are built only while some listener is registered (with none, a round does not spend time formatting
     * messages nobody reads); a listener sees the events of operations that start after it was added.
     *
     * @param listener receives every event
     */
    public void addListener(SchedulerListener listener) {
        listeners.add(InvalidSpecException.requireNonNull("listener", listener));
    }

    /** @param listener a listener to remove */
    public void removeListener(SchedulerListener listener) {
        listeners.remove(listener);
        jobSetListeners.values().forEach(l -> l.remove(listener));
    }

    /**
     * @param jobSet a job set
     * @param listener receives the events of that job set's jobs only
     */
    public void addJobSetListener(String jobSet, SchedulerListener listener) {
        InvalidSpecException.requireNonNull("jobSet", jobSet);
        InvalidSpecException.requireNonNull("listener", listener);
        jobSetListeners.computeIfAbsent(jobSet, k -> new CopyOnWriteArrayList<>()).add(listener);
    }

    /** Drops what is added: the event list of an operation while nobody listens. */
    private static final List<SchedulerEvent> UNHEARD = new java.util.AbstractList<>() {
        @Override
        public boolean add(SchedulerEvent e) {
            return true;
        }

        @Override
        public SchedulerEvent get(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public int size() {
            return 0;
        }
    };

    /** @return a list for an operation's events, or one that drops them when no listener is registered */
    private List<SchedulerEvent> eventList() {
        return listeners.isEmpty() && jobSetListeners.isEmpty() ? UNHEARD : new ArrayList<>();
    }

    // Delivery in the order of the state changes. Every operation appends its events and its decisions for the
    // actuator to the outbox while it still holds the state lock, so the outbox is in the order the state changed;
    // after unlocking it delivers everything queued under a second lock, one thread at a time. A caller returns only
    // after its own events and decisions were delivered (by itself or by a thread that was delivering already).

    /** Events ({@link SchedulerEvent}) and actuator batches ({@link Outgoing}) not yet delivered, in state order. */
    private final java.util.concurrent.ConcurrentLinkedQueue<Object> outbox = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final ReentrantLock deliveryLock = new ReentrantLock();

    /** Decisions for the actuator, and what the actuator threw on them (rethrown to the caller that made them). */
    private static final class Outgoing {
        final List<Decision> decisions;
        final Thread owner = Thread.currentThread();
        volatile RuntimeException failure;

        Outgoing(List<Decision> decisions) {
            this.decisions = decisions;
        }
    }

    /** Queues an operation's events and decisions (lock held). @return the decisions' batch, or null when none */
    private Outgoing publish(List<SchedulerEvent> events, List<Decision> decisions) {
        outbox.addAll(events);
        if (decisions.isEmpty()) {
            return null;
        }
        Outgoing o = new Outgoing(List.copyOf(decisions));
        outbox.add(o);
        return o;
    }

    /**
     * Delivers what is queued (lock not held; while the calling thread still holds the state lock it returns at once
     * and the outermost caller delivers). Rethrows what the actuator threw on this caller's own decisions.
     */
    private void deliver(Outgoing mine) {
        if (lock.isHeldByCurrentThread()) {
            return;
        }
        deliveryLock.lock();
        try {
            Object o;
            while ((o = outbox.poll()) != null) {
                if (o instanceof SchedulerEvent e) {
                    dispatch(e);
                } else {
                    Outgoing out = (Outgoing) o;
                    try {
                        actuator.apply(out.decisions);
                    } catch (RuntimeException ex) {
                        out.failure = ex;
                        if (out.owner != Thread.currentThread()) {
                            LOG.warn("actuator failed on {} (reported to the caller that made them)", out.decisions, ex);
                        }
                    }
                }
            }
        } finally {
            deliveryLock.unlock();
        }
        if (mine != null && mine.failure != null) {
            throw mine.failure;
        }
    }

    private void dispatch(SchedulerEvent e) {
        for (SchedulerListener l : listeners) {
            safely(l, e);
        }
        if (e.jobSet() != null) {
            List<SchedulerListener> ls = jobSetListeners.get(e.jobSet());
            if (ls != null) {
                for (SchedulerListener l : ls) {
                    safely(l, e);
                }
            }
        }
    }

    private static void safely(SchedulerListener l, SchedulerEvent e) {
        try {
            l.onEvent(e);
        } catch (RuntimeException ex) {
            LOG.warn("listener {} failed on {}", l, e, ex);
        }
    }

    // ---------------------------------------------------------------- state transitions (lock held)

    /** @return the pending jobs by sequence (submission order), as a new list (lock held) */
    private List<JobStatus> pendingInOrder() {
        List<JobStatus> l = new ArrayList<>(pending.values());
        l.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
        return l;
    }

    private SchedulerEvent event(JobStatus j, EventType type, String reason) {
        return new SchedulerEvent(clock.millis(), j.id(), j.spec().jobSet(), type, reason);
    }

    private void replace(JobStatus old, JobStatus now) {
        jobs.put(now.id(), now);
        if (pending.get(old.sequence()) == old) {
            if (now.state() == JobState.PENDING && now.sequence() == old.sequence()) {
                pending.put(now.sequence(), now); // still pending (a new reason, say): same place in both indexes
                pendingIndex.replace(old, now);
                modCount++;
                return;
            }
            pending.remove(old.sequence());
            pendingIndex.remove(old);
        }
        if (holding.get(old.sequence()) == old) {
            holding.remove(old.sequence());
            if (!nodePools.isEmpty() && old.admission() != null) {
                long t = clock.millis();
                for (MemberPlacement m : old.admission().placement().members()) {
                    releasedAt.put(m.node(), t);
                }
            }
        }
        if (now.state() == JobState.PENDING) {
            pending.put(now.sequence(), now);
            pendingIndex.add(now);
        } else if (now.state().holdsResources()) {
            holding.put(now.sequence(), now);
        }
        modCount++;
    }

    private void requeue(JobStatus j, PendingReason reason, EventType type, String why, List<SchedulerEvent> events) {
        JobStatus l = j.state() == JobState.RUNNING ? live(j, clock.millis()) : j;
        replace(j, new JobStatus(j.spec(), JobState.PENDING, reason, null, clock.millis(), j.preemptions() + 1, j.sequence(),
                l.attainedGpuMillis(), l.runningMillis(), j.progress()));
        events.add(event(j, type, why));
    }

    private void finish(JobStatus j, JobState end, String why, List<SchedulerEvent> events) {
        JobStatus l = j.state() == JobState.RUNNING ? live(j, clock.millis()) : j;
        replace(j, new JobStatus(j.spec(), end, null, null, clock.millis(), j.preemptions(), j.sequence(),
                l.attainedGpuMillis(), l.runningMillis(), end == JobState.SUCCEEDED ? 1.0 : j.progress()));
        events.add(event(j, end == JobState.SUCCEEDED ? EventType.SUCCEEDED : end == JobState.FAILED ? EventType.FAILED : EventType.CANCELLED, why));
    }

    private void withLock(Runnable r) {
        lock.lock();
        try {
            r.run();
            modCount++;
        } finally {
            lock.unlock();
        }
    }

    private <T> T withLock(java.util.function.Supplier<T> s) {
        lock.lock();
        try {
            T t = s.get();
            modCount++;
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** Builds a {@link Scheduler}; every setter validates its argument. */
    public static final class Builder {
        private String policyName = "best-effort-fifo";
        private Map<String, String> policyParameters = Map.of();
        private SchedulingPolicy policy;
        private Actuator actuator = Actuator.NONE;
        private Clock clock = Clock.system();
        private long seed = 1;
        private PlacementStrategy placement = PlacementStrategy.TOPOLOGY_AWARE;
        private final List<ClusterSpec> clusters = new ArrayList<>();
        private final List<ResourceFlavor> flavors = new ArrayList<>();
        private final List<Cohort> cohorts = new ArrayList<>();
        private final List<ClusterQueue> clusterQueues = new ArrayList<>();
        private final List<LocalQueue> localQueues = new ArrayList<>();
        private final List<Node> nodes = new ArrayList<>();
        private final List<SchedulerListener> listeners = new ArrayList<>();
        private final List<AdmissionCheck> admissionChecks = new ArrayList<>();
        private final List<NodePool> nodePools = new ArrayList<>();
        private long usageHalfLifeMillis = java.time.Duration.ofDays(1).toMillis();

        private Builder() {
        }

        /**
         * @param pool a node pool to provision from
         * @return this
         */
        public Builder nodePool(NodePool pool) {
            nodePools.add(InvalidSpecException.requireNonNull("nodePool", pool));
            return this;
        }

        /**
         * @param check an admission check ClusterQueues may name
         * @return this
         */
        public Builder admissionCheck(AdmissionCheck check) {
            admissionChecks.add(InvalidSpecException.requireNonNull("admissionCheck", check));
            return this;
        }

        /**
         * @param halfLife the half-life of usage history for fair share over time (HTCondor's default: one day)
         * @return this
         */
        public Builder usageHalfLife(java.time.Duration halfLife) {
            InvalidSpecException.check(halfLife != null && !halfLife.isNegative() && !halfLife.isZero(), "usageHalfLife", halfLife,
                    "usageHalfLife must be > 0, was %s", halfLife);
            this.usageHalfLifeMillis = halfLife.toMillis();
            return this;
        }

        /**
         * @param name a policy found by {@link Policies} (default {@code best-effort-fifo})
         * @return this
         */
        public Builder policy(String name) {
            return policy(name, Map.of());
        }

        /**
         * @param name a policy name
         * @param parameters its configuration
         * @return this
         */
        public Builder policy(String name, Map<String, String> parameters) {
            this.policyName = InvalidSpecException.requireName("policy", name);
            this.policyParameters = Map.copyOf(InvalidSpecException.requireNonNull("policyParameters", parameters));
            this.policy = null;
            return this;
        }

        /** @param policy a policy instance @return this */
        public Builder policy(SchedulingPolicy policy) {
            this.policy = InvalidSpecException.requireNonNull("policy", policy);
            return this;
        }

        /** @param actuator carries decisions out @return this */
        public Builder actuator(Actuator actuator) {
            this.actuator = InvalidSpecException.requireNonNull("actuator", actuator);
            return this;
        }

        /** @param clock the clock @return this */
        public Builder clock(Clock clock) {
            this.clock = InvalidSpecException.requireNonNull("clock", clock);
            return this;
        }

        /** @param seed seeds every random choice @return this */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * @param strategy how gangs are placed on nodes and GPUs (default {@link PlacementStrategy#TOPOLOGY_AWARE})
         * @return this
         */
        public Builder placement(PlacementStrategy strategy) {
            this.placement = InvalidSpecException.requireNonNull("placement", strategy);
            return this;
        }

        /** @param c a cluster spec @return this */
        public Builder cluster(ClusterSpec c) {
            clusters.add(InvalidSpecException.requireNonNull("cluster", c));
            return this;
        }

        /** @param f a flavor @return this */
        public Builder flavor(ResourceFlavor f) {
            flavors.add(InvalidSpecException.requireNonNull("flavor", f));
            return this;
        }

        /** @param c a cohort @return this */
        public Builder cohort(Cohort c) {
            cohorts.add(InvalidSpecException.requireNonNull("cohort", c));
            return this;
        }

        /** @param q a ClusterQueue @return this */
        public Builder clusterQueue(ClusterQueue q) {
            clusterQueues.add(InvalidSpecException.requireNonNull("clusterQueue", q));
            return this;
        }

        /** @param q a LocalQueue @return this */
        public Builder localQueue(LocalQueue q) {
            localQueues.add(InvalidSpecException.requireNonNull("localQueue", q));
            return this;
        }

        /** @param n a node @return this */
        public Builder node(Node n) {
            nodes.add(InvalidSpecException.requireNonNull("node", n));
            return this;
        }

        /** @param ns nodes @return this */
        public Builder nodes(Collection<Node> ns) {
            InvalidSpecException.requireNonNull("nodes", ns).forEach(this::node);
            return this;
        }

        /** @param l a listener @return this */
        public Builder listener(SchedulerListener l) {
            listeners.add(InvalidSpecException.requireNonNull("listener", l));
            return this;
        }

        /**
         * @return the scheduler
         * @throws InvalidSpecException on an unknown policy or invalid configuration
         */
        public Scheduler build() {
            return new Scheduler(this);
        }
    }
}
