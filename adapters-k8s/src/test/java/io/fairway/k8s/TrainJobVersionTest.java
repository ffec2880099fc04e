package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.until;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.SharedCrds;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A TrainJob on a cluster whose installed Trainer serves v2.1's {@code podTemplateOverrides} (the CRD on the mock
 * server is Trainer v2.0.0's with that field renamed, as v2.1 did): not queued, and a Warning Event on it says which
 * Trainer versions Fairway supports.
 */
class TrainJobVersionTest extends AdapterTestBase {
    @Test
    void anUnsupportedTrainerVersionIsRefusedWithAClearEvent() {
        JsonNode v21 = SharedCrds.without(SharedCrds.crd("trainer/v2.0.0/trainer.kubeflow.org_trainjobs.yaml"), "v1alpha1", "/properties/spec",
                "podSpecOverrides");
        for (JsonNode v : v21.at("/spec/versions")) {
            ((ObjectNode) v.at("/schema/openAPIV3Schema/properties/spec/properties")).putObject("podTemplateOverrides").put("type", "array");
        }
        cluster.client.apiextensions().v1().customResourceDefinitions().resource(Specs.MAPPER.convertValue(v21, CustomResourceDefinition.class)).create();
        cluster.node("a", 64, 256, 4, Map.of());
        ObjectNode tj = Specs.MAPPER.createObjectNode();
        tj.put("apiVersion", "trainer.kubeflow.org/v1alpha1").put("kind", "TrainJob");
        tj.putObject("metadata").put("name", "ddp").put("namespace", "default").putObject("labels").put(Keys.QUEUE_LABEL, "user-queue");
        ObjectNode spec = tj.putObject("spec").put("suspend", true);
        spec.putObject("runtimeRef").put("name", "torch-distributed");
        spec.putObject("trainer").put("numNodes", 1).putObject("resourcesPerNode").putObject("requests").put("cpu", "4");
        ResourceDefinitionContext ctx = new ResourceDefinitionContext.Builder().withGroup("trainer.kubeflow.org").withVersion("v1alpha1")
                .withKind("TrainJob").withPlural("trainjobs").withNamespaced(true).build();
        cluster.client.genericKubernetesResources(ctx).inNamespace("default").resource(Specs.MAPPER.convertValue(tj, GenericKubernetesResource.class)).create();
        start(AdapterOptions.builder().integrations(List.of("batch/v1.Job", "trainer.kubeflow.org/v1alpha1.TrainJob")));
        until(() -> {
            adapter.reconcileOnce();
            return cluster.events("default", "ddp").stream().anyMatch(e -> Keys.REASON_INVALID.equals(e.getReason()));
        }, "an InvalidJob Event on the TrainJob");
        Event e = cluster.events("default", "ddp").stream().filter(x -> Keys.REASON_INVALID.equals(x.getReason())).findFirst().orElseThrow();
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getMessage()).contains("podTemplateOverrides", "v2.0", "v2.2 or later");
        assertThat(Specs.toJson(cluster.client.genericKubernetesResources(ctx).inNamespace("default").withName("ddp").get()).at("/spec/suspend")
                .asBoolean()).as("not admitted").isTrue();
        assertThat(adapter.status("default", "ddp")).isEmpty();
    }
}
