package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.core.Policies;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FairwayCommandTest {
    @TempDir
    Path dir;

    /** Output of one in-process run. */
    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        CommandLine cl = FairwayCommand.newCommandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void policiesListsEveryInstalledPolicyWithItsDescription() {
        Run r = run("policies");
        assertThat(r.exit()).isZero();
        for (var p : Policies.available().values()) {
            assertThat(r.out()).contains(p.name()).contains(p.description());
        }
    }

    @Test
    void demoOnAReducedSampleRunsEveryPolicyAndWritesTheReport() throws IOException {
        Path out = dir.resolve("demo");
        // every installed policy but the test-only ones, which are meant for tiny inputs
        List<String> policies = Policies.available().keySet().stream().filter(p -> !p.startsWith("test-")).toList();
        Run r = run("demo", "--jobs", "120", "--no-progress", "--out", out.toString(), "--policy", String.join(",", policies));
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("policy", "avg JCT", "p95 JCT", "makespan", "util", "max ρ", "mean ρ", "Jain", "preempt", "ms/round");
        for (String p : policies) {
            assertThat(r.out()).containsPattern("(?m)^" + p + " +120 +120 ");
        }
        assertThat(r.out()).containsPattern("(?m)^Fairest by max ρ \\(.*\\): [a-z-]+(, [a-z-]+)* \\([0-9.]+(, tied)?\\)(; next [a-z-]+ \\([0-9.]+, [0-9.]+× higher\\))?\\.$");
        assertThat(r.out()).contains("report:  " + out.resolve("index.html"));
        // the sample has no priorities and no job sets: the demo says that this is why these rows are identical
        assertThat(r.out()).containsPattern("(?m)^identical rows: .*isolated-share = priority")
                .containsPattern("(?m)^why priority = best-effort-fifo: .*every job of this trace has priority 0")
                .containsPattern("(?m)^why isolated-share = best-effort-fifo: .*every job is an app of its own");
        for (String f : List.of("index.html", "jct-cdf.png", "rho.png", "utilization.png", "queue-length.png", "metrics.json")) {
            assertThat(out.resolve(f)).isNotEmptyFile();
        }
        assertThat(Files.readString(out.resolve("index.html"))).contains("<img src=\"jct-cdf.png\"", "ρ", "Jeon et al.");
    }

    @Test
    void aCtlErrorNamesTheWholeCommand() throws IOException {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Run r = run("ctl", "--server", "http://127.0.0.1:" + port, "why", "train-1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("fairway ctl why: cannot reach the visibility API").doesNotContain("\tat ");
    }

    @Test
    void unknownPolicyFailsWithTheKnownOnesAndExitCode2() {
        Run r = run("simulate", "--policy", "strict-fifo,lottery", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown policy \"lottery\"; known policies: ").contains("best-effort-fifo").doesNotContain("\tat ");
        assertThat(r.out()).doesNotContain("policy ");
    }

    @Test
    void simulateScenarioWritesJsonAndEvents() throws IOException {
        Path json = dir.resolve("m.json");
        Path events = dir.resolve("e.jsonl");
        Run r = run("simulate", "--scenario", "../examples/scenarios/cedana-quota.yaml", "--json", json.toString(), "--events",
                events.toString(), "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Scenario cedana-quota", "job-3", "started 10.0 min");
        JsonNode m = new ObjectMapper().readTree(json.toFile());
        assertThat(m).hasSize(2);
        for (String key : List.of("policy", "jobs", "completed", "avgJctSeconds", "p95JctSeconds", "makespanSeconds", "gpuUtilization",
                "maxRho", "meanRho", "jainIndex", "preemptions", "schedulerMillisPerRound")) {
            assertThat(m.get(0).has(key)).as(key).isTrue();
        }
        List<String> lines = Files.readAllLines(events);
        assertThat(lines).isNotEmpty();
        JsonNode pending = lines.stream().map(FairwayCommandTest::json).filter(n -> n.get("type").asText().equals("PENDING")).findFirst()
                .orElseThrow();
        assertThat(pending.get("job").asText()).isEqualTo("job-3");
        assertThat(pending.get("reason").asText()).startsWith("QUOTA");
        assertThat(pending.has("time")).isTrue();
        assertThat(pending.has("policy")).isTrue();
    }

    @Test
    void simulateATraceOnAClusterFileWithDerivedQueues() throws IOException {
        Path cluster = dir.resolve("c.yaml");
        Files.writeString(cluster, "clusters: [{name: c, nodeGroups: [{namePrefix: n, count: 2, gpuShape: nvswitch-8, cpu: \"32\"}]}]\n");
        Path trace = dir.resolve("t.csv");
        Files.writeString(trace, "id,submit_seconds,duration_seconds,gpus,queue\na,0,100,8,x\nb,0,100,16,y\nc,10,50,32,y\n");
        Path report = dir.resolve("r");
        Run r = run("simulate", "--cluster", cluster.toString(), "--trace", trace.toString(), "--policy", "strict-fifo",
                "--report", report.toString(), "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("(?m)^strict-fifo +2 +2 ").contains("1 job(s) skipped");
        assertThat(report.resolve("index.html")).isNotEmptyFile();
    }

    @Test
    void malformedInputIsACleanErrorWithFileAndLine() throws IOException {
        Path queues = dir.resolve("q.yaml");
        Files.writeString(queues, "clusterQueues:\n  - name: cq\n    queueingStrategy: [\n");
        Run r = run("simulate", "--queues", queues.toString(), "--policy", "strict-fifo", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("fairway simulate: " + queues + ":").doesNotContain("\tat ");
        Path trace = dir.resolve("bad.csv");
        Files.writeString(trace, "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,x,1,1,a\n");
        Run t = run("simulate", "--trace", trace.toString(), "--no-progress");
        assertThat(t.exit()).isEqualTo(2);
        assertThat(t.err()).contains(trace + ":2: duration \"x\" is not a number");
        Run combo = run("simulate", "--scenario", "x.yaml", "--trace", "y.csv");
        assertThat(combo.exit()).isEqualTo(2);
        assertThat(combo.err()).contains("do not combine it");
    }

    @Test
    void badOptionIsAUsageError() {
        Run r = run("simulate", "--no-such-option");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Unknown option");
    }

    private static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void simulateWithAMultiClusterFileRunsTheMultiClusterEngine() {
        Run r = run("simulate", "--cluster", "../examples/multi-cluster/clusters.yaml", "--queues", "../examples/multi-cluster/queues.yaml",
                "--trace", "../examples/multi-cluster/jobs.csv", "--policy", "fair-share-over-time", "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Cluster c2 is lost at 2.00 h").contains("c5 (joins at 4.00 h)")
                .containsPattern("(?m)^  c2 +2 +16 +- +2\\.00 h +2\\.08 h")
                .containsPattern("(?m)^  alpha +1\\.00 +150 +150 ")
                .contains("450 jobs: 450 finished exactly once, 0 finished more than once, 0 unfinished; at most 1 executor(s) ran one job"
                        + " at the same moment; clusters declared lost: c2");
        Run json = run("simulate", "--cluster", "../examples/multi-cluster/clusters.yaml", "--json", "x.json", "--no-progress");
        assertThat(json.exit()).isNotZero();
        assertThat(json.err()).contains("--json, --events and --report are not available for a multi-cluster run (5 clusters)");
    }

    @Test
    void simulateWithActuatorFaultsPrintsTheRetries() {
        Run r = run("simulate", "--scenario", "../examples/scenarios/cedana-quota.yaml", "--actuator-failure-rate", "admit=0.5",
                "--actuator-backoff", "5,40", "--actuator-max-attempts", "2", "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("actuator: \\d+ attempts, [1-9]\\d* failed, 0 timed out, [1-9]\\d* retries, \\d+ given up")
                .contains("0 engine/simulator disagreements");
        Run bad = run("simulate", "--scenario", "../examples/scenarios/cedana-quota.yaml", "--actuator-failure-rate", "stop=0.5", "--no-progress");
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.err()).contains("unknown decision kind stop");
    }
}
