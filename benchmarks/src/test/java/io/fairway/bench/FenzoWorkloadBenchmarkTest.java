package io.fairway.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.PendingReason;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import org.junit.jupiter.api.Test;

/** The benchmark measures a real round: on a small copy of its workload, every GPU is given and the rest wait. */
class FenzoWorkloadBenchmarkTest {
    @Test
    void aRoundFillsEveryGpuAndLeavesTheRestWaitingForCapacity() {
        FenzoWorkloadBenchmark.Scaled w = new FenzoWorkloadBenchmark.Scaled();
        w.size = "20x200";
        w.setUp();
        w.snapshot();
        RoundResult r = Rounds.run(w.snapshot, w.policy);
        assertThat(r.decisions()).hasSize(160).allMatch(d -> d instanceof Admit);
        assertThat(r.refused()).isEmpty();
        assertThat(r.pendingReasons()).hasSize(40);
        assertThat(r.pendingReasons().values()).extracting(PendingReason::code).containsOnly(PendingReason.Code.INSUFFICIENT_CAPACITY);
    }
}
