package io.fairway.sim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.InvalidSpecException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SweepSummaryTest {
    private static SweepRow row(String workload, String policy, boolean contended, double maxRho, double avgJct, int completed) {
        return new SweepRow(workload, "philly", 21, 3, 3, false, 64, 10, policy, contended, completed, maxRho, 1, avgJct, avgJct * 2,
                avgJct * 10, 0, 0.7, 0.8, 0, 1.5, 1.2);
    }

    /** Three contended workloads and one that is not; values chosen so every statistic can be checked by hand. */
    private static List<SweepRow> rows() {
        List<SweepRow> r = new ArrayList<>();
        // w1: themis 2 vs LAS 4, FIFO 10 → ratios 0.5 (LAS), 0.2 (FIFO); lowest baseline LAS (4): 0.5. JCT 110 vs best 100 (FIFO): 1.1
        r.add(row("w1", "themis", true, 2, 110, 10));
        r.add(row("w1", "tiresias-las", true, 4, 120, 10));
        r.add(row("w1", "best-effort-fifo", true, 10, 100, 10));
        // w2: themis 3 vs LAS 2, FIFO 6 → 1.5, 0.5; lowest LAS: 1.5. JCT 100 vs best 80 (LAS): 1.25
        r.add(row("w2", "themis", true, 3, 100, 10));
        r.add(row("w2", "tiresias-las", true, 2, 80, 10));
        r.add(row("w2", "best-effort-fifo", true, 6, 90, 10));
        // w3: themis 1 vs LAS 1, FIFO 5 but FIFO left a job unfinished (∞) → 1.0, 0; lowest LAS: 1.0. JCT 50 vs 50: 1.0
        r.add(row("w3", "themis", true, 1, 50, 10));
        r.add(row("w3", "tiresias-las", true, 1, 50, 10));
        r.add(row("w3", "best-effort-fifo", true, 5, 40, 9));
        // not contended: ignored by every statistic, even though themis is 100× worse there
        r.add(row("w4", "themis", false, 100, 1000, 10));
        r.add(row("w4", "tiresias-las", false, 1, 10, 10));
        r.add(row("w4", "best-effort-fifo", false, 1, 10, 10));
        return r;
    }

    @Test
    void ratiosMediansWorstAndCountsAreOverContendedWorkloads() {
        SweepSummary s = SweepSummary.of(rows(), "themis");
        assertThat(s.workloads()).isEqualTo(4);
        assertThat(s.contended()).isEqualTo(3);
        SweepSummary.Baseline las = s.baselines().get(0);
        assertThat(las.policy()).isEqualTo("tiresias-las");
        assertThat(las.runs()).isEqualTo(3);
        assertThat(las.medianMaxRhoRatio()).isEqualTo(1.0); // of 0.5, 1.5, 1.0
        assertThat(las.worstMaxRhoRatio()).isEqualTo(1.5);
        assertThat(las.worstMaxRhoWorkload()).isEqualTo("w2");
        assertThat(las.medianAvgJctRatio()).isCloseTo(1.0, within(1e-12)); // of 110/120, 100/80, 50/50
        SweepSummary.Baseline fifo = s.baselines().get(1);
        assertThat(fifo.medianMaxRhoRatio()).isEqualTo(0.2); // of 0.2, 0.5, 0 (FIFO unfinished: ∞)
        assertThat(fifo.worstMaxRhoRatio()).isEqualTo(0.5);

        SweepSummary.Best best = s.best();
        assertThat(best.runs()).isEqualTo(3);
        assertThat(best.atMostEqual()).isEqualTo(2); // w1 0.5, w3 1.0 (a tie counts)
        assertThat(best.atMost125()).isEqualTo(2); // w2 is 1.5
        assertThat(best.medianMaxRhoRatio()).isEqualTo(1.0);
        assertThat(best.worstMaxRhoRatio()).isEqualTo(1.5);
        assertThat(best.medianAvgJctRatio()).isCloseTo(1.1, within(1e-12)); // of 1.1, 1.25, 1.0
        assertThat(best.worstAvgJctRatio()).isEqualTo(1.25);
        assertThat(best.worstAvgJctWorkload()).isEqualTo("w2");
        assertThat(s.comparisons().get(0).lowestBaseline()).isEqualTo("tiresias-las");
        assertThat(s.comparisons().get(0).bestBaseline()).isEqualTo("best-effort-fifo");
        assertThat(s.comparisons().get(2).bestBaseline()).as("an unfinished run is never the best").isEqualTo("tiresias-las");
    }

    @Test
    void targetsSayMetOrMissedWithTheNumbers() {
        List<SweepSummary.Target> t = SweepSummary.of(rows(), "themis").targets();
        assertThat(t).extracting(SweepSummary.Target::verdict)
                .containsExactly("missed", "missed", "not judged", "met", "missed", "missed", "missed", "not judged");
        assertThat(t.get(0).detail()).isEqualTo("2 of 3 contended runs; worst 1.50× (w2)");
        assertThat(t.get(1).detail()).startsWith("2 of 3 contended runs (67 %)");
        assertThat(t.get(2).detail()).isEqualTo("strict-fifo was not run");
        assertThat(t.get(3).detail()).startsWith("median ratio 0.20 (5.00× below), need ≤ 0.444");
        assertThat(t.get(4).detail()).startsWith("median ratio 1.00 (1.00× below)");
        assertThat(t.get(5).target()).isEqualTo("avg JCT within 5 % of the best baseline's on the median contended run");
        assertThat(t.get(5).detail()).isEqualTo("median ratio 1.10×"); // above 1.05: missed
        assertThat(t.get(6).detail()).isEqualTo("worst ratio 1.25× (w2)");
        assertThat(t.get(7).detail()).isEqualTo("strict-fifo was not run");
    }

    /** The rows with strict FIFO added and every run's longest wait (hours) before a job's first start. */
    private static List<SweepRow> withWaits(double themisWaitOnW2) {
        List<SweepRow> out = new ArrayList<>();
        for (SweepRow r : rows()) {
            out.add(waiting(r, r.policy().equals("themis") && r.workload().equals("w2") ? themisWaitOnW2 : 1));
            if (r.policy().equals("best-effort-fifo")) {
                out.add(waiting(row(r.workload(), "strict-fifo", r.contended(), 50, 500, 10), 4));
            }
        }
        return out;
    }

    private static SweepRow waiting(SweepRow r, double hours) {
        return new SweepRow(r.workload(), r.kind(), r.seed(), r.requestedLoad(), r.load(), r.checkpoints(), r.gpus(), r.jobs(), r.policy(),
                r.contended(), r.completed(), r.maxRho(), r.meanRho(), r.avgJctSeconds(), r.p95JctSeconds(), r.makespanSeconds(), r.gpuHoursLost(),
                r.utilisation(), r.arrivalUtilisation(), r.preemptions(), r.wallSeconds(), r.cpuSeconds(), r.maxRho(), r.avgJctSeconds(),
                hours * 3600);
    }

    @Test
    void noStarvationIsMetWhenNoJobWaitsLongerThanUnderStrictFifoOnEveryContendedRun() {
        SweepSummary.Target met = SweepSummary.of(withWaits(4), "themis").targets().get(7);
        assertThat(met.target()).startsWith("no starvation: on every contended run, no job of themis waits longer");
        assertThat(met.verdict()).isEqualTo("met"); // a tie with strict FIFO's longest wait is not a miss
        assertThat(met.detail()).startsWith("3 of 3 contended runs; worst 1.00× (w2: 4.00 h against 4.00 h)");

        SweepSummary.Target missed = SweepSummary.of(withWaits(6), "themis").targets().get(7);
        assertThat(missed.verdict()).isEqualTo("missed");
        assertThat(missed.detail()).isEqualTo("2 of 3 contended runs; worst 1.50× (w2: 6.00 h against 4.00 h)");
        assertThat(SweepSummary.perApp(withWaits(6), "themis").targets().get(7).verdict()).as("the same waits per app").isEqualTo("missed");
    }

    @Test
    void rowsOfAnOlderSweepWithoutWaitsAreNotJudgedOnStarvation() {
        List<SweepRow> old = new ArrayList<>(rows());
        for (String w : List.of("w1", "w2", "w3", "w4")) {
            old.add(row(w, "strict-fifo", !w.equals("w4"), 50, 500, 10));
        }
        SweepSummary.Target t = SweepSummary.of(old, "themis").targets().get(7);
        assertThat(t.verdict()).isEqualTo("not judged");
        assertThat(t.detail()).isEqualTo("rows without waits (an older sweep)");
    }

    /** The same rows with app-level figures: per app, themis is 0.8 × LAS's max ρ on w2, where per job it is 1.5 ×. */
    private static List<SweepRow> withApps() {
        List<SweepRow> out = new ArrayList<>();
        for (SweepRow r : rows()) {
            double appRho = r.workload().equals("w2") && r.policy().equals("themis") ? 1.6 : r.workload().equals("w2") ? 2 : r.maxRho();
            out.add(new SweepRow(r.workload(), r.kind(), r.seed(), r.requestedLoad(), r.load(), r.checkpoints(), r.gpus(), r.jobs(), r.policy(),
                    r.contended(), r.completed(), r.maxRho(), r.meanRho(), r.avgJctSeconds(), r.p95JctSeconds(), r.makespanSeconds(),
                    r.gpuHoursLost(), r.utilisation(), r.arrivalUtilisation(), r.preemptions(), r.wallSeconds(), r.cpuSeconds(), appRho,
                    r.avgJctSeconds()));
        }
        return out;
    }

    @Test
    void thePerAppSummaryJudgesTheAppLevelFiguresAndIsAbsentWithoutThem() {
        SweepSummary perJob = SweepSummary.of(withApps(), "themis");
        SweepSummary perApp = SweepSummary.perApp(withApps(), "themis");
        assertThat(perJob.best().worstMaxRhoRatio()).isEqualTo(1.5);
        assertThat(perApp.best().worstMaxRhoRatio()).isEqualTo(1.0); // w1 0.5, w2 0.8, w3 1.0
        assertThat(perApp.best().atMostEqual()).isEqualTo(3);
        assertThat(perApp.targets().get(0).verdict()).isEqualTo("met");
        assertThat(perJob.targets().get(0).verdict()).isEqualTo("missed");
        assertThat(SweepSummary.perApp(rows(), "themis")).as("rows of an older sweep have no app-level figures").isNull();
        String text = SweepReport.summary(perJob, perApp);
        assertThat(text).contains("Per job:").contains("Per app (an app finishes with its last job):")
                .contains("[missed | met] on every contended run, themis max ρ ≤ 1.25 × the lowest baseline's: per job 2 of 3 contended runs; "
                        + "worst 1.50× (w2); per app 3 of 3 contended runs; worst 1.00× (w3)");
    }

    @Test
    void anUnfinishedSubjectRunIsInfinitelyWorse() {
        List<SweepRow> r = new ArrayList<>(rows());
        r.set(0, row("w1", "themis", true, 0.1, 10, 9));
        SweepSummary s = SweepSummary.of(r, "themis");
        assertThat(s.best().worstMaxRhoRatio()).isInfinite();
        assertThat(s.best().worstMaxRhoWorkload()).isEqualTo("w1");
        assertThat(s.best().atMost125()).isEqualTo(1);
    }

    @Test
    void aSubjectThatWasNotRunIsRefused() {
        assertThatThrownBy(() -> SweepSummary.of(rows(), "srtf")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("the subject srtf is not among the policies run");
    }
}
