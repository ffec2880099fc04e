package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.job.JobSpec;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's closing line names the policy with the lowest max ρ, and the runner-up. */
class DemoFairestTest {
    private static SimJob job(String id, double at, double seconds, int gpus) {
        return new SimJob(JobSpec.builder(id).queue("lq").submitTimeMillis(Math.round(at * 1000))
                .members(1, Resources.builder().gpus(gpus).build()).estimatedSeconds(seconds).build(), seconds);
    }

    @Test
    void theLineNamesTheLowestMaxRhoFirst() {
        ClusterModel cluster = new ClusterModel(List.of(ClusterSpec.withRacks("default")),
                List.of(Node.builder("n").capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(GpuTopology.nvSwitch8("H100")).build()));
        QueueModel queues = new QueueModel(List.of(ResourceFlavor.of("default")), List.of(),
                List.of(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).build()).build()),
                List.of(new LocalQueue("default", "lq", "cq")));
        SimulationInput in = new SimulationInput("t", cluster, queues, List.of(job("long", 0, 10_000, 8), job("short", 1_000, 60, 1)), List.of());
        SimulationResult fifo = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS);
        SimulationResult themis = Simulator.run(in, "themis", SimulationOptions.DEFAULTS);

        String line = DemoCommand.fairest(List.of(fifo, themis));

        assertThat(themis.metrics().maxRho()).isLessThan(fifo.metrics().maxRho());
        assertThat(line).startsWith("Fairest by max ρ").contains(": themis (").contains("; next best-effort-fifo (");
        assertThat(DemoCommand.fairest(List.of(fifo, Runs.renamed(fifo, "copy")))).contains(": best-effort-fifo, copy (").contains("tied");
    }
}
