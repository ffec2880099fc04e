package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fairway.k8s.audit.CrdSchemas;
import io.fairway.k8s.audit.RuleServer;
import io.fairway.k8s.integration.Specs;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tests' API server refuses what a real kube-apiserver refuses (the rules the adapter's writes must obey) and
 * injects the faults a real one has. Each refusal here is one a plain fabric8 mock server accepts.
 */
class RuleServerTest {
    private final MockCluster cluster = new MockCluster();
    private final KubernetesClient client = cluster.client;

    @AfterEach
    void stop() {
        cluster.close();
    }

    private Job job(String name, boolean suspend) {
        return cluster.createJob(cluster.jobBuilder("default", name, "q", 2, "1", 0, suspend).build());
    }

    private Job patch(String name, String jsonPatch) {
        return client.batch().v1().jobs().inNamespace("default").withName(name).patch(PatchContext.of(PatchType.JSON), jsonPatch);
    }

    private void start(String name) {
        client.batch().v1().jobs().inNamespace("default").withName(name)
                .editStatus(j -> new JobBuilder(j).editOrNewStatus().withStartTime("2026-01-01T00:00:00Z").endStatus().build());
    }

    private static int code(Throwable e) {
        return ((KubernetesClientException) e).getCode();
    }

    @Test
    void aJobsSchedulingDirectivesChangeOnlyWhileTheStoredJobIsSuspendedAndHasNotStarted() {
        job("j", true);
        String selector = "[{\"op\":\"add\",\"path\":\"/spec/template/spec/nodeSelector\",\"value\":{\"pool\":\"a\"}}]";
        assertThat(patch("j", selector).getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry("pool", "a");
        // admission: the directives and suspend=false in one write (the rule reads the stored Job)
        patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false},"
                + "{\"op\":\"add\",\"path\":\"/spec/template/spec/schedulingGates\",\"value\":[{\"name\":\"g\"}]}]");
        // eviction in one write (suspend and restore): refused, the stored Job is not suspended
        assertThatThrownBy(() -> patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":true},"
                + "{\"op\":\"remove\",\"path\":\"/spec/template/spec/schedulingGates\"}]")).satisfies(e -> assertThat(code(e)).isEqualTo(422))
                .hasMessageContaining("spec.template");
        start("j");
        patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":true}]");
        // suspended but started: the template stays fixed until status.startTime is cleared
        assertThatThrownBy(() -> patch("j", "[{\"op\":\"remove\",\"path\":\"/spec/template/spec/schedulingGates\"}]"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422)).hasMessageContaining("startTime");
        client.batch().v1().jobs().inNamespace("default").withName("j").subresource("status")
                .patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/status/startTime\"}]");
        assertThat(patch("j", "[{\"op\":\"remove\",\"path\":\"/spec/template/spec/schedulingGates\"}]").getSpec().getTemplate().getSpec()
                .getSchedulingGates()).isNullOrEmpty();
        // never: the containers, whatever the state
        assertThatThrownBy(() -> patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/image\",\"value\":\"other\"}]"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422));
        assertThat(cluster.rules.refusals()).hasSize(3);
    }

    @Test
    void immutableFieldsStayAsCreated() {
        job("j", true);
        assertThatThrownBy(() -> patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/completionMode\",\"value\":\"NonIndexed\"}]"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422));
        assertThatThrownBy(() -> patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/completions\",\"value\":5}]"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422)).hasMessageContaining("in tandem with spec.parallelism");
        // an Indexed Job's completions change in tandem with its parallelism; parallelism alone any time
        patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/completions\",\"value\":3},{\"op\":\"replace\",\"path\":\"/spec/parallelism\",\"value\":3}]");
        assertThat(patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/parallelism\",\"value\":1}]").getSpec().getParallelism()).isEqualTo(1);
    }

    @Test
    void startTimeIsClearedOnlyOnceTheSuspensionIsStored() {
        job("j", false);
        start("j");
        var status = client.batch().v1().jobs().inNamespace("default").withName("j").subresource("status");
        assertThatThrownBy(() -> status.patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/status/startTime\"}]"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422)).hasMessageContaining("startTime cannot be removed");
        patch("j", "[{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":true}]");
        status.patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/status/startTime\"}]");
        assertThat(cluster.job("default", "j").getStatus().getStartTime()).isNull();
    }

    @Test
    void statusIsWrittenOnlyThroughTheStatusSubresource() {
        job("j", true);
        start("j");
        // the main resource: the status in the request is ignored, the spec taken
        Job j = client.batch().v1().jobs().inNamespace("default").withName("j").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"parallelism\":1},\"status\":{\"startTime\":null,\"active\":7}}");
        assertThat(j.getSpec().getParallelism()).isEqualTo(1);
        assertThat(j.getStatus().getStartTime()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(j.getStatus().getActive()).isNull();
        // the status subresource: the spec in the request is ignored
        Job s = client.batch().v1().jobs().inNamespace("default").withName("j").subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"parallelism\":9},\"status\":{\"active\":1}}");
        assertThat(s.getSpec().getParallelism()).isEqualTo(1);
        assertThat(s.getStatus().getActive()).isEqualTo(1);
        // a create drops the status
        Job created = cluster.createJob(new JobBuilder(cluster.jobBuilder("default", "k", "q", 1, "1", 0, true).build()).withNewStatus()
                .withStartTime("2026-01-01T00:00:00Z").endStatus().build());
        assertThat(created.getStatus() == null || created.getStatus().getStartTime() == null).isTrue();
    }

    @Test
    void aStaleResourceVersionConflictsAndAFailedTestOperationIsRefused() {
        ConfigMap cm = client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("c").endMetadata()
                .addToData("k", "1").build()).create();
        client.configMaps().inNamespace("default").withName("c").edit(c -> new ConfigMapBuilder(c).addToData("k", "2").build());
        cm.getData().put("k", "3");
        assertThatThrownBy(() -> client.configMaps().inNamespace("default").resource(cm).update())
                .satisfies(e -> assertThat(code(e)).isEqualTo(409));
        // the plain mock server never answers a failed "test": this one refuses it at once, as a real one does
        assertThatThrownBy(() -> client.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + cm.getMetadata().getResourceVersion() + "\"},"
                        + "{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"4\"}]")).satisfies(e -> assertThat(code(e)).isEqualTo(422));
        // an "add" below a member that does not exist is refused (RFC 6902), as on a real server
        assertThatThrownBy(() -> client.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/metadata/annotations/a\",\"value\":\"x\"}]")).satisfies(e -> assertThat(code(e)).isEqualTo(422));
        assertThat(client.configMaps().inNamespace("default").withName("c").get().getData()).containsEntry("k", "2");
    }

    @Test
    void aMergePatchNullRemovesTheField() {
        client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("c")
                .addToAnnotations("x", "1").addToAnnotations("y", "2").endMetadata().build()).create();
        ConfigMap c = client.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"annotations\":{\"x\":null}}}");
        assertThat(c.getMetadata().getAnnotations()).isEqualTo(Map.of("y", "2"));
    }

    @Test
    void aCrdKindsFieldsNotInItsUpstreamSchemaAreRefused() {
        CrdSchemas.requireShared();
        ResourceDefinitionContext trainJobs = new ResourceDefinitionContext.Builder().withGroup("trainer.kubeflow.org").withVersion("v1alpha1")
                .withKind("TrainJob").withPlural("trainjobs").withNamespaced(true).build();
        GenericKubernetesResource tj = Specs.MAPPER.convertValue(Map.of("apiVersion", "trainer.kubeflow.org/v1alpha1", "kind", "TrainJob",
                "metadata", Map.of("name", "t", "namespace", "default"),
                "spec", Map.of("runtimeRef", Map.of("name", "torch"), "suspend", true,
                        "podSpecOverrides", java.util.List.of(Map.of("targetJobs", java.util.List.of(Map.of("name", "node")))))),
                GenericKubernetesResource.class);
        // podSpecOverrides exists in Trainer v2.0 only: v2.3's API server would prune it
        assertThatThrownBy(() -> client.genericKubernetesResources(trainJobs).inNamespace("default").resource(tj).create())
                .satisfies(e -> assertThat(code(e)).isEqualTo(422)).hasMessageContaining("spec.podSpecOverrides: unknown field");
        ((Map<String, Object>) tj.getAdditionalProperties().get("spec")).remove("podSpecOverrides");
        client.genericKubernetesResources(trainJobs).inNamespace("default").resource(tj).create();
        assertThatThrownBy(() -> client.genericKubernetesResources(trainJobs).inNamespace("default").withName("t")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"trainer\":{\"numNodes\":\"two\"}}}"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422)).hasMessageContaining("must be an integer");
    }

    @Test
    void aTrainJobsRuntimePatchesChangeOnlyWhileSuspendedAndItsJobSetHasNoActivePods() {
        CrdSchemas.requireShared();
        ResourceDefinitionContext trainJobs = new ResourceDefinitionContext.Builder().withGroup("trainer.kubeflow.org").withVersion("v1alpha1")
                .withKind("TrainJob").withPlural("trainjobs").withNamespaced(true).build();
        ResourceDefinitionContext jobSets = new ResourceDefinitionContext.Builder().withGroup("jobset.x-k8s.io").withVersion("v1alpha2")
                .withKind("JobSet").withPlural("jobsets").withNamespaced(true).build();
        client.genericKubernetesResources(trainJobs).inNamespace("default").resource(Specs.MAPPER.convertValue(Map.of(
                "apiVersion", "trainer.kubeflow.org/v1alpha1", "kind", "TrainJob", "metadata", Map.of("name", "t", "namespace", "default"),
                "spec", Map.of("runtimeRef", Map.of("name", "torch"), "suspend", false)), GenericKubernetesResource.class)).create();
        // the JobSet the trainer built for it, with two active pods in its "node" replicated job
        client.genericKubernetesResources(jobSets).inNamespace("default").resource(Specs.MAPPER.convertValue(Map.of(
                "apiVersion", "jobset.x-k8s.io/v1alpha2", "kind", "JobSet", "metadata", Map.of("name", "t", "namespace", "default"),
                "spec", Map.of("replicatedJobs", java.util.List.of())), GenericKubernetesResource.class)).create();
        String active = "{\"status\":{\"replicatedJobsStatus\":[{\"name\":\"node\",\"ready\":0,\"succeeded\":0,\"failed\":0,"
                + "\"suspended\":0,\"active\":%d}]}}";
        client.genericKubernetesResources(jobSets).inNamespace("default").withName("t").subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), String.format(active, 2));
        String patches = "{\"spec\":{\"runtimePatches\":[{\"manager\":\"example.com/m\",\"trainingRuntimeSpec\":{\"template\":{\"spec\":"
                + "{\"replicatedJobs\":[{\"name\":\"node\",\"template\":{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}}}}]}}}}]}}";
        var tj = client.genericKubernetesResources(trainJobs).inNamespace("default").withName("t");
        // running: refused
        assertThatThrownBy(() -> tj.patch(PatchContext.of(PatchType.JSON_MERGE), patches)).satisfies(e -> assertThat(code(e)).isEqualTo(422))
                .hasMessageContaining("RuntimePatches can only be modified when the TrainJob is suspended before or after the update");
        // suspended in the same write, or already suspended, but the JobSet's pods still run: refused
        assertThatThrownBy(() -> tj.patch(PatchContext.of(PatchType.JSON_MERGE), patches.replace("{\"spec\":{", "{\"spec\":{\"suspend\":true,")))
                .satisfies(e -> assertThat(code(e)).isEqualTo(422)).hasMessageContaining("ReplicatedJob node is still active");
        tj.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"suspend\":true}}");
        assertThatThrownBy(() -> tj.patch(PatchContext.of(PatchType.JSON_MERGE), patches)).satisfies(e -> assertThat(code(e)).isEqualTo(422))
                .hasMessageContaining("ReplicatedJob node is still active");
        assertThat(Specs.at(tj.get(), "/spec/runtimePatches").isMissingNode()).isTrue();
        // the JobSet's pods are gone: accepted; and resuming with the patch in the same write is accepted too
        client.genericKubernetesResources(jobSets).inNamespace("default").withName("t").subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), String.format(active, 0));
        tj.patch(PatchContext.of(PatchType.JSON_MERGE), patches);
        assertThat(Specs.at(tj.get(), "/spec/runtimePatches/0/manager").asText()).isEqualTo("example.com/m");
        tj.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"suspend\":false,\"runtimePatches\":null}}");
        assertThat(Specs.at(tj.get(), "/spec/runtimePatches").isMissingNode()).isTrue();
    }

    @Test
    void faultsHitOnlyTheFaultyClientsAndATimeoutMayHaveApplied() {
        KubernetesClient adapterClient = cluster.newClient();
        client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("c").endMetadata()
                .addToData("k", "1").build()).create();
        java.util.concurrent.atomic.AtomicReference<RuleServer.Fault> next = new java.util.concurrent.atomic.AtomicReference<>(RuleServer.Fault.NONE);
        cluster.rules.faults((method, path) -> method.equals("PATCH") ? next.getAndSet(RuleServer.Fault.NONE) : RuleServer.Fault.NONE);
        // the client retries a 5xx once (MockCluster's adapter clients): the retry finds the write applied
        next.set(RuleServer.Fault.TIMEOUT_APPLIED);
        adapterClient.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"2\"}}");
        assertThat(client.configMaps().inNamespace("default").withName("c").get().getData()).containsEntry("k", "2");
        next.set(RuleServer.Fault.ERROR_500);
        adapterClient.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"3\"}}");
        assertThat(cluster.rules.injected()).isEqualTo(2);
        // a fault every time: the error reaches the caller
        cluster.rules.faults((method, path) -> method.equals("PATCH") ? RuleServer.Fault.CONFLICT : RuleServer.Fault.NONE);
        assertThatThrownBy(() -> adapterClient.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"data\":{\"k\":\"4\"}}")).satisfies(e -> assertThat(code(e)).isEqualTo(409));
        // the test's own client is never hit
        client.configMaps().inNamespace("default").withName("c").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"5\"}}");
        assertThat(client.configMaps().inNamespace("default").withName("c").get().getData()).containsEntry("k", "5");
    }

    @Test
    void aDroppedWatchIsResumedAndTheInformerCatchesUp() throws Exception {
        KubernetesClient watcher = cluster.newClient();
        SharedIndexInformer<ConfigMap> inf = watcher.configMaps().inNamespace("default").inform();
        try {
            client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("a").endMetadata().build()).create();
            MockCluster.until(() -> inf.getStore().getByKey("default/a") != null, "the informer sees a");
            cluster.rules.dropWatches();
            client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("b").endMetadata().build()).create();
            MockCluster.until(() -> inf.getStore().getByKey("default/b") != null, "the informer sees b after its watch was dropped");
        } finally {
            inf.close();
            inf.stopped().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
