package io.fairway.policies.fifo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The baselines' building blocks (the end-to-end runs in a Scheduler live in policies-themis' tests, since
 * scheduler-core already depends on this module).
 */
class ReferencePoliciesTest {
    static JobSpec spec(int gpus, double seconds, Checkpointing c) {
        return JobSpec.builder("j").queue("lq").members(1, Resources.builder().gpus(gpus).build()).estimatedSeconds(seconds)
                .checkpointing(c).build();
    }

    static JobStatus pending(JobSpec s, long since, long attainedGpuMillis, long runningMillis, double progress) {
        return new JobStatus(s, JobState.PENDING, PendingReason.of(PendingReason.Code.PREEMPTED, "x"), null, since, 1, 1,
                attainedGpuMillis, runningMillis, progress);
    }

    static JobStatus running(JobSpec s, long since, long runningMillis, double progress, double tf) {
        Placement p = new Placement(List.of(new MemberPlacement("main", 0, "n", List.of(0, 1))), Locality.NODE, tf);
        return new JobStatus(s, JobState.RUNNING, null, new Admit("j", "cq", Map.of(), Map.of("main", 1), p), since, 0, 1,
                runningMillis * 2, runningMillis, progress);
    }

    @Test
    void lasQueuesFollowTheThresholdsAndTheStarvationGuardPromotes() {
        TiresiasLasPolicy las = new TiresiasLasPolicy("las", TiresiasLasPolicy.DEFAULT_THRESHOLDS, 2);
        JobSpec s = spec(2, 0, null);
        assertThat(las.queueOf(pending(s, 0, 3_249_000, 0, -1))).isZero();
        assertThat(las.queueOf(pending(s, 0, 3_250_000, 0, -1))).isEqualTo(1);
        assertThat(las.queueOf(pending(s, 0, 10_000_000, 0, -1))).isEqualTo(2);
        assertThat(las.queueOf(pending(s, 0, 18_000_000, 0, -1))).isEqualTo(3);
        // executed 1000 s, attained 2000 GPU-s... here 10,000 GPU-s (queue 2): promoted after waiting 2 × 1000 s
        JobStatus j = pending(s, 0, 10_000_000, 1_000_000, -1);
        assertThat(las.effectiveQueue(j, 1_999_999)).isEqualTo(2);
        assertThat(las.effectiveQueue(j, 2_000_000)).isZero();
    }

    @Test
    void remainingTimeUsesProgressOrExecutedTimeAndSpeed() {
        // 1000 s job, reported 0.25 at the start of a run at speed 0.5 begun 200 s ago → 250 + 100 done → 650 left
        JobStatus r = running(spec(2, 1000, null), 0, 200_000, 0.25, 0.5);
        assertThat(JobEstimates.remainingSeconds(r, 200_000)).isCloseTo(650, within(1e-9));
        // no report: 200 s executed at speed 0.5 → 100 done → 900 left
        JobStatus u = running(spec(2, 1000, null), 0, 200_000, -1, 0.5);
        assertThat(JobEstimates.remainingSeconds(u, 200_000)).isCloseTo(900, within(1e-9));
        assertThat(JobEstimates.lostIfPreempted(u, 200_000)).isCloseTo(100, within(1e-9));
        // checkpoints every 30 s: only the 10 s since the last one are lost
        JobStatus c = running(spec(2, 1000, new Checkpointing(30, 0, 0)), 0, 200_000, -1, 0.5);
        assertThat(JobEstimates.lostIfPreempted(c, 200_000)).isCloseTo(10, within(1e-9));
        assertThat(JobEstimates.remainingSeconds(running(spec(2, 0, null), 0, 1, -1, 1), 1)).isInfinite();
    }

    @Test
    void providersRefuseUnknownParametersByName() {
        assertThat(new ReferencePolicies.TiresiasLas().create(Map.of("thresholds", "100,200", "k", "3")).name()).isEqualTo("tiresias-las");
        assertThat(new ReferencePolicies.Srtf().create(Map.of()).name()).isEqualTo("srtf");
        assertThat(new ReferencePolicies.IsolatedShare().create(Map.of("workConserving", "true")).name()).isEqualTo("isolated-share");
        assertThatThrownBy(() -> new ReferencePolicies.Srtf().create(Map.of("preemt", "true")))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("[preemt]");
        assertThatThrownBy(() -> new ReferencePolicies.TiresiasLas().create(Map.of("thresholds", "300,200")))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("increasing");
    }
}
