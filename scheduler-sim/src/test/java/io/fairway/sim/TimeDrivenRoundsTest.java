package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.GpuTopology;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rounds a policy asks for by time ({@code PolicyContext.wakeAt}) run in the simulator without any other event. */
class TimeDrivenRoundsTest {
    private static final SimulationOptions RECORD = SimulationOptions.DEFAULTS.withRecordEvents(true);

    private static SimulationInput longJobThenShortJob(double shortArrivesAt) {
        return SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(),
                SimTestInputs.gpuJob("long", 0, 10_000, 8), SimTestInputs.gpuJob("short", shortArrivesAt, 60, 1));
    }

    @Test
    void aLasJobIsDemotedAtItsQuantumWithNoOtherEvent() {
        // The 8-GPU job reaches the first threshold (3,250 GPU-s) at 406.25 s; the short job, which arrived at 10 s
        // in the same top queue, may then take its GPUs. Nothing arrives or finishes at 406 s: only the round the
        // policy asked for can act then.
        SimulationResult r = Simulator.run(longJobThenShortJob(10), "tiresias-las", RECORD);

        assertThat(r.actuations()).filteredOn(x -> x.kind().equals("Preempt"))
                .extracting(x -> x.jobId() + "@" + x.timeMillis()).containsExactly("long@406250");
        assertThat(r.job("short").firstStartSeconds()).isEqualTo(406.25);
        assertThat(r.job("short").rho()).isLessThan(8);
    }

    @Test
    void withoutTheWakeupTheShortJobWouldHaveWaitedForTheLongOne() {
        // The same input under FIFO, which asks for no round by time: the short job waits for the long one.
        SimulationResult r = Simulator.run(longJobThenShortJob(10), "best-effort-fifo", RECORD);

        assertThat(r.job("short").firstStartSeconds()).isEqualTo(10_000);
        assertThat(r.job("short").rho()).isGreaterThan(150);
    }
}
