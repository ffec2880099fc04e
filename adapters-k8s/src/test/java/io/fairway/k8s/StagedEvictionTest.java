package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fairway.api.job.JobState;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Preempting and re-admitting batch/v1 Jobs on an API server that enforces kube-apiserver's rule: a Job's template
 * directives change only while the stored Job is suspended and has no {@code status.startTime}. Eviction is written
 * in steps (suspend; clear startTime through the status subresource; restore the template), and a Job that ran once
 * is admitted again. {@link MockCluster#close()} fails each test if the server refused any of the adapter's writes.
 */
class StagedEvictionTest extends AdapterTestBase {

    private void startPreempting() {
        start(JobLifecycleTest.PREEMPTING);
    }

    private Job low() {
        return cluster.createJob(cluster.jobBuilder("default", "low", "q", 2, "16", 0, true).editSpec().editTemplate().editSpec()
                .addToNodeSelector("team", "ml").addNewToleration().withKey("dedicated").withOperator("Exists").endToleration()
                .endSpec().endTemplate().endSpec().build());
    }

    private void urgent() {
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        cluster.createJob(cluster.jobBuilder("default", "high", "q", 1, "16", 0, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
    }

    @Test
    void aRunningJobIsEvictedInStepsTheApiServerAcceptsAndRestoredExactly() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general", "team", "ml"));
        Job created = low();
        startPreempting();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "low")), "low is admitted");
        cluster.createPods("default", "low"); // the Job controller starts it: status.startTime is set
        cluster.setPhase("default", "low", "Running");
        reconcileUntil(adapter, () -> adapter.status("default", "low").orElseThrow().state() == JobState.RUNNING, "low runs");
        assertThat(cluster.job("default", "low").getStatus().getStartTime()).isNotNull();

        urgent();
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "low"))
                && !cluster.job("default", "low").getMetadata().getAnnotations().containsKey(Keys.ADMISSION_ANNOTATION), "low is evicted");
        Job evicted = cluster.job("default", "low");
        assertThat(evicted.getSpec().getTemplate()).isEqualTo(created.getSpec().getTemplate());
        assertThat(evicted.getStatus().getStartTime()).as("cleared so the template could be restored").isNull();
        assertThat(cluster.events("default", "low")).extracting(Event::getReason).contains(Keys.REASON_PREEMPTED);
        assertThat(cluster.rules.clientRefusals()).isEmpty();
    }

    @Test
    void aJobThatRanOnceIsAdmittedAgainAfterItsEviction() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general", "team", "ml"));
        low();
        startPreempting();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "low")), "low is admitted");
        cluster.createPods("default", "low");
        cluster.setPhase("default", "low", "Running");
        reconcileUntil(adapter, () -> adapter.status("default", "low").orElseThrow().state() == JobState.RUNNING, "low runs");
        urgent();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "high")), "high is admitted in low's place");
        for (var p : cluster.pods("default", "low")) {
            cluster.client.pods().inNamespace("default").resource(p).delete(); // the Job controller deletes a suspended Job's pods
        }
        cluster.createPods("default", "high");
        reconcileUntil(adapter, () -> cluster.pods("default", "high").stream().noneMatch(Kube::hasGate), "high's pod is bound");
        cluster.setPhase("default", "high", "Succeeded");

        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "low")), "low is admitted again");
        Job again = cluster.job("default", "low");
        assertThat(again.getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry("fairway.io/pool", "general").containsEntry("team", "ml");
        assertThat(again.getSpec().getTemplate().getSpec().getSchedulingGates()).extracting(g -> g.getName()).containsExactly(Keys.TOPOLOGY_GATE);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aJobThatStartedBeforeFairwaySuspendedItIsAdmitted() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        // created unsuspended: the Job controller starts it before the adapter suspends it
        cluster.createJob(cluster.jobBuilder("default", "eager", "q", 1, "4", 0, false).build());
        cluster.client.batch().v1().jobs().inNamespace("default").withName("eager").editStatus(j -> new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder(j)
                .editOrNewStatus().withStartTime("2026-01-01T00:00:00Z").endStatus().build());
        startPreempting();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "eager"))
                && cluster.job("default", "eager").getMetadata().getAnnotations().containsKey(Keys.ADMISSION_ANNOTATION), "eager is admitted");
        assertThat(cluster.job("default", "eager").getSpec().getTemplate().getSpec().getSchedulingGates()).extracting(g -> g.getName())
                .containsExactly(Keys.TOPOLOGY_GATE);
    }
}
