package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static io.fairway.core.engine.Fixtures.reason;
import static io.fairway.core.engine.Fixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import org.junit.jupiter.api.Test;

/** strict-fifo, best-effort-fifo and priority: who goes first, and who is blocked, on the engine. */
class FifoPoliciesTest {

    private static Scheduler twoQueues(String policy) {
        return cluster(policy, 8, null, h100("n1"), h100("n2"))
                .clusterQueue(ClusterQueue.builder("other").quota("default", Resources.builder().cpu(100).gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "other-lq", "other"))
                .build();
    }

    @Test
    void bestEffortFifoSkipsAHeadThatDoesNotFitAndAdmitsYoungerJobs() {
        Scheduler s = cluster("best-effort-fifo", 8, null, h100("n1")).build();
        s.submit(gpuJob("big", 1, 16));
        s.submit(gpuJob("small", 1, 2));
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("small");
        assertThat(reason(s, "big").code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    @Test
    void strictFifoHeadBlocksItsOwnClusterQueueOnly() {
        Scheduler s = twoQueues("strict-fifo");
        s.submit(gpuJob("big", 1, 16));
        s.submit(gpuJob("small", 1, 2));
        s.submit(JobSpec.builder("elsewhere").queue("other-lq").members(1, Resources.builder().gpus(2).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("elsewhere");
        assertThat(reason(s, "small").code()).isEqualTo(PendingReason.Code.POLICY_CHOSE_OTHERS);
        assertThat(reason(s, "small").message()).contains("big");
    }

    @Test
    void strictFifoAdmitsInSubmissionOrderWhileJobsFit() {
        Scheduler s = cluster("strict-fifo", 8, null, h100("n1")).build();
        s.submit(gpuJob("a", 1, 4));
        s.submit(gpuJob("b", 1, 4));
        s.submit(gpuJob("c", 1, 1));
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("a", "b");
        assertThat(reason(s, "c").code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    @Test
    void submissionTimeOrdersBeforeArrivalAtTheScheduler() {
        Scheduler s = cluster("strict-fifo", 8, null, h100("n1")).build();
        s.submit(JobSpec.builder("late").queue("lq").submitTimeMillis(500).members(1, Resources.builder().gpus(8).build()).build());
        s.submit(JobSpec.builder("early").queue("lq").submitTimeMillis(100).members(1, Resources.builder().gpus(8).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("early");
        assertThat(reason(s, "late").code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    @Test
    void aClusterQueueStrategyOverridesThePolicyDefault() {
        Scheduler s = Fixtures.cluster("best-effort-fifo", 8, null, h100("n1"))
                .clusterQueue(ClusterQueue.builder("strict").quota("default", Resources.builder().cpu(100).gpus(8).build())
                        .queueingStrategy(QueueingStrategy.STRICT_FIFO).build())
                .localQueue(new LocalQueue("default", "strict-lq", "strict"))
                .build();
        s.submit(JobSpec.builder("big").queue("strict-lq").members(1, Resources.builder().gpus(16).build()).build());
        s.submit(JobSpec.builder("small").queue("strict-lq").members(1, Resources.builder().gpus(1).build()).build());
        s.runRound();
        assertThat(state(s, "small")).isEqualTo(JobState.PENDING);
        assertThat(reason(s, "small").code()).isEqualTo(PendingReason.Code.POLICY_CHOSE_OTHERS);
    }

    @Test
    void priorityAdmitsHigherPriorityFirstAndFifoWithinAPriority() {
        Scheduler s = cluster("priority", 8, null, h100("n1")).build();
        s.submit(JobSpec.builder("low").queue("lq").priority(1).members(1, Resources.builder().gpus(4).build()).build());
        s.submit(JobSpec.builder("high-1").queue("lq").priority(5).members(1, Resources.builder().gpus(4).build()).build());
        s.submit(JobSpec.builder("high-2").queue("lq").priority(5).members(1, Resources.builder().gpus(4).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("high-1", "high-2");
        assertThat(state(s, "low")).isEqualTo(JobState.PENDING);
    }

    @Test
    void priorityIsBestEffortJobsThatDoNotFitAreSkipped() {
        Scheduler s = cluster("priority", 8, null, h100("n1")).build();
        s.submit(JobSpec.builder("huge").queue("lq").priority(9).members(1, Resources.builder().gpus(16).build()).build());
        s.submit(JobSpec.builder("small").queue("lq").priority(0).members(1, Resources.builder().gpus(1).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("small");
    }

    @Test
    void raisingAPriorityMovesTheJobAhead() {
        Scheduler s = cluster("priority", 8, null, h100("n1")).build();
        s.submit(gpuJob("a", 1, 8));
        s.submit(gpuJob("b", 1, 8));
        assertThat(s.jobs().setPriority("b", 3)).isTrue();
        RoundResult r = s.runRound();
        assertThat(r.decisions()).extracting(Decision::jobId).containsExactly("b");
        assertThat(s.status("b").orElseThrow().spec().priority()).isEqualTo(3);
    }
}
