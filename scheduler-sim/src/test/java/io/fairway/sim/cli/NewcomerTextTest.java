package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What a newcomer reads first says what is true: the README, the docs and the help. */
class NewcomerTextTest {
    private static final Path ROOT = Path.of("..");
    /** A machine's checkout path, the shared test data beside it, or an issue number. */
    private static final Pattern NOT_PRODUCT_TEXT = Pattern.compile("/work/|\\.\\./shared|[Ii]ssue #?[0-9]+");
    /** Pages another branch is rewriting at the moment; they join this check when it lands. */
    private static final List<String> REWRITTEN_ELSEWHERE = List.of("docs/performance.md", "docs/policies/themis.md");

    @Test
    void readmeAndDocsNameNoMachinePathAndNoIssueNumber() throws IOException {
        List<Path> pages;
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            pages = Stream.concat(Stream.of(ROOT.resolve("README.md")), docs.filter(p -> p.toString().endsWith(".md")))
                    .filter(p -> REWRITTEN_ELSEWHERE.stream().noneMatch(w -> ROOT.relativize(p).toString().equals(w)))
                    .toList();
        }
        assertThat(pages).hasSizeGreaterThan(10);
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                assertThat(NOT_PRODUCT_TEXT.matcher(lines.get(i)).find())
                        .as("%s:%d names a machine path or an issue: %s", ROOT.relativize(page), i + 1, lines.get(i)).isFalse();
            }
        }
    }

    @Test
    void readmeAndHelpListCtlAndTheReadmeSaysWhatTheKubernetesAdapterWasTestedAgainst() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        assertThat(readme).contains("`ctl`").contains("the tests' API server").contains("not a real cluster");
        assertThat(FairwayCommandTest.run("--help").out()).containsPattern("(?m)^  ctl ");
    }

    @Test
    void simulateHelpStatesTheQueuesDefaultThatIsUsed() {
        String help = FairwayCommandTest.run("simulate", "--help").out().replaceAll("\\s+", " ");
        // without --cluster the bundled queues are used (Defaults.queues()), not one ClusterQueue with the capacity
        assertThat(help).contains("with no --cluster, the bundled queues").contains("with --cluster, one ClusterQueue");
    }

    @Test
    void theSimulationConceptSaysNodePoolsAreSimulated() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/concepts/simulation.md"), StandardCharsets.UTF_8);
        assertThat(page).doesNotContain("not simulated").contains("nodePools");
    }
}
