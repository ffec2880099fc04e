package io.fairway.testkit;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.ExecutorHub;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.testkit.FairwayArbitraries.AddNode;
import io.fairway.testkit.FairwayArbitraries.Cancel;
import io.fairway.testkit.FairwayArbitraries.CancelJobSet;
import io.fairway.testkit.FairwayArbitraries.CancelQueue;
import io.fairway.testkit.FairwayArbitraries.Cordon;
import io.fairway.testkit.FairwayArbitraries.Finish;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import io.fairway.testkit.FairwayArbitraries.Op;
import io.fairway.testkit.FairwayArbitraries.RemoveNode;
import io.fairway.testkit.FairwayArbitraries.RunRound;
import io.fairway.testkit.FairwayArbitraries.SetJobSetPriority;
import io.fairway.testkit.FairwayArbitraries.Start;
import io.fairway.testkit.FairwayArbitraries.StopClusterQueue;
import io.fairway.testkit.FairwayArbitraries.Submit;
import io.fairway.testkit.FairwayArbitraries.SubmitBatch;
import io.fairway.testkit.FairwayArbitraries.SubmitJobSet;
import io.fairway.testkit.FairwayArbitraries.Tick;
import io.fairway.testkit.FairwayArbitraries.World;
import io.fairway.testkit.FaultSchedules.ActuatorFailure;
import io.fairway.testkit.FaultSchedules.ClusterLoss;
import io.fairway.testkit.FaultSchedules.Fault;
import io.fairway.testkit.FaultSchedules.FaultSchedule;
import io.fairway.testkit.FaultSchedules.NodeFailure;
import io.fairway.testkit.FaultSchedules.SpotInterruption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Drives a scheduler through a list of operations as an embedding controller would, recording every decision
 * the actuator receives and every round's admissions, so properties can look at the state after each step. With
 * {@link #runWithFaults} it also injects a {@link FaultSchedule} before the rounds it names, through an
 * {@link ExecutorHub} that stands between the scheduler and one executor per cluster.
 */
public final class ConformanceHarness {
    /** How long a cluster's executor may stay silent before the hub declares the cluster lost. */
    public static final long HUB_GRACE_MILLIS = 45_000;
    /** How far the clock moves on after each round when faults are injected (a silent cluster is lost after 3 rounds). */
    public static final long ROUND_MILLIS = 20_000;

    /** The world the scheduler was configured with. */
    public final World world;
    /** The scheduler under test. */
    public final Scheduler scheduler;
    /** The executor hub the actuator feeds (every cluster's executor polls it each round). */
    public final ExecutorHub hub;
    /** Every decision the actuator received, in order. */
    public final List<Decision> actuated = new ArrayList<>();
    /** Every job id submitted, in order (also those the scheduler refused). */
    public final List<String> submitted = new ArrayList<>();
    /** Per round: the admissions it decided and the nodes cordoned when it ran. */
    public final List<RoundRecord> rounds = new ArrayList<>();
    private final Map<String, String> jobSetOf = new LinkedHashMap<>();
    private final Set<String> stoppedQueues = new TreeSet<>();
    private final List<Recovery> recoveries = new ArrayList<>();
    private final ClusterExecutors executors;
    private long clock = 1_000;
    private int nextJob;
    private int nextNode;
    private int roundsRun;
    private boolean throwOnNextRound;
    private boolean inRound;
    private boolean faultMode;
    private List<Decision> failedBatch = List.of();
    private Effect lastEffect;

    /**
     * One round as run.
     *
     * @param result what the round decided
     * @param cordoned the nodes cordoned when it ran
     * @param stoppedQueues the ClusterQueues stopped when it ran
     */
    public record RoundRecord(RoundResult result, Set<String> cordoned, Set<String> stoppedQueues) {
        /**
         * A round run while no ClusterQueue was stopped.
         *
         * @param result what the round decided @param cordoned the nodes cordoned when it ran
         */
        public RoundRecord(RoundResult result, Set<String> cordoned) {
            this(result, cordoned, Set.of());
        }
    }

    /**
     * What the last job-set, queue or fault operation must have done, for the checks to verify.
     *
     * @param what the operation
     * @param mustBeTerminal jobs that must have ended (a cancelled job set or queue, a job whose start failed)
     * @param mustBePending jobs that must be back in pending (evicted from a lost, drained or interrupted node)
     * @param mustHavePriority live jobs and the priority they must carry now
     * @param vacatedNodes nodes nothing may hold resources on any more
     * @param problems contradictions the harness saw at once (wrong ids returned, a stale report accepted)
     */
    public record Effect(String what, Set<String> mustBeTerminal, Set<String> mustBePending, Map<String, Integer> mustHavePriority,
                         Set<String> vacatedNodes, List<String> problems) {
    }

    private record Recovery(int round, String what, Runnable action) {
    }

    /** The exception the faulty actuator throws when told to ({@link FaultSchedules.ActuatorFailureKind#THROWS}). */
    public static final class ActuatorDown extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message what happened */
        public ActuatorDown(String message) {
            super(message);
        }
    }

    /**
     * @param world the cluster and queues
     * @param policy a fresh policy
     * @param seed the scheduler's seed
     */
    public ConformanceHarness(World world, Supplier<SchedulingPolicy> policy, long seed) {
        this(world, policy, seed, true);
    }

    /**
     * @param world the cluster and queues
     * @param policy makes the policy
     * @param seed the scheduler's seed
     * @param rememberRounds false: the scheduler decides every round from scratch ({@link Scheduler.Builder#rememberRounds})
     */
    public ConformanceHarness(World world, Supplier<SchedulingPolicy> policy, long seed, boolean rememberRounds) {
        this.world = world;
        this.hub = new ExecutorHub(() -> clock, 10_000, 1_000, HUB_GRACE_MILLIS);
        Scheduler.Builder b = Scheduler.builder()
                .policy(policy.get())
                .seed(seed)
                .rememberRounds(rememberRounds)
                .clock(() -> clock)
                .cluster(FairwayArbitraries.CLUSTER)
                .flavor(FairwayArbitraries.FLAVORS.get(0))
                .flavor(FairwayArbitraries.FLAVORS.get(1))
                .nodes(world.nodes())
                .actuator(this::actuate);
        // roots first, then their children
        world.cohorts().stream().filter(c -> c.parent() == null).forEach(b::cohort);
        world.cohorts().stream().filter(c -> c.parent() != null).forEach(b::cohort);
        for (String c : clustersOf(world.nodes())) {
            if (!c.equals(FairwayArbitraries.CLUSTER.name())) {
                b.cluster(new ClusterSpec(c, FairwayArbitraries.CLUSTER.topologyLevels()));
            }
        }
        this.scheduler = b.build();
        world.clusterQueues().forEach(scheduler.queues()::addClusterQueue);
        world.localQueues().forEach(scheduler.queues()::addLocalQueue);
        hub.attach(scheduler);
        hub.register(FairwayArbitraries.CLUSTER.name());
        clustersOf(world.nodes()).forEach(hub::register);
        this.executors = new ClusterExecutors(hub);
    }

    private void actuate(List<Decision> decisions) {
        actuated.addAll(decisions);
        if (inRound && throwOnNextRound) {
            throwOnNextRound = false;
            failedBatch = List.copyOf(decisions);
            throw new ActuatorDown("actuator: timed out applying " + decisions.size() + " decisions");
        }
        if (faultMode) {
            hub.apply(decisions);
        }
    }

    static Set<String> clustersOf(List<Node> nodes) {
        Set<String> s = new TreeSet<>();
        nodes.forEach(n -> s.add(n.cluster()));
        return s;
    }

    /**
     * Runs every operation, calling {@code afterEach} after each one.
     *
     * @param ops the operations @param afterEach called with each operation after it was applied
     */
    public void run(List<Op> ops, Consumer<Op> afterEach) {
        for (Op op : ops) {
            apply(op);
            afterEach.accept(op);
        }
    }

    /**
     * Runs every operation and injects the faults: before the n-th round (counting from 0) run by a
     * {@link RunRound}, first the recoveries due then (nodes and clusters coming back, spot notices running out),
     * then the faults the schedule names for it; rounds are appended until every fault has struck. Every cluster's
     * executor polls the hub and acknowledges its work around each round, except a cluster lost "via the hub",
     * whose executor stays silent until it rejoins; the clock moves {@link #ROUND_MILLIS} after each round.
     *
     * @param ops the operations
     * @param faults the faults
     * @param afterEach called after each operation, fault and recovery, with it (an {@link Op}, a {@link Fault} or
     *     a description of the recovery)
     */
    public void runWithFaults(List<Op> ops, FaultSchedule faults, Consumer<Object> afterEach) {
        faultMode = true;
        List<Op> all = new ArrayList<>(ops);
        long rounds = ops.stream().filter(o -> o instanceof RunRound).count();
        for (long r = rounds; r <= faults.lastRound(); r++) {
            all.add(new RunRound());
        }
        for (Op op : all) {
            if (op instanceof RunRound) {
                beforeRound(faults, afterEach);
            }
            apply(op);
            if (op instanceof RunRound) {
                afterRound();
            }
            afterEach.accept(op);
        }
    }

    /**
     * Before the next round: applies the recoveries due (nodes and clusters coming back, spot notices running out)
     * and the faults the schedule names for this round, lets every executor but the silent ones poll the hub, and
     * asks the hub to declare silent clusters lost.
     *
     * @param faults the schedule
     * @param afterEach called after each fault and recovery, with it
     */
    public void beforeRound(FaultSchedule faults, Consumer<Object> afterEach) {
        faultMode = true;
        for (Recovery rec : dueRecoveries(roundsRun)) {
            lastEffect = null;
            rec.action().run();
            afterEach.accept(rec.what());
        }
        for (Fault f : faults.at(roundsRun)) {
            inject(f);
            afterEach.accept(f);
        }
        executors.poll(scheduler);
        Effect declared = executors.declareSilentClustersLost(scheduler,
                () -> jobsIn(JobState.QUOTA_RESERVED, JobState.ADMITTED, JobState.RUNNING));
        if (declared != null) {
            lastEffect = declared;
            afterEach.accept(declared.what());
        }
    }

    /** After a round: every executor but the silent ones polls the hub; the clock moves {@link #ROUND_MILLIS}. */
    public void afterRound() {
        executors.poll(scheduler);
        clock += ROUND_MILLIS;
    }

    /**
     * Applies one operation.
     *
     * @param op the operation
     */
    public void apply(Op op) {
        lastEffect = null;
        if (op instanceof Submit s) {
            scheduler.submit(job(s.job()));
        } else if (op instanceof SubmitBatch b) {
            List<JobSpec> batch = new ArrayList<>();
            for (JobTemplate t : b.jobs()) {
                batch.add(job(t));
            }
            scheduler.submitAll(batch);
        } else if (op instanceof SubmitJobSet b) {
            List<JobSpec> batch = new ArrayList<>();
            for (JobTemplate t : b.jobs()) {
                batch.add(job(t.inJobSet(b.set())));
            }
            scheduler.submitAll(batch);
        } else if (op instanceof RunRound) {
            runRound();
        } else if (op instanceof Start st) {
            JobStatus j = pick(st.pick(), jobsIn(JobState.ADMITTED));
            if (j != null) {
                scheduler.reportStarted(j.id());
            }
        } else if (op instanceof Finish f) {
            JobStatus j = pick(f.pick(), jobsIn(JobState.ADMITTED, JobState.RUNNING));
            if (j != null) {
                if (f.failed()) {
                    scheduler.reportFailed(j.id(), "exit code 1");
                } else {
                    scheduler.reportFinished(j.id());
                }
            }
        } else if (op instanceof Cancel c) {
            JobStatus j = pick(c.pick(), scheduler.jobs().all());
            if (j != null) {
                scheduler.cancel(j.id());
            }
        } else if (op instanceof CancelJobSet c) {
            cancelJobSet(c);
        } else if (op instanceof SetJobSetPriority p) {
            setJobSetPriority(p);
        } else if (op instanceof CancelQueue c) {
            cancelQueue(c);
        } else if (op instanceof StopClusterQueue s) {
            String cq = pick(s.pick(), world.clusterQueues()).name();
            scheduler.queues().stopClusterQueue(cq, s.stopped());
            if (s.stopped()) {
                stoppedQueues.add(cq);
            } else {
                stoppedQueues.remove(cq);
            }
        } else if (op instanceof RemoveNode r) {
            Node n = pick(r.pick(), scheduler.clusters().nodes());
            if (n != null) {
                scheduler.clusters().removeNode(n.name());
            }
        } else if (op instanceof AddNode a) {
            scheduler.clusters().addNode(a.node().build("added-" + nextNode++));
        } else if (op instanceof Cordon c) {
            Node n = pick(c.pick(), scheduler.clusters().nodes());
            if (n != null) {
                scheduler.clusters().cordon(n.name(), c.cordoned());
            }
        } else if (op instanceof Tick t) {
            clock += t.seconds() * 1000L;
        } else {
            throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    /** Cancels a picked job set; the effect to check is that its jobs all end, as {@code cancelJobSet} returned. */
    private void cancelJobSet(CancelJobSet c) {
        String set = pick(c.pick(), jobSetsToPick());
        if (set != null) {
            Set<String> members = membersOf(set);
            Set<String> live = live(members);
            List<String> returned = scheduler.jobs().cancelJobSet(set);
            lastEffect = new Effect("cancelJobSet(" + set + ")", members, Set.of(), Map.of(), Set.of(),
                    sameIds("cancelJobSet(" + set + ") returned", returned, live));
        }
    }

    /** Sets a picked job set's priority; the effect to check is that each of its live jobs carries it. */
    private void setJobSetPriority(SetJobSetPriority p) {
        String set = pick(p.pick(), jobSetsToPick());
        if (set != null) {
            Set<String> live = live(membersOf(set));
            int n = scheduler.jobs().setJobSetPriority(set, p.priority());
            Map<String, Integer> want = new LinkedHashMap<>();
            live.forEach(id -> want.put(id, p.priority()));
            List<String> problems = n == live.size() ? List.of()
                    : List.of("setJobSetPriority(" + set + ") changed " + n + " jobs, " + live.size() + " were live: " + live);
            lastEffect = new Effect("setJobSetPriority(" + set + ", " + p.priority() + ")", Set.of(), Set.of(), want, Set.of(), problems);
        }
    }

    /** Cancels the jobs of a picked ClusterQueue; the effect to check is that they all end, as {@code cancelQueue} returned. */
    private void cancelQueue(CancelQueue c) {
        String cq = pick(c.pick(), world.clusterQueues()).name();
        Set<String> members = new LinkedHashSet<>();
        for (JobStatus j : scheduler.jobs().all()) {
            LocalQueue lq = localQueue(j.spec().localQueueKey());
            if (lq != null && lq.clusterQueue().equals(cq)) {
                members.add(j.id());
            }
        }
        Set<String> live = live(members);
        List<String> returned = scheduler.jobs().cancelQueue(cq);
        lastEffect = new Effect("cancelQueue(" + cq + ")", members, Set.of(), Map.of(), Set.of(),
                sameIds("cancelQueue(" + cq + ") returned", returned, live));
    }

    private void runRound() {
        Set<String> cordoned = new HashSet<>();
        for (Node n : scheduler.clusters().nodes()) {
            if (n.unschedulable()) {
                cordoned.add(n.name());
            }
        }
        Set<String> stopped = Set.copyOf(stoppedQueues);
        roundsRun++;
        inRound = true;
        try {
            rounds.add(new RoundRecord(scheduler.runRound(), cordoned, stopped));
        } catch (ActuatorDown down) {
            // as a controller would: the decisions the actuator could not apply are given back to the scheduler;
            // each admitted job is reported evicted, so it goes back to pending and is retried in a later round
            Set<String> retried = new LinkedHashSet<>();
            for (Decision d : failedBatch) {
                if (d instanceof Admit a && scheduler.reportEvicted(a.jobId(), down.getMessage())) {
                    retried.add(a.jobId());
                }
            }
            lastEffect = new Effect("round " + roundsRun + ": " + down.getMessage(), Set.of(), retried, Map.of(), Set.of(), List.of());
        } finally {
            inRound = false;
        }
    }

    // ------------------------------------------------------------------ faults

    /**
     * Injects one fault now.
     *
     * @param fault the fault
     */
    public void inject(Fault fault) {
        lastEffect = null;
        if (fault instanceof NodeFailure f) {
            Node n = pick(f.pick(), scheduler.clusters().nodes());
            if (n == null) {
                return;
            }
            List<String> requeued = scheduler.clusters().removeNode(n.name());
            lastEffect = new Effect("node " + n.name() + " lost", Set.of(), Set.copyOf(requeued), Map.of(), Set.of(n.name()), List.of());
            if (f.recoverAfterRounds() >= 0) {
                recoveries.add(new Recovery(roundsRun + f.recoverAfterRounds(), "node " + n.name() + " recovered", () -> addIfAbsent(n)));
            }
        } else if (fault instanceof SpotInterruption f) {
            Node n = pick(f.pick(), scheduler.clusters().nodes());
            if (n == null) {
                return;
            }
            List<String> migrated = scheduler.clusters().drainNode(n.name(), "spot interruption notice");
            lastEffect = new Effect("spot interruption notice for " + n.name(), Set.of(), Set.copyOf(migrated), Map.of(), Set.of(n.name()), List.of());
            Node replacement = f.replaced() ? new Node("spot-" + nextNode++, n.cluster(), n.labels(), n.taints(), n.capacity(), n.gpus(), false) : null;
            Runnable reclaim = () -> {
                if (scheduler.clusters().clusterOfNode(n.name()) != null) {
                    List<String> requeued = scheduler.clusters().removeNode(n.name());
                    lastEffect = new Effect("spot node " + n.name() + " reclaimed", Set.of(), Set.copyOf(requeued), Map.of(), Set.of(n.name()), List.of());
                }
                if (replacement != null) {
                    scheduler.clusters().addNode(replacement);
                }
            };
            if (f.noticeRounds() == 0) {
                reclaim.run();
            } else {
                recoveries.add(new Recovery(roundsRun + f.noticeRounds(), "spot notice for " + n.name() + " ran out", reclaim));
            }
        } else if (fault instanceof ClusterLoss f) {
            String cluster = pick(f.pick(), new ArrayList<>(clustersOf(scheduler.clusters().nodes())));
            if (cluster == null || executors.isSilent(cluster)) {
                return;
            }
            List<Node> lostNodes = scheduler.clusters().nodes().stream().filter(n -> n.cluster().equals(cluster)).toList();
            Runnable back;
            if (f.viaExecutorHub()) {
                back = executors.silence(cluster, lostNodes);
            } else {
                List<String> requeued = scheduler.clusters().removeCluster(cluster);
                Set<String> names = new HashSet<>();
                lostNodes.forEach(n -> names.add(n.name()));
                lastEffect = new Effect("cluster " + cluster + " lost", Set.of(), Set.copyOf(requeued), Map.of(), names, List.of());
                back = () -> lostNodes.forEach(this::addIfAbsent);
            }
            if (f.recoverAfterRounds() >= 0) {
                recoveries.add(new Recovery(roundsRun + f.recoverAfterRounds(), "cluster " + cluster + " rejoined", back));
            }
        } else if (fault instanceof ActuatorFailure f) {
            if (f.kind() == FaultSchedules.ActuatorFailureKind.THROWS) {
                throwOnNextRound = true;
            } else {
                lastEffect = ActuatorFaultInjector.inject(scheduler, f);
            }
        } else {
            throw new IllegalArgumentException("unknown fault " + fault);
        }
    }

    private List<Recovery> dueRecoveries(int round) {
        List<Recovery> due = new ArrayList<>();
        for (var it = recoveries.iterator(); it.hasNext(); ) {
            Recovery r = it.next();
            if (r.round() <= round) {
                due.add(r);
                it.remove();
            }
        }
        return due;
    }

    private void addIfAbsent(Node n) {
        if (scheduler.clusters().clusterOfNode(n.name()) == null) {
            scheduler.clusters().addNode(n);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** @return what the last operation, fault or recovery must have done, or null when it promised nothing checkable */
    public Effect lastEffect() {
        return lastEffect;
    }

    /** @return the rounds run so far */
    public int roundsRun() {
        return roundsRun;
    }

    private JobSpec job(JobTemplate t) {
        String id = "j" + nextJob++;
        submitted.add(id);
        JobSpec spec = t.build(id, world);
        jobSetOf.put(id, spec.jobSet());
        return spec;
    }

    /** Job sets with two or more jobs submitted, or else every job set, in order of first submission. */
    private List<String> jobSetsToPick() {
        Map<String, Integer> count = new LinkedHashMap<>();
        jobSetOf.values().forEach(s -> count.merge(s, 1, Integer::sum));
        List<String> many = new ArrayList<>();
        count.forEach((s, n) -> {
            if (n > 1) {
                many.add(s);
            }
        });
        return many.isEmpty() ? new ArrayList<>(count.keySet()) : many;
    }

    private Set<String> membersOf(String set) {
        Set<String> ids = new LinkedHashSet<>();
        for (JobStatus j : scheduler.jobs().all()) {
            if (j.spec().jobSet().equals(set)) {
                ids.add(j.id());
            }
        }
        return ids;
    }

    private Set<String> live(Set<String> ids) {
        Set<String> l = new LinkedHashSet<>();
        for (String id : ids) {
            scheduler.status(id).filter(j -> !j.state().isTerminal()).ifPresent(j -> l.add(id));
        }
        return l;
    }

    private static List<String> sameIds(String what, List<String> returned, Set<String> expected) {
        if (returned.size() == expected.size() && new HashSet<>(returned).equals(expected)) {
            return List.of();
        }
        return List.of(what + " " + returned + ", the live jobs were " + expected);
    }

    private LocalQueue localQueue(String key) {
        for (LocalQueue q : world.localQueues()) {
            if (q.key().equals(key)) {
                return q;
            }
        }
        return null;
    }

    /**
     * @param states states
     * @return the jobs in any of them
     */
    public List<JobStatus> jobsIn(JobState... states) {
        return jobsIn(scheduler, states);
    }

    static List<JobStatus> jobsIn(Scheduler scheduler, JobState... states) {
        Set<JobState> s = Set.of(states);
        List<JobStatus> l = new ArrayList<>();
        for (JobStatus j : scheduler.jobs().all()) {
            if (s.contains(j.state())) {
                l.add(j);
            }
        }
        return l;
    }

    /** @return every Admit the rounds decided (including those made by admission checks) */
    public List<Admit> admits() {
        List<Admit> l = new ArrayList<>();
        for (RoundRecord r : rounds) {
            for (Decision d : r.result().decisions()) {
                if (d instanceof Admit a) {
                    l.add(a);
                }
            }
        }
        return l;
    }

    static <T> T pick(int pick, List<T> from) {
        return from.isEmpty() ? null : from.get(pick % from.size());
    }
}
