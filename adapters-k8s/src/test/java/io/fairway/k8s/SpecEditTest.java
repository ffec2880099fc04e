package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobState;
import io.fairway.k8s.integration.Integrations;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Edits of a queued object: a pending one's edited spec is what the engine queues (no delete and recreate); an
 * admitted one's edit that would change what was admitted is refused with a Warning Event naming the field, and the
 * adapter keeps acting on the admitted spec.
 */
class SpecEditTest extends AdapterTestBase {
    private void start() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        cluster.node("n2", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        start(JobLifecycleTest.PREEMPTING);
    }

    private void editJob(String name, java.util.function.UnaryOperator<io.fabric8.kubernetes.api.model.batch.v1.Job> edit) {
        cluster.client.batch().v1().jobs().inNamespace("default").withName(name).edit(edit);
    }

    @Test
    void aPendingJobsEditedParallelismChangesTheGangTheEnginePlaces() {
        cluster.createJob(cluster.jobBuilder("default", "blocker", "q", 1, "30", 0, true).build());
        cluster.createJob(cluster.jobBuilder("default", "train", "q", 2, "2", 0, true).build());
        start();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "blocker")), "the blocker runs");
        // 30 + 2 x 2 fits the quota of 32 cores? No: 34 > 32, so train waits.
        reconcileUntil(adapter, () -> adapter.status("default", "train").orElseThrow().pendingReason() != null, "train waits");
        assertThat(adapter.status("default", "train").orElseThrow().state()).isEqualTo(JobState.PENDING);

        editJob("train", j -> new JobBuilder(j).editSpec().withParallelism(4).withCompletions(4).endSpec().build());
        reconcileUntil(adapter, () -> adapter.status("default", "train").orElseThrow().spec().podSets().get(0).count() == 4, "the edit is taken up");
        assertThat(cluster.events("default", "train")).extracting(Event::getReason).contains(KindObjectSync.REASON_UPDATED);

        cluster.createPods("default", "blocker");
        reconcileUntil(adapter, () -> cluster.pods("default", "blocker").stream().noneMatch(Kube::hasGate), "the blocker's pod is bound");
        cluster.setPhase("default", "blocker", "Succeeded");
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "train")), "train is admitted");
        Admit a = adapter.status("default", "train").orElseThrow().admission();
        assertThat(a.counts()).containsEntry(JobTranslator.POD_SET, 4);
        assertThat(a.placement().members()).hasSize(4);
        assertThat(cluster.job("default", "train").getSpec().getParallelism()).isEqualTo(4);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aPendingJobsEditedQueueLabelAndParallelismAreTakenUp_butItsRequestsAreFixedByTheApiServer() {
        cluster.createJob(cluster.jobBuilder("default", "lost", "missing", 1, "8", 0, true).build());
        start();
        reconcileUntil(adapter, () -> Kube.annotation(cluster.job("default", "lost"), Keys.PENDING_REASON_ANNOTATION) != null, "it waits");
        assertThat(Kube.annotation(cluster.job("default", "lost"), Keys.PENDING_REASON_ANNOTATION)).startsWith("QUEUE_NOT_FOUND");
        // a suspended Job's containers are immutable on a real API server (up to Kubernetes 1.35)
        assertThatThrownBy(() -> editJob("lost", j -> {
            JobBuilder b = new JobBuilder(j);
            b.editSpec().editTemplate().editSpec().editFirstContainer().editResources()
                    .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("4")).endResources().endContainer().endSpec().endTemplate().endSpec();
            return b.build();
        })).isInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class).hasMessageContaining("spec.template");
        // the author fixes the queue label and doubles the (Indexed) Job without recreating it
        editJob("lost", j -> new JobBuilder(j).editMetadata().addToLabels(Keys.QUEUE_LABEL, "q").endMetadata()
                .editSpec().withParallelism(2).withCompletions(2).endSpec().build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "lost")), "the edited job is admitted");
        assertThat(adapter.status("default", "lost").orElseThrow().spec().queue()).isEqualTo("q");
        assertThat(adapter.status("default", "lost").orElseThrow().spec().podSets().get(0).count()).isEqualTo(2);
    }

    @Test
    void aPendingJobSetsReplicasAreFixedByItsWebhook_andItsGangStays() throws java.io.IOException {
        cluster.node("n1", 64, 512, 8, Map.of("fairway.io/pool", "gpu"));
        KindScenario js = new KindScenario(cluster, "jobset");
        // 2 GPUs of quota: the example's 2 x 2 workers (4 GPUs) wait
        start(WorkloadKindsTest.KINDS.replace("nominalQuota: 8}", "nominalQuota: 2}"), AdapterOptions.builder().integrations(List.of(js.integration.name())));
        String name = js.integration.name();
        reconcileUntil(adapter, () -> Kube.annotation(js.now(), Keys.PENDING_REASON_ANNOTATION) != null, "the JobSet waits");
        assertThat(adapter.status(name, "team-a", "pytorch-jobset").orElseThrow().spec().podSets()).extracting(p -> p.count()).containsExactly(1, 4);
        // jobset's webhook keeps replicatedJobs as created (but for the pod templates' scheduling directives)
        assertThatThrownBy(() -> cluster.client.genericKubernetesResources(js.kind.context).inNamespace("team-a").withName("pytorch-jobset")
                .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                        "[{\"op\":\"replace\",\"path\":\"/spec/replicatedJobs/1/replicas\",\"value\":1}]"))
                .isInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class).hasMessageContaining("spec.replicatedJobs");
        adapter.reconcileOnce();
        assertThat(adapter.status(name, "team-a", "pytorch-jobset").orElseThrow().spec().podSets()).extracting(p -> p.count()).containsExactly(1, 4);
        assertThat(js.suspended()).isTrue();
    }

    @Test
    void anAdmittedJobsEditIsRefusedWithAWarningAndTheAdmittedSpecStays() {
        cluster.createJob(cluster.jobBuilder("default", "run", "q", 2, "4", 0, true).build());
        start();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "run")), "run is admitted");
        cluster.createPods("default", "run");
        reconcileUntil(adapter, () -> cluster.pods("default", "run").stream().noneMatch(Kube::hasGate), "its pods are bound");

        // parallelism and completions both (with completions 2, parallelism 4 would still run 2 pods: no change to refuse)
        editJob("run", j -> new JobBuilder(j).editSpec().withParallelism(4).withCompletions(4).endSpec().build());
        reconcileUntil(adapter, () -> cluster.events("default", "run").stream().anyMatch(e -> KindObjectSync.REASON_EDIT_REFUSED.equals(e.getReason())),
                "the edit is refused");
        Event e = cluster.events("default", "run").stream().filter(x -> KindObjectSync.REASON_EDIT_REFUSED.equals(x.getReason())).findFirst().orElseThrow();
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getMessage()).startsWith("The edit of spec.completions, spec.parallelism is not applied").contains("main x2");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(cluster.events("default", "run")).filteredOn(x -> KindObjectSync.REASON_EDIT_REFUSED.equals(x.getReason())).hasSize(1);
        assertThat(adapter.status("default", "run").orElseThrow().spec().podSets().get(0).count()).isEqualTo(2);
        assertThat(adapter.status("default", "run").orElseThrow().admission().counts()).containsEntry(JobTranslator.POD_SET, 2);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void anUnknownIntegrationNameIsAClearErrorNamingIt() {
        assertThatThrownBy(() -> AdapterOptions.builder().queues(MockCluster.config(JobLifecycleTest.PREEMPTING))
                .integrations(List.of("batch/v1.Job", "ray.io/v1.RayJobz")).build())
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("unknown integration \"ray.io/v1.RayJobz\"")
                .hasMessageContaining("jobset.x-k8s.io/v1alpha2.JobSet")
                .satisfies(x -> assertThat(((InvalidSpecException) x).field()).isEqualTo("integrations"));
        assertThatThrownBy(() -> AdapterOptions.builder().queues(MockCluster.config("integrations: [batch/v1.Job, JobSet]\n" + JobLifecycleTest.PREEMPTING))
                .build()).isInstanceOf(InvalidSpecException.class).hasMessageContaining("unknown integration \"JobSet\"");
        assertThat(Integrations.enabled(List.of())).extracting(i -> i.name()).containsExactly("batch/v1.Job");
    }
}
