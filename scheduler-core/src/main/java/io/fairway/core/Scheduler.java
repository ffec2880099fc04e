package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Decision;
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
import io.fairway.core.validation.Invariants;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.snapshot.PlacementStrategy;

/**
 * The engine around the pure round, and the one type an embedder holds: it takes submissions and reports
 * (thread-safe, also while a round runs), runs rounds — snapshot, {@link Rounds#run}, apply, hand the decisions to
 * the {@link Actuator} — and tells listeners what happened.
 *
 * <pre>{@code
 * Scheduler scheduler = Scheduler.builder()
 *     .policy("best-effort-fifo")
 *     .flavor(ResourceFlavor.of("default"))
 *     .clusterQueue(ClusterQueue.builder("team-a").quota("default", Resources.builder().cpu(64).gpus(16).build()).build())
 *     .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
 *     .node(Node.builder("n1").capacity(Resources.builder().cpu(96).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
 *     .actuator(decisions -> decisions.forEach(d -> log.info("{}", d)))
 *     .build();
 * scheduler.submit(JobSpec.builder("j1").namespace("team-a").queue("gpu").members(2, Resources.builder().cpu(8).gpus(4).build()).build());
 * RoundResult r = scheduler.runRound();     // Admit j1: n1 GPUs [0..3] and [4..7]
 * scheduler.reportStarted("j1");
 * }</pre>
 *
 * <p>The verbs here are the everyday ones: submit, cancel, report, run a round, snapshot, listen, export. The rest
 * is in three views: {@link #queues()} (flavors, cohorts, ClusterQueues, LocalQueues), {@link #clusters()}
 * (clusters, nodes, node pools) and {@link #jobs()} (listing, explaining, editing, job sets).
 *
 * <p>Every method that changes state validates first and changes nothing when it throws.
 */
public final class Scheduler {
    private final EngineState state;
    private final boolean rememberRounds;
    private final RoundApplier applier;
    private final Queues queues;
    private final Clusters clusters;
    private final Jobs jobs;

    private Scheduler(Builder b) {
        SchedulingPolicy policy = b.policy != null ? b.policy : Policies.create(b.policyName, b.policyParameters);
        this.state = new EngineState(policy, b.actuator, b.clock, b.seed, b.placement, b.usageHalfLifeMillis);
        this.rememberRounds = b.rememberRounds;
        this.applier = new RoundApplier(state);
        this.queues = new Queues(state);
        this.clusters = new Clusters(state);
        this.jobs = new Jobs(state);
        state.outbox.listeners.addAll(b.listeners);
        for (AdmissionCheck c : b.admissionChecks) {
            state.admissionChecks.put(c.name(), c);
        }
        b.clusters.forEach(clusters::addCluster);
        b.flavors.forEach(queues::addFlavor);
        for (io.fairway.api.model.PriorityClass c : b.priorityClasses) {
            InvalidSpecException.check(state.priorityClasses.putIfAbsent(c.name(), c) == null, "priorityClass.name", c.name(),
                    "priority class %s is defined twice", c.name());
        }
        b.cohorts.forEach(queues::addCohort);
        b.clusterQueues.forEach(queues::addClusterQueue);
        b.localQueues.forEach(queues::addLocalQueue);
        b.nodes.forEach(clusters::addNode);
        b.nodePools.forEach(clusters::addNodePool);
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the memory the last round left (for tests in this package), or null */
    io.fairway.core.plan.RoundMemory roundMemory() {
        return state.read(() -> state.memory);
    }

    /** @return the policy */
    public SchedulingPolicy policy() {
        return state.policy;
    }

    /** @return the queueing configuration: flavors, cohorts, ClusterQueues, LocalQueues, usage over time */
    public Queues queues() {
        return queues;
    }

    /** @return the capacity: clusters, nodes, node pools */
    public Clusters clusters() {
        return clusters;
    }

    /** @return the jobs: listing, explanations, edits, job sets */
    public Jobs jobs() {
        return jobs;
    }

    // ---------------------------------------------------------------- submit and cancel

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
        List<SchedulerEvent> events = state.outbox.eventList();
        List<JobStatus> out = state.withLock(() -> {
            List<JobStatus> added = state.jobs.submit(batch, events);
            state.outbox.publish(events, List.of());
            return added;
        });
        state.outbox.deliver(null);
        return out;
    }

    /**
     * Cancels a job. A job holding resources releases them, and the actuator receives a
     * {@link io.fairway.api.decision.Preempt} to stop it.
     *
     * @param jobId the job
     * @return true when it was live and is now cancelled
     */
    public boolean cancel(String jobId) {
        return jobs.cancel(jobId);
    }

    // ---------------------------------------------------------------- reports from the actuator

    /**
     * The actuator reports that an admitted job runs.
     *
     * @param jobId the job
     * @return true when the job was admitted (false, with a warning, otherwise)
     */
    public boolean reportStarted(String jobId) {
        return state.report(jobId, "reportStarted", j -> j.state() == JobState.ADMITTED, (j, events) -> state.jobs.start(j, events));
    }

    /**
     * Reports a job started, if the report is about its current run.
     *
     * @param jobId the job
     * @param epoch the epoch of the admission the executor applied ({@link Jobs#epoch})
     * @return true when accepted; false for a stale epoch (that run must be stopped)
     */
    public boolean reportStarted(String jobId, long epoch) {
        return state.ifCurrent(jobId, epoch, () -> reportStarted(jobId));
    }

    /**
     * The actuator reports progress (for finish-time estimates).
     *
     * @param jobId the job
     * @param fraction work done, 0..1
     */
    public void reportProgress(String jobId, double fraction) {
        InvalidSpecException.check(fraction >= 0 && fraction <= 1, "progress", fraction, "progress must be in 0..1, was %s", fraction);
        state.withLock(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j != null && !j.state().isTerminal()) {
                state.jobs.replace(j, j.withProgress(fraction));
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
     * Reports a job finished, if the report is about its current run.
     *
     * @param jobId the job
     * @param epoch the epoch of the admission the executor applied
     * @return true when accepted
     */
    public boolean reportFinished(String jobId, long epoch) {
        return state.ifCurrent(jobId, epoch, () -> reportFinished(jobId));
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

    /**
     * Reports a job failed, if the report is about its current run.
     *
     * @param jobId the job
     * @param epoch the epoch of the admission the executor applied
     * @param message why
     * @return true when accepted
     */
    public boolean reportFailed(String jobId, long epoch, String message) {
        return state.ifCurrent(jobId, epoch, () -> reportFailed(jobId, message));
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
        List<SchedulerEvent> events = state.outbox.eventList();
        boolean ok = state.withLock(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j == null || !j.state().holdsResources()) {
                return false;
            }
            state.jobs.requeue(j, PendingReason.of(PendingReason.Code.PREEMPTED, why), EventType.REQUEUED, why, events);
            state.outbox.publish(events, List.of());
            return true;
        });
        state.outbox.deliver(null);
        return ok;
    }

    private boolean reportEnd(String jobId, JobState end, String message) {
        return state.report(jobId, "report " + end, j -> j.state().holdsResources(), (j, events) -> state.jobs.finish(j, end, message, events));
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
        io.fairway.core.plan.RoundMemory memory;
        io.fairway.core.plan.HeldCharges.Charged charged;
        List<SchedulerEvent> checkEvents = new ArrayList<>();
        List<Decision> checkAdmits = new ArrayList<>();
        Outbox.Outgoing checksSent;
        state.lock.lock();
        try {
            state.round++;
            state.lowerAllowance();
            state.decayUsage();
            state.pools.trackPoolNodes(state.nodes.values(), state.jobs.holding.values(), state.clock.millis());
            applier.evaluateAdmissionChecks(checkEvents, checkAdmits);
            RoundResult renewals = renewWhenNothingWaits(checkEvents, checkAdmits);
            if (renewals != null) {
                return renewals;
            }
            s = state.snapshotLocked();
            memory = state.memory;
            charged = rememberRounds ? state.chargedForRound() : null; // a round from scratch charges every job itself
            mod = state.modCount;
            checksSent = state.outbox.publish(state.outbox.heard() ? checkEvents : List.of(), checkAdmits);
        } finally {
            state.lock.unlock();
        }
        state.outbox.deliver(checksSent);
        Rounds.Remembered rr = Rounds.run(s, state.policy, memory, rememberRounds, charged);
        RoundResult r = rr.result();
        List<SchedulerEvent> events = state.outbox.eventList();
        List<Decision> applied = new ArrayList<>();
        RoundResult finalResult;
        Outbox.Outgoing sent;
        state.lock.lock();
        try {
            finalResult = applier.apply(r, s, mod, events, applied);
            state.memory = rr.memory(); // checked against each round's own snapshot: any memory is safe to keep
            sent = state.outbox.publish(events, applied);
        } finally {
            state.lock.unlock();
        }
        state.outbox.deliver(sent);
        return finalResult;
    }

    /**
     * The round, when nothing waits and nothing but expired leases is to decide, and the policy can answer it without
     * a full round ({@link io.fairway.api.spi.SchedulingPolicy#renewWhenNothingWaits}): its renewals are applied in
     * O(jobs holding resources) without a snapshot, a plan or a validation. Lock held, after the round's bookkeeping
     * (its number, usage, admission checks), so the next rounds see exactly what a full round would leave.
     *
     * @return the round's result, or null: the round runs in full
     */
    private RoundResult renewWhenNothingWaits(List<SchedulerEvent> checkEvents, List<Decision> checkAdmits) {
        if (!checkEvents.isEmpty() || !checkAdmits.isEmpty() || !state.jobs.nonePending() || !state.pools.nodePools.isEmpty()
                || !state.pools.reservations.isEmpty() || !state.pools.inFlight.isEmpty() || !state.quotaAllowance.isEmpty()) {
            return null;
        }
        long t0 = System.nanoTime();
        long now = state.clock.millis();
        List<JobStatus> expired = new ArrayList<>();
        for (JobStatus j : state.jobs.holding.values()) {
            io.fairway.api.decision.Admit a = j.admission();
            if (a == null) {
                return null;
            }
            if (a.leaseExpired(now)) {
                expired.add(j.asOf(now));
            }
        }
        Map<String, Long> renewals;
        try {
            renewals = state.policy.renewWhenNothingWaits(now, expired);
        } catch (RuntimeException e) {
            return null; // the full round runs the policy's plan and reports what it throws
        }
        if (renewals == null) {
            return null;
        }
        Map<String, Long> renewed = applier.renewLeases(renewals);
        state.policyWakeAt = RoundResult.NO_WAKE;
        state.memory = null; // the plan's memory is a cache: a round it did not see starts a fresh one
        return new RoundResult(state.round, now, List.of(), Map.of(), List.of(), System.nanoTime() - t0, renewed, Map.of(), List.of(),
                RoundResult.NO_WAKE);
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
    public OptionalLong nextWakeupMillis(long checkRetryMillis) {
        return state.nextWakeupMillis(checkRetryMillis);
    }

    /** @return the engine's state (package tests) */
    EngineState state() {
        return state;
    }

    /** @return a snapshot of the whole state, for dry runs and tests */
    public Snapshot snapshot() {
        return state.read(state::snapshotLocked);
    }

    /** @return rounds run so far */
    public long round() {
        return state.read(() -> state.round);
    }

    /**
     * @param jobId a job
     * @return its status (running jobs with attained service up to now)
     */
    public Optional<JobStatus> status(String jobId) {
        return state.read(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            return Optional.ofNullable(j == null ? null : j.asOf(state.clock.millis()));
        });
    }

    /**
     * Checks every invariant of ARCHITECTURE.md on the current state: each job in exactly one state and
     * index, no capacity or GPU overcommitted, quota within limits at every level of the cohort tree, gangs
     * whole, a reason and no admission on every pending job, quota reserved only for pending jobs. Quota, generalised for reconfiguration: a ClusterQueue or cohort may be
     * above its limit only with work that ran there when its quota was lowered (or when the state was restored), and
     * never above what that work used at the start of the last round — a round may not add to an over-use.
     *
     * @return the violations found (empty when all hold)
     */
    public List<String> checkInvariants() {
        return state.read(() -> {
            List<String> v = state.jobs.checkIndexes();
            v.addAll(Invariants.check(state.snapshotLocked(), state.quotaAllowance));
            return v;
        });
    }

    // ---------------------------------------------------------------- state export

    /**
     * Captures the engine's whole state (see {@link SchedulerState}); with {@link #restore} a run stopped at any
     * point continues exactly as it would have.
     *
     * @return the state
     */
    public SchedulerState exportState() {
        return state.read(state::export);
    }

    /**
     * Builds a scheduler from a captured state. The builder supplies what is not state — the policy, the actuator,
     * the clock, listeners, admission checks; the state supplies everything else (its seed, placement strategy and
     * half-life override the builder's).
     *
     * <p>The state is checked first (see {@code StateCheck}): a job on a node the state does not have, two jobs on
     * one GPU, a node committed beyond its capacity in any resource, a job whose state disagrees with its admission,
     * a reservation for a job that is not pending, counters or job values out of range (a round or next sequence that
     * would overflow, negative or NaN progress, preemptions, running or attained time) — any such inconsistency
     * refuses the whole state with an {@link InvalidSpecException} listing what is wrong, naming the job and the
     * field, and nothing is built. Usage history of a ClusterQueue the state does not have is dropped. Work running
     * above its ClusterQueue's quota is accepted, as after a configuration change that lowered the quota: it keeps
     * running and nothing new is admitted there until it is back within the limit.
     *
     * @param saved the captured state
     * @param builder policy, actuator, clock and listeners
     * @return the restored scheduler
     * @throws InvalidSpecException when the state is inconsistent or its configuration invalid
     */
    public static Scheduler restore(SchedulerState saved, Builder builder) {
        InvalidSpecException.requireNonNull("state", saved);
        InvalidSpecException.requireNonNull("builder", builder);
        StateCheck.check(saved);
        for (JobStatus j : saved.jobs()) { // a saved job's class must be one the operator defines now, as it is defined now
            io.fairway.api.model.PriorityClass c = j.spec().priorityClass();
            if (c != null) {
                InvalidSpecException.check(builder.priorityClasses.contains(c), "state.jobs[" + j.id() + "].priorityClass", c.name(),
                        "job %s: priority class %s is not defined as saved (value %d, preemptible %s); give the builder the same classes",
                        j.id(), InvalidSpecException.quote(c.name()), c.value(), c.preemptible());
            }
        }
        builder.seed(saved.seed()).placement(saved.placement()).usageHalfLife(java.time.Duration.ofMillis(saved.usageHalfLifeMillis()));
        saved.clusters().forEach(builder::cluster);
        saved.flavors().forEach(builder::flavor);
        saved.cohorts().forEach(builder::cohort);
        saved.clusterQueues().forEach(builder::clusterQueue);
        saved.localQueues().forEach(builder::localQueue);
        builder.nodes(saved.nodes());
        saved.nodePools().forEach(builder::nodePool);
        Scheduler s = builder.build();
        s.state.withLock(() -> s.state.restore(saved));
        return s;
    }

    // ---------------------------------------------------------------- listeners

    /**
     * Events are built only while some listener is registered (with none, a round does not spend time formatting
     * messages nobody reads); a listener sees the events of operations that start after it was added.
     *
     * @param listener receives every event
     */
    public void addListener(SchedulerListener listener) {
        state.outbox.listeners.add(InvalidSpecException.requireNonNull("listener", listener));
    }

    /** @param listener a listener to remove */
    public void removeListener(SchedulerListener listener) {
        state.outbox.listeners.remove(listener);
        state.outbox.jobSetListeners.values().forEach(l -> l.remove(listener));
    }

    /**
     * @param jobSet a job set
     * @param listener receives the events of that job set's jobs only
     */
    public void addJobSetListener(String jobSet, SchedulerListener listener) {
        InvalidSpecException.requireNonNull("jobSet", jobSet);
        InvalidSpecException.requireNonNull("listener", listener);
        state.outbox.jobSetListeners.computeIfAbsent(jobSet, k -> new CopyOnWriteArrayList<>()).add(listener);
    }

    /** Builds a {@link Scheduler}; every setter validates its argument. */
    public static final class Builder {
        private String policyName = "best-effort-fifo";
        private Map<String, String> policyParameters = Map.of();
        private SchedulingPolicy policy;
        private Actuator actuator = Actuator.NONE;
        private Clock clock = Clock.system();
        private long seed = 1;
        private boolean rememberRounds = true;
        private PlacementStrategy placement = PlacementStrategy.TOPOLOGY_AWARE;
        private final List<ClusterSpec> clusters = new ArrayList<>();
        private final List<ResourceFlavor> flavors = new ArrayList<>();
        private final List<io.fairway.api.model.PriorityClass> priorityClasses = new ArrayList<>();
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

        /**
         * Whether rounds remember what earlier rounds found (default true): a repeated attempt whose dependencies did
         * not change is answered without being made again, and a policy may end a round in which nothing changed at
         * once (see {@code PolicyContext.previousAnswersStand()}). The decisions are the same either way; false decides
         * every round from scratch, to compare or to debug.
         *
         * @param remember false to decide every round from scratch
         * @return this
         */
        public Builder rememberRounds(boolean remember) {
            this.rememberRounds = remember;
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

        /**
         * Defines a priority class that jobs may name (on a restore, give the same classes again).
         *
         * @param c the class
         * @return this
         */
        public Builder priorityClass(io.fairway.api.model.PriorityClass c) {
            priorityClasses.add(InvalidSpecException.requireNonNull("priorityClass", c));
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
