package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Rounds a policy asks for by time ({@code PolicyContext.wakeAt}) run in the simulator without any other event. */
class TimeDrivenRoundsTest {
    private static final SimulationOptions RECORD = SimulationOptions.DEFAULTS.withRecordEvents(true);


    @Test
    void aLasJobIsDemotedAtItsQuantumWithNoOtherEvent() {
        // The 8-GPU job reaches the first threshold (3,250 GPU-s) at 406.25 s; the short job, which arrived at 10 s
        // in the same top queue, may then take its GPUs. Nothing arrives or finishes at 406 s: only the round the
        // policy asked for can act then.
        SimulationResult r = Simulator.run(SimTestInputs.longThenShort(10), "tiresias-las", RECORD);

        assertThat(r.actuations()).filteredOn(x -> x.kind().equals("Preempt"))
                .extracting(x -> x.jobId() + "@" + x.timeMillis()).containsExactly("long@406250");
        assertThat(r.job("short").firstStartSeconds()).isEqualTo(406.25);
        assertThat(r.job("short").rho()).isLessThan(8);
    }

    @Test
    void withoutTheWakeupTheShortJobWouldHaveWaitedForTheLongOne() {
        // The same input under FIFO, which asks for no round by time: the short job waits for the long one.
        SimulationResult r = Simulator.run(SimTestInputs.longThenShort(10), "best-effort-fifo", RECORD);

        assertThat(r.job("short").firstStartSeconds()).isEqualTo(10_000);
        assertThat(r.job("short").rho()).isGreaterThan(150);
    }
}
