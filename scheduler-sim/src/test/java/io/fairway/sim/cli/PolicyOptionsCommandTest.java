package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.sim.TestScenarios;
import io.fairway.sim.cli.FairwayCommandTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Policy parameters, --checkpoint-interval and themis-repro --json on the command line (issue #15, part 5). */
class PolicyOptionsCommandTest {
    @TempDir
    Path dir;

    private static Run run(String... args) {
        return FairwayCommandTest.run(args);
    }

    /** Two 8-GPU jobs on one 8-GPU node: under the test lease policy the second starts when the first one's lease ends. */
    private Path twoJobsOneNode() throws IOException {
        return Files.writeString(dir.resolve("two.yaml"), """
                name: two-jobs
                cluster:
                  clusters: [{name: default, nodeGroups: [{namePrefix: gpu, count: 1, gpuShape: nvswitch-8, gpuModel: H100, cpu: "96", memory: 512Gi}]}]
                """ + TestScenarios.gpuQueue(8) + """
                jobs:
                  - {id: first, submitSeconds: 0, durationSeconds: 300, queue: lq, gpus: 8, checkpointing: {intervalSeconds: 10}}
                  - {id: second, submitSeconds: 0, durationSeconds: 300, queue: lq, gpus: 8, checkpointing: {intervalSeconds: 10}}
                """);
    }

    @Test
    void parametersReachThePolicyAndNameTheRow() throws IOException {
        Path s = twoJobsOneNode();
        Run r = run("simulate", "--scenario", s.toString(), "--policy", "test-lease-rotation,test-lease-rotation:leaseSeconds=30", "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        // the default 60 s lease, then the 30 s one: the second job starts when the first one's lease expires
        String[] parts = r.out().split("test-lease-rotation:leaseSeconds=30:\n", 2);
        assertThat(parts).hasSize(2);
        assertThat(parts[0]).containsPattern("second +submitted +0\\.0 s +started +60\\.0 s");
        assertThat(parts[1]).containsPattern("second +submitted +0\\.0 s +started +30\\.0 s");
        assertThat(r.out()).containsPattern("(?m)^test-lease-rotation +2 +2 ").containsPattern("(?m)^test-lease-rotation:leaseSeconds=30 +2 +2 ");
        // repeating --policy is the same as a list
        Run again = run("simulate", "--scenario", s.toString(), "--policy", "test-lease-rotation", "--policy", "test-lease-rotation:leaseSeconds=30",
                "--no-progress");
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(again.out().substring(0, again.out().indexOf("\npolicy "))).isEqualTo(r.out().substring(0, r.out().indexOf("\npolicy ")));
    }

    @Test
    void anUnknownParameterIsAClearErrorListingTheKnownOnes() {
        Run r = run("simulate", "--policy", "themis:f=0.2,leaseMinuets=10", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("policy themis: unknown parameter(s) [leaseMinuets]; known: [").contains("leaseMinutes").contains("f,")
                .doesNotContain("\tat ");
        assertThat(r.out()).isEmpty();
        Run d = run("demo", "--policy", "tiresias-las:quantum=1", "--no-progress", "--no-report");
        assertThat(d.exit()).isEqualTo(2);
        assertThat(d.err()).contains("policy tiresias-las: unknown parameter(s) [quantum]; known: [k, thresholds]");
        Run m = run("simulate", "--policy", "f=0.2", "--no-progress");
        assertThat(m.exit()).isEqualTo(2);
        assertThat(m.err()).contains("\"f=0.2\"").contains("before any policy name");
    }

    @Test
    void policiesListsTheParametersOfEachPolicy() {
        Run r = run("policies");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).containsPattern("parameters: .*leaseMinutes").contains("parameters: k, thresholds");
    }

    @Test
    void checkpointIntervalGivesCheckpointsToTheTraceAndLosesLessWork() throws IOException {
        Path without = dir.resolve("without.json");
        Path with = dir.resolve("with.json");
        Run a = run("demo", "--jobs", "300", "--policy", "tiresias-las", "--no-progress", "--no-report", "--json", without.toString());
        Run b = run("demo", "--jobs", "300", "--policy", "tiresias-las", "--no-progress", "--no-report", "--json", with.toString(),
                "--checkpoint-interval", "10m");
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(b.exit()).as(b.err()).isZero();
        JsonNode x = new ObjectMapper().readTree(without.toFile()).get(0);
        JsonNode y = new ObjectMapper().readTree(with.toFile()).get(0);
        assertThat(y.get("preemptions").asLong()).isPositive();
        assertThat(y.get("lostWorkSeconds").asDouble()).isLessThan(x.get("lostWorkSeconds").asDouble());
        Run bad = run("simulate", "--checkpoint-interval", "ten", "--no-progress");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("--checkpoint-interval: \"ten\" is not a duration");
    }

    @Test
    void themisReproWritesJson() throws IOException {
        Path json = dir.resolve("repro.json");
        Run r = run("themis-repro", "--workload", "themis", "--apps", "8", "--policy", "themis:f=0.5,leaseMinutes=20;strict-fifo", "--json",
                json.toString(), "--no-progress");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("metrics: " + json).contains("| themis:f=0.5,leaseMinutes=20");
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.get("gpus").asInt()).isEqualTo(64);
        JsonNode runs = doc.get("runs");
        assertThat(runs).hasSize(2);
        assertThat(runs.get(0).get("label").asText()).isEqualTo("themis:f=0.5,leaseMinutes=20");
        assertThat(runs.get(0).get("parameters").get("leaseMinutes").asText()).isEqualTo("20");
        assertThat(runs.get(1).get("policy").asText()).isEqualTo("strict-fifo");
        for (JsonNode run : runs) {
            assertThat(run.get("appMaxRho").asDouble()).isGreaterThan(0);
            assertThat(run.get("appRho")).hasSize(8);
            assertThat(run.get("metrics").get("jobs").asInt()).isPositive();
            assertThat(run.get("metrics").get("completed").asInt()).isEqualTo(run.get("metrics").get("jobs").asInt());
        }
        Run bad = run("themis-repro", "--apps", "4", "--policy", "themis:lease=3", "--no-progress");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("unknown parameter(s) [lease]");
    }
}
