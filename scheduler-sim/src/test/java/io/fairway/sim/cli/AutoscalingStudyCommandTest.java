package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fairway autoscaling-study} on a reduced sample. */
class AutoscalingStudyCommandTest {
    @TempDir
    Path dir;

    @Test
    void studyRunsEveryPoolWithAndWithoutCheckpointsAndPlotsTheFourMeasures() {
        Path plot = dir.resolve("autoscaling.png");
        FairwayCommandTest.Run r = FairwayCommandTest.run("autoscaling-study", "--jobs", "60", "--no-progress", "--consolidation",
                "WHEN_UNDERUTILIZED", "--plot", plot.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("consolidation WHEN_UNDERUTILIZED", "cost", "avg JCT", "lost GPU-h", "node wait");
        for (String pools : List.of("on-demand", "on-demand + checkpoints", "spot", "spot + checkpoints", "mixed", "mixed + checkpoints")) {
            // every job of the reduced sample completes on every pool: nothing stalls once nodes come and go
            assertThat(r.out()).containsPattern("(?m)^" + Pattern.quote(pools) + " +\\$\\d+ +\\S+ \\S+ +60 ");
        }
        assertThat(plot).isNotEmptyFile();
    }

    @Test
    void unknownConsolidationPolicyIsAUsageErrorNamingTheValue() {
        FairwayCommandTest.Run r = FairwayCommandTest.run("autoscaling-study", "--consolidation", "SOMETIMES", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--consolidation", "SOMETIMES");
    }
}
