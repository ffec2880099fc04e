package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.h100;
import static io.fairway.core.engine.Fixtures.reason;
import static io.fairway.core.engine.Fixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bundled walks answer a group whose shape (ClusterQueue, namespace, pod sets, and priority where it counts)
 * already failed this round with that failure, without an attempt: within a round capacity and quota only shrink.
 * Groups differ by LocalQueue too, so two LocalQueues of one ClusterQueue give two groups of one shape — the walks
 * must find the first one's answer for the second, whichever other groups they count as alone with their shapes.
 */
class SharedShapesTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"best-effort-fifo", "priority", "fair-sharing"})
    void aShapeThatFailedAnswersTheSameShapeFromAnotherLocalQueueWithItsReason(String policy) {
        Scheduler s = cluster(policy, 1_000, null, h100("n1"))
                .localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-2", Fixtures.CQ)).build();
        s.submit(job("one", Fixtures.LQ, 1, 1));    // admitted: 7 of 8 GPUs free
        s.submit(job("a", Fixtures.LQ, 8, 2));      // does not fit: 7 free
        s.submit(job("c", Fixtures.LQ, 1, 3));      // admitted: 6 free
        s.submit(job("b", "lq-2", 8, 4));           // a's shape, another group: a's answer, not a new one
        s.runRound();
        assertThat(state(s, "one")).isEqualTo(JobState.ADMITTED);
        assertThat(state(s, "c")).isEqualTo(JobState.ADMITTED);
        PendingReason a = reason(s, "a");
        assertThat(a.code()).isEqualTo(PendingReason.Code.INSUFFICIENT_CAPACITY);
        assertThat(a.message()).contains("7 GPUs are free");
        assertThat(reason(s, "b")).isEqualTo(a);
    }

    private static JobSpec job(String id, String queue, int gpus, long submitted) {
        return JobSpec.builder(id).queue(queue).submitTimeMillis(submitted).members(1, Resources.builder().cpu(1).gpus(gpus).build()).build();
    }
}
