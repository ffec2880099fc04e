package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.model.NodePool;
import org.junit.jupiter.api.Test;

/** A node pool's consolidation policy, as Karpenter spells it, read from YAML. */
class NodePoolConsolidationTest {
    private static final String POOL = """
            name: gpu
            %s
            instanceTypes:
              - {name: g8, cpu: "64", memory: 512Gi, gpuShape: nvswitch-8, gpuModel: H100, pricePerHour: 30}
            """;

    private static NodePool read(String line) throws Exception {
        NodePoolConfig c = ConfigYaml.read("pool.yaml", POOL.formatted(line), NodePoolConfig.class);
        return c.toModel("default");
    }

    @Test
    void whenEmptyIsTheDefaultAndWhenUnderutilizedIsRead() throws Exception {
        assertThat(read("").consolidation()).isEqualTo(NodePool.Consolidation.WHEN_EMPTY);
        assertThat(read("consolidation: WhenUnderutilized").consolidation()).isEqualTo(NodePool.Consolidation.WHEN_UNDERUTILIZED);
        assertThat(read("consolidation: WhenEmpty").consolidation()).isEqualTo(NodePool.Consolidation.WHEN_EMPTY);
    }

    @Test
    void anUnknownPolicyIsRefusedNamingTheFieldAndTheValue() {
        assertThatThrownBy(() -> read("consolidation: Sometimes"))
                .hasMessageContaining("consolidation").hasMessageContaining("Sometimes").hasMessageContaining("WhenUnderutilized");
    }
}
