package io.fairway.sim.multicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.job.JobState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A queue that arrives late, three hours into a run of jobs that last 8 to 16 hours, over five clusters (one lost
 * after 2 h, one joining after 4 h), under fair share over time. With preemption to fair share its GPU share reaches
 * what its priority factor entitles it to within the hour; without, it waits for the long jobs to end.
 */
class LateQueueSimulationTest {

    @Test
    void theLateQueuesShareConvergesWithPreemptionToFairShare() throws Exception {
        MultiClusterSimulation.Result with = MultiClusterSimulation.run(MultiClusterSimulation.Config.lateQueue(true));
        MultiClusterSimulation.Result without = MultiClusterSimulation.run(MultiClusterSimulation.Config.lateQueue(false));
        Files.createDirectories(Path.of("target"));
        StringBuilder figures = new StringBuilder();
        for (String q : List.of("alpha", "beta", "gamma")) {
            double w = mean(with, q, 4, 8);
            double wo = mean(without, q, 4, 8);
            figures.append(String.format(Locale.ROOT, "%s: target %.2f, mean share 4-8 h with preemption %.3f, without %.3f%n", q,
                    with.targets().get(q), w, wo));
            Files.writeString(Path.of("target/late-queue-figures.txt"), figures.toString());
            assertThat(w).as("mean share of %s between 4 h and 8 h, with preemption to fair share", q)
                    .isCloseTo(with.targets().get(q), within(0.05));
        }
        // without, it gets only what frees up: the joining cluster's GPUs, not the long jobs' of the others
        assertThat(mean(without, "gamma", 4, 8)).as("without preemption the late queue waits for the long jobs")
                .isLessThan(with.targets().get("gamma") - 0.1);
        assertThat(with.finalStates().values()).doesNotContain(JobState.FAILED);
        assertThat(with.maxConcurrentRuns()).isEqualTo(1);
        MultiClusterChart.write(with, Path.of("target/late-queue-share.png"));
    }

    private static double mean(MultiClusterSimulation.Result r, String q, double fromHours, double toHours) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < r.sampleHours().size(); i++) {
            double h = r.sampleHours().get(i);
            if (h >= fromHours && h <= toHours) {
                sum += r.shares().get(q).get(i);
                n++;
            }
        }
        return sum / n;
    }
}
