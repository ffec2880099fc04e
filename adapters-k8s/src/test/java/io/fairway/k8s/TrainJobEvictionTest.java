package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.api.job.JobState;
import io.fairway.k8s.audit.CrdSchemas;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.SharedCrds;
import io.fairway.k8s.kinds.TrainJobIntegration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Preempting a running TrainJob on an API server that applies the Kubeflow Trainer webhook's rule: its
 * {@code spec.runtimePatches} change only while it is suspended and its JobSet has no active pods. The eviction
 * suspends it at once, keeps its admission recorded while the JobSet's pods still run, restores the spec exactly once
 * they are gone, and the TrainJob is admitted again afterwards — with no write the server refuses. On Trainer v2.0
 * ({@code spec.podSpecOverrides}, changed only on a TrainJob that stays suspended) admission writes the overrides
 * before it resumes.
 */
class TrainJobEvictionTest {
    private static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder().withGroup("jobset.x-k8s.io")
            .withVersion("v1alpha2").withKind("JobSet").withPlural("jobsets").withNamespaced(true).build();
    private final MockCluster cluster = new MockCluster();
    private FairwayAdapter adapter;
    private KindScenario s;

    @BeforeEach
    void runningTrainJob(org.junit.jupiter.api.TestInfo info) throws java.io.IOException {
        CrdSchemas.requireShared();
        if (info.getTestMethod().orElseThrow().getName().contains("TrainerV20")) {
            cluster.rules.trainerVersion("v2.0.0"); // spec.podSpecOverrides, changed only on a TrainJob that stays suspended
            cluster.client.apiextensions().v1().customResourceDefinitions().resource(Specs.MAPPER.convertValue(
                    SharedCrds.crd("trainer/v2.0.0/trainer.kubeflow.org_trainjobs.yaml"),
                    io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class)).create();
        }
        for (int i = 1; i <= 4; i++) {
            cluster.node("n" + i, 64, 512, 8, Map.of("fairway.io/pool", "gpu"));
        }
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        s = new KindScenario(cluster, "trainjob");
        adapter = new FairwayAdapter(cluster.newClient(), AdapterOptions.builder().queues(MockCluster.config(WorkloadKindsTest.KINDS))
                .integrations(List.of("batch/v1.Job", s.integration.name())).build(), null).start();
        reconcileUntil(adapter, () -> !s.suspended(), "the TrainJob is admitted");
        // the trainer builds its JobSet, whose pods run
        cluster.client.genericKubernetesResources(JOBSETS).inNamespace(s.ns()).resource(Specs.MAPPER.convertValue(Map.of(
                "apiVersion", "jobset.x-k8s.io/v1alpha2", "kind", "JobSet", "metadata", Map.of("name", s.name(), "namespace", s.ns()),
                "spec", Map.of("replicatedJobs", List.of())), GenericKubernetesResource.class)).create();
        s.createPods();
        activePods(s.pods().size());
        reconcileUntil(adapter, () -> s.pods().stream().noneMatch(Kube::hasGate), "every pod is bound");
    }

    @AfterEach
    void close() {
        if (adapter != null) {
            adapter.close();
        }
        cluster.close(); // fails the test if the server refused any write
    }

    /** The JobSet's status as the JobSet controller keeps it: active pods of its replicated job "node". */
    private void activePods(int n) {
        cluster.client.genericKubernetesResources(JOBSETS).inNamespace(s.ns()).withName(s.name()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"replicatedJobsStatus\":[{\"name\":\"node\",\"ready\":" + n
                        + ",\"succeeded\":0,\"failed\":0,\"suspended\":0,\"active\":" + n + "}]}}");
    }

    private void preempt() {
        cluster.createJob(cluster.jobBuilder("team-a", "urgent", "gpu", 1, "60", 8, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, s::suspended, "the TrainJob is suspended");
        assertThat(adapter.status(s.integration.name(), s.ns(), s.name()).orElseThrow().state()).isEqualTo(JobState.PENDING);
    }

    /** Its spec still carries Fairway's runtime patch and its admission is still recorded: the restore waits. */
    private void restoreWaits() {
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        GenericKubernetesResource o = s.now();
        assertThat(s.integration.isSuspended(o)).isTrue();
        assertThat(Specs.at(o, "/spec/runtimePatches/0/manager").asText()).isEqualTo(TrainJobIntegration.MANAGER);
        assertThat(o.getMetadata().getAnnotations()).containsKeys(Keys.ADMISSION_ANNOTATION, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
    }

    private void urgentDone() {
        reconcileUntil(adapter, () -> !suspended(cluster.job("team-a", "urgent")), "the urgent job runs");
        cluster.createPods("team-a", "urgent");
        reconcileUntil(adapter, () -> cluster.pods("team-a", "urgent").stream().noneMatch(Kube::hasGate), "the urgent job's pod is bound");
        cluster.setPhase("team-a", "urgent", "Succeeded");
    }

    private void readmittedAndFinished() {
        reconcileUntil(adapter, () -> !s.suspended(), "the TrainJob is admitted again");
        JsonNode patches = Specs.at(s.now(), "/spec/runtimePatches");
        assertThat(patches).as("exactly one entry of Fairway's").hasSize(1);
        assertThat(patches.get(0).path("manager").asText()).isEqualTo(TrainJobIntegration.MANAGER);
        s.finish();
        reconcileUntil(adapter, () -> adapter.status(s.integration.name(), s.ns(), s.name()).orElseThrow().state() == JobState.SUCCEEDED,
                "it finishes");
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void evictedWhileItsPodsRunItIsSuspendedAtOnceRestoredExactlyOnceTheyAreGoneAndAdmittedAgain() {
        preempt();
        restoreWaits();
        // the JobSet controller has deleted the pods
        s.deletePods();
        activePods(0);
        reconcileUntil(adapter, () -> s.now().getMetadata().getAnnotations() == null
                || !s.now().getMetadata().getAnnotations().containsKey(Keys.ADMISSION_ANNOTATION), "the eviction is finished");
        GenericKubernetesResource evicted = s.now();
        assertThat(s.integration.isSuspended(evicted)).isTrue();
        assertThat(Specs.at(evicted, "/spec")).as("the spec is what the author wrote").isEqualTo(Specs.at(s.created, "/spec"));
        assertThat(evicted.getMetadata().getAnnotations()).doesNotContainKeys(Keys.ORIGINAL_TEMPLATE_ANNOTATION, Keys.SEAL_ANNOTATION);
        urgentDone();
        readmittedAndFinished();
    }

    @Test
    void aReadmissionBeforeTheRestoreResumesItWithOneEntryAndALaterEvictionStillRestoresExactly() {
        preempt();
        GenericKubernetesResource held = s.now();
        assertThat(Specs.at(held, "/spec/runtimePatches/0/manager").asText()).isEqualTo(TrainJobIntegration.MANAGER);
        assertThat(held.getMetadata().getAnnotations()).containsKeys(Keys.ADMISSION_ANNOTATION, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        // the quota frees while the JobSet's pods still run: the engine admits it again with the same edits, which
        // leave runtimePatches as they are (the webhook accepts that), and no second entry is added
        urgentDone();
        reconcileUntil(adapter, () -> !s.suspended(), "the TrainJob is admitted again");
        assertThat(Specs.at(s.now(), "/spec/runtimePatches")).hasSize(1);
        // its record still holds what the author wrote: a later eviction, once the pods are gone, restores exactly
        s.deletePods();
        activePods(0);
        cluster.createJob(cluster.jobBuilder("team-a", "urgent2", "gpu", 1, "60", 8, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, () -> s.suspended() && Specs.at(s.now(), "/spec").equals(Specs.at(s.created, "/spec")),
                "the TrainJob is evicted and restored exactly");
        assertThat(s.now().getMetadata().getAnnotations()).doesNotContainKeys(Keys.ADMISSION_ANNOTATION, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void onTrainerV20TheOverridesAreWrittenBeforeTheResumeAndRestoredOnceThePodsAreGone() {
        assertThat(Specs.at(s.now(), "/spec/podSpecOverrides/0/targetJobs/0/name").asText()).isEqualTo(TrainJobIntegration.POD_SET);
        preempt();
        GenericKubernetesResource held = s.now();
        assertThat(Specs.at(held, "/spec/podSpecOverrides")).isNotEmpty();
        assertThat(held.getMetadata().getAnnotations()).containsKeys(Keys.ADMISSION_ANNOTATION);
        s.deletePods();
        activePods(0);
        reconcileUntil(adapter, () -> Specs.at(s.now(), "/spec").equals(Specs.at(s.created, "/spec")), "the overrides are restored exactly");
        assertThat(s.suspended()).isTrue();
        urgentDone();
        reconcileUntil(adapter, () -> !s.suspended(), "the TrainJob is admitted again");
        assertThat(Specs.at(s.now(), "/spec/podSpecOverrides")).hasSize(1);
        assertThat(adapter.checkInvariants()).isEmpty();
    }
}
