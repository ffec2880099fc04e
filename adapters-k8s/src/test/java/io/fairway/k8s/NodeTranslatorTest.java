package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fairway.api.model.LinkKind;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.config.QueuesConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kubernetes Nodes and pods to the model: GPU shapes from feature discovery labels, capacity, taints, cordoning. */
class NodeTranslatorTest {
    private static io.fabric8.kubernetes.api.model.Node node(int gpus, String product, Map<String, String> more, boolean ready) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName("n").addToLabels("fairway.io/rack", "r1").addToLabels(more).endMetadata()
                .withNewSpec().addNewTaint().withKey("nvidia.com/gpu").withEffect("NoSchedule").endTaint().endSpec()
                .withNewStatus().addToAllocatable("cpu", new Quantity("95500m")).addToAllocatable("memory", new Quantity("1000Gi"))
                .addToAllocatable("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus();
        if (product != null) {
            b.editMetadata().addToLabels(Keys.GPU_PRODUCT_LABEL, product).endMetadata();
        }
        return b.build();
    }

    @Test
    void gpuShapesFollowTheProduct() {
        assertThat(GpuShapes.shapeName("NVIDIA-H100-80GB-HBM3", 8)).isEqualTo("nvswitch-8");
        assertThat(GpuShapes.shapeName("NVIDIA-A100-SXM4-80GB", 8)).isEqualTo("nvswitch-8");
        assertThat(GpuShapes.shapeName("NVIDIA-H200", 8)).isEqualTo("nvswitch-8");
        assertThat(GpuShapes.shapeName("Tesla-V100-SXM2-16GB", 8)).isEqualTo("hybrid-cube-mesh-8");
        assertThat(GpuShapes.shapeName("NVIDIA-A100-PCIE-40GB", 8)).isEqualTo("pcie-2socket-8");
        assertThat(GpuShapes.shapeName("NVIDIA-H100-PCIe", 4)).isEqualTo("pcie-4");
        assertThat(GpuShapes.shapeName("Tesla-T4", 4)).isEqualTo("pcie-4");
        assertThat(GpuShapes.shapeName("NVIDIA-L4", 2)).isEqualTo("uniform-2");
        assertThat(GpuShapes.shapeName(null, 8)).isEqualTo("uniform-8");
        assertThat(GpuShapes.forProduct("NVIDIA-H100-80GB-HBM3", 8).links()).allMatch(l -> l.kind() == LinkKind.NVSWITCH);
    }

    @Test
    void nodeBecomesTheModelWithItsGpusLabelsAndTaints() {
        Node n = NodeTranslator.toModel(node(8, "NVIDIA-H100-80GB-HBM3", Map.of(), true), Resources.NONE);
        assertThat(n.gpus().shape()).isEqualTo("nvswitch-8");
        assertThat(n.gpus().model()).isEqualTo("NVIDIA-H100-80GB-HBM3");
        assertThat(n.capacity().get("cpu")).isEqualTo(95_500);
        assertThat(n.capacity().gpus()).isEqualTo(8);
        assertThat(n.label("fairway.io/rack")).isEqualTo("r1");
        assertThat(n.taints()).singleElement().satisfies(t -> assertThat(t.key()).isEqualTo("nvidia.com/gpu"));
        assertThat(n.unschedulable()).isFalse();
    }

    @Test
    void shapeLabelOverridesAndNotReadyCountsAsCordoned() {
        Node n = NodeTranslator.toModel(node(8, "Tesla-T4", Map.of(Keys.GPU_SHAPE_LABEL, "hybrid-cube-mesh-8"), false), Resources.NONE);
        assertThat(n.gpus().shape()).isEqualTo("hybrid-cube-mesh-8");
        assertThat(n.unschedulable()).isTrue();
        io.fabric8.kubernetes.api.model.Node cordoned = node(0, null, Map.of(), true);
        cordoned.getSpec().setUnschedulable(true);
        assertThat(NodeTranslator.toModel(cordoned, Resources.NONE).unschedulable()).isTrue();
    }

    @Test
    void whatOtherPodsUseIsSubtracted() {
        var pod = new PodBuilder().withNewSpec()
                .addNewContainer().withName("a").withNewResources().addToRequests("cpu", new Quantity("1500m"))
                .addToLimits("nvidia.com/gpu", new Quantity("2")).endResources().endContainer()
                .addNewContainer().withName("b").withNewResources().addToRequests("cpu", new Quantity("500m"))
                .addToRequests("memory", new Quantity("2Gi")).endResources().endContainer()
                .addNewInitContainer().withName("init").withNewResources().addToRequests("cpu", new Quantity("4")).endResources().endInitContainer()
                .endSpec().build();
        Resources used = PodResources.of(pod);
        assertThat(used.get("cpu")).isEqualTo(4_000);
        assertThat(used.gpus()).isEqualTo(2);
        assertThat(used.get("memory")).isEqualTo(2L << 30);
        Node n = NodeTranslator.toModel(node(8, "NVIDIA-H100-80GB-HBM3", Map.of(), true), used);
        assertThat(n.capacity().get("cpu")).isEqualTo(91_500);
        assertThat(n.capacity().gpus()).isEqualTo(6);
        assertThat(n.gpus().size()).isEqualTo(6);
        assertThat(n.gpus().links()).allMatch(l -> l.a() < 6 && l.b() < 6 && l.kind() == LinkKind.NVSWITCH);
    }

    @Test
    void configErrorsNameTheLineAndField() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> QueuesConfig.parse("cm", "flavors:\n  - name: a\nclusterQueues:\n  - name: q\n    cohort: [x]\n"))
                .hasMessageContaining("cm line 5").hasMessageContaining("clusterQueues[0].cohort");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - name: q\n    resourceGroups:\n"
                + "      - coveredResources: [cpu]\n        flavors: [{name: ghost, resources: [{name: cpu, nominalQuota: 1}]}]\n"))
                .hasMessageContaining("flavor ghost is not defined");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> QueuesConfig.parse("cm", "flavors: [{name: a}]\nclusterQueues:\n  - name: q\n"
                + "    resourceGroups: [{coveredResources: [cpu], flavors: [{name: a, resources: [{name: cpu, nominalQuota: lots}]}]}]\n"))
                .hasMessageContaining("lots");
        QueuesConfig ok = QueuesConfig.parse("cm", CedanaScenarioTest.QUEUES);
        assertThat(ok.policy()).isEqualTo(QueuesConfig.DEFAULT_POLICY);
        assertThat(ok.clusterQueueModels().get(0).resourceGroups().get(0).flavors().get(0).quota("cpu").nominal()).isEqualTo(64_000);
    }
}
