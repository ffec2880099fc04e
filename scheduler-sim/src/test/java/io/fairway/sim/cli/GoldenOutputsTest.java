package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden outputs: the decisions of the whole product, recorded once and compared on every build, so that a change
 * meant to keep behaviour (a refactoring, a performance change) proves it did. Each output is what a user sees from
 * the command line: the event log of every scenario in {@code examples/scenarios}, the demo's metrics and event log,
 * a {@code themis-repro} run on a generated workload and the multi-cluster example. Timing fields
 * ({@code schedulerMillisPerRound}) are left out; outputs larger than 64 KiB are kept as a SHA-256 digest and a line
 * count, smaller ones whole (a difference then names its first differing line).
 *
 * <p>A change that is meant to alter decisions re-records them, and its commit explains the difference:
 * {@code mvn -pl scheduler-sim test -Dtest=GoldenOutputsTest -Dfairway.golden.update=true}, then {@code git diff}
 * on {@code scheduler-sim/src/test/resources/golden}.
 */
class GoldenOutputsTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");
    private static final boolean UPDATE = Boolean.getBoolean("fairway.golden.update");
    private static final int WHOLE_UP_TO = 64 * 1024;
    private static final String DEMO_POLICIES =
            "best-effort-fifo,fair-share-over-time,fair-sharing,isolated-share,priority,srtf,strict-fifo,themis,tiresias-las";

    @TempDir
    Path dir;

    static Stream<String> scenarios() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("../examples/scenarios"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).map(n -> n.substring(0, n.length() - 5))
                    .sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void everyScenarioMakesTheRecordedDecisions(String scenario) throws IOException {
        Path yaml = Path.of("../examples/scenarios", scenario + ".yaml");
        Path events = dir.resolve("events.jsonl");
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--scenario", yaml.toString(), "--events", events.toString(), "--no-progress");
        if (r.exit() == 2 && r.err().contains("not available for a multi-cluster run")) {
            // a multi-cluster scenario has no event log: its tables are its output (they carry no timings)
            r = FairwayCommandTest.run("simulate", "--scenario", yaml.toString(), "--no-progress");
            assertThat(r.exit()).as(r.err()).isZero();
            check("scenario-" + scenario + ".txt", r.out());
            return;
        }
        assertThat(r.exit()).as(r.err()).isZero();
        check("scenario-" + scenario + ".events.jsonl", Files.readString(events));
    }

    @Test
    void theMultiClusterExampleMakesTheRecordedDecisions() {
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--cluster", "../examples/multi-cluster/clusters.yaml",
                "--queues", "../examples/multi-cluster/queues.yaml", "--trace", "../examples/multi-cluster/jobs.csv",
                "--policy", "fair-share-over-time", "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        check("multi-cluster-example.txt", r.out());
    }

    @Test
    void theDemoMakesTheRecordedDecisions() throws IOException {
        Path json = dir.resolve("demo.json");
        Path events = dir.resolve("demo-events.jsonl");
        // the policies of a plain `./fairway demo` (this module's tests install one more, a test policy)
        FairwayCommandTest.Run r = FairwayCommandTest.run("demo", "--policy", DEMO_POLICIES, "--json", json.toString(), "--events", events.toString(),
                "--out", dir.resolve("out").toString(), "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        check("demo.json", withoutTimings(Files.readString(json)));
        check("demo-events.sha256", digestsByPolicy(events));
    }

    @Test
    void themisReproMakesTheRecordedDecisions() throws IOException {
        Path json = dir.resolve("repro.json");
        FairwayCommandTest.Run r = FairwayCommandTest.run("themis-repro", "--workload", "themis", "--apps", "30", "--json", json.toString(),
                "--out", dir.resolve("out").toString(), "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        check("themis-repro-themis-30-apps.json", withoutTimings(Files.readString(json)));
    }

    /** Drops the lines of timing fields (pretty-printed JSON: one field per line). */
    private static String withoutTimings(String json) {
        StringBuilder sb = new StringBuilder();
        for (String line : json.split("\n", -1)) {
            if (!line.contains("\"schedulerMillisPerRound\"")) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString();
    }

    /** One line per policy of an event log: its events' digest and count (the demo's log is over 100 MB). */
    private static String digestsByPolicy(Path events) throws IOException {
        Map<String, MessageDigest> digests = new TreeMap<>();
        Map<String, Long> counts = new TreeMap<>();
        try (BufferedReader in = Files.newBufferedReader(events, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int at = line.indexOf("\"policy\":\"");
                String policy = at < 0 ? "" : line.substring(at + 10, line.indexOf('"', at + 10));
                digests.computeIfAbsent(policy, p -> sha256()).update((line + "\n").getBytes(StandardCharsets.UTF_8));
                counts.merge(policy, 1L, Long::sum);
            }
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, MessageDigest> e : digests.entrySet()) {
            sb.append(String.format(Locale.ROOT, "%s %s %d%n", e.getKey(), HexFormat.of().formatHex(e.getValue().digest()), counts.get(e.getKey())));
        }
        return sb.toString();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void check(String name, String actual) {
        String recorded = actual;
        String file = name;
        if (actual.length() > WHOLE_UP_TO) {
            file = name + ".sha256";
            recorded = String.format(Locale.ROOT, "%s %d%n", HexFormat.of().formatHex(sha256().digest(actual.getBytes(StandardCharsets.UTF_8))),
                    actual.split("\n", -1).length - 1);
        }
        Path golden = GOLDEN.resolve(file);
        try {
            if (UPDATE) {
                Files.createDirectories(GOLDEN);
                Files.writeString(golden, recorded);
                return;
            }
            assertThat(golden).as("golden output %s (record it with -Dfairway.golden.update=true)", golden).exists();
            String expected = Files.readString(golden);
            if (!expected.equals(recorded)) {
                List<String> e = expected.lines().toList();
                List<String> a = recorded.lines().toList();
                int i = 0;
                while (i < Math.min(e.size(), a.size()) && e.get(i).equals(a.get(i))) {
                    i++;
                }
                throw new AssertionError(String.format(Locale.ROOT, "%s differs from its golden output %s at line %d (%d lines recorded, %d now):%n"
                                + "  recorded: %s%n  now:      %s%nIf the change of decisions is intended, re-record with -Dfairway.golden.update=true and explain it in the commit.",
                        name, golden, i + 1, e.size(), a.size(), i < e.size() ? e.get(i) : "(end)", i < a.size() ? a.get(i) : "(end)"));
            }
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
