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

/** The demo says why policies that ran every job alike did: what the workload lacks, or that nothing waited. */
class DemoWhyIdenticalTest {
    private static final ClusterModel CLUSTER = new ClusterModel(List.of(ClusterSpec.withRacks("default")),
            List.of(Node.builder("n").capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(GpuTopology.nvSwitch8("H100")).build()));
    private static final QueueModel QUEUES = new QueueModel(List.of(ResourceFlavor.of("default")), List.of(),
            List.of(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).build()).build()),
            List.of(new LocalQueue("default", "lq", "cq")));

    private static SimJob job(String id, double at, double seconds, int gpus) {
        return new SimJob(JobSpec.builder(id).queue("lq").submitTimeMillis(Math.round(at * 1000))
                .members(1, Resources.builder().gpus(gpus).build()).estimatedSeconds(seconds).build(), seconds);
    }

    private static List<SimulationResult> run(List<SimJob> jobs, String... policies) {
        SimulationInput in = new SimulationInput("t", CLUSTER, QUEUES, jobs, List.of());
        return java.util.Arrays.stream(policies).map(p -> Simulator.run(in, p, SimulationOptions.DEFAULTS)).toList();
    }

    @Test
    void withoutPrioritiesOrJobSetsPriorityAndIsolatedShareRunLikeFifoAndTheDemoSaysWhy() {
        List<SimJob> jobs = List.of(job("a", 0, 600, 8), job("b", 1, 300, 6), job("c", 2, 300, 4), job("d", 3, 60, 2));
        List<SimulationResult> results = run(jobs, "best-effort-fifo", "priority", "isolated-share");
        assertThat(results.get(1).jobs()).isEqualTo(results.get(0).jobs());
        assertThat(results.get(2).jobs()).isEqualTo(results.get(0).jobs());

        List<String> why = DemoCommand.whyIdentical(results, jobs);

        assertThat(why).hasSize(2);
        assertThat(why.get(0)).startsWith("why priority = best-effort-fifo:").contains("every job of this trace has priority 0");
        assertThat(why.get(1)).startsWith("why isolated-share = best-effort-fifo:").contains("every job is an app of its own");
    }

    @Test
    void whenNoTwoJobsWaitAtOnceTheDemoSaysThatThereWasNoOrderToChoose() {
        List<SimJob> jobs = List.of(job("a", 0, 60, 2), job("b", 100, 60, 2));
        List<SimulationResult> results = run(jobs, "best-effort-fifo", "strict-fifo");

        assertThat(DemoCommand.whyIdentical(results, jobs)).singleElement().asString()
                .startsWith("why identical: under best-effort-fifo never more than one job was waiting").contains("--jobs");
    }

    @Test
    void policiesThatDifferGetNoExplanation() {
        List<SimJob> jobs = List.of(job("long", 0, 10_000, 8), job("short", 1_000, 60, 1));
        List<SimulationResult> results = run(jobs, "best-effort-fifo", "themis");
        assertThat(results.get(1).jobs()).isNotEqualTo(results.get(0).jobs());

        assertThat(DemoCommand.whyIdentical(results, jobs)).isEmpty();
    }
}
