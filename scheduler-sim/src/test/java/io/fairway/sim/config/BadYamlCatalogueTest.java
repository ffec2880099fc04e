package io.fairway.sim.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A catalogue of bad values in a cluster YAML file: each is refused with a {@link SimulationConfigException} naming the file
 * and quoting the bad value (or the unknown field).
 */
class BadYamlCatalogueTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "negative memory          | memory: \"-1Gi\"           | -1Gi",
        "unknown GPU shape        | gpuShape: nvswitch-16     | nvswitch-16",
        "cpu that is no quantity  | cpu: plenty               | plenty",
        "memory that is no quantity | memory: lots             | lots",
        "negative racks           | racks: -2                 | -2",
        "misspelt field           | gpuShap: nvswitch-8       | gpuShap",
        "negative cpu             | cpu: \"-4\"                | -4",
        "racks that is no number  | racks: several            | several",
    })
    void aBadNodeGroupFieldIsNamedWithItsValue(String name, String field, String value) throws Exception {
        Path p = dir.resolve("cluster.yaml");
        Files.writeString(p, """
                clusters:
                  - name: east
                    topologyLevels: [fairway.io/rack]
                    nodeGroups:
                      - {namePrefix: h100, count: 2, gpuShape: nvswitch-8, gpuModel: H100, cpu: "96", memory: 1Ti, racks: 1}
                      - namePrefix: extra
                        count: 1
                        %s
                """.formatted(field));
        assertThatThrownBy(() -> ClusterConfig.load(p)).as(name).isInstanceOf(SimulationConfigException.class)
                .hasMessageContaining(p.toString()).hasMessageContaining(value);
    }
}
