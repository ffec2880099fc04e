package io.fairway.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.sim.JobOutcome;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison table reads on its own: best values marked, identical outcomes named, the columns explained. */
class ComparisonTableTest {

    private static SimulationResult result(String policy, double avgJct, double jain, double jobStart) {
        PolicyMetrics m = new PolicyMetrics(policy, 2, 0, 2, avgJct, avgJct, avgJct, avgJct, 50, 100, 3600, 0.5, 1.8, 1.2, jain, 0, 0, 3, 0.25);
        JobOutcome j = new JobOutcome("job-1", "q", 4, 0, 60, jobStart, jobStart + 60, jobStart + 60, jobStart, 1, 60, 1 + jobStart / 60, 0, 0, false);
        return new SimulationResult(policy, m, List.of(j), List.of(), List.of(), 8, List.of(), List.of());
    }

    private static String row(String table, String policy) {
        return table.lines().filter(l -> l.startsWith(policy + " ")).findFirst().orElseThrow();
    }

    @Test
    void theBestValueOfEachColumnIsMarked() {
        String table = ComparisonTable.format(List.of(result("slow", 600, 0.9, 30), result("fast", 300, 0.7, 0)), false);

        assertThat(row(table, "fast")).contains("5.0 min*").contains("0.700 ");
        assertThat(row(table, "slow")).contains("10.0 min ").contains("0.900*");
        // util, max ρ, mean ρ are equal: not marked
        assertThat(row(table, "fast")).contains("50.0% ").doesNotContain("50.0%*").doesNotContain("1.80*");
        assertThat(table).contains("*: best in its column");
    }

    @Test
    void identicalOutcomesAreNamedAndEveryColumnIsExplained() {
        String table = ComparisonTable.format(List.of(result("a", 300, 0.7, 0), result("b", 600, 0.9, 30), result("c", 300, 0.7, 0)), false);

        assertThat(table).contains("identical rows: a = c (every job admitted, run and finished at the same times)");
        assertThat(table).contains("JCT: job completion time").contains("ρ: finish-time fairness, a job's time in the shared cluster ÷ its time alone")
                .contains("Jain: Jain's fairness index");
    }

    @Test
    void oneRowHasNothingToMarkOrCompare() {
        String table = ComparisonTable.format(List.of(result("only", 300, 0.7, 0)), false);

        assertThat(table).doesNotContain("*").doesNotContain("identical rows").contains("ρ: finish-time fairness");
    }

    @Test
    void theHtmlReportPutsTheBestValuesInBold(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path index = HtmlReport.write(dir, "two runs", List.of(result("slow", 600, 0.9, 30), result("fast", 300, 0.7, 0)));

        String html = java.nio.file.Files.readString(index);
        assertThat(html).contains("<td class=\"best\">5.0 min</td>", "<td class=\"best\">0.900</td>", "<td>10.0 min</td>", "<td>0.700</td>")
                .doesNotContain("<td class=\"best\">50.0%</td>");
    }

    @Test
    void chartsDrawOneSeriesPerGroupOfIdenticalOutcomes() {
        List<List<SimulationResult>> groups = HtmlReport.sameOutcomes(List.of(result("a", 300, 0.7, 0), result("b", 600, 0.9, 30),
                result("c", 300, 0.7, 0)));

        assertThat(groups).extracting(g -> g.stream().map(SimulationResult::policy).toList())
                .containsExactly(List.of("a", "c"), List.of("b"));
    }
}
