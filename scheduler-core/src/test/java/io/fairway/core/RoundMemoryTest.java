package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.plan.RoundMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The engine's memory across rounds: a round in which nothing changed makes no attempt again, a policy that walks
 * every job has its repeated attempts answered from memory, a change is seen at once, and a policy ordering by a
 * value that changes with time (least attained service) acts when it should — each with the decisions of a round
 * from scratch. ({@code IncrementalRoundsProperties} in the testkit compares the two on random histories.)
 */
class RoundMemoryTest {
    private final AtomicLong now = new AtomicLong(1_000);

    private Scheduler scheduler(SchedulingPolicy policy, boolean remember) {
        return RoundFixture.twoNodes(now::get, policy, remember);
    }

    /** A third-party style policy: every pending job in submission order, preempting where it may (or without preemption). */
    private static final class EveryJob implements SchedulingPolicy {
        private final boolean preempting;

        EveryJob(boolean preempting) {
            this.preempting = preempting;
        }

        @Override
        public String name() {
            return preempting ? "walk-every-job" : "try-every-job";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus j : ctx.pending()) {
                if (preempting) {
                    ctx.tryAdmitPreempting(j);
                } else {
                    ctx.tryAdmit(j);
                }
            }
        }
    }

    private static void sameDecisions(RoundResult a, RoundResult b) {
        assertThat(a.decisions()).isEqualTo(b.decisions());
        assertThat(a.refused()).isEqualTo(b.refused());
        // a reason the remembering round gives is the one a round from scratch gives (same stamp included)
        b.pendingReasons().forEach((id, r) -> {
            io.fairway.api.job.PendingReason ours = a.pendingReasons().get(id);
            if (ours != null && !ours.equals(r)) { // an answer the memory gives again is as of the round that found it
                assertThat(ours.sameAnswer(r) && ours.asOfRound() < r.asOfRound()).as("reason of %s: %s / %s", id, ours, r).isTrue();
            }
        });
    }

    /**
     * Every job in the same state with the same admission, and waiting for the same answer: where the reasons differ,
     * the remembering scheduler's is the same answer (code and sentence but for its numbers) and older (a reason is as of
     * the round that gave it).
     */
    static void sameAnswers(Scheduler remembering, Scheduler scratch) {
        Map<String, JobStatus> theirs = new TreeMap<>();
        for (JobStatus j : scratch.jobs().all()) {
            theirs.put(j.id(), j);
        }
        List<JobStatus> ours = remembering.jobs().all();
        assertThat(ours).hasSameSizeAs(theirs.values());
        for (JobStatus j : ours) {
            JobStatus o = theirs.get(j.id());
            assertThat(o).as("job %s", j.id()).isNotNull();
            assertThat(j.state()).as("state of %s", j.id()).isEqualTo(o.state());
            assertThat(j.admission()).as("admission of %s", j.id()).isEqualTo(o.admission());
            if (!sameButStamp(j.pendingReason(), o.pendingReason())) {
                assertThat(j.pendingReason().sameAnswer(o.pendingReason())).as("%s waits for the same answer: %s / %s", j.id(),
                        j.pendingReason(), o.pendingReason()).isTrue();
                assertThat(j.pendingReason().asOfRound()).as("%s keeps an older reason", j.id()).isLessThan(o.pendingReason().asOfRound());
            }
        }
    }

    /** One history given to a scheduler that remembers rounds ({@code a}) and to one that decides from scratch ({@code b}). */
    private record Twins(Scheduler a, Scheduler b) {
        static Twins of(Function<Boolean, Scheduler> build) {
            return new Twins(build.apply(true), build.apply(false));
        }

        /** Does the same to both. */
        void both(Consumer<Scheduler> step) {
            step.accept(a);
            step.accept(b);
        }

        /** @return the remembering scheduler's round, after checking that the other one decided the same */
        RoundResult round() {
            RoundResult ra = a.runRound();
            sameDecisions(ra, b.runRound());
            return ra;
        }

        /** Both hear that the job finished, then run a round. @return the remembering scheduler's round */
        RoundResult finishAndRound(String jobId) {
            both(s -> s.reportFinished(jobId));
            return round();
        }
    }

    @Test
    void aRoundInWhichNothingChangedMakesNoAttemptAgain() {
        RoundFixture.Counting remembering = new RoundFixture.Counting(Policies.create("priority", Map.of()));
        RoundFixture.Counting scratch = new RoundFixture.Counting(Policies.create("priority", Map.of()));
        Scheduler a = scheduler(remembering, true);
        Scheduler b = scheduler(scratch, false);
        RoundFixture.fillAndQueue(a);
        RoundFixture.fillAndQueue(b);
        for (int round = 0; round < 3; round++) { // the first gives the waiting jobs their reasons; then nothing changes
            remembering.attempts.set(0);
            scratch.attempts.set(0);
            RoundResult ra = a.runRound();
            RoundResult rb = b.runRound();
            sameDecisions(ra, rb);
            assertThat(ra.decisions()).isEmpty();
            assertThat(scratch.attempts.get()).as("attempts from scratch, round %d", round).isPositive();
        }
        // the second round changed nothing, so the third found every answer standing and stopped at once
        assertThat(remembering.attempts.get()).as("attempts in a round after one that changed nothing").isZero();
        sameAnswers(a, b);
    }

    @Test
    void aWalkingPolicysRepeatedAttemptsAreAnsweredFromMemoryAndAChangeIsSeenAtOnce() {
        Twins t = Twins.of(remember -> scheduler(new EveryJob(true), remember));
        Scheduler a = t.a();
        Scheduler b = t.b();
        t.both(RoundFixture::fillAndQueue);
        t.round();
        t.round();
        assertThat(a.roundMemory().answeredByLastRound()).as("attempts answered from memory in a round where nothing changed")
                .isGreaterThanOrEqualTo(20);
        assertThat(b.roundMemory()).as("a scheduler that does not remember").isNull();

        io.fairway.api.job.PendingReason before = a.status("wait-3").orElseThrow().pendingReason();
        RoundResult ra = t.finishAndRound("run-1"); // 8 GPUs free: the capacity every waiting job depended on changed
        assertThat(ra.decisions()).as("the freed node is used").anyMatch(d -> d instanceof Admit);
        sameAnswers(a, b);
        // wait-0..2 took 7 of the 8 GPUs: wait-3 (8 GPUs) still fails for quota, now with 1 unused. The answer is the same, so
        // it keeps the reason as of the round that gave it; from scratch, it is told the new numbers.
        assertThat(a.status("wait-3").orElseThrow().pendingReason()).as("the same answer: the reason kept").isSameAs(before);
        assertThat(ra.pendingReasons()).doesNotContainKey("wait-3");
        assertThat(b.status("wait-3").orElseThrow().pendingReason().details()).containsEntry("unused", 1L);
    }

    @Test
    void leastAttainedServiceActsWhenTimeDemotesTheRunningJob() {
        // One node; a fresh 8-GPU job runs; an 8-GPU job waits in the same top queue. Nothing but the clock changes: once the
        // runner's attained service passes the first threshold (3,250 GPU-s: 406 s on 8 GPUs) it is demoted, and the waiting
        // job preempts it. Its repeated attempts meanwhile are answered from memory: the memory does not hide time.
        List<RoundResult> remembered = lasHistory(true);
        List<RoundResult> scratch = lasHistory(false);
        assertThat(remembered).hasSameSizeAs(scratch);
        for (int i = 0; i < remembered.size(); i++) {
            sameDecisions(remembered.get(i), scratch.get(i));
        }
        int preemptedIn = -1;
        for (int i = 0; i < remembered.size() && preemptedIn < 0; i++) {
            if (remembered.get(i).decisions().stream().anyMatch(d -> d instanceof Preempt p && p.jobId().equals("old"))) {
                preemptedIn = i;
            }
        }
        assertThat(preemptedIn).as("the round (one per minute) in which the demoted job is preempted").isEqualTo(7);
        assertThat(answeredInLas).as("attempts answered from memory while the job waited").isPositive();
    }

    private int answeredInLas;

    private List<RoundResult> lasHistory(boolean remember) {
        now.set(0);
        Scheduler s = Scheduler.builder().clock(now::get).policy("tiresias-las").rememberRounds(remember)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(16).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
        s.submit(RoundFixture.job("old", 8, 0));
        s.runRound();
        s.reportStarted("old");
        s.submit(RoundFixture.job("new", 8, 0));
        List<RoundResult> out = new ArrayList<>();
        for (int minute = 0; minute <= 10; minute++) {
            now.set(minute * 60_000L);
            out.add(s.runRound());
            if (remember) {
                answeredInLas += s.roundMemory().answeredByLastRound();
            }
        }
        return out;
    }

    /** Four nodes of 8 GPUs; cohorts a and b, each with one ClusterQueue of 8 GPUs that never preempts. */
    private Scheduler twoTrees(boolean remember) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy(new EveryJob(false)).rememberRounds(remember)
                .flavor(ResourceFlavor.of("default"));
        for (String t : List.of("a", "b")) {
            b.cohort(io.fairway.api.model.Cohort.of("co-" + t, null))
                    .clusterQueue(ClusterQueue.builder("cq-" + t).cohort("co-" + t)
                            .quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(8).build()).build())
                    .localQueue(new LocalQueue("default", "lq-" + t, "cq-" + t));
        }
        for (int n = 1; n <= 4; n++) {
            b.node(Node.builder("n" + n).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b.build();
    }

    private static JobSpec job(String id, String queue, int gpus, long submitted) {
        return JobSpec.builder(id).queue(queue).submitTimeMillis(submitted)
                .podSet(io.fairway.api.job.PodSet.of("main", 1, Resources.builder().gpus(gpus).build())).build();
    }

    /** @return {@code count} one-member jobs of 1, 2, 4 and 8 GPUs in turn, submitted one millisecond apart */
    private static List<JobSpec> ofFourShapes(String idPrefix, String queue, int count, long firstSubmitted) {
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(job(idPrefix + i, queue, 1 << (i % 4), firstSubmitted + i));
        }
        return jobs;
    }

    /** Submits both jobs, admits them in one round and reports both started. */
    private static void startBoth(Scheduler s, JobSpec one, JobSpec two) {
        s.submitAll(List.of(one, two));
        s.runRound();
        s.reportStarted(one.id());
        s.reportStarted(two.id());
    }

    @Test
    void aQuotaFailureStandsInACohortTreeTheRoundLeftAlone() {
        Twins t = Twins.of(this::twoTrees);
        Scheduler a = t.a();
        t.both(s -> {
            startBoth(s, job("run-a", "lq-a", 8, 0), job("run-b", "lq-b", 8, 0));
            s.submit(job("wait-a", "lq-a", 8, 10));
            s.submitAll(ofFourShapes("wait-b-", "lq-b", 8, 20)); // behind wait-a: quota of cohort b is full
        });
        t.round(); // every waiting job fails for quota
        t.round();
        RoundResult ra = t.finishAndRound("run-a"); // cohort a's quota frees: wait-a is admitted first, and the plan has changed
        assertThat(ra.decisions()).as("wait-a admitted").anyMatch(d -> d instanceof Admit x && x.jobId().equals("wait-a"));
        // cohort b's tree did not change, in the snapshot nor in the plan: its four shapes' quota failures stand
        assertThat(a.roundMemory().answeredByLastRound()).as("quota failures in cohort b answered from memory after an admission in a")
                .isGreaterThanOrEqualTo(4);
        sameAnswers(t.a(), t.b());
    }

    /**
     * Two flavors on their own nodes (one node each, labelled), a ClusterQueue per flavor with more quota than nodes,
     * no cohort: {@code cq-a}'s jobs wait for room on the a100 node.
     */
    private Scheduler twoFlavors(boolean remember) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy(new EveryJob(false)).rememberRounds(remember);
        for (String f : List.of("a100", "h100")) {
            b.flavor(new ResourceFlavor(f, Map.of("tier", f), List.of(), List.of()))
                    .clusterQueue(ClusterQueue.builder("cq-" + f).quota(f, Resources.builder().cpu(256).memoryGiB(2048).gpus(64).build()).build())
                    .localQueue(new LocalQueue("default", "lq-" + f, "cq-" + f))
                    .node(Node.builder("n-" + f).label("tier", f).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b.build();
    }

    /** {@link #twoFlavors} with both nodes full: run-a on the a100 node, run-h on the h100 node. */
    private Twins twoFullNodes() {
        Twins t = Twins.of(this::twoFlavors);
        t.both(s -> startBoth(s, job("run-a", "lq-a100", 8, 0), job("run-h", "lq-h100", 8, 0)));
        return t;
    }

    @Test
    void aPlacementFailureDependsOnTheCapacityOfItsFlavorsNodesOnly() {
        Twins t = twoFullNodes();
        Scheduler a = t.a();
        t.both(s -> s.submitAll(ofFourShapes("wait-a-", "lq-a100", 4, 10))); // none fits the full a100 node
        t.round();
        t.round();
        RoundResult ra = t.finishAndRound("run-h"); // the h100 node empties: the a100 node, all cq-a's jobs can use, is as it was
        assertThat(ra.decisions()).isEmpty();
        assertThat(a.roundMemory().answeredByLastRound()).as("placement failures on the a100 node answered from memory")
                .isEqualTo(4);
        assertThat(a.status("wait-a-0").orElseThrow().pendingReason().code()).isEqualTo(io.fairway.api.job.PendingReason.Code.INSUFFICIENT_CAPACITY);
        sameAnswers(t.a(), t.b());
    }

    @Test
    void aFlavorThatMovesToOtherNodesDependsOnTheirCapacityFromThen() {
        Twins t = twoFullNodes();
        t.both(s -> s.submit(job("wait-a", "lq-a100", 4, 10)));
        t.round();
        t.round();
        // flavor a100 now places on the h100 node, full as well
        t.both(s -> s.queues().updateFlavor(new ResourceFlavor("a100", Map.of("tier", "h100"), List.of(), List.of())));
        t.round();
        t.round();
        RoundResult ra = t.finishAndRound("run-h"); // the node flavor a100 now places on empties: its failure no longer stands
        assertThat(ra.decisions()).as("wait-a admitted on the node its flavor moved to").hasSize(1);
        sameAnswers(t.a(), t.b());
    }

    /** One flavor, two nodes of 8 GPUs, a ClusterQueue of 64 GPUs that never preempts. */
    private Scheduler roomy(boolean remember) {
        return Scheduler.builder().clock(now::get).policy(new EveryJob(false)).rememberRounds(remember)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(64).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("n2").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
    }

    @Test
    void aPlacementFailureStandsWhileTheRoomFreedIsTooSmallForIt() {
        Twins t = Twins.of(this::roomy);
        Scheduler a = t.a();
        Scheduler b = t.b();
        t.both(s -> {
            s.submitAll(List.of(job("run-1", "lq", 8, 0), job("run-2", "lq", 4, 1), job("run-3", "lq", 4, 2)));
            s.runRound();
            for (String id : List.of("run-1", "run-2", "run-3")) {
                s.reportStarted(id);
            }
            s.submit(job("big", "lq", 8, 10));
        });
        t.round(); // big waits: no free GPU
        io.fairway.api.job.PendingReason first = a.status("big").orElseThrow().pendingReason();
        assertThat(first.code()).isEqualTo(io.fairway.api.job.PendingReason.Code.INSUFFICIENT_CAPACITY);

        t.finishAndRound("run-2"); // 4 GPUs free on n2: still no node with 8
        assertThat(a.roundMemory().answeredByLastRound()).as("the failure answered from memory: it needs more than any node has free")
                .isEqualTo(1);
        assertThat(a.status("big").orElseThrow().pendingReason()).as("the reason is kept, as of the round that gave it").isSameAs(first);
        assertThat(b.status("big").orElseThrow().pendingReason().details()).as("from scratch, the numbers of now")
                .containsEntry("freeGpus", 4L);
        sameAnswers(a, b);

        RoundResult ra = t.finishAndRound("run-3"); // n2 empties: now it fits
        assertThat(ra.decisions()).as("big admitted once a node has room").anyMatch(d -> d instanceof Admit x && x.jobId().equals("big"));
        sameAnswers(a, b);
    }

    /**
     * Walks the pending jobs (full size, no preemption), then, once told, shrinks the elastic job {@code e} to 4 members
     * where it holds 8: its admission changes while its spec and state stay as they were.
     */
    private static final class ShrinkWhenTold implements SchedulingPolicy {
        private final boolean[] told;

        ShrinkWhenTold(boolean[] told) {
            this.told = told;
        }

        @Override
        public String name() {
            return "shrink-when-told";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus j : ctx.pending()) {
                ctx.tryAdmit(j);
            }
            for (JobStatus h : ctx.holding()) {
                if (told[0] && h.id().equals("e") && h.admission().counts().get("w") == 8) {
                    ctx.resize(h, "w", 4);
                }
            }
        }
    }

    @Test
    void aJobShrunkInPlaceFreesRoomTheNextRoundSees() {
        boolean[] told = {false};
        // one node of 8 GPUs; two ClusterQueues without a cohort (two quota trees), so that only the capacity links them
        Twins t = Twins.of(remember -> Scheduler.builder().clock(now::get).policy(new ShrinkWhenTold(told)).rememberRounds(remember)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq-e").quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(8).build()).build())
                .clusterQueue(ClusterQueue.builder("cq-w").quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "lq-e", "cq-e"))
                .localQueue(new LocalQueue("default", "lq-w", "cq-w"))
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build());
        Scheduler a = t.a();
        t.both(s -> {
            s.submit(JobSpec.builder("e").queue("lq-e").submitTimeMillis(0)
                    .podSet(io.fairway.api.job.PodSet.of("w", 8, Resources.builder().gpus(1).build()).withMinCount(1)).build());
            s.runRound();
            s.reportStarted("e");
            s.submit(job("w", "lq-w", 4, 10));
        });
        t.round(); // w waits: e holds every GPU
        t.round(); // nothing changed: w's failure is answered from the memory
        assertThat(a.roundMemory().answeredByLastRound()).as("w's failure answered from memory").isEqualTo(1);

        told[0] = true;
        RoundResult shrunk = t.round(); // w still fails first; then e shrinks to 4 members
        assertThat(shrunk.decisions()).as("e resized").anyMatch(d -> d instanceof io.fairway.api.decision.Resize r && r.jobId().equals("e"));
        assertThat(a.status("e").orElseThrow().admission().counts()).containsEntry("w", 4);

        // e's spec and state are as they were; only its admission changed, and with it the room on n1: the memory must
        // see it, and w gets the 4 GPUs e gave up, as a round from scratch gives them
        RoundResult next = t.round();
        assertThat(next.decisions()).as("w admitted into the room e gave up").anyMatch(d -> d instanceof Admit x && x.jobId().equals("w"));
        sameAnswers(t.a(), t.b());
    }

    @Test
    void theMemoryIsNotUsedByADryRun() {
        EveryJob policy = new EveryJob(true);
        Scheduler s = scheduler(policy, true);
        RoundFixture.fillAndQueue(s);
        Rounds.Remembered dry = Rounds.run(s.snapshot(), policy, null, false);
        assertThat(dry.memory()).isNull();
        RoundMemory m = Rounds.run(s.snapshot(), policy, null, true).memory();
        assertThat(m.answers()).as("failed attempts remembered").isPositive();
    }

    /** Equal but for the round each is from ({@code asOfRound}); null only as null. */
    static boolean sameButStamp(io.fairway.api.job.PendingReason a, io.fairway.api.job.PendingReason b) {
        return a == null ? b == null : a.equalsButRound(b);
    }
}
