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
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PendingReason.Code;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import org.junit.jupiter.api.Test;

/** A job waiting is never without a reason, and the reason says what a user can act on, with numbers. */
class PendingReasonsTest {

    @Test
    void quotaReasonCarriesTheNumbers() {
        Scheduler s = cluster("best-effort-fifo", 8, null, h100("n1"), h100("n2")).build();
        s.submit(gpuJob("first", 1, 4));
        s.submit(gpuJob("second", 1, 8));
        s.runRound();
        assertThat(state(s, "first")).isEqualTo(JobState.ADMITTED);
        PendingReason r = reason(s, "second");
        assertThat(r.code()).isEqualTo(Code.QUOTA);
        assertThat(r.details()).containsEntry("needed", 8L).containsEntry("nominal", 8L).containsEntry("used", 4L).containsEntry("unused", 4L);
        assertThat(r.message()).contains("needs 8 nvidia.com/gpu of flavor default").contains("ClusterQueue cq has 4 unused of 8");
    }

    @Test
    void aMissingLocalQueueIsNamed() {
        Scheduler s = cluster("best-effort-fifo", 8, null, h100("n1")).build();
        s.submit(JobSpec.builder("j").namespace("team-x").queue("nope").members(1, Resources.builder().gpus(1).build()).build());
        s.runRound();
        PendingReason r = reason(s, "j");
        assertThat(r.code()).isEqualTo(Code.QUEUE_NOT_FOUND);
        assertThat(r.message()).contains("nope").contains("team-x");
        // the queue appears later: the job runs
        s.queues().addLocalQueue(new LocalQueue("team-x", "nope", Fixtures.CQ));
        s.runRound();
        assertThat(state(s, "j")).isEqualTo(JobState.ADMITTED);
    }

    @Test
    void aMissingClusterQueueIsNamed() {
        Scheduler s = cluster("best-effort-fifo", 8, null, h100("n1"))
                .localQueue(new LocalQueue("default", "orphan", "ghost")).build();
        s.submit(JobSpec.builder("j").queue("orphan").members(1, Resources.builder().gpus(1).build()).build());
        s.runRound();
        PendingReason r = reason(s, "j");
        assertThat(r.code()).isEqualTo(Code.CLUSTER_QUEUE_NOT_FOUND);
        assertThat(r.message()).contains("ghost");
    }

    @Test
    void aGangThatFitsAnEmptyClusterButNotNowWaitsForCapacity() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).build();
        s.submit(gpuJob("small", 1, 6));
        s.submit(gpuJob("four", 1, 4));
        s.runRound();
        assertThat(state(s, "small")).isEqualTo(JobState.ADMITTED);
        assertThat(reason(s, "four").code()).isEqualTo(Code.INSUFFICIENT_CAPACITY);
    }

    @Test
    void aMemberLargerThanAnyNodeIsToldItCanNeverFit() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1"), h100("n2")).build();
        s.submit(gpuJob("sixteen", 1, 16)); // 16 GPUs on one member; nodes have 8
        s.runRound();
        assertThat(reason(s, "sixteen").code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
    }

    @Test
    void strictFifoHeadThatDoesNotFitBlocksTheJobsBehindIt() {
        Scheduler s = cluster("strict-fifo", 64, null, h100("n1")).build();
        s.submit(gpuJob("running", 1, 6));
        s.runRound();
        s.submit(gpuJob("head", 1, 4));  // 2 GPUs free: does not fit now
        s.submit(gpuJob("behind", 1, 1)); // would fit
        s.runRound();
        assertThat(reason(s, "head").code()).isEqualTo(Code.INSUFFICIENT_CAPACITY);
        PendingReason r = reason(s, "behind");
        assertThat(state(s, "behind")).isEqualTo(JobState.PENDING);
        assertThat(r.code()).isEqualTo(Code.POLICY_CHOSE_OTHERS);
        assertThat(r.message()).contains("head").contains("StrictFIFO").contains(Fixtures.CQ);
    }

    @Test
    void everyPendingJobHasAReasonAfterEveryRound() {
        Scheduler s = cluster("strict-fifo", 12, null, h100("n1")).build();
        for (int i = 0; i < 10; i++) {
            s.submit(gpuJob("j" + i, 1, 1 + i % 4));
        }
        s.submit(JobSpec.builder("lost").queue("missing").members(1, Resources.builder().gpus(1).build()).build());
        for (int round = 0; round < 3; round++) {
            s.runRound();
            for (JobStatus j : s.jobs().pending()) {
                assertThat(j.pendingReason()).as(j.id()).isNotNull();
                assertThat(j.pendingReason().message()).as(j.id()).isNotBlank();
                assertThat(j.pendingReason().code()).as(j.id()).isNotEqualTo(Code.NOT_YET_CONSIDERED);
            }
        }
        assertThat(s.checkInvariants()).isEmpty();
    }
}
