package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.testkit.FairwayArbitraries.Op;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.function.Supplier;

/**
 * The invariants of ARCHITECTURE.md as plain check methods: each drives a fresh scheduler running the given policy
 * through a list of operations and throws an {@link AssertionError} naming the operation and the broken invariant.
 * {@link PolicyConformance} calls them from jqwik properties; they can also be called directly, e.g. to show that a
 * broken policy fails.
 */
public final class ConformanceChecks {

    private ConformanceChecks() {
    }

    // ------------------------------------------------------------------ (a) capacity and GPUs

    /**
     * No node's capacity is committed beyond its size, no GPU belongs to two jobs, every placement names existing
     * GPUs, and nothing lands on a node cordoned when the round ran.
     *
     * @param world the cluster and queues @param ops the operations @param policy a fresh policy per call
     */
    public static void capacityAndGpuExclusivity(World world, List<Op> ops, Supplier<SchedulingPolicy> policy) {
        ConformanceHarness h = new ConformanceHarness(world, policy, 7);
        h.run(ops, op -> checkCapacity(h, op));
        checkRoundsAvoidedCordonedNodesAndStoppedQueues(h);
    }

    private static void checkCapacity(ConformanceHarness h, Object op) {
        Map<String, Node> nodes = nodesByName(h);
        Map<String, Resources> committed = new HashMap<>();
        Map<String, String> gpuOwner = new HashMap<>();
        for (JobStatus j : holding(h)) {
            Map<String, PodSet> podSets = podSets(j);
            for (MemberPlacement m : j.admission().placement().members()) {
                Node n = nodes.get(m.node());
                assertThat(n).as("%s: job %s runs on node %s, which exists", op, j.id(), m.node()).isNotNull();
                PodSet ps = podSets.get(m.podSet());
                committed.merge(m.node(), ps.resources(), Resources::plus);
                assertThat((long) m.gpus().size()).as("%s: GPUs of %s/%s", op, j.id(), m.podSet()).isEqualTo(ps.resources().gpus());
                for (int g : m.gpus()) {
                    assertThat(n.gpus().gpus()).as("%s: node %s has GPU %d", op, n.name(), g).extracting(Gpu::index).contains(g);
                    String prev = gpuOwner.put(m.node() + "#" + g, j.id() + "/" + m.podSet() + "/" + m.index());
                    assertThat(prev).as("%s: GPU %d of %s given twice", op, g, m.node()).isNull();
                }
            }
        }
        committed.forEach((node, used) -> assertThat(used.fitsIn(nodes.get(node).capacity()))
                .as("%s: node %s committed %s, capacity %s", op, node, used, nodes.get(node).capacity()).isTrue());
    }

    /** Nothing new ever landed on a node that was cordoned, or in a ClusterQueue that was stopped, when the round ran. */
    private static void checkRoundsAvoidedCordonedNodesAndStoppedQueues(ConformanceHarness h) {
        for (ConformanceHarness.RoundRecord r : h.rounds) {
            for (var d : r.result().decisions()) {
                if (d instanceof Admit a) {
                    assertThat(a.placement().nodes()).as("admission of %s avoids cordoned %s", a.jobId(), r.cordoned()).noneMatch(r.cordoned()::contains);
                    assertThat(r.stoppedQueues()).as("round %d admitted %s to stopped ClusterQueue %s", r.result().round(), a.jobId(), a.clusterQueue())
                            .doesNotContain(a.clusterQueue());
                }
            }
        }
    }

    // ------------------------------------------------------------------ (b) gangs

    /**
     * Every gang is placed whole with all its members, and its topology constraint (one node for an NVLink domain,
     * one domain of a required level) holds.
     *
     * @param world the cluster and queues @param ops the operations @param policy a fresh policy per call
     */
    public static void gangAtomicityAndTopology(World world, List<Op> ops, Supplier<SchedulingPolicy> policy) {
        ConformanceHarness h = new ConformanceHarness(world, policy, 7);
        Map<String, Node> everNodes = new HashMap<>();
        h.run(ops, op -> checkGangs(h, op, everNodes));
        checkEveryAdmitWhole(h, everNodes);
    }

    private static void checkGangs(ConformanceHarness h, Object op, Map<String, Node> everNodes) {
        everNodes.putAll(nodesByName(h));
        for (JobStatus j : h.scheduler.jobs().all()) {
            if (!j.state().holdsResources()) {
                assertThat(j.admission()).as("%s: %s in %s holds no placement", op, j.id(), j.state()).isNull();
                continue;
            }
            assertWhole(j.id(), j.spec().podSets(), j.admission(), everNodes);
        }
    }

    private static void checkEveryAdmitWhole(ConformanceHarness h, Map<String, Node> everNodes) {
        for (Admit a : h.admits()) {
            assertWhole(a.jobId(), h.scheduler.status(a.jobId()).orElseThrow().spec().podSets(), a, everNodes);
        }
    }

    private static void assertWhole(String id, List<PodSet> podSets, Admit a, Map<String, Node> nodes) {
        assertThat(a.placement().members()).extracting(MemberPlacement::podSet)
                .as("job %s places only its own pod sets", id).allMatch(ps -> podSets.stream().anyMatch(p -> p.name().equals(ps)));
        Set<String> clusters = new TreeSet<>();
        a.placement().members().forEach(m -> clusters.add(nodes.get(m.node()).cluster()));
        assertThat(clusters).as("job %s runs inside one cluster", id).hasSizeLessThanOrEqualTo(1);
        for (PodSet ps : podSets) {
            List<MemberPlacement> members = a.placement().members().stream().filter(m -> m.podSet().equals(ps.name())).toList();
            // an elastic pod set may be admitted with any count from its minimum to its maximum, a rigid one only whole
            int admitted = a.counts().getOrDefault(ps.name(), 0);
            assertThat(admitted).as("job %s pod set %s admitted count within %d..%d", id, ps.name(), ps.minCount(), ps.count())
                    .isBetween(ps.minCount(), ps.count());
            assertThat(members).as("job %s pod set %s: every admitted member placed", id, ps.name()).hasSize(admitted);
            Set<Integer> indexes = new HashSet<>();
            members.forEach(m -> indexes.add(m.index()));
            assertThat(indexes).as("job %s pod set %s member indexes", id, ps.name()).hasSize(admitted).allMatch(i -> i >= 0 && i < ps.count());
            TopologyRequest t = ps.topology();
            if (t.sameNvlinkDomain()) {
                assertThat(members).extracting(MemberPlacement::node).as("job %s pod set %s on one node", id, ps.name()).containsOnly(members.get(0).node());
            }
            if (t.required() && t.level() != null) {
                Set<String> domains = new HashSet<>();
                for (MemberPlacement m : members) {
                    domains.add(nodes.get(m.node()).label(t.level()));
                }
                assertThat(domains).as("job %s pod set %s in one %s", id, ps.name(), t.level()).hasSize(1).doesNotContainNull();
            }
        }
    }

    // ------------------------------------------------------------------ (c) quota

    /**
     * No ClusterQueue uses more than its nominal quota plus its borrowing limit, and no cohort tree (a root cohort
     * with its child cohorts) lends more than its members' lendable quota, after every operation.
     *
     * @param world the cluster and queues @param ops the operations @param policy a fresh policy per call
     */
    public static void quotaAtEveryLevel(World world, List<Op> ops, Supplier<SchedulingPolicy> policy) {
        ConformanceHarness h = new ConformanceHarness(world, policy, 7);
        Map<String, ClusterQueue> queues = queuesByName(world);
        h.run(ops, op -> checkQuota(h, op, queues));
    }

    private static Map<String, ClusterQueue> queuesByName(World world) {
        Map<String, ClusterQueue> queues = new TreeMap<>();
        world.clusterQueues().forEach(q -> queues.put(q.name(), q));
        return queues;
    }

    private static void checkQuota(ConformanceHarness h, Object op, Map<String, ClusterQueue> queues) {
        // usage per ClusterQueue per flavor/resource
        Map<String, Map<String, Long>> usage = new TreeMap<>();
        for (JobStatus j : holding(h)) {
            Admit a = j.admission();
            assertThat(queues).as("%s: %s charged to a known ClusterQueue", op, j.id()).containsKey(a.clusterQueue());
            for (PodSet ps : j.spec().podSets()) {
                ps.total(a.counts().get(ps.name())).asMap().forEach((r, v) -> {
                    String flavor = a.flavorOf(ps.name(), r);
                    assertThat(queues.get(a.clusterQueue()).flavorNames()).as("%s: flavor of %s/%s", op, j.id(), ps.name()).contains(flavor);
                    usage.computeIfAbsent(a.clusterQueue(), k -> new TreeMap<>()).merge(flavor + "/" + r, v, Long::sum);
                });
            }
        }
        Map<String, Map<String, long[]>> cohortSums = new TreeMap<>(); // cohort -> fr -> {lent-out usage, lendable}
        for (ClusterQueue q : queues.values()) {
            for (ResourceGroup g : q.resourceGroups()) {
                for (FlavorQuotas f : g.flavors()) {
                    for (ResourceQuota rq : f.resources()) {
                        String fr = f.flavor() + "/" + rq.resource();
                        long u = usage.getOrDefault(q.name(), Map.of()).getOrDefault(fr, 0L);
                        if (q.cohort() == null) {
                            assertThat(u).as("%s: %s uses %s within its nominal quota", op, q.name(), fr).isLessThanOrEqualTo(rq.nominal());
                            continue;
                        }
                        if (rq.borrowingLimit() != ResourceQuota.UNLIMITED) {
                            assertThat(u).as("%s: %s uses %s within nominal %d + borrowingLimit %d", op, q.name(), fr, rq.nominal(),
                                    rq.borrowingLimit()).isLessThanOrEqualTo(rq.nominal() + rq.borrowingLimit());
                        }
                        long guaranteed = rq.lendingLimit() == ResourceQuota.UNLIMITED ? 0 : rq.nominal() - rq.lendingLimit();
                        long[] sums = cohortSums.computeIfAbsent(rootOf(h.world, q.cohort()), k -> new TreeMap<>()).computeIfAbsent(fr, k -> new long[2]);
                        sums[0] += Math.max(0, u - guaranteed);
                        sums[1] += rq.nominal() - guaranteed;
                    }
                }
            }
        }
        cohortSums.forEach((cohort, frs) -> frs.forEach((fr, sums) -> assertThat(sums[0])
                .as("%s: cohort %s: %s used beyond guaranteed parts %d, lendable %d", op, cohort, fr, sums[0], sums[1])
                .isLessThanOrEqualTo(sums[1])));
    }

    /** The root of a cohort's tree: queues anywhere in one tree may lend each other through it. */
    private static String rootOf(World world, String cohort) {
        String c = cohort;
        for (int depth = 0; depth < world.cohorts().size(); depth++) {
            String name = c;
            String parent = world.cohorts().stream().filter(x -> x.name().equals(name)).map(io.fairway.api.model.Cohort::parent)
                    .filter(java.util.Objects::nonNull).findFirst().orElse(null);
            if (parent == null) {
                return c;
            }
            c = parent;
        }
        return c;
    }

    // ------------------------------------------------------------------ (d) no job lost or duplicated

    /**
     * Every submitted job exists exactly once and in exactly one state; every pending job carries a pending reason
     * and only pending ones do; a job holds an admission iff it holds resources; the core's own invariant check is
     * clean.
     *
     * @param world the cluster and queues @param ops the operations @param policy a fresh policy per call
     */
    public static void oneStatePerJobNoneLostAndAReasonForEveryPendingJob(World world, List<Op> ops, Supplier<SchedulingPolicy> policy) {
        ConformanceHarness h = new ConformanceHarness(world, policy, 7);
        h.run(ops, op -> {
            checkStates(h, op);
            checkEffect(h, op);
        });
    }

    static void checkStates(ConformanceHarness h, Object op) {
        List<JobStatus> jobs = h.scheduler.jobs().all();
        List<String> ids = jobs.stream().map(JobStatus::id).toList();
        assertThat(ids).as("%s: every submitted job, once", op).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(h.submitted);
        Map<JobState, Integer> perState = new EnumMap<>(JobState.class);
        for (JobStatus j : jobs) {
            perState.merge(j.state(), 1, Integer::sum);
            assertThat(h.scheduler.status(j.id())).as("%s: status(%s)", op, j.id()).contains(j.state() == JobState.RUNNING
                    ? h.scheduler.status(j.id()).orElseThrow() : j);
            if (j.state() == JobState.PENDING) {
                assertThat(j.pendingReason()).as("%s: pending %s has a reason", op, j.id()).isNotNull();
            } else {
                assertThat(j.pendingReason()).as("%s: %s in %s has no pending reason", op, j.id(), j.state()).isNull();
            }
            assertThat(j.admission() != null).as("%s: %s in %s holds an admission iff it holds resources", op, j.id(), j.state())
                    .isEqualTo(j.state().holdsResources());
        }
        assertThat(perState.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(h.submitted.size());
        List<String> pendingIds = h.scheduler.jobs().pending().stream().map(JobStatus::id).toList();
        assertThat(pendingIds).as("%s: pendingJobs() lists exactly the pending jobs", op)
                .containsExactlyInAnyOrderElementsOf(h.jobsIn(JobState.PENDING).stream().map(JobStatus::id).toList());
        assertThat(pendingIds).hasSize(perState.getOrDefault(JobState.PENDING, 0));
        assertThat(h.scheduler.checkInvariants()).as("%s: checkInvariants", op).isEmpty();
    }

    /**
     * What a job-set, queue or fault operation promised: the jobs of a cancelled job set or queue have all left
     * (ended), the jobs sent back from a lost, drained or interrupted node are pending, a job set's live jobs carry
     * its new priority, nothing holds resources on a node that went away, and the engine's answers matched.
     */
    static void checkEffect(ConformanceHarness h, Object op) {
        ConformanceHarness.Effect e = h.lastEffect();
        if (e == null) {
            return;
        }
        assertThat(e.problems()).as("%s: %s", op, e.what()).isEmpty();
        for (String id : e.mustBeTerminal()) {
            JobStatus j = h.scheduler.status(id).orElseThrow(() -> new AssertionError(op + ": " + e.what() + ": job " + id + " vanished"));
            assertThat(j.state().isTerminal()).as("%s: %s: job %s has left (is %s)", op, e.what(), id, j.state()).isTrue();
        }
        for (String id : e.mustBePending()) {
            JobStatus j = h.scheduler.status(id).orElseThrow(() -> new AssertionError(op + ": " + e.what() + ": job " + id + " vanished"));
            assertThat(j.state()).as("%s: %s: job %s went back to pending", op, e.what(), id).isEqualTo(JobState.PENDING);
            assertThat(j.pendingReason()).as("%s: %s: job %s has a reason", op, e.what(), id).isNotNull();
        }
        e.mustHavePriority().forEach((id, p) -> assertThat(h.scheduler.status(id).orElseThrow().spec().priority())
                .as("%s: %s: priority of %s", op, e.what(), id).isEqualTo(p));
        for (JobStatus j : holding(h)) {
            assertThat(j.admission().placement().nodes()).as("%s: %s: %s still holds resources on %s", op, e.what(), j.id(), e.vacatedNodes())
                    .noneMatch(e.vacatedNodes()::contains);
        }
    }

    // ------------------------------------------------------------------ (e) determinism

    /**
     * Two schedulers with the same seed, configuration and operations (each with a fresh policy) decide the same
     * thing in every round and end in the same state.
     *
     * @param world the cluster and queues @param ops the operations @param policy a fresh policy per call
     * @param seed the seed
     */
    public static void determinism(World world, List<Op> ops, Supplier<SchedulingPolicy> policy, long seed) {
        ConformanceHarness first = new ConformanceHarness(world, policy, seed);
        first.run(ops, op -> { });
        ConformanceHarness second = new ConformanceHarness(world, policy, seed);
        second.run(ops, op -> { });

        assertThat(second.actuated).isEqualTo(first.actuated);
        assertThat(second.rounds).hasSameSizeAs(first.rounds);
        for (int i = 0; i < first.rounds.size(); i++) {
            assertThat(second.rounds.get(i).result().decisions()).as("round %d decisions", i).isEqualTo(first.rounds.get(i).result().decisions());
            assertThat(second.rounds.get(i).result().pendingReasons()).as("round %d reasons", i)
                    .isEqualTo(first.rounds.get(i).result().pendingReasons());
        }
        assertThat(second.scheduler.jobs().all()).isEqualTo(first.scheduler.jobs().all());
        assertThat(second.scheduler.clusters().nodes()).isEqualTo(first.scheduler.clusters().nodes());
    }

    // ------------------------------------------------------------------ (f) the policy never tries to break an invariant

    /**
     * The core never had to refuse a part of the policy's plan: a refusal in {@code RoundResult.refused()} means the
     * policy proposed a placement that double-books a GPU, exceeds capacity or quota, splits a gang or breaks a
     * topology constraint.
     *
     * @param world the cluster and queues @param ops the operations @param policy a fresh policy per call
     */
    public static void noPlanIsRefused(World world, List<Op> ops, Supplier<SchedulingPolicy> policy) {
        List<RecordingPolicy> made = new ArrayList<>();
        ConformanceHarness h = recording(world, policy, made);
        h.run(ops, op -> checkNoRefusal(h, made, op));
    }

    /** A harness with seed 7 whose every fresh policy is recorded, in {@code made}. */
    private static ConformanceHarness recording(World world, Supplier<SchedulingPolicy> policy, List<RecordingPolicy> made) {
        return new ConformanceHarness(world, () -> {
            RecordingPolicy p = new RecordingPolicy(policy.get());
            made.add(p);
            return p;
        }, 7);
    }

    private static void checkNoRefusal(ConformanceHarness h, List<RecordingPolicy> made, Object op) {
        checkNoRefusal(h, made, op, true);
    }

    /**
     * @param roundRefusals also fail on {@code RoundResult.refused()}, which includes the core's own late refusals
     *     (e.g. of a resize whose members the core itself placed), not only placements the policy chose
     */
    private static void checkNoRefusal(ConformanceHarness h, List<RecordingPolicy> made, Object op, boolean roundRefusals) {
        if (roundRefusals && op instanceof FairwayArbitraries.RunRound && !h.rounds.isEmpty()) {
            ConformanceHarness.RoundRecord last = h.rounds.get(h.rounds.size() - 1);
            assertThat(last.result().refused()).as("round %d: the core refused part of the policy's plan (the policy tried to break an invariant)",
                    last.result().round()).isEmpty();
        }
        assertThat(made.get(0).refusedPlacements()).as("%s: the core refused placements the policy chose itself "
                + "(the policy tried to break an invariant: GPU exclusivity, capacity, quota or gang atomicity)", op).isEmpty();
    }

    // ------------------------------------------------------------------ (h) every invariant under faults

    /**
     * Drives a fresh scheduler through a random job stream while a fault schedule strikes (node failure and
     * recovery, spot interruptions with a notice, cluster loss at once or through the executor hub, actuator
     * failures; see {@link ConformanceHarness#runWithFaults}) and checks every invariant after every operation, fault,
     * recovery and round: capacity and GPU exclusivity, gang atomicity and topology (inside one cluster), quota at
     * every level of the cohort tree, exactly one state per job with none lost or duplicated and a reason for every
     * pending job, what each job-set, queue and fault operation promised (a lost node's jobs back in pending, a
     * cancelled job set gone, a stale report refused), that the core never refused a placement the policy chose
     * itself, and that no round admitted onto a cordoned node or into a stopped ClusterQueue.
     *
     * @param world the cluster and queues (see {@link FaultSchedules#multiClusterWorlds()})
     * @param ops the job stream and controller operations
     * @param faults the faults
     * @param policy a fresh policy per call
     */
    public static void everyInvariantUnderFaults(World world, List<Op> ops, FaultSchedules.FaultSchedule faults, Supplier<SchedulingPolicy> policy) {
        List<RecordingPolicy> made = new ArrayList<>();
        ConformanceHarness h = recording(world, policy, made);
        Map<String, ClusterQueue> queues = queuesByName(world);
        Map<String, Node> everNodes = new HashMap<>();
        h.runWithFaults(ops, faults, step -> {
            checkCapacity(h, step);
            checkGangs(h, step, everNodes);
            checkQuota(h, step, queues);
            checkStates(h, step);
            checkEffect(h, step);
            // only the placements the policy chose itself: on multi-cluster worlds the core may refuse, at validation,
            // a resize it placed itself across clusters (a core bug, see CoreBugReproductionTest); the round's own
            // refusals are checked by noPlanIsRefused on single-cluster worlds
            checkNoRefusal(h, made, step, false);
        });
        checkEveryAdmitWhole(h, everNodes);
        checkRoundsAvoidedCordonedNodesAndStoppedQueues(h);
    }

    // ------------------------------------------------------------------ (g) no starvation under a fair policy

    /**
     * Under a fair policy, every job that fits the cluster and its queue alone is eventually run: all jobs are
     * submitted at once, each admitted job starts at once and finishes after {@code runRounds} rounds of running,
     * and every job must have succeeded within {@code boundRounds} rounds. A policy that preempts a job and never
     * readmits it, or starves a queue, fails.
     *
     * @param world the cluster and queues (every job must fit it alone)
     * @param jobs the jobs, all submitted before the first round
     * @param policy a fresh policy per call
     * @param runRounds rounds a job runs before it finishes
     * @param boundRounds the bound within which every job must have finished
     */
    public static void noStarvation(World world, List<FairwayArbitraries.JobTemplate> jobs, Supplier<SchedulingPolicy> policy,
                                    int runRounds, int boundRounds) {
        noStarvationDespiteFaults(world, jobs, new FaultSchedules.FaultSchedule(List.of()), policy, runRounds, boundRounds);
    }

    /**
     * As {@link #noStarvation}, while a fault schedule strikes before the rounds it names (use
     * {@link FaultSchedules#recoverableSchedules()}: faults the cluster recovers from). A job sent back to pending by
     * a fault must run again and finish within the bound; the invariants of
     * {@link #oneStatePerJobNoneLostAndAReasonForEveryPendingJob} are checked after every round and fault.
     *
     * @param world the cluster and queues (every job must fit it alone)
     * @param jobs the jobs, all submitted before the first round
     * @param faults the faults
     * @param policy a fresh policy per call
     * @param runRounds rounds a job runs before it finishes
     * @param boundRounds the bound within which every job must have finished
     */
    public static void noStarvationDespiteFaults(World world, List<FairwayArbitraries.JobTemplate> jobs, FaultSchedules.FaultSchedule faults,
                                                 Supplier<SchedulingPolicy> policy, int runRounds, int boundRounds) {
        StarvationChecks.despiteFaults(world, jobs, faults, policy, runRounds, boundRounds);
    }

    // ------------------------------------------------------------------ (h) no starvation under continuous arrival

    /**
     * How long a job may wait under continuous arrival before it counts as starved.
     */
    @FunctionalInterface
    public interface AdmissionBound {
        /**
         * @param queues the number of queues sharing the cluster
         * @param gpus the cluster's GPUs
         * @param gpuRoundsAhead the GPU-rounds still to run, when the job arrived, of every other job submitted up to
         *     then (in the same round too) that had not finished
         * @param maxRunRounds the longest run of any job of the stream
         * @return the rounds within which the job must have been admitted after its arrival
         */
        int rounds(int queues, long gpus, long gpuRoundsAhead, int maxRunRounds);
    }

    /**
     * Under a policy that promises no starvation, a job is admitted within a bound of its arrival although jobs keep
     * arriving. Jobs arrive before the rounds the {@link ContinuousArrivals.Stream stream} names; an admitted job
     * starts at once, runs its {@code runRounds} rounds (counted over all its runs, if it is preempted) and finishes;
     * the clock moves {@link ContinuousArrivals#ROUND_SECONDS} per round. Two things must hold:
     *
     * <ul>
     *   <li>every job is first admitted within {@code bound.rounds(...)} rounds of its arrival, the bound growing with
     *       the work that was already in the cluster or waiting when it arrived — not with the work that arrives
     *       after it. A policy that lets later short jobs, or the jobs of a favoured queue, overtake a job for as long
     *       as they keep coming fails;</li>
     *   <li>after the last arrival the cluster drains: every job has finished within {@code drainRounds} more rounds.</li>
     * </ul>
     *
     * The invariants of {@link #oneStatePerJobNoneLostAndAReasonForEveryPendingJob} are checked after every round.
     *
     * @param world the cluster and queues (every job must fit it alone)
     * @param stream the arrivals
     * @param policy a fresh policy per call
     * @param bound the admission bound
     * @param drainRounds rounds after the last arrival within which every job must have finished
     */
    public static void noStarvationUnderContinuousArrival(World world, ContinuousArrivals.Stream stream, Supplier<SchedulingPolicy> policy,
                                                          AdmissionBound bound, int drainRounds) {
        StarvationChecks.underContinuousArrival(world, stream, policy, bound, drainRounds);
    }

    // ------------------------------------------------------------------ helpers

    private static List<JobStatus> holding(ConformanceHarness h) {
        List<JobStatus> l = new ArrayList<>();
        for (JobStatus j : h.scheduler.jobs().all()) {
            if (j.state().holdsResources()) {
                l.add(j);
            }
        }
        return l;
    }

    private static Map<String, Node> nodesByName(ConformanceHarness h) {
        Map<String, Node> m = new HashMap<>();
        h.scheduler.clusters().nodes().forEach(n -> m.put(n.name(), n));
        return m;
    }

    private static Map<String, PodSet> podSets(JobStatus j) {
        Map<String, PodSet> m = new HashMap<>();
        j.spec().podSets().forEach(p -> m.put(p.name(), p));
        return m;
    }
}
