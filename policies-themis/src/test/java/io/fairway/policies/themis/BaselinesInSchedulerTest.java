package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.GpuTopology;
import io.fairway.core.Policies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Themis and the baselines of policies-fifo end to end in a real Scheduler: every job finishes, no invariant is ever
 * broken, and the same seed gives the same decisions. (These live here because scheduler-core depends on
 * policies-fifo, so policies-fifo's own tests cannot run a Scheduler.)
 */
class BaselinesInSchedulerTest {
    @ParameterizedTest
    @ValueSource(strings = {"themis", "tiresias-las", "srtf", "isolated-share", "best-effort-fifo"})
    void runsAWorkloadToTheEndWithoutBreakingAnInvariant(String policy) {
        List<String> first = null;
        for (int i = 0; i < 2; i++) {
            MiniSim sim = new MiniSim(Policies.create(policy, Map.of()), 2, 2, GpuTopology.hybridCubeMesh8("V100"), 9);
            MiniSim.randomWorkload(sim, 23, 30, 6, 2_400_000);
            sim.run(400L * 3600 * 1000);
            assertThat(sim.violations).as(policy).isEmpty();
            assertThat(sim.finished).as(policy).hasSize(sim.specs.size());
            if (first == null) {
                first = sim.log;
            } else {
                assertThat(sim.log).as(policy + " is deterministic").isEqualTo(first);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tiresias-las", "srtf"})
    void preemptingBaselinesPreemptOnACheckpointingWorkload(String policy) {
        MiniSim sim = new MiniSim(Policies.create(policy, Map.of()), 1, 2, GpuTopology.pcie4("V100"), 9);
        MiniSim.randomWorkload(sim, 31, 30, 4, 7_200_000, 60);
        sim.run(400L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.finished).hasSize(sim.specs.size());
        assertThat(sim.preemptions).as(policy).isPositive();
    }
}
