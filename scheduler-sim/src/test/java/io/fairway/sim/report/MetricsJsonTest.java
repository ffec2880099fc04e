package io.fairway.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.sim.EventRecord;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsJsonTest {
    private static final List<String> KEYS = List.of("policy", "jobs", "completed", "avgJctSeconds", "p95JctSeconds", "makespanSeconds",
            "gpuUtilization", "maxRho", "meanRho", "jainIndex", "preemptions", "schedulerMillisPerRound");

    @TempDir
    Path dir;

    static SimulationResult result(PolicyMetrics m, List<EventRecord> events) {
        return new SimulationResult(m.policy(), m, List.of(), List.of(), List.of(), 8, events, List.of());
    }

    static PolicyMetrics metrics(String policy) {
        return new PolicyMetrics(policy, 2, 1, 2, 125, 100, 150, 150, 50, 100, 150, 1.0, 1.8, 1.15, 0.758, 0, 0, 3, 0.25);
    }

    @Test
    void metricsCarryTheDocumentedKeysFirstAndInOrder() throws IOException {
        Path f = dir.resolve("out/metrics.json");
        MetricsJson.writeMetrics(f, List.of(result(metrics("strict-fifo"), List.of()), result(metrics("priority"), List.of())));
        JsonNode root = new ObjectMapper().readTree(f.toFile());
        assertThat(root.isArray()).isTrue();
        assertThat(root).hasSize(2);
        List<String> names = new ArrayList<>();
        root.get(0).fieldNames().forEachRemaining(names::add);
        assertThat(names.subList(0, KEYS.size())).isEqualTo(KEYS);
        assertThat(root.get(0).get("policy").asText()).isEqualTo("strict-fifo");
        assertThat(root.get(0).get("avgJctSeconds").asDouble()).isEqualTo(125);
        assertThat(root.get(0).get("jainIndex").asDouble()).isEqualTo(0.758);
        assertThat(root.get(1).get("policy").asText()).isEqualTo("priority");
        assertThat(root.get(0).get("skipped").asInt()).isEqualTo(1);
    }

    @Test
    void missingValuesAreNull() throws IOException {
        PolicyMetrics none = new PolicyMetrics("p", 1, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0,
                Double.NaN, Double.NaN, Double.NaN, 0, 0, 1, 0.1);
        JsonNode root = new ObjectMapper().readTree(MetricsJson.metrics(List.of(result(none, List.of()))));
        assertThat(root.get(0).get("avgJctSeconds").isNull()).isTrue();
        assertThat(root.get(0).get("completed").asInt()).isZero();
    }

    @Test
    void eventsAreOneJsonObjectPerLine() throws IOException {
        Path f = dir.resolve("events.jsonl");
        MetricsJson.writeEvents(f, List.of(result(metrics("strict-fifo"), List.of(
                new EventRecord("strict-fifo", 1500, "j1", "PENDING", "QUOTA: needs 32 cpu"),
                new EventRecord("strict-fifo", 3000, "j1", "ADMITTED", "cq")))));
        List<String> lines = Files.readAllLines(f);
        assertThat(lines).hasSize(2);
        JsonNode first = new ObjectMapper().readTree(lines.get(0));
        List<String> names = new ArrayList<>();
        first.fieldNames().forEachRemaining(names::add);
        assertThat(names).startsWith("time", "job", "type", "reason", "policy");
        assertThat(first.get("time").asDouble()).isEqualTo(1.5);
        assertThat(first.get("reason").asText()).isEqualTo("QUOTA: needs 32 cpu");
    }

    @Test
    void tableHasOneRowPerPolicy() {
        String table = ComparisonTable.format(List.of(metrics("strict-fifo"), metrics("best-effort-fifo")));
        assertThat(table.lines()).hasSize(3);
        assertThat(table.lines().findFirst().orElseThrow()).startsWith("policy").contains("avg JCT", "p95 JCT", "makespan", "util",
                "max ρ", "mean ρ", "Jain", "preempt", "ms/round");
        assertThat(table).contains("strict-fifo", "2.5 min", "100.0%", "1.80", "0.758");
        assertThat(ComparisonTable.duration(7200)).isEqualTo("2.00 h");
        assertThat(ComparisonTable.duration(3 * 86400)).isEqualTo("3.00 d");
    }
}
