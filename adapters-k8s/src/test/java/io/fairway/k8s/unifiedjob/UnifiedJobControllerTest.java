package io.fairway.k8s.unifiedjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Clock;
import io.fairway.core.Scheduler;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.MiniClusterIntegration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A UnifiedJob of Flux MiniClusters on the mock API server under the {@code priority} policy (FIFO family): admitted at
 * what fits, grown into freed capacity, shrunk for a higher-priority job, preempted and requeued, finished — with
 * targetReplicas and the MiniCluster's {@code spec.size} following the engine's decisions, and every UnifiedJob the
 * controller writes valid against the CRD's schema.
 */
class UnifiedJobControllerTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private KubernetesMockServer server;
    private KubernetesClient client;
    private KubernetesClient controllerClient;
    private final io.fairway.k8s.audit.RbacAudit audit = new io.fairway.k8s.audit.RbacAudit();
    private UnifiedJobController controller;
    private final List<GenericKubernetesResource> written = new ArrayList<>();

    @BeforeEach
    void start() {
        server = io.fairway.k8s.audit.MockServers.crud();
        client = server.createClient();
        controllerClient = audit.client(server);
        io.fairway.k8s.audit.MockServers.priorityClass(client, "high", 100);
        ResourceFlavor flavor = new ResourceFlavor("default", Map.of("pool", "cpu"), List.of(), List.of());
        Scheduler engine = engine(now::get, flavor).policy("priority").build();
        controller = new UnifiedJobController(controllerClient, engine,
                UnifiedJobController.integrations(List.of("flux-framework.org/v1alpha2.MiniCluster")), List.of(flavor), "default");
        controller.onWrite = written::add;
    }

    @AfterEach
    void stop() {
        client.close();
        controllerClient.close();
        server.destroy();
    }

    private void createUnifiedJob(String name, int min, int max, String priorityClass) {
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", "fairway.io/v1alpha1");
        o.put("kind", "UnifiedJob");
        o.putObject("metadata").put("name", name).put("namespace", "default");
        ObjectNode spec = o.putObject("spec");
        spec.put("jobType", "flux-framework.org/v1alpha2.MiniCluster");
        spec.put("queueName", "user-queue");
        if (priorityClass != null) {
            spec.put("priorityClassName", priorityClass);
        }
        spec.putObject("replicaSpec").put("minReplicas", min).put("maxReplicas", max);
        ObjectNode t = spec.putObject("template").putObject("spec");
        t.put("size", min).put("maxSize", max);
        ObjectNode c = t.putArray("containers").addObject();
        c.put("image", "ghcr.io/example/app:1");
        c.putObject("resources").putObject("requests").put("cpu", "1");
        assertThat(UnifiedJobSchemaTest.errors(o)).as("the test's own UnifiedJob is valid").isEmpty();
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class)).create();
    }

    private JsonNode uj(String name) {
        return Specs.toJson(client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").withName(name).get());
    }

    private GenericKubernetesResource miniCluster(String name) {
        return client.genericKubernetesResources(UnifiedJobController.contextOf(new MiniClusterIntegration())).inNamespace("default").withName(name).get();
    }

    private int size(String name) {
        return Specs.toJson(miniCluster(name)).at("/spec/size").intValue();
    }

    private int target(String name) {
        return uj(name).at("/spec/replicaSpec/targetReplicas").intValue();
    }

    private String condition(String name, String type) {
        for (JsonNode c : uj(name).at("/status/conditions")) {
            if (type.equals(c.path("type").asText())) {
                return c.path("status").asText();
            }
        }
        return null;
    }

    /** The Flux Operator's and kubelet's part: the MiniCluster's pods, all in one phase. */
    private void pods(String name, String phase) {
        client.pods().inNamespace("default").withLabel("batch.kubernetes.io/job-name", name).delete();
        int n = size(name);
        for (int i = 0; i < n; i++) {
            client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(name + "-" + i).withNamespace("default")
                    .addToLabels("batch.kubernetes.io/job-name", name).addToLabels("batch.kubernetes.io/job-completion-index", Integer.toString(i))
                    .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("x").endContainer().endSpec()
                    .withNewStatus().withPhase(phase).endStatus().build()).create();
        }
    }

    private void reconcile(int passes) {
        for (int i = 0; i < passes; i++) {
            now.addAndGet(1_000);
            controller.reconcileOnce();
        }
    }

    @Test
    void targetReplicasFollowTheEnginesResizeDecisionsAcrossRounds() throws java.io.IOException {
        createUnifiedJob("rigid", 4, 4, null);
        createUnifiedJob("elastic", 2, 8, null);
        reconcile(1);
        // admitted at what fits: 4 of 8 cores are left after the rigid job
        assertThat(target("elastic")).isEqualTo(4);
        assertThat(size("elastic")).isEqualTo(4);
        assertThat(Specs.toJson(miniCluster("elastic")).at("/spec/pod/nodeSelector/pool").asText()).as("the flavor's node labels").isEqualTo("cpu");
        assertThat(miniCluster("elastic").getMetadata().getOwnerReferences()).singleElement()
                .satisfies(r -> assertThat(r.getKind()).isEqualTo("UnifiedJob"));
        assertThat(uj("elastic").at("/status/state").asText()).isEqualTo("Admitted");
        assertThat(uj("elastic").at("/status/replicas").asText()).isEqualTo("4/2-8");
        assertThat(uj("elastic").at("/status/placement/0/nodes")).hasSize(4);
        assertThat(condition("elastic", "Queued")).isEqualTo("False");
        assertThat(condition("elastic", "Admitted")).isEqualTo("True");

        // a user's targetReplicas is overwritten
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").withName("elastic").edit(x -> {
            ObjectNode o = Specs.toJson(x);
            Specs.set(o, "/spec/replicaSpec/targetReplicas", 7);
            return Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
        });
        reconcile(1);
        assertThat(target("elastic")).isEqualTo(4);

        pods("elastic", "Running");
        pods("rigid", "Running");
        reconcile(1);
        assertThat(uj("elastic").at("/status/state").asText()).isEqualTo("Running");
        assertThat(condition("elastic", "Running")).isEqualTo("True");

        // the rigid job finishes: the elastic one grows into the freed cores (a Resize)
        pods("rigid", "Succeeded");
        reconcile(2);
        assertThat(uj("rigid").at("/status/state").asText()).isEqualTo("Finished");
        assertThat(condition("rigid", "Finished")).isEqualTo("True");
        assertThat(target("elastic")).isEqualTo(8);
        assertThat(size("elastic")).as("resized in place").isEqualTo(8);
        assertThat(condition("elastic", "Resized")).isEqualTo("True");
        assertThat(uj("elastic").at("/status/replicas").asText()).isEqualTo("8/2-8");

        // a higher-priority job arrives: the elastic one shrinks to its minimum before anyone is preempted
        createUnifiedJob("urgent", 4, 4, "high");
        reconcile(1);
        assertThat(target("elastic")).isEqualTo(2);
        assertThat(size("elastic")).isEqualTo(2);
        assertThat(target("urgent")).isEqualTo(4);
        assertThat(controller.status("default", "urgent").orElseThrow().spec().priority()).isEqualTo(100);

        // another: shrinking is not enough, so the elastic job is preempted — its MiniCluster deleted — and requeued
        createUnifiedJob("vip", 4, 4, "high");
        reconcile(1);
        assertThat(miniCluster("elastic")).isNull();
        assertThat(target("elastic")).isZero();
        assertThat(uj("elastic").at("/status/state").asText()).isEqualTo("Queued");
        assertThat(condition("elastic", "Preempted")).isEqualTo("True");
        assertThat(condition("elastic", "Admitted")).isEqualTo("False");
        assertThat(condition("elastic", "Queued")).isEqualTo("True");
        assertThat(uj("elastic").at("/status/pendingReason").asText()).isNotEmpty();
        assertThat(target("vip")).isEqualTo(4);

        // both finish: the elastic job is admitted again, runs, and finishes
        pods("urgent", "Succeeded");
        pods("vip", "Succeeded");
        reconcile(3);
        assertThat(target("elastic")).isEqualTo(8);
        assertThat(condition("elastic", "Admitted")).isEqualTo("True");
        pods("elastic", "Succeeded");
        reconcile(1);
        assertThat(uj("elastic").at("/status/state").asText()).isEqualTo("Finished");
        assertThat(condition("elastic", "Finished")).isEqualTo("True");
        assertThat(controller.status("default", "elastic").orElseThrow().state().isTerminal()).isTrue();

        assertThat(audit.used).as("deploy/rbac-unifiedjob.yaml grants exactly the verbs the controller used")
                .isEqualTo(io.fairway.k8s.audit.RbacAudit.granted(java.nio.file.Path.of("..", "deploy", "rbac-unifiedjob.yaml")));
        java.nio.file.Path namespaced = java.nio.file.Path.of("..", "deploy", "namespaced", "rbac-unifiedjob.yaml");
        assertThat(audit.denied(namespaced, Map.of("team-a", "default"))).as("the namespaced install's Role (in the managed namespace) and read-only ClusterRole allow every request where it was made").isEmpty();
        assertThat(io.fairway.k8s.audit.RbacAudit.granted(namespaced)).as("and grant exactly the verbs used").isEqualTo(audit.used);
        assertThat(written).as("the controller wrote UnifiedJobs").hasSizeGreaterThan(10);
        for (GenericKubernetesResource w : written) {
            assertThat(UnifiedJobSchemaTest.errors(Specs.toJson(w))).as("written %s", Specs.toJson(w)).isEmpty();
        }
    }

    @Test
    void theMiniClusterIsNotOfferedToTheAdapterButToUnifiedJobsAndUnknownJobTypesAreRefused() {
        assertThat(io.fairway.k8s.integration.Integrations.available()).as("a MiniCluster cannot be suspended: the adapter must not queue one")
                .doesNotContainKey("flux-framework.org/v1alpha2.MiniCluster").containsKey("ray.io/v1.RayCluster");
        assertThat(UnifiedJobController.integrations(List.of("flux-framework.org/v1alpha2.MiniCluster", "ray.io/v1.RayCluster")))
                .extracting(io.fairway.k8s.integration.Integration::name).containsExactly("flux-framework.org/v1alpha2.MiniCluster", "ray.io/v1.RayCluster");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> UnifiedJobController.integrations(List.of("example.com/v1.Nope")))
                .hasMessageContaining("example.com/v1.Nope").hasMessageContaining("ray.io/v1.RayJob");
    }

    @Test
    void anUnknownJobTypeIsRefusedNamingTheFieldAndValue() {
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", "fairway.io/v1alpha1");
        o.put("kind", "UnifiedJob");
        o.putObject("metadata").put("name", "odd").put("namespace", "default");
        ObjectNode spec = o.putObject("spec");
        spec.put("jobType", "example.com/v1.Sleeper");
        spec.put("queueName", "user-queue");
        spec.putObject("replicaSpec").put("minReplicas", 1).put("maxReplicas", 2);
        spec.putObject("template").putObject("spec");
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class)).create();
        reconcile(2);
        assertThat(uj("odd").at("/status/pendingReason").asText()).contains("spec.jobType", "example.com/v1.Sleeper",
                "flux-framework.org/v1alpha2.MiniCluster");
        assertThat(controller.status("default", "odd")).isEmpty();
        for (GenericKubernetesResource w : written) {
            assertThat(UnifiedJobSchemaTest.errors(Specs.toJson(w))).isEmpty();
        }
    }

    /**
     * @return the UnifiedJob tests' engine, but for its policy: ClusterQueue {@code cq} (8 cores of {@code flavor},
     *         preempting lower priorities), LocalQueue {@code default/user-queue}, node {@code n1} (8 cores, pool cpu)
     */
    static Scheduler.Builder engine(Clock clock, ResourceFlavor flavor) {
        return Scheduler.builder().clock(clock)
                .flavor(flavor)
                .clusterQueue(ClusterQueue.builder("cq").preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null))
                        .quota("default", Resources.builder().cpu(8).build()).build())
                .localQueue(new LocalQueue("default", "user-queue", "cq"))
                .node(Node.builder("n1").labels(Map.of("pool", "cpu")).capacity(Resources.builder().cpu(8).build()).build());
    }
}
