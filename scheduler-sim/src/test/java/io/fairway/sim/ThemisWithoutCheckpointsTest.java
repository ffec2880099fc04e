package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.GpuTopology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Themis on jobs that do not checkpoint (traces that carry no checkpoint information): a revocation restarts the
 * victim from zero, and Themis revokes only where the ρ it saves exceeds the ρ that restart costs.
 */
class ThemisWithoutCheckpointsTest {
    private static final SimulationOptions RECORD = SimulationOptions.DEFAULTS.withRecordEvents(true);

    @Test
    void aShortJobDoesNotWaitHoursBehindALongOneByDefault() {
        SimulationResult r = Simulator.run(SimTestInputs.longThenShort(1_000), "themis", RECORD);

        assertThat(r.job("short").rho()).isLessThanOrEqualTo(2);
        // the long job paid for it: restarted from zero after the short one, its lost work counted
        assertThat(r.actuations()).filteredOn(x -> x.kind().equals("Preempt")).extracting(ActuationRecord::jobId).containsExactly("long");
        assertThat(r.metrics().lostWorkSeconds()).isEqualTo(1_000);
        assertThat(r.job("long").completionSeconds()).isEqualTo(1_060 + 10_000);
        assertThat(r.job("long").rho()).isLessThan(1.2);
    }

    @Test
    void usersWhoForbidKillingJobsThatDoNotCheckpointKeepASwitch() {
        SimulationResult r = Simulator.run(SimTestInputs.longThenShort(1_000), "themis",
                RECORD.withPolicyParameters(Map.of("revokeWithoutCheckpoint", "false")));

        assertThat(r.metrics().preemptions()).isZero();
        assertThat(r.job("short").firstStartSeconds()).isEqualTo(10_000);
        assertThat(r.job("short").rho()).isGreaterThan(100);
    }

    @Test
    void aJobIsNotRestartedWhenTheWaitItWouldSaveIsWorthLessThanTheWorkItWouldLose() {
        // Two 4-GPU jobs of 10,000 s fill the node; a 4-GPU job of 10,000 s arrives at 9,000 s. Restarting one of
        // them would cost it 9,000 s of work to save the newcomer 1,000 s of waiting on a 10,000-s run: the
        // newcomer waits.
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(),
                SimTestInputs.gpuJob("a", 0, 10_000, 4), SimTestInputs.gpuJob("b", 0, 10_000, 4), SimTestInputs.gpuJob("c", 9_000, 10_000, 4));
        SimulationResult r = Simulator.run(in, "themis", RECORD);

        assertThat(r.metrics().preemptions()).isZero();
        assertThat(r.job("c").firstStartSeconds()).isEqualTo(10_000);
    }
}
