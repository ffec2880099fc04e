package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.GpuTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * After a round that started, stopped and resized nothing, the simulator queues the next lease expiries from the
 * renewals the round reports instead of reading every running job's status back. On random contended workloads under
 * Themis (10-minute leases, so most rounds are lease expiries) the run is the one the plain form gives: every job's
 * outcome, every actuation and event, the same number of rounds.
 */
class LeaseWatchShortcutTest {
    private static final SimulationOptions RECORD = SimulationOptions.DEFAULTS.withRecordEvents(true);

    private static SimulationInput workload(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<SimJob> jobs = new ArrayList<>();
        int n = 20 + r.nextInt(20);
        for (int i = 0; i < n; i++) {
            int gpus = new int[] {1, 1, 2, 4, 8}[r.nextInt(5)];
            Checkpointing c = r.nextBoolean() ? new Checkpointing(120, 10, 10) : null;
            jobs.add(SimTestInputs.gpuJob("j" + i, r.nextInt(4 * 3600), 300 + r.nextInt(6 * 3600), gpus, PlacementSensitivity.NONE, c));
        }
        return SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null),
                SimTestInputs.gpuNode("n-1", GpuTopology.nvSwitch8("H100"), null)), SimTestInputs.oneQueue(16), List.of(), jobs.toArray(new SimJob[0]));
    }

    @Property(tries = 8)
    void leasesWatchedFromTheRenewalsGiveTheRunOfEveryLeaseLookedUp(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        SimulationRun quick = new SimulationRun(workload(seed), "themis", RECORD, null, null);
        SimulationResult fast = quick.run();
        SimulationResult plain = new SimulationRun(workload(seed), "themis", RECORD, null, null).everyLeaseLookedUp().run();

        assertThat(quick.renewedOnlyWatches).as("rounds whose renewed leases alone were looked at").isPositive();
        assertThat(fast.jobs()).containsExactlyElementsOf(plain.jobs());
        assertThat(fast.actuations()).containsExactlyElementsOf(plain.actuations());
        assertThat(fast.events()).containsExactlyElementsOf(plain.events());
        assertThat(fast.metrics().rounds()).isEqualTo(plain.metrics().rounds());
        assertThat(fast.metrics().preemptions()).isEqualTo(plain.metrics().preemptions());
    }
}
