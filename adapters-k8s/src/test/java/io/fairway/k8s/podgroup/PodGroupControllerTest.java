package io.fairway.k8s.podgroup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fairway.api.job.JobState;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import io.fairway.core.Scheduler;
import io.fairway.k8s.integration.Specs;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Plain pod groups on the mock API server: held by their gate until the whole group exists and is admitted, then all
 * ungated with their node pinned; preempted (pods deleted) and queued again when recreated; finished. Only the
 * documented Pod fields that may change on a gated pod are written.
 */
class PodGroupControllerTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private KubernetesMockServer server;
    private KubernetesClient client;
    private KubernetesClient controllerClient;
    private PodGroupController controller;
    private final io.fairway.k8s.audit.RbacAudit audit = new io.fairway.k8s.audit.RbacAudit();
    private final java.util.concurrent.atomic.AtomicInteger listRequests = new java.util.concurrent.atomic.AtomicInteger();

    @BeforeEach
    void start() {
        server = io.fairway.k8s.audit.MockServers.crud();
        client = server.createClient();
        controllerClient = server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("rbac-audit",
                new io.fabric8.kubernetes.client.http.Interceptor() {
                    @Override
                    public void before(io.fabric8.kubernetes.client.http.BasicBuilder builder, io.fabric8.kubernetes.client.http.HttpRequest request,
                                       io.fabric8.kubernetes.client.http.Interceptor.RequestTags tags) {
                        audit.record(request);
                        String q = request.uri().getQuery() == null ? "" : request.uri().getQuery();
                        if (request.method().equals("GET") && request.uri().getPath().endsWith("/pods") && !q.contains("watch=true")) {
                            listRequests.incrementAndGet();
                        }
                    }
                })));
        io.fairway.k8s.audit.MockServers.priorityClass(client, "high", 100);
        ResourceFlavor flavor = new ResourceFlavor("spot", Map.of("pool", "spot"), List.of(),
                List.of(new Toleration("spot", "Exists", null, "NoSchedule")));
        Scheduler engine = Scheduler.builder().clock(now::get).policy("priority").flavor(flavor)
                .clusterQueue(ClusterQueue.builder("cq").preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null))
                        .quota("spot", Resources.builder().cpu(32).build()).build())
                .localQueue(new LocalQueue("default", "user-queue", "cq"))
                .node(Node.builder("n1").labels(Map.of("pool", "spot")).capacity(Resources.builder().cpu(16).build()).build())
                .node(Node.builder("n2").labels(Map.of("pool", "spot")).capacity(Resources.builder().cpu(16).build()).build())
                .build();
        controller = new PodGroupController(controllerClient, engine, List.of(flavor), "default");
    }

    @AfterEach
    void stop() {
        controller.close();
        client.close();
        controllerClient.close();
        server.destroy();
    }

    /** A gated pod of a group, as its creator writes it. */
    private void pod(String group, int i, int total, String cpu, String priorityClass) {
        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(group + "-" + i).withNamespace("default")
                .addToLabels(PodGroupController.GROUP_LABEL, group).addToLabels("fairway.io/queue-name", "user-queue")
                .addToAnnotations(PodGroupController.TOTAL_COUNT_ANNOTATION, Integer.toString(total)).endMetadata()
                .withNewSpec().withPriorityClassName(priorityClass).addNewSchedulingGate().withName(PodGroupController.GATE).endSchedulingGate()
                .addNewContainer().withName("main").withImage("busybox").withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources()
                .endContainer().endSpec().withNewStatus().withPhase("Pending").endStatus().build()).create();
    }

    private List<Pod> pods(String group) {
        return client.pods().inNamespace("default").withLabel(PodGroupController.GROUP_LABEL, group).list().getItems();
    }

    private void phase(String group, String phase) {
        for (Pod p : pods(group)) {
            client.pods().inNamespace("default").withName(p.getMetadata().getName()).editStatus(x -> new PodBuilder(x).editStatus().withPhase(phase).endStatus().build());
        }
    }

    private static boolean gated(Pod p) {
        return p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty();
    }

    private void reconcile(int n) {
        for (int i = 0; i < n; i++) {
            awaitCache();
            now.addAndGet(1_000);
            controller.reconcileOnce();
        }
    }

    /** Waits until the controller's pod cache (an informer) holds what the server holds: the passes then see the same. */
    private void awaitCache() {
        java.util.function.Function<List<Pod>, Map<String, String>> versions = l -> {
            Map<String, String> m = new java.util.TreeMap<>();
            l.forEach(p -> m.put(p.getMetadata().getName(), p.getMetadata().getResourceVersion()));
            return m;
        };
        for (int i = 0; i < 200 && !versions.apply(controller.cachedPods()).equals(versions.apply(client.pods().inNamespace("default").list().getItems())); i++) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The JSON Pointers under spec and metadata.annotations where two pods differ. */
    private static TreeSet<String> changed(Pod before, Pod after) {
        TreeSet<String> out = new TreeSet<>();
        JsonNode a = Specs.toJson(before);
        JsonNode b = Specs.toJson(after);
        for (String top : List.of("spec", "metadata/annotations")) {
            JsonNode x = a.at("/" + top);
            JsonNode y = b.at("/" + top);
            TreeSet<String> keys = new TreeSet<>();
            x.fieldNames().forEachRemaining(keys::add);
            y.fieldNames().forEachRemaining(keys::add);
            keys.stream().filter(k -> !x.path(k).equals(y.path(k))).forEach(k -> out.add("/" + top + "/" + k));
        }
        return out;
    }

    @Test
    void aGroupWaitsWhole_isAdmittedTogether_preemptedAndRequeued_andFinishes() throws java.io.IOException {
        pod("train", 0, 3, "8", null);
        pod("train", 1, 3, "8", null);
        reconcile(2);
        assertThat(controller.status("default", "train")).as("2 of 3 pods: not queued yet").isEmpty();
        assertThat(pods("train")).allMatch(PodGroupControllerTest::gated);

        pod("train", 2, 3, "8", null);
        Pod before = pods("train").get(0);
        reconcile(1);
        assertThat(pods("train")).as("admitted whole: every pod ungated").noneMatch(PodGroupControllerTest::gated);
        for (Pod p : pods("train")) {
            assertThat(p.getSpec().getNodeSelector()).containsEntry("pool", "spot").containsKey("kubernetes.io/hostname");
            assertThat(p.getSpec().getTolerations()).extracting(t -> t.getKey()).contains("spot");
        }
        assertThat(pods("train")).extracting(p -> p.getSpec().getNodeSelector().get("kubernetes.io/hostname")).containsOnly("n1", "n2");
        Pod after = pods("train").stream().filter(p -> p.getMetadata().getName().equals(before.getMetadata().getName())).findFirst().orElseThrow();
        assertThat(changed(before, after)).as("only the Pod fields a gated pod may change, and Fairway's annotation")
                .isSubsetOf("/spec/nodeSelector", "/spec/tolerations", "/spec/schedulingGates", "/metadata/annotations/" + PodGroupController.ADMITTED_ANNOTATION);

        phase("train", "Running");
        reconcile(1);
        assertThat(controller.status("default", "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);

        // a higher-priority group needs 16 of the 32 cores in use: the whole lower group is preempted, its pods deleted
        pod("urgent", 0, 2, "8", "high");
        pod("urgent", 1, 2, "8", "high");
        reconcile(1);
        assertThat(pods("train")).as("preempted: pods deleted").isEmpty();
        assertThat(controller.status("default", "train").orElseThrow().state().isTerminal()).isTrue();
        assertThat(pods("urgent")).noneMatch(PodGroupControllerTest::gated);

        // its creator recreates the pods, gated: the group queues again and waits for room
        for (int i = 0; i < 3; i++) {
            pod("train", i, 3, "8", null);
        }
        reconcile(1);
        assertThat(controller.status("default", "train").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(pods("train")).allMatch(PodGroupControllerTest::gated);

        phase("urgent", "Succeeded");
        reconcile(2);
        assertThat(pods("train")).noneMatch(PodGroupControllerTest::gated);
        phase("train", "Succeeded");
        reconcile(2);
        assertThat(controller.status("default", "train").orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(audit.used).as("deploy/rbac-podgroups.yaml grants exactly the verbs the controller used")
                .isEqualTo(io.fairway.k8s.audit.RbacAudit.granted(java.nio.file.Path.of("..", "deploy", "rbac-podgroups.yaml")));
        java.nio.file.Path namespaced = java.nio.file.Path.of("..", "deploy", "namespaced", "rbac-podgroups.yaml");
        assertThat(audit.denied(namespaced, Map.of("team-a", "default"))).as("the namespaced install's Role (in the managed namespace) and read-only ClusterRole allow every request where it was made").isEmpty();
        assertThat(io.fairway.k8s.audit.RbacAudit.granted(namespaced)).as("and grant exactly the verbs used").isEqualTo(audit.used);
    }

    @Test
    void theExampleManifestIsOneGroupOfThreeGatedPods() throws java.io.IOException {
        List<Pod> pods = new java.util.ArrayList<>();
        try (var it = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readerFor(Pod.class)
                .<Pod>readValues(java.nio.file.Path.of("..", "deploy", "examples", "pod-group.yaml").toFile())) {
            it.forEachRemaining(pods::add);
        }
        assertThat(pods).hasSize(3).allSatisfy(p -> {
            assertThat(p.getMetadata().getLabels()).containsEntry(PodGroupController.GROUP_LABEL, "allreduce");
            assertThat(p.getMetadata().getAnnotations()).containsEntry(PodGroupController.TOTAL_COUNT_ANNOTATION, "3");
            assertThat(p.getSpec().getSchedulingGates()).extracting(g -> g.getName()).containsExactly(PodGroupController.GATE);
        });
    }

    @Test
    void aKueueStyleGroupGatedByKueuesGateIsQueuedAndUngatedAndPodsAreNeverListedPerPass() {
        for (int i = 0; i < 2; i++) {
            client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("kq-" + i).withNamespace("default")
                    .addToLabels("kueue.x-k8s.io/pod-group-name", "kq").addToLabels("kueue.x-k8s.io/queue-name", "user-queue")
                    .addToAnnotations("kueue.x-k8s.io/pod-group-total-count", "2").endMetadata()
                    .withNewSpec().addNewSchedulingGate().withName("kueue.x-k8s.io/admission").endSchedulingGate()
                    .addNewContainer().withName("main").withImage("busybox").withNewResources().addToRequests("cpu", new Quantity("4")).endResources()
                    .endContainer().endSpec().withNewStatus().withPhase("Pending").endStatus().build()).create();
        }
        reconcile(3);
        assertThat(controller.status("default", "kq")).as("queued under Kueue's keys and gate").isPresent();
        assertThat(pods("kq")).as("admitted: Kueue's gate removed, so the pods are not stuck").noneMatch(PodGroupControllerTest::gated)
                .allSatisfy(p -> assertThat(p.getSpec().getNodeSelector()).containsEntry("pool", "spot"));
        assertThat(audit.used).as("pods come from the informer: one list and a watch, no list per pass").contains("core/pods:watch");
        assertThat(listRequests.get()).as("pod LIST requests over 3 passes").isEqualTo(1);
    }

    @Test
    void aMalformedTotalCountIsNotQueued() {
        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("odd-0").withNamespace("default")
                .addToLabels(PodGroupController.GROUP_LABEL, "odd").addToLabels("fairway.io/queue-name", "user-queue")
                .addToAnnotations(PodGroupController.TOTAL_COUNT_ANNOTATION, "many").endMetadata()
                .withNewSpec().addNewSchedulingGate().withName(PodGroupController.GATE).endSchedulingGate()
                .addNewContainer().withName("main").withImage("busybox").endContainer().endSpec().build()).create();
        reconcile(2);
        assertThat(controller.status("default", "odd")).isEmpty();
        assertThat(pods("odd")).allMatch(PodGroupControllerTest::gated);
    }

    @Test
    void aPodThatOnlyClaimsAnAdmissionIsNotTakenForOneTheEngineAccountsFor() {
        // created ungated with Fairway's admission annotation (no webhook to refuse it here): it runs, and its use of
        // its node must count as another workload's, not vanish as if the engine held it
        Pod forged = client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("sneaky").withNamespace("default")
                .addToLabels("kueue.x-k8s.io/queue-name", "user-queue").addToAnnotations(PodGroupController.ADMITTED_ANNOTATION, "cq/spot/n1").endMetadata()
                .withNewSpec().withNodeName("n1").addNewContainer().withName("main").withImage("busybox").withNewResources()
                .addToRequests("cpu", new Quantity("16")).endResources().endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build())
                .create();
        reconcile(2);
        assertThat(controller.manages(forged)).isFalse();
        assertThat(controller.status("default", "pod:sneaky")).as("and it is not queued").isEmpty();

        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("honest").withNamespace("default")
                .addToLabels("kueue.x-k8s.io/queue-name", "user-queue").endMetadata()
                .withNewSpec().addNewSchedulingGate().withName(PodGroupController.GATE).endSchedulingGate().addNewContainer().withName("main")
                .withImage("busybox").withNewResources().addToRequests("cpu", new Quantity("4")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Pending").endStatus().build()).create();
        reconcile(2);
        Pod admitted = client.pods().inNamespace("default").withName("honest").get();
        assertThat(admitted.getSpec().getSchedulingGates()).as("a single gated pod is a group of one, admitted").isEmpty();
        assertThat(controller.manages(admitted)).as("one the engine holds").isTrue();
    }
}
