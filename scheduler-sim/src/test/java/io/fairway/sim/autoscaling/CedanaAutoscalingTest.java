package io.fairway.sim.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.sim.ActuationRecord;
import io.fairway.sim.EventRecord;
import io.fairway.sim.InfraMetrics;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** examples/scenarios/cedana-autoscaling.yaml: quota admission decides which jobs get nodes; idle nodes go away. */
class CedanaAutoscalingTest {
    private static SimulationResult run() {
        Scenario s = ScenarioConfig.load(Path.of("../examples/scenarios/cedana-autoscaling.yaml"));
        assertThat(s.input().cluster().nodes()).as("the cluster starts empty").isEmpty();
        return Simulator.run(s.input(), s.policies().get(0), SimulationOptions.DEFAULTS.withRecordEvents(true));
    }

    @Test
    void admittedJobsGetExactlyTheNodesTheyNeedAfterTheProvisioningDelay() {
        SimulationResult r = run();
        List<ActuationRecord> provisions = r.actuations().stream().filter(a -> a.kind().equals("Provision")).toList();
        assertThat(provisions).hasSize(2).allSatisfy(a -> {
            assertThat(a.timeMillis()).isZero();
            assertThat(a.detail()).startsWith("1 x c.8xlarge in default");
        });
        assertThat(provisions).anySatisfy(a -> assertThat(a.detail()).contains("job-1"));
        assertThat(provisions).anySatisfy(a -> assertThat(a.detail()).contains("job-2"));
        assertThat(r.events()).filteredOn(e -> e.type().equals("PENDING") && "job-1".equals(e.job())).first()
                .extracting(EventRecord::reason).asString().startsWith("WAITING_FOR_NODES:");
        // the nodes join after the 60 s delay and the two jobs start on them then
        assertThat(r.job("job-1").firstStartSeconds()).isEqualTo(60);
        assertThat(r.job("job-2").firstStartSeconds()).isEqualTo(60);
        assertThat(r.infra().provisionedNodes()).isEqualTo(2);
        assertThat(r.infra().peakNodes()).isEqualTo(2);
        // two jobs waited 60 s each for their nodes
        assertThat(r.infra().nodeWaitJobHours()).isCloseTo(120 / 3600.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.infra().jobsWaitedForNodes()).isEqualTo(2);
    }

    @Test
    void theQuotaBlockedJobProvisionsNothingAndTakesAFreedNode() {
        SimulationResult r = run();
        assertThat(r.events()).filteredOn(e -> "job-3".equals(e.job()) && e.type().equals("PENDING")).first()
                .extracting(EventRecord::reason).asString().startsWith("QUOTA:");
        assertThat(r.actuations()).filteredOn(a -> a.kind().equals("Provision")).noneMatch(a -> a.detail().contains("job-3"));
        // job-1 finishes at 660 s; job-3 is admitted then onto job-1's node
        assertThat(r.job("job-3").firstStartSeconds()).isEqualTo(660);
        assertThat(r.actuations()).filteredOn(a -> "job-3".equals(a.jobId()) && a.kind().equals("Admit")).singleElement()
                .satisfies(a -> assertThat(a.detail()).contains("default-0"));
        assertThat(r.metrics().completed()).isEqualTo(3);
    }

    @Test
    void idleNodesGoAwayAfterTheConsolidationDelayAndCostWhatTheyRan() {
        SimulationResult r = run();
        // the last job ends at 960 s; 300 s later both nodes are removed
        assertThat(r.actuations()).filteredOn(a -> a.kind().equals("NodeGone")).hasSize(2)
                .allSatisfy(a -> assertThat(a.timeMillis()).isEqualTo(1_260_000L));
        List<InfraMetrics.NodeCount> nodes = r.infra().nodes();
        assertThat(nodes.get(nodes.size() - 1).nodes()).isZero();
        assertThat(nodes).anySatisfy(c -> {
            assertThat(c.timeMillis()).isEqualTo(60_000L);
            assertThat(c.poolNodes()).isEqualTo(2);
        });
        // two c.8xlarge at $1.36/h, billed from the request (0 s) to removal (1260 s)
        assertThat(r.infra().poolNodeHours()).isCloseTo(2 * 1260 / 3600.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.infra().costDollars()).isCloseTo(2 * 1260 / 3600.0 * 1.36, org.assertj.core.data.Offset.offset(1e-9));
    }
}
