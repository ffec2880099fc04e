package io.fairway.sim.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.core.snapshot.PlacementStrategy;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import io.fairway.sim.cli.TopologyStudyCommand;
import io.fairway.sim.config.Defaults;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue #4: on a placement-sensitive workload, topology-aware placement beats first-fit. */
class TopologyComparisonTest {
    @Test
    void topologyAwarePlacementCutsAverageJctByAtLeastTenPercentOnSeedOne() {
        List<SimJob> jobs = TopologyStudyCommand.workload(64, 400, 0.9, 1);
        long vgg = jobs.stream().filter(j -> j.spec().sensitivity().crossRack() <= 0.56).count();
        assertThat(vgg).isEqualTo((400 + 2) / 3); // every third job is vgg-like
        SimulationInput in = new SimulationInput("topology", Defaults.cluster(), Defaults.queuesFor(Defaults.cluster(), List.of("default/default")),
                jobs, List.of());
        SimulationResult aware = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withPlacement(PlacementStrategy.TOPOLOGY_AWARE));
        SimulationResult firstFit = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withPlacement(PlacementStrategy.FIRST_FIT));
        assertThat(aware.metrics().completed()).isEqualTo(400);
        assertThat(firstFit.metrics().completed()).isEqualTo(400);
        assertThat(aware.metrics().avgJctSeconds()).isLessThan(0.9 * firstFit.metrics().avgJctSeconds());
        assertThat(aware.infra().bestLocalityShare()).isGreaterThan(firstFit.infra().bestLocalityShare());
        assertThat(aware.infra().multiGpuPlacements()).isPositive();
    }
}
