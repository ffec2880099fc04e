package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the adapter relies on from fabric8's mock API server in CRUD mode. */
class MockServerAssumptionsTest {
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        try {
            server.destroy();
        } catch (IllegalStateException slowShutdown) {
            // teardown only: a client's watch socket that is still closing can make the mock server's shutdown
            // time out after the test has asserted everything; it must not fail the test
            java.util.logging.Logger.getLogger(getClass().getName()).warning("mock API server shut down slowly: " + slowShutdown.getMessage());
        }
    }

    @Test
    void jsonMergePatchMergesMapsButKeepsNulls() {
        client.batch().v1().jobs().inNamespace("a").resource(new JobBuilder().withNewMetadata().withName("j").withNamespace("a")
                .addToAnnotations("x", "1").addToAnnotations("y", "2").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addToNodeSelector("k", "v")
                .addNewContainer().withName("c").withImage("i").endContainer().endSpec().endTemplate().endSpec().build()).create();
        client.batch().v1().jobs().inNamespace("a").withName("j").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"annotations\":{\"x\":null,\"z\":\"3\"}},\"spec\":{\"suspend\":false,"
                        + "\"template\":{\"spec\":{\"nodeSelector\":{\"pool\":\"gpu\"},\"schedulingGates\":[{\"name\":\"g\"}]}}}}");
        Job j = client.batch().v1().jobs().inNamespace("a").withName("j").get();
        // A real API server deletes "x" (RFC 7386); the mock keeps it with a null value, so the adapter reads a null
        // value as absent, and restores templates with a JSON patch instead.
        assertThat(j.getMetadata().getAnnotations()).containsEntry("y", "2").containsEntry("z", "3");
        assertThat(j.getMetadata().getAnnotations().get("x")).isNull();
        assertThat(j.getSpec().getSuspend()).isFalse();
        assertThat(j.getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry("k", "v").containsEntry("pool", "gpu");
        assertThat(j.getSpec().getTemplate().getSpec().getSchedulingGates()).hasSize(1);
        assertThat(j.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);
    }

    @Test
    void jsonPatchReplacesAndRemovesExactly() {
        client.batch().v1().jobs().inNamespace("a").resource(new JobBuilder().withNewMetadata().withName("p").withNamespace("a")
                .addToAnnotations("fairway.io/admission", "{}").endMetadata()
                .withNewSpec().withNewTemplate().withNewSpec().addToNodeSelector("k", "v").addToNodeSelector("pool", "gpu")
                .addNewSchedulingGate("g").addNewContainer().withName("c").withImage("i").endContainer().endSpec().endTemplate().endSpec().build())
                .create();
        client.batch().v1().jobs().inNamespace("a").withName("p").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/spec/template/spec/nodeSelector\",\"value\":{\"k\":\"v\"}},"
                        + "{\"op\":\"remove\",\"path\":\"/spec/template/spec/schedulingGates\"},"
                        + "{\"op\":\"remove\",\"path\":\"/metadata/annotations/fairway.io~1admission\"}]");
        Job j = client.batch().v1().jobs().inNamespace("a").withName("p").get();
        assertThat(j.getSpec().getTemplate().getSpec().getNodeSelector()).isEqualTo(Map.of("k", "v"));
        assertThat(j.getSpec().getTemplate().getSpec().getSchedulingGates()).isNullOrEmpty();
        assertThat(j.getMetadata().getAnnotations()).doesNotContainKey("fairway.io/admission");
    }

    @Test
    void updateWithStaleResourceVersionConflicts() {
        Lease l = client.leases().inNamespace("a").resource(new LeaseBuilder().withNewMetadata().withName("l").withNamespace("a").endMetadata()
                .withNewSpec().withHolderIdentity("one").endSpec().build()).create();
        Lease fresh = client.leases().inNamespace("a").withName("l").get();
        fresh.getSpec().setHolderIdentity("two");
        client.leases().inNamespace("a").resource(fresh).update();
        l.getSpec().setHolderIdentity("three");
        assertThatThrownBy(() -> client.leases().inNamespace("a").resource(l).update()).isInstanceOf(KubernetesClientException.class);
    }

    @Test
    void namedInformerSeesOnlyItsConfigMap() throws Exception {
        Map<String, String> seen = new java.util.concurrent.ConcurrentHashMap<>();
        SharedIndexInformer<ConfigMap> inf = client.configMaps().inNamespace("a").withName("cfg").inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap obj) {
                seen.put(obj.getMetadata().getName(), "add");
            }

            @Override
            public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
                seen.put(newObj.getMetadata().getName(), "update");
            }

            @Override
            public void onDelete(ConfigMap obj, boolean deletedFinalStateUnknown) {
                seen.put(obj.getMetadata().getName(), "delete");
            }
        }, 0);
        client.configMaps().inNamespace("a").resource(new ConfigMapBuilder().withNewMetadata().withName("other").endMetadata().build()).create();
        client.configMaps().inNamespace("a").resource(new ConfigMapBuilder().withNewMetadata().withName("cfg").endMetadata().addToData("k", "1").build()).create();
        client.configMaps().inNamespace("a").withName("cfg").edit(c -> new ConfigMapBuilder(c).addToData("k", "2").build());
        long deadline = System.currentTimeMillis() + 5000;
        while (!"update".equals(seen.get("cfg")) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        inf.close();
        // wait until the informer's watch is really gone, so the mock server can shut down in teardown
        inf.stopped().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(seen).containsEntry("cfg", "update").doesNotContainKey("other");
    }
}
