package io.fairway.sim.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.model.NodePool;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** A node pool's consolidation policy, as Karpenter spells it, read from the cluster YAML. */
class NodePoolConsolidationTest {
    private static final String POOL = """
            name: gpu
            %s
            instanceTypes:
              - {name: g8, cpu: "64", memory: 512Gi, gpuShape: nvswitch-8, gpuModel: H100, pricePerHour: 30}
            """;

    private static NodePool read(String line) throws Exception {
        NodePoolConfig c = YamlFiles.read("pool.yaml", new StringReader(POOL.formatted(line)), NodePoolConfig.class);
        return c.toPool("default").pool();
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
