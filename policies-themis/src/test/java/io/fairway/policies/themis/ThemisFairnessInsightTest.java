package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.GpuTopology;
import io.fairway.api.spi.FairnessInsight;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What Themis tells people about its last round (FairnessInsight): each app's and job's rho, worst first, and who bid. */
class ThemisFairnessInsightTest {
    @Test
    void theReportListsAppsWorstRhoFirstWithTheirJobsAndTheBidders() {
        ThemisPolicy themis = (ThemisPolicy) ThemisPolicyTest.themis(Map.of("reserve", "false"));
        assertThat(themis.lastReport()).as("before the first round").isNull();
        MiniSim sim = new MiniSim(themis, 1, 1, GpuTopology.pcie4("V100"), 1);
        // A blocker holds the node; when it finishes, "old" (waited 1000 s) and "new" (just arrived) bid for its GPUs.
        sim.scheduler.submit(MiniSim.job("blocker", "blocker", 4, 1000));
        sim.scheduler.runRound();
        sim.scheduler.reportStarted("blocker");
        sim.now = 1_000_000;
        sim.scheduler.submit(MiniSim.job("old-1", "old", 4, 100_000).withSubmitTime(1));
        sim.scheduler.submit(MiniSim.job("new-1", "new", 4, 60).withSubmitTime(1_000_000));
        sim.scheduler.reportFinished("blocker");
        sim.scheduler.runRound();

        FairnessInsight.Report report = themis.lastReport();
        assertThat(report.policy()).isEqualTo("themis");
        assertThat(report.atMillis()).isEqualTo(1_000_000);
        assertThat(report.apps()).extracting(FairnessInsight.App::name).containsExactlyInAnyOrder("old", "new");
        assertThat(report.apps().get(0).rho()).as("worst first").isGreaterThanOrEqualTo(report.apps().get(1).rho());
        assertThat(report.apps()).allSatisfy(a -> {
            assertThat(a.bidding()).as(a.name() + " bid for the freed GPUs").isTrue();
            assertThat(a.bidMaxGpus()).isEqualTo(4);
            assertThat(a.jobs()).singleElement().satisfies(j -> assertThat(j.gpus()).isEqualTo(4));
        });
        FairnessInsight.App old = report.apps().stream().filter(a -> a.name().equals("old")).findFirst().orElseThrow();
        FairnessInsight.Job oldJob = old.jobs().get(0);
        assertThat(oldJob.holding()).as("as the round began").isFalse();
        assertThat(oldJob.remainingSeconds()).as("none of its 100,000 s done").isEqualTo(100_000.0);
        assertThat(oldJob.rho()).isPositive().isFinite();
    }
}
