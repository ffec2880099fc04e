package io.fairway.k8s.unifiedjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fairway.api.job.JobState;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.core.Policies;
import io.fairway.core.Scheduler;
import io.fairway.k8s.RestoringPolicy;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.KubeflowJobIntegration;
import io.fairway.k8s.kinds.MiniClusterIntegration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * UnifiedJobs of kinds the operator cannot rescale in place, and controller restarts: a PyTorchJob whose workers
 * Fairway decides is admitted at what fits and resized by recreating it at the new count with its checkpoint
 * progress (no exception from any kind); a range a kind cannot honour is refused at submission with a condition that
 * says why; and a restarted controller adopts what runs — no underlying object deleted, no pod restarted.
 */
class UnifiedJobElasticityTest {
    private static final List<String> TYPES = List.of("flux-framework.org/v1alpha2.MiniCluster", "kubeflow.org/v1.PyTorchJob", "kubeflow.org/v2beta1.MPIJob");
    private final AtomicLong now = new AtomicLong(1_000);
    private final ResourceFlavor flavor = new ResourceFlavor("default", Map.of("pool", "cpu"), List.of(), List.of());
    private final List<String> deletes = new CopyOnWriteArrayList<>();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private KubernetesClient controllerClient;
    private UnifiedJobController controller;

    @BeforeEach
    void start() {
        server = io.fairway.k8s.audit.MockServers.crud();
        client = server.createClient();
        controllerClient = server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("deletes", new Interceptor() {
            @Override
            public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
                if ("DELETE".equals(request.method())) {
                    deletes.add(request.uri().getPath());
                }
            }
        })));
        controller = controller();
    }

    /** A controller on a fresh engine (what a restart, a failover or an engine rebuild gives), its policy wrapped to restore admissions. */
    private UnifiedJobController controller() {
        Scheduler engine = UnifiedJobControllerTest.engine(now::get, flavor).policy(new RestoringPolicy(Policies.create("priority", Map.of()))).build();
        return new UnifiedJobController(controllerClient, engine, UnifiedJobController.integrations(TYPES), List.of(flavor), "default");
    }

    @AfterEach
    void stop() {
        client.close();
        controllerClient.close();
        server.destroy();
    }

    private void reconcile(int passes) {
        for (int i = 0; i < passes; i++) {
            now.addAndGet(1_000);
            controller.reconcileOnce();
        }
    }

    private void create(String name, String jobType, int min, int max, ObjectNode template, Map<String, String> annotations) {
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", "fairway.io/v1alpha1");
        o.put("kind", "UnifiedJob");
        ObjectNode meta = o.putObject("metadata").put("name", name).put("namespace", "default");
        annotations.forEach(meta.putObject("annotations")::put);
        ObjectNode spec = o.putObject("spec");
        spec.put("jobType", jobType).put("queueName", "user-queue");
        spec.putObject("replicaSpec").put("minReplicas", min).put("maxReplicas", max);
        spec.set("template", template);
        assertThat(UnifiedJobSchemaTest.errors(o)).isEmpty();
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class)).create();
    }

    private static ObjectNode podTemplate(String cpu) {
        ObjectNode t = Specs.MAPPER.createObjectNode();
        t.putObject("spec").putArray("containers").addObject().put("name", "pytorch").put("image", "pytorch")
                .putObject("resources").putObject("requests").put("cpu", cpu);
        return t;
    }

    private static ObjectNode pytorch(int workers) {
        ObjectNode t = Specs.MAPPER.createObjectNode();
        ObjectNode rs = t.putObject("spec").putObject("pytorchReplicaSpecs");
        rs.putObject("Master").put("replicas", 1).set("template", podTemplate("1"));
        rs.putObject("Worker").put("replicas", workers).set("template", podTemplate("1"));
        return t;
    }

    private static ObjectNode miniCluster(int size, int maxSize) {
        ObjectNode t = Specs.MAPPER.createObjectNode();
        ObjectNode spec = t.putObject("spec").put("size", size).put("maxSize", maxSize);
        spec.putArray("containers").addObject().put("image", "flux").putObject("resources").putObject("requests").put("cpu", "1");
        return t;
    }

    private JsonNode uj(String name) {
        return Specs.toJson(client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").withName(name).get());
    }

    private GenericKubernetesResource underlying(Integration in, String name) {
        return client.genericKubernetesResources(UnifiedJobController.contextOf(in)).inNamespace("default").withName(name).get();
    }

    private String condition(String name, String type, String field) {
        for (JsonNode c : uj(name).at("/status/conditions")) {
            if (type.equals(c.path("type").asText())) {
                return c.path(field).asText();
            }
        }
        return null;
    }

    @Test
    void aPyTorchJobsWorkersAreAdmittedAtWhatFitsAndResizedByRecreatingItWithItsCheckpointProgress() {
        Integration torch = new KubeflowJobIntegration.PyTorchJob();
        create("rigid", "flux-framework.org/v1alpha2.MiniCluster", 3, 3, miniCluster(3, 3), Map.of());
        create("train", "kubeflow.org/v1.PyTorchJob", 1, 6, pytorch(6), Map.of(UnifiedJobs.CHECKPOINT_ANNOTATION, "600"));
        reconcile(1);
        // 8 cores: 3 for the rigid job, the master's 1, and 4 workers — the count written into the PyTorchJob (no exception)
        GenericKubernetesResource first = underlying(torch, "train");
        assertThat(first).as("the PyTorchJob is created, not evicted with 'could not create'").isNotNull();
        assertThat(Specs.toJson(first).at("/spec/pytorchReplicaSpecs/Worker/replicas").asInt()).isEqualTo(4);
        assertThat(Specs.toJson(first).at("/spec/pytorchReplicaSpecs/Worker/template/spec/nodeSelector/pool").asText()).isEqualTo("cpu");
        assertThat(uj("train").at("/spec/replicaSpec/targetReplicas").asInt()).isEqualTo(4);

        // the workload checkpoints at 40%; the rigid job ends, the engine grows the workers to 6: a new PyTorchJob at 6
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").withName("train").edit(x -> {
            x.getMetadata().getAnnotations().put(UnifiedJobs.PROGRESS_ANNOTATION, "0.4");
            return x;
        });
        client.genericKubernetesResources(UnifiedJobController.contextOf(new MiniClusterIntegration())).inNamespace("default").withName("rigid").delete();
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").withName("rigid").delete();
        reconcile(2);
        GenericKubernetesResource second = underlying(torch, "train");
        assertThat(Specs.toJson(second).at("/spec/pytorchReplicaSpecs/Worker/replicas").asInt()).isEqualTo(6);
        assertThat(second.getMetadata().getUid()).as("recreated").isNotEqualTo(first.getMetadata().getUid());
        assertThat(Specs.toJson(second).at("/spec/pytorchReplicaSpecs/Worker/template/spec/nodeSelector/pool").asText())
                .as("the flavor is written on the new object too").isEqualTo("cpu");
        assertThat(condition("train", "Resized", "message")).contains("4 -> 6", "recreating", "progress 40%");
        assertThat(controller.status("default", "train").orElseThrow().progress()).isEqualTo(0.4);
    }

    @Test
    void aRangeTheKindCannotHonourIsRefusedAtSubmissionWithAConditionSayingWhy() {
        create("no-checkpoint", "kubeflow.org/v1.PyTorchJob", 1, 4, pytorch(4), Map.of());
        ObjectNode mpi = Specs.MAPPER.createObjectNode();
        ObjectNode rs = mpi.putObject("spec").putObject("mpiReplicaSpecs");
        rs.putObject("Launcher").put("replicas", 1).set("template", podTemplate("1"));
        rs.putObject("Worker").put("replicas", 2).set("template", podTemplate("1"));
        ObjectNode leader = mpi.deepCopy();
        create("leader", "kubeflow.org/v2beta1.MPIJob", 1, 2, leader, Map.of(UnifiedJobs.CHECKPOINT_ANNOTATION, "60"));
        client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace("default").withName("leader").edit(x -> {
            ObjectNode o = Specs.toJson(x);
            Specs.set(o, "/spec/replicaSpec/podSet", "launcher");
            return Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
        });
        create("too-big", "flux-framework.org/v1alpha2.MiniCluster", 2, 8, miniCluster(2, 4), Map.of());
        reconcile(2);
        assertThat(uj("no-checkpoint").at("/status/pendingReason").asText()).contains("InvalidJob", UnifiedJobs.CHECKPOINT_ANNOTATION, "recreating");
        assertThat(uj("leader").at("/status/pendingReason").asText()).contains("InvalidJob", "launcher", "leader");
        assertThat(uj("too-big").at("/status/pendingReason").asText()).contains("InvalidJob", "spec.maxSize 4");
        assertThat(controller.status("default", "no-checkpoint")).isEmpty();
        assertThat(underlying(new KubeflowJobIntegration.PyTorchJob(), "no-checkpoint")).isNull();
    }

    /** The Flux Operator's and kubelet's part: the MiniCluster's pods, running. */
    private void runPods(String name, int n) {
        for (int i = 0; i < n; i++) {
            client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(name + "-" + i).withNamespace("default")
                    .addToLabels("batch.kubernetes.io/job-name", name).addToLabels("batch.kubernetes.io/job-completion-index", Integer.toString(i))
                    .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("x").endContainer().endSpec()
                    .withNewStatus().withPhase("Running").endStatus().build()).create();
        }
    }

    private Map<String, String> podUids() {
        Map<String, String> m = new TreeMap<>();
        for (Pod p : client.pods().inNamespace("default").list().getItems()) {
            m.put(p.getMetadata().getName(), p.getMetadata().getUid());
        }
        return m;
    }

    @Test
    void aRestartedControllerAdoptsRunningUnifiedJobsWithoutDeletingTheirObjectsOrRestartingPods() {
        Integration mc = new MiniClusterIntegration();
        create("a", "flux-framework.org/v1alpha2.MiniCluster", 2, 4, miniCluster(2, 4), Map.of());
        create("b", "flux-framework.org/v1alpha2.MiniCluster", 4, 4, miniCluster(4, 4), Map.of());
        reconcile(1);
        runPods("a", Specs.toJson(underlying(mc, "a")).at("/spec/size").asInt());
        runPods("b", 4);
        reconcile(1);
        assertThat(uj("a").at("/status/state").asText()).isEqualTo("Running");
        assertThat(uj("b").at("/status/state").asText()).isEqualTo("Running");
        String uidA = underlying(mc, "a").getMetadata().getUid();
        String uidB = underlying(mc, "b").getMetadata().getUid();
        Map<String, String> pods = podUids();
        String transitioned = condition("a", "Running", "lastTransitionTime");

        // the controller restarts (a new process, a failover, an engine rebuild): a fresh engine, the same cluster
        deletes.clear();
        controller = controller();
        reconcile(3);
        assertThat(deletes).as("no underlying object or pod deleted").isEmpty();
        assertThat(underlying(mc, "a").getMetadata().getUid()).isEqualTo(uidA);
        assertThat(underlying(mc, "b").getMetadata().getUid()).isEqualTo(uidB);
        assertThat(podUids()).as("no pod restarted").isEqualTo(pods);
        assertThat(controller.status("default", "a").orElseThrow().state()).as("re-admitted where it runs, then seen running").isEqualTo(JobState.RUNNING);
        assertThat(controller.status("default", "b").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(uj("a").at("/status/state").asText()).isEqualTo("Running");
        assertThat(condition("a", "Running", "lastTransitionTime")).as("the conditions are kept").isEqualTo(transitioned);
        assertThat(uj("a").at("/spec/replicaSpec/targetReplicas").asInt()).isEqualTo(Specs.toJson(underlying(mc, "a")).at("/spec/size").asInt());
        assertThat(Set.copyOf(controller.status("default", "b").orElseThrow().admission().placement().nodes())).containsExactly("n1");
        assertThat(UnifiedJobSchemaTest.errors(uj("a"))).isEmpty();
    }
}
