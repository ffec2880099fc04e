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
    /**
     * A machine's checkout path, the shared test data beside it, or an issue number ("issue #7", "(#15)", "#19's",
     * "before #18"); a colour such as {@code #222} or an HTML entity such as {@code &#8217;} is not one.
     */
    static final Pattern NOT_PRODUCT_TEXT =
            Pattern.compile("/work/|\\.\\./shared|[Ii]ssue #?[0-9]+|(?<![\\w&\"'])#[0-9]+\\b(?![0-9a-fA-F;}\"'])");
    /** The kinds of file under src/main that hold help, Javadoc, messages or pages a user reads. */
    private static final List<String> SOURCE_TEXT = List.of(".java", ".properties", ".html", ".js", ".yaml");

    @Test
    void readmeAndDocsNameNoMachinePathAndNoIssueNumber() throws IOException {
        List<Path> pages;
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            pages = Stream.concat(Stream.of(ROOT.resolve("README.md")), docs.filter(p -> p.toString().endsWith(".md"))).toList();
        }
        assertThat(pages).hasSizeGreaterThan(10);
        assertNoIssueOrMachinePath(pages);
    }

    @Test
    void helpJavadocAndMessagesOfEveryModuleNameNoMachinePathAndNoIssueNumber() throws IOException {
        List<Path> sources;
        try (Stream<Path> all = Files.walk(ROOT)) {
            sources = all.filter(Files::isRegularFile)
                    .map(p -> ROOT.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> p.matches("([^/]+/)+src/main/.*") && !p.contains("/target/"))
                    .map(ROOT::resolve)
                    .filter(p -> SOURCE_TEXT.stream().anyMatch(e -> p.toString().endsWith(e)))
                    .toList();
        }
        // every module's sources, including the benchmarks' Javadoc and the simulator's help
        assertThat(sources).anyMatch(p -> p.endsWith("SweepCommand.java")).anyMatch(p -> p.endsWith("GrowthCurves.java"))
                .anyMatch(p -> p.toString().contains("scheduler-core")).hasSizeGreaterThan(100);
        assertNoIssueOrMachinePath(sources);
    }

    private static void assertNoIssueOrMachinePath(List<Path> files) throws IOException {
        for (Path page : files) {
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
