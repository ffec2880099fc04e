package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static io.fairway.core.engine.Fixtures.reason;
import static io.fairway.core.engine.Fixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason.Code;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PendingGroup;
import io.fairway.api.spi.PolicyContext;
import io.fairway.core.Policies;
import io.fairway.core.RoundFixture;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.plan.PlanContext;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A deep queue of jobs that cannot fit costs a round nothing per job (issue #3: BestEffortFIFO must not stall
 * with tens of thousands of jobs queued; issue #7: round time must not grow with jobs that cannot fit). Counted
 * in searches and reported reasons, not in seconds.
 */
class DeepQueueTest {

    private static int searchesForAFullClusterWith(String policy, int waiting) {
        RoundFixture.Counting p = new RoundFixture.Counting(Policies.create(policy, Map.of()));
        Scheduler s = cluster("best-effort-fifo", 1_000, null, h100("n1")).policy(p).build();
        s.submit(gpuJob("big", 1, 8));
        s.runRound();
        for (int i = 0; i < waiting; i++) {
            s.submit(gpuJob("w" + i, 1, 1));
            s.submit(gpuJob("g" + i, 2, 2));
        }
        p.attempts.set(0);
        RoundResult first = s.runRound();
        assertThat(first.pendingReasons()).hasSize(2 * waiting);
        if (policy.equals("strict-fifo")) {
            assertThat(reason(s, "w" + (waiting - 1)).message()).contains("waiting behind w0");
        } else {
            assertThat(reason(s, "w" + (waiting - 1)).code()).isEqualTo(Code.INSUFFICIENT_CAPACITY);
        }
        return p.attempts.get();
    }

    @ParameterizedTest
    @ValueSource(strings = {"best-effort-fifo", "strict-fifo", "priority"})
    void searchesDoNotGrowWithJobsThatCannotFit(String policy) {
        int shallow = searchesForAFullClusterWith(policy, 10);
        int deep = searchesForAFullClusterWith(policy, 5_000);
        assertThat(deep).isEqualTo(shallow).isLessThanOrEqualTo(2);
    }

    @Test
    void anUnchangedNoFitRoundReportsNothingNewAndEveryJobKeepsItsReason() {
        Scheduler s = cluster("best-effort-fifo", 1_000, null, h100("n1")).build();
        s.submit(gpuJob("big", 1, 8));
        s.runRound();
        for (int i = 0; i < 2_000; i++) {
            s.submit(gpuJob("w" + i, 1, 1 + i % 3));
        }
        assertThat(s.runRound().pendingReasons()).hasSize(2_000);
        RoundResult again = s.runRound();
        assertThat(again.decisions()).isEmpty();
        assertThat(again.pendingReasons()).isEmpty();
        for (int i = 0; i < 2_000; i += 97) {
            assertThat(reason(s, "w" + i).code()).isEqualTo(Code.INSUFFICIENT_CAPACITY);
        }
        assertThat(s.checkInvariants()).isEmpty();
        // capacity comes back: the queue moves again, in order
        s.cancel("big");
        s.runRound();
        // w0..w3 take 1 + 2 + 3 + 1 GPUs; w4 (2) and w5 (3) do not fit the last one; w6 (1) does; nothing after
        for (String admitted : List.of("w0", "w1", "w2", "w3", "w6")) {
            assertThat(state(s, admitted)).as(admitted).isEqualTo(JobState.ADMITTED);
        }
        for (String waiting : List.of("w4", "w5", "w7", "w8", "w9", "w1999")) {
            assertThat(state(s, waiting)).as(waiting).isEqualTo(JobState.PENDING);
        }
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void theEnginesGroupsHoldEveryAdmissibleJobOnceAsTheDefaultGroupingDoes() {
        Scheduler s = cluster("best-effort-fifo", 1_000, null, h100("n1")).build();
        for (int i = 0; i < 300; i++) {
            s.submit(JobSpec.builder("j" + i).queue(Fixtures.LQ).priority(i % 3)
                    .members(1 + i % 2, Resources.builder().cpu(1).gpus(1 + i % 4).build()).build());
        }
        s.submit(JobSpec.builder("lost").namespace("elsewhere").queue("none").members(1, Resources.builder().gpus(1).build()).build());
        Snapshot snap = s.snapshot();
        PlanContext ctx = new PlanContext(snap);
        List<PendingGroup> engine = ctx.pendingGroups();
        List<PendingGroup> reference = new PolicyContext() {
            // only what the default grouping reads
            @Override public long now() { return ctx.now(); }
            @Override public java.util.random.RandomGenerator random() { return ctx.random(); }
            @Override public List<io.fairway.api.model.ClusterQueue> clusterQueues() { return ctx.clusterQueues(); }
            @Override public List<JobStatus> pending() { return ctx.pending(); }
            @Override public List<JobStatus> pending(String cq) { return ctx.pending(cq); }
            @Override public String clusterQueueOf(JobStatus job) { return ctx.clusterQueueOf(job); }
            @Override public List<JobStatus> holding() { return ctx.holding(); }
            @Override public io.fairway.api.spi.Attempt tryAdmit(JobStatus job) { return ctx.tryAdmit(job); }
            @Override public io.fairway.api.spi.Attempt tryAdmit(JobStatus job, Map<String, Integer> c) { return ctx.tryAdmit(job, c); }
            @Override public io.fairway.api.spi.Attempt tryAdmit(JobStatus job, io.fairway.api.decision.Placement p) { return ctx.tryAdmit(job, p); }
            @Override public io.fairway.api.spi.Attempt tryAdmitPreempting(JobStatus job) { return ctx.tryAdmitPreempting(job); }
            @Override public boolean preempt(JobStatus job, String r) { return ctx.preempt(job, r); }
            @Override public io.fairway.api.spi.Attempt resize(JobStatus job, String ps, int n) { return ctx.resize(job, ps, n); }
            @Override public boolean setLease(JobStatus job, long t) { return ctx.setLease(job, t); }
            @Override public void leaveWaiting(JobStatus job, io.fairway.api.job.PendingReason r) { ctx.leaveWaiting(job, r); }
            @Override public io.fairway.api.spi.QuotaView quota() { return ctx.quota(); }
            @Override public io.fairway.api.spi.PlacementSearch placement() { return ctx.placement(); }
            @Override public io.fairway.api.spi.CapacityView capacity() { return ctx.capacity(); }
        }.pendingGroups();
        assertThat(describe(engine)).isEqualTo(describe(reference));
        Set<String> ids = new HashSet<>();
        engine.forEach(g -> g.jobs().forEach(j -> assertThat(ids.add(j.id())).isTrue()));
        assertThat(ids).hasSize(300).doesNotContain("lost");
        // the pod set hash the engine's groups keep is their jobs' (policies key their maps of shapes by it)
        for (PendingGroup g : engine) {
            for (JobStatus j : g.jobs()) {
                assertThat(g.podSetsHash()).as(j.id()).isEqualTo(j.spec().podSets().hashCode());
            }
        }
        // the same snapshot gives the same round
        RoundResult once = Rounds.run(snap, Policies.create("best-effort-fifo", Map.of()));
        RoundResult twice = Rounds.run(snap, Policies.create("best-effort-fifo", Map.of()));
        assertThat(twice.decisions()).isEqualTo(once.decisions());
        assertThat(twice.pendingReasons()).isEqualTo(once.pendingReasons());
    }

    private static Set<String> describe(List<PendingGroup> groups) {
        Set<String> out = new HashSet<>();
        for (PendingGroup g : groups) {
            out.add(g.clusterQueue() + " " + g.jobs().stream().map(JobStatus::id).toList());
        }
        return out;
    }
}
