package io.fairway.sim.multicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.job.JobState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Five clusters behind an ExecutorHub, c2 lost after 2 h, c5 joining after 4 h, three queues with priority factors
 * 1, 2 and 4 under fair-share-over-time: no job is lost or run twice, and the GPU shares converge to the factors.
 */
class MultiClusterSimulationTest {
    private static MultiClusterSimulation.Result result;

    @BeforeAll
    static void run() {
        result = MultiClusterSimulation.run(MultiClusterSimulation.Config.example());
    }

    @Test
    void everyJobCompletesExactlyOnceAndNeverRunsTwiceAtOnce() {
        assertThat(result.finalStates()).hasSize(3 * 350);
        assertThat(result.finalStates().values()).containsOnly(JobState.SUCCEEDED);
        assertThat(result.completions()).hasSize(3 * 350);
        assertThat(result.completions().values()).containsOnly(1);
        assertThat(result.maxConcurrentRuns()).isEqualTo(1);
    }

    @Test
    void gangsLandWholeInOneCluster() {
        assertThat(result.gangRuns()).isGreaterThanOrEqualTo(3 * 35);
        assertThat(result.admissionsOutsideTheirCluster()).isZero();
    }

    @Test
    void theLostClusterIsDeclaredLostAndItsJobsRestartElsewhere() {
        assertThat(result.lostClusters()).containsExactly("c2");
        assertThat(result.jobsRestartedAfterLoss()).isPositive();
        assertThat(result.runs().values().stream().filter(n -> n > 1).count()).isEqualTo(result.jobsRestartedAfterLoss());
    }

    @Test
    void gpuSharesConvergeToThePriorityFactors() {
        for (String q : List.of("alpha", "beta", "gamma")) {
            List<Double> share = result.shares().get(q);
            double sum = 0;
            int n = 0;
            for (int i = 0; i < share.size(); i++) {
                double h = result.sampleHours().get(i);
                if (h >= 1 && h <= 6) {
                    sum += share.get(i);
                    n++;
                }
            }
            assertThat(sum / n).as("mean share of %s between 1 h and 6 h", q).isCloseTo(result.targets().get(q), within(0.05));
        }
    }

    @Test
    void theChartIsWritten() throws Exception {
        Path out = Path.of("target/multi-cluster-share.png");
        MultiClusterChart.write(result, out);
        assertThat(Files.size(out)).isGreaterThan(10_000);
        Files.writeString(Path.of("target/multi-cluster-figures.txt"), String.format("jobs %d, lost %s, restarted after the loss %d, "
                + "gang runs %d, runs %d, completions %d, max concurrent runs %d, last job finished at %.1f h%n", result.finalStates().size(), result.lostClusters(),
                result.jobsRestartedAfterLoss(), result.gangRuns(), result.runs().values().stream().mapToInt(Integer::intValue).sum(),
                result.completions().values().stream().mapToInt(Integer::intValue).sum(), result.maxConcurrentRuns(), result.endHours()));
    }
}
