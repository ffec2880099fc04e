package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.k8s.audit.CrdSchemas;
import io.fairway.k8s.audit.MockServers;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.podgroup.PodGroupController;
import io.fairway.k8s.webhook.PodGateWebhook;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kinds Kueue queues through their pods — single plain pods, Deployments, StatefulSets and LeaderWorkerSets —
 * admitted, preempted and resumed end to end on the tests' API server, which calls Fairway's mutating webhook as
 * kube-apiserver does (so every pod is gated by the webhook, not by the test) and refuses what kube-apiserver refuses
 * of pods (a gate added, a node selector changed after the gate is gone, a node named on a gated pod). The test plays
 * the users and the workload controllers (ReplicaSet, StatefulSet, LeaderWorkerSet), creating pods from the
 * templates as the webhook left them. 16 cores in one ClusterQueue of 32: a pod of priority class {@code high} that
 * needs room preempts.
 */
class QueuedPodKindsTest {
    static final String FAIRWAY = "system:serviceaccount:fairway-system:fairway-controller";
    private final MockCluster cluster = new MockCluster();
    private final io.fairway.k8s.audit.RbacAudit audit = new io.fairway.k8s.audit.RbacAudit();
    private FairwayAdapter adapter;

    @BeforeEach
    void start() {
        cluster.rules.mutatingWebhook(new PodGateWebhook(ns -> true, List.of(FAIRWAY))::review, FAIRWAY);
        cluster.node("n1", 16, 64, 0, Map.of("fairway.io/pool", "general"));
        MockServers.priorityClass(cluster.client, "high", 100);
        // the adapter's client: the server's faulty-client header (so reviews name Fairway's service account), audited
        io.fabric8.kubernetes.client.KubernetesClient client = cluster.server.createClient(b -> b.editOrNewConfig().addToCustomHeaders("X-Fairway-Faulty", "1")
                .endConfig().withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("rbac-audit", new io.fabric8.kubernetes.client.http.Interceptor() {
                    @Override
                    public void before(io.fabric8.kubernetes.client.http.BasicBuilder builder, io.fabric8.kubernetes.client.http.HttpRequest request,
                                       io.fabric8.kubernetes.client.http.Interceptor.RequestTags tags) {
                        audit.record(request);
                    }
                })));
        adapter = new FairwayAdapter(client, AdapterOptions.builder().queues(MockCluster.config(JobLifecycleTest.PREEMPTING))
                .integrations(List.of("batch/v1.Job", "pod-groups")).build(), null).start();
    }

    @AfterEach
    void stop() {
        if (adapter != null) {
            adapter.close();
        }
        cluster.close();
    }

    private static Map<String, Quantity> cpu(String n) {
        return Map.of("cpu", new Quantity(n));
    }

    private Pod create(Pod p) {
        return cluster.client.pods().inNamespace("default").resource(p).create();
    }

    private Optional<Pod> pod(String name) {
        return Optional.ofNullable(cluster.client.pods().inNamespace("default").withName(name).get());
    }

    private boolean admitted(String name) {
        return pod(name).map(p -> !Kube.hasGate(p) && p.getSpec().getNodeSelector() != null
                && "n1".equals(p.getSpec().getNodeSelector().get("kubernetes.io/hostname"))).orElse(false);
    }

    private boolean gatedByWebhook(String name) {
        return pod(name).map(p -> p.getSpec().getSchedulingGates() != null
                && p.getSpec().getSchedulingGates().stream().anyMatch(g -> g.getName().equals(PodGroupController.GATE))).orElse(false);
    }

    /** The kubelet's part: bind to the selected node and move to a phase. */
    private void phase(String name, String phase) {
        Pod p = pod(name).orElseThrow();
        String node = p.getSpec().getNodeSelector().get("kubernetes.io/hostname");
        if (p.getSpec().getNodeName() == null) {
            cluster.client.pods().inNamespace("default").withName(name).edit(x -> new PodBuilder(x).editSpec().withNodeName(node).endSpec().build());
        }
        cluster.client.pods().inNamespace("default").withName(name).editStatus(x -> new PodBuilder(x).editOrNewStatus().withPhase(phase).endStatus().build());
    }

    private Optional<JobStatus> run(String groupKey, int run) {
        return adapter.scheduler().status("podgroup:default/" + groupKey + "#" + run);
    }

    /** A pod as a user (or a controller from a template) creates it: a queue label and nothing of Fairway's. */
    private static Pod userPod(String name, String cpu, String priorityClass, Map<String, String> labels) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").withLabels(labels).endMetadata()
                .withNewSpec().withPriorityClassName(priorityClass).addNewContainer().withName("main").withImage("busybox")
                .withNewResources().withRequests(cpu(cpu)).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Pending").endStatus().build();
    }

    /** A high-priority single pod of 8 cores that needs room, run to completion; the room it took is then free. */
    private void urgent(String name, String cpu, Runnable whileItRuns) {
        create(userPod(name, cpu, "high", Map.of("kueue.x-k8s.io/queue-name", "q")));
        reconcileUntil(adapter, () -> admitted(name), name + " is admitted");
        phase(name, "Running");
        whileItRuns.run();
        phase(name, "Succeeded");
        reconcileUntil(adapter, () -> run("pod:" + name, 1).map(s -> s.state() == JobState.SUCCEEDED).orElse(false), name + " finishes");
    }

    @Test
    void aSinglePlainPodIsGatedByTheWebhookAdmittedPreemptedAndResumedWhenRecreated() {
        create(userPod("solo", "12", null, Map.of("kueue.x-k8s.io/queue-name", "q")));
        assertThat(gatedByWebhook("solo")).as("the API server's call to the webhook gated it").isTrue();
        reconcileUntil(adapter, () -> admitted("solo"), "the pod is admitted");
        assertThat(pod("solo").orElseThrow().getSpec().getNodeSelector()).containsEntry("fairway.io/pool", "general");
        assertThat(pod("solo").orElseThrow().getSpec().getTolerations()).extracting(t -> t.getKey()).contains("fairway.io/batch");
        phase("solo", "Running");
        reconcileUntil(adapter, () -> run("pod:solo", 1).orElseThrow().state() == JobState.RUNNING, "it runs");

        urgent("urgent", "8", () -> {
            assertThat(pod("solo")).as("preempted: a pod cannot be suspended, so it is deleted").isEmpty();
            // its owner (here the user) creates it again: gated by the webhook, it queues and waits for room
            create(userPod("solo", "12", null, Map.of("kueue.x-k8s.io/queue-name", "q")));
            reconcileUntil(adapter, () -> run("pod:solo", 2).isPresent(), "the recreated pod queues");
            adapter.reconcileOnce();
            assertThat(gatedByWebhook("solo")).isTrue();
            assertThat(run("pod:solo", 2).orElseThrow().state()).as("and waits: the urgent pod holds the room").isEqualTo(JobState.PENDING);
        });
        reconcileUntil(adapter, () -> admitted("solo"), "resumed once the room is free");
        phase("solo", "Succeeded");
        reconcileUntil(adapter, () -> run("pod:solo", 2).orElseThrow().state() == JobState.SUCCEEDED, "and finishes");
    }

    @Test
    void aDeploymentsPodsAreQueuedOneByOneAndAPreemptedPodsReplacementResumes() {
        Deployment d = cluster.client.apps().deployments().inNamespace("default").resource(new DeploymentBuilder().withNewMetadata().withName("web")
                .withNamespace("default").addToLabels("kueue.x-k8s.io/queue-name", "q").endMetadata().withNewSpec().withReplicas(2)
                .withNewSelector().addToMatchLabels("app", "web").endSelector().withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata()
                .withNewSpec().addNewContainer().withName("nginx").withImage("nginx").withNewResources().withRequests(cpu("6")).endResources().endContainer()
                .endSpec().endTemplate().endSpec().build()).create();
        PodTemplateSpec t = d.getSpec().getTemplate();
        assertThat(t.getMetadata().getLabels()).as("the webhook carried the queue into the pod template").containsEntry("kueue.x-k8s.io/queue-name", "q");
        // the ReplicaSet controller's part: pods from the template
        java.util.function.Consumer<String> replica = name -> create(new PodBuilder().withMetadata(new ObjectMeta()).editMetadata().withName(name)
                .withNamespace("default").withLabels(t.getMetadata().getLabels()).endMetadata().withSpec(t.getSpec()).withNewStatus().withPhase("Pending")
                .endStatus().build());
        replica.accept("web-a");
        replica.accept("web-b");
        reconcileUntil(adapter, () -> admitted("web-a") && admitted("web-b"), "each pod admitted on its own");
        phase("web-a", "Running");
        phase("web-b", "Running");
        urgent("urgent", "8", () -> {
            assertThat(pod("web-a").isPresent() && pod("web-b").isPresent()).as("one of the two pods was preempted (6 + 6 + 8 > 16)").isFalse();
            replica.accept("web-c"); // the ReplicaSet replaces it
            adapter.reconcileOnce();
            assertThat(gatedByWebhook("web-c")).as("the replacement waits").isTrue();
        });
        reconcileUntil(adapter, () -> admitted("web-c"), "the replacement is admitted once the room is free");
        // scaled in: the ReplicaSet deletes a pod, and its quota is released
        cluster.client.pods().inNamespace("default").withName("web-c").delete();
        reconcileUntil(adapter, () -> run("pod:web-c", 1).map(s -> !s.state().holdsResources()).orElse(false), "a deleted pod's quota is released");
        assertThat(audit.used).as("Deployments need no RBAC beyond the pod groups': the controller never reads them").noneMatch(r -> r.startsWith("apps/"));
    }

    @Test
    void aStatefulSetIsOneServingGroupAdmittedFromItsFirstPodPreemptedWholeAndResumed() {
        StatefulSet sts = cluster.client.apps().statefulSets().inNamespace("default").resource(new StatefulSetBuilder().withNewMetadata().withName("db")
                .withNamespace("default").addToLabels("fairway.io/queue-name", "q").endMetadata().withNewSpec().withReplicas(3).withServiceName("db")
                .withNewSelector().addToMatchLabels("app", "db").endSelector().withNewTemplate().withNewMetadata().addToLabels("app", "db").endMetadata()
                .withNewSpec().addNewContainer().withName("db").withImage("postgres").withNewResources().withRequests(cpu("4")).endResources().endContainer()
                .endSpec().endTemplate().endSpec().build()).create();
        PodTemplateSpec t = sts.getSpec().getTemplate();
        assertThat(t.getMetadata().getAnnotations()).containsEntry(PodGroupController.TOTAL_COUNT_ANNOTATION, "3")
                .containsEntry(PodGroupController.FAST_ADMISSION_ANNOTATION, "true");
        // the StatefulSet controller's part (OrderedReady): db-0, then db-1 once db-0 runs, then db-2
        java.util.function.Consumer<Integer> ordinal = i -> create(new PodBuilder().withNewMetadata().withName("db-" + i).withNamespace("default")
                .withLabels(t.getMetadata().getLabels()).addToLabels("apps.kubernetes.io/pod-index", Integer.toString(i))
                .withAnnotations(t.getMetadata().getAnnotations()).endMetadata().withSpec(t.getSpec()).withNewStatus().withPhase("Pending").endStatus().build());
        ordinal.accept(0);
        reconcileUntil(adapter, () -> admitted("db-0"), "admitted from its first pod");
        assertThat(run("db", 1).orElseThrow().spec().podSets().get(0).count()).as("the whole StatefulSet's room is reserved").isEqualTo(3);
        phase("db-0", "Running");
        ordinal.accept(1);
        reconcileUntil(adapter, () -> admitted("db-1"), "the next pod is placed in the admitted group");
        phase("db-1", "Running");
        ordinal.accept(2);
        reconcileUntil(adapter, () -> admitted("db-2"), "and the last");
        phase("db-2", "Running");
        reconcileUntil(adapter, () -> run("db", 1).orElseThrow().state() == JobState.RUNNING, "the group runs");
        // a pod replaced while it serves (deleted and recreated under its name) goes back without a new run
        cluster.client.pods().inNamespace("default").withName("db-1").delete();
        MockCluster.until(() -> pod("db-1").isEmpty(), "db-1 is gone");
        ordinal.accept(1);
        reconcileUntil(adapter, () -> admitted("db-1"), "the replacement is placed at once");
        assertThat(run("db", 2)).isEmpty();

        urgent("urgent", "8", () -> {
            assertThat(List.of("db-0", "db-1", "db-2")).as("preempted whole: 12 + 8 > 16").allMatch(n -> pod(n).isEmpty());
            ordinal.accept(0); // the StatefulSet controller recreates its first pod
            adapter.reconcileOnce();
            assertThat(gatedByWebhook("db-0")).isTrue();
        });
        reconcileUntil(adapter, () -> admitted("db-0"), "resumed once the room is free");
        assertThat(run("db", 2).orElseThrow().state().holdsResources()).isTrue();
        assertThat(audit.used).as("StatefulSets need no RBAC beyond the pod groups': the controller never reads them").noneMatch(r -> r.startsWith("apps/"));
    }

    @Test
    void aLeaderWorkerSetGroupIsOneGangPerLeaderReadFromTheLeaderWorkerSetPreemptedAndResumed() throws java.io.IOException {
        CrdSchemas.requireShared();
        GenericKubernetesResource lws = Specs.MAPPER.convertValue(Map.of("apiVersion", "leaderworkerset.x-k8s.io/v1", "kind", "LeaderWorkerSet",
                "metadata", Map.of("name", "vllm", "namespace", "default", "labels", Map.of("kueue.x-k8s.io/queue-name", "q")),
                "spec", Map.of("replicas", 1, "leaderWorkerTemplate", Map.of("size", 3,
                        "leaderTemplate", Map.of("spec", Map.of("containers", List.of(Map.of("name", "leader", "image", "vllm",
                                "resources", Map.of("requests", Map.of("cpu", "2")))))),
                        "workerTemplate", Map.of("spec", Map.of("containers", List.of(Map.of("name", "worker", "image", "vllm",
                                "resources", Map.of("requests", Map.of("cpu", "4"))))))))), GenericKubernetesResource.class);
        var lwsOps = cluster.client.genericKubernetesResources(new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
                .withGroup("leaderworkerset.x-k8s.io").withVersion("v1").withKind("LeaderWorkerSet").withPlural("leaderworkersets").withNamespaced(true).build()).inNamespace("default");
        GenericKubernetesResource stored = lwsOps.resource(lws).create();
        PodTemplateSpec leaderT = Specs.template(stored, "/spec/leaderWorkerTemplate/leaderTemplate");
        PodTemplateSpec workerT = Specs.template(stored, "/spec/leaderWorkerTemplate/workerTemplate");
        assertThat(leaderT.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/queue-name", "q");
        assertThat(workerT.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/queue-name", "q");
        // LeaderWorkerSet's controllers' part: the leader pod of group 0, then its workers
        java.util.function.BiConsumer<Integer, PodTemplateSpec> member = (w, tt) -> create(new PodBuilder().withNewMetadata()
                .withName(w == 0 ? "vllm-0" : "vllm-0-" + w).withNamespace("default").withLabels(tt.getMetadata().getLabels())
                .addToLabels(PodGroupController.LWS_NAME_LABEL, "vllm").addToLabels(PodGroupController.LWS_GROUP_INDEX_LABEL, "0")
                .addToLabels(PodGroupController.LWS_WORKER_INDEX_LABEL, Integer.toString(w)).addToAnnotations(PodGroupController.LWS_SIZE_ANNOTATION, "3")
                .endMetadata().withSpec(tt.getSpec()).withNewStatus().withPhase("Pending").endStatus().build());
        member.accept(0, leaderT);
        reconcileUntil(adapter, () -> admitted("vllm-0"), "the leader is admitted with its group's whole room");
        JobStatus s = run("lws:vllm-0", 1).orElseThrow();
        assertThat(s.spec().podSets()).extracting(ps -> ps.name() + "x" + ps.count() + "@" + ps.resources().get("cpu"))
                .containsExactly("leaderx1@2000", "workerx2@4000");
        member.accept(1, workerT);
        member.accept(2, workerT);
        reconcileUntil(adapter, () -> admitted("vllm-0-1") && admitted("vllm-0-2"), "its workers are placed");
        for (String n : List.of("vllm-0", "vllm-0-1", "vllm-0-2")) {
            phase(n, "Running");
        }
        urgent("urgent", "8", () -> {
            assertThat(List.of("vllm-0", "vllm-0-1", "vllm-0-2")).as("preempted as one gang: 10 + 8 > 16").allMatch(n -> pod(n).isEmpty());
            member.accept(0, leaderT);
            adapter.reconcileOnce();
            assertThat(gatedByWebhook("vllm-0")).isTrue();
        });
        reconcileUntil(adapter, () -> admitted("vllm-0"), "resumed once the room is free");
        member.accept(1, workerT);
        member.accept(2, workerT);
        reconcileUntil(adapter, () -> admitted("vllm-0-1") && admitted("vllm-0-2"), "with its workers");

        java.util.Set<String> lwsVerbs = new java.util.TreeSet<>(audit.used);
        lwsVerbs.removeIf(r -> !r.startsWith("leaderworkerset.x-k8s.io/"));
        java.nio.file.Path deploy = java.nio.file.Path.of("..", "deploy");
        assertThat(lwsVerbs).as("deploy/integrations/leaderworkerset.yaml grants exactly what is used on LeaderWorkerSets")
                .isEqualTo(io.fairway.k8s.audit.RbacAudit.granted(deploy.resolve("integrations/leaderworkerset.yaml")))
                .isEqualTo(io.fairway.k8s.audit.RbacAudit.granted(deploy.resolve("namespaced/integrations/leaderworkerset.yaml")));
        java.util.Set<String> granted = new java.util.TreeSet<>();
        for (String f : List.of("rbac.yaml", "rbac-podgroups.yaml", "integrations/leaderworkerset.yaml")) {
            granted.addAll(io.fairway.k8s.audit.RbacAudit.granted(deploy.resolve(f)));
        }
        assertThat(granted).as("every request the controller made is granted").containsAll(audit.used);
    }
}
