package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fairway.api.job.JobState;
import io.fairway.api.model.Resources;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A tenant can write whatever annotations they like on their own objects, and can create or unsuspend them. Only
 * admissions Fairway itself wrote count: a copied or forged {@value Keys#ADMISSION_ANNOTATION} does not let a Job
 * run outside quota, a forged {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION} does not change what the engine charges, and
 * an object running without an admission is suspended. Adoption of work Fairway really admitted survives a restart.
 */
class TrustTest extends AdapterTestBase {
    /** 32 cores of quota. */
    private void startPreempting() {
        start(JobLifecycleTest.PREEMPTING);
    }

    private Job admitted(String name, int cpu) {
        cluster.createJob(cluster.jobBuilder("default", name, "q", 1, Integer.toString(cpu), 0, true).build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", name)), name + " is admitted");
        return cluster.job("default", name);
    }

    private long engineCores(String job) {
        return adapter.status("default", job).orElseThrow().spec().podSets().get(0).resources().get("cpu");
    }

    @Test
    void aCopiedAdmissionDoesNotLetAJobRunOutsideQuota() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        startPreempting();
        Job victim = admitted("victim", 32); // the whole quota
        // the attacker creates an unsuspended Job carrying the victim's admission, as if Fairway had admitted it
        Job forged = cluster.jobBuilder("default", "forged", "q", 1, "32", 0, false).editMetadata()
                .addToAnnotations(victim.getMetadata().getAnnotations()).endMetadata().build();
        forged.getMetadata().getAnnotations().remove(Keys.PENDING_REASON_ANNOTATION);
        cluster.createJob(forged);
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "forged")), "the forged Job is suspended");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(suspended(cluster.job("default", "forged"))).isTrue();
        assertThat(adapter.status("default", "forged").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(cluster.job("default", "forged").getMetadata().getAnnotations()).doesNotContainKeys(Keys.ADMISSION_ANNOTATION,
                Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        assertThat(suspended(cluster.job("default", "victim"))).isFalse();
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aForgedOriginalTemplateDoesNotChangeWhatTheEngineCharges() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        startPreempting();
        admitted("blocker", 30);
        // a 16-core Job that claims, through a forged record, that it was submitted asking for 1 core
        cluster.createJob(new JobBuilder(cluster.jobBuilder("default", "greedy", "q", 1, "16", 0, true).build()).editMetadata()
                .addToAnnotations(Keys.ADMISSION_ANNOTATION, "{\"clusterQueue\":\"cq\",\"flavors\":{\"main\":\"general\"},\"members\":[]}")
                .addToAnnotations(Keys.ORIGINAL_TEMPLATE_ANNOTATION,
                        "{\"fields\":{\"/spec/template/spec/containers/0/resources/requests\":{\"cpu\":\"1\"}}}")
                .endMetadata().build());
        reconcileUntil(adapter, () -> adapter.status("default", "greedy").isPresent()
                && adapter.status("default", "greedy").orElseThrow().pendingReason() != null, "greedy waits");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(engineCores("greedy")).isEqualTo(Resources.parse(Map.of("cpu", "16")).get("cpu"));
        assertThat(suspended(cluster.job("default", "greedy"))).as("16 + 30 cores do not fit 32").isTrue();
        assertThat(cluster.job("default", "greedy").getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests().get("cpu")
                .toString()).isEqualTo("16");
    }

    @Test
    void aTenantsEditOfTheRecordOnAnAdmittedJobIsNotRestoredAtEviction() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        cluster.client.scheduling().v1().priorityClasses().resource(new io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder()
                .withNewMetadata().withName("urgent").endMetadata().withValue(1000).build()).create();
        startPreempting();
        Job created = cluster.createJob(cluster.jobBuilder("default", "low", "q", 1, "20", 0, true).build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "low")), "low is admitted");
        // the owner rewrites the record so that eviction would set a node selector of their choosing
        cluster.client.batch().v1().jobs().inNamespace("default").withName("low").edit(j -> new JobBuilder(j).editMetadata()
                .addToAnnotations(Keys.ORIGINAL_TEMPLATE_ANNOTATION, "{\"fields\":{\"/spec/template/spec/nodeSelector\":{\"node-role.kubernetes.io/control-plane\":\"\"}}}")
                .endMetadata().build());
        cluster.createJob(cluster.jobBuilder("default", "high", "q", 1, "16", 0, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "low"))
                && !cluster.job("default", "low").getMetadata().getAnnotations().containsKey(Keys.ADMISSION_ANNOTATION), "low is evicted");
        Map<String, String> selector = cluster.job("default", "low").getSpec().getTemplate().getSpec().getNodeSelector();
        assertThat(selector == null ? Map.<String, String>of() : selector).doesNotContainKey("node-role.kubernetes.io/control-plane");
        // restored from the record the engine kept when it admitted low, not from the annotation
        assertThat(cluster.job("default", "low").getSpec().getTemplate()).isEqualTo(created.getSpec().getTemplate());
    }

    @Test
    void aPendingJobItsOwnerUnsuspendsIsSuspendedAgain() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        startPreempting();
        admitted("blocker", 30);
        cluster.createJob(cluster.jobBuilder("default", "eager", "q", 1, "16", 0, true).build());
        reconcileUntil(adapter, () -> adapter.status("default", "eager").map(s -> s.pendingReason() != null).orElse(false), "eager waits");
        cluster.client.batch().v1().jobs().inNamespace("default").withName("eager").edit(j -> new JobBuilder(j).editSpec().withSuspend(false).endSpec().build());
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "eager")), "eager is suspended again");
        assertThat(adapter.status("default", "eager").orElseThrow().state()).isEqualTo(JobState.PENDING);
    }

    @Test
    void workFairwayAdmittedIsAdoptedByARestartedAdapter() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        startPreempting();
        admitted("kept", 16);
        cluster.createPods("default", "kept");
        reconcileUntil(adapter, () -> cluster.pods("default", "kept").stream().noneMatch(Kube::hasGate), "kept's pod is bound");
        cluster.setPhase("default", "kept", "Running");
        String seal = Kube.annotation(cluster.job("default", "kept"), Keys.SEAL_ANNOTATION);
        stopAdapter();
        startPreempting();
        for (int i = 0; i < 4; i++) {
            adapter.reconcileOnce();
        }
        assertThat(suspended(cluster.job("default", "kept"))).isFalse();
        assertThat(adapter.status("default", "kept").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(Kube.annotation(cluster.job("default", "kept"), Keys.SEAL_ANNOTATION)).isNotNull().isEqualTo(seal);
    }
}
