package io.fairway.sim.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.sim.trace.TraceFormat;
import io.fairway.sim.trace.TraceFormatException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Scenario files obey the trace readers' rule for times (a value the simulator's clock cannot represent is refused,
 * not run as a job that never happens), and a value of the wrong type is named with its field and value, never with
 * the YAML library's internals.
 */
class ScenarioTimesAndTypesTest {
    private static final String SCENARIO = """
            cluster:
              clusters:
                - name: default
                  nodeGroups:
                    - {namePrefix: gpu, count: 1, gpuShape: nvswitch-8, gpuModel: H100, cpu: "96", memory: 1024Gi}
            queues:
              flavors: [{name: default}]
              clusterQueues:
                - name: q
                  resourceGroups:
                    - coveredResources: [nvidia.com/gpu]
                      flavors: [{name: default, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]
              localQueues:
                - {name: a, namespace: default, clusterQueue: q}
            jobs:
              - {id: j1, submitSeconds: %s, durationSeconds: %s, queue: a, %s}
            events:
              - {at: %s, cordonNode: gpu-0}
            """;

    @TempDir
    Path dir;

    private Path scenario(String submit, String duration, String at, String extra) throws Exception {
        return Files.writeString(dir.resolve("s.yaml"), SCENARIO.formatted(submit, duration, extra, at));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "duration 1e308    | 0      | 1e308 | 1     | durationSeconds",
        "submit 9.2e15     | 9.2e15 | 60    | 1     | submitSeconds",
        "event at 1e308    | 0      | 60    | 1e308 | at",
    })
    void aTimeTheClockCannotRepresentIsRefusedAsTheTraceReaderRefusesIt(String name, String submit, String duration, String at, String field)
            throws Exception {
        Path p = scenario(submit, duration, at, "gpus: 8");
        assertThatThrownBy(() -> ScenarioConfig.load(p)).as(name).isInstanceOf(SimulationConfigException.class)
                .hasMessageContaining(p.toString()).hasMessageContaining(field)
                .hasMessageContaining("beyond what the simulator's clock can represent (at most 1e10 s");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "duration_seconds 1e308 | 0      | 1e308 | duration_seconds",
        "submit_seconds 9.2e15  | 9.2e15 | 60    | submit_seconds",
    })
    void theTraceReaderStatesTheSameRule(String name, String submit, String duration, String column) throws Exception {
        Path p = Files.writeString(dir.resolve("t.csv"), "id,submit_seconds,duration_seconds,gpus\nj1," + submit + "," + duration + ",8\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(p)).as(name).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(column).hasMessageContaining("beyond what the simulator's clock can represent (at most 1e10 s");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "members 1.5            | members: 1.5, resources: {cpu: \"1\"} | members     | 1.5",
        "gpus as words          | gpus: plenty                        | gpus        | plenty",
        "priority too large     | gpus: 8, priority: 99999999999      | priority    | 99999999999",
        "members as a list      | members: [1, 2], resources: {cpu: \"1\"} | members  | list",
        "priority as a boolean  | gpus: 8, priority: true             | priority    | true",
    })
    void aValueOfTheWrongTypeIsNamedWithoutTheLibrarysInternals(String name, String extra, String field, String value) throws Exception {
        Path p = scenario("0", "60", "1", extra);
        assertThatThrownBy(() -> ScenarioConfig.load(p)).as(name).isInstanceOf(SimulationConfigException.class)
                .hasMessageContaining(field).hasMessageContaining(value)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("CoercionConfig").doesNotContain("java.lang").doesNotContain("`")
                        .doesNotContain("START_ARRAY").doesNotContain("MapperFeature"));
    }
}
