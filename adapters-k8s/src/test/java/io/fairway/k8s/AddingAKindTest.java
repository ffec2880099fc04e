package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fairway.api.job.JobState;
import io.fairway.k8s.example.SleeperIntegration;
import io.fairway.k8s.integration.Integrations;
import io.fairway.k8s.integration.Specs;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SPI example of docs/guides/kubernetes.md ("Adding a kind"): {@link SleeperIntegration}, listed in the test
 * resources' {@code META-INF/services}, is found by ServiceLoader, enabled by name, and queues its kind end to end.
 */
class AddingAKindTest extends AdapterTestBase {
    @Test
    void theExampleIntegrationIsFoundByServiceLoaderAndQueuesItsKind() {
        assertThat(Integrations.available()).containsKey("example.com/v1.Sleeper");
        assertThat(Integrations.available().get("example.com/v1.Sleeper")).isInstanceOf(SleeperIntegration.class);
        cluster.node("n1", 16, 64, 0, Map.of("fairway.io/pool", "general"));
        EnabledKind kind = new EnabledKind(new SleeperIntegration());
        GenericKubernetesResource sleeper = Specs.MAPPER.convertValue(Map.of(
                "apiVersion", "example.com/v1", "kind", "Sleeper",
                "metadata", Map.of("name", "nap", "namespace", "default", "labels", Map.of(Keys.QUEUE_LABEL, "q")),
                "spec", Map.of("replicas", 2, "suspend", true, "template", Map.of("spec", Map.of("containers", List.of(Map.of(
                        "name", "sleep", "image", "busybox", "resources", Map.of("requests", Map.of("cpu", "2")))))))),
                GenericKubernetesResource.class);
        cluster.client.genericKubernetesResources(kind.context).inNamespace("default").resource(sleeper).create();
        start(JobLifecycleTest.PREEMPTING, AdapterOptions.builder().integrations(List.of("example.com/v1.Sleeper")));
        assertThat(adapter.integrations()).containsExactly("example.com/v1.Sleeper");
        reconcileUntil(adapter, () -> !Specs.boolAt(now(kind), "/spec/suspend", true), "the Sleeper is admitted");
        assertThat(Specs.at(now(kind), "/spec/template/spec/nodeSelector/fairway.io~1pool").asText()).isEqualTo("general");
        for (int i = 0; i < 2; i++) {
            cluster.client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("nap-" + i).withNamespace("default")
                    .addToLabels("example.com/sleeper", "nap").endMetadata()
                    .withSpec(Specs.template(now(kind), "/spec/template").getSpec()).withStatus(new PodStatusBuilder().withPhase("Pending").build())
                    .build()).create();
        }
        reconcileUntil(adapter, () -> pods().stream().noneMatch(Kube::hasGate), "its pods are bound");
        assertThat(pods()).allSatisfy(p -> assertThat(p.getSpec().getNodeSelector()).containsEntry("kubernetes.io/hostname", "n1"));
        for (Pod p : pods()) {
            cluster.client.pods().inNamespace("default").withName(p.getMetadata().getName())
                    .editStatus(x -> new PodBuilder(x).editStatus().withPhase("Succeeded").endStatus().build());
        }
        reconcileUntil(adapter, () -> adapter.status("example.com/v1.Sleeper", "default", "nap").orElseThrow().state() == JobState.SUCCEEDED,
                "the Sleeper finishes");
    }

    private GenericKubernetesResource now(EnabledKind kind) {
        return cluster.client.genericKubernetesResources(kind.context).inNamespace("default").withName("nap").get();
    }

    private List<Pod> pods() {
        return cluster.client.pods().inNamespace("default").withLabel("example.com/sleeper", "nap").list().getItems();
    }
}
