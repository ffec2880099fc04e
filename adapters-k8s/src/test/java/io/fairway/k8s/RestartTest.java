package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.api.job.JobState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API server is the store: a new adapter on the same cluster, started mid-way, rebuilds the state from it. Nothing
 * is admitted twice, no job is forgotten, and work the old adapter left half done (pods not yet bound) is finished.
 */
class RestartTest {
    private final MockCluster cluster = new MockCluster();
    private FairwayAdapter first;
    private FairwayAdapter second;

    @AfterEach
    void stop() {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
        cluster.close();
    }

    private FairwayAdapter adapter() {
        return new FairwayAdapter(cluster.newClient(), AdapterOptions.builder().queues(MockCluster.config(CedanaScenarioTest.QUEUES)).build(), null)
                .start();
    }

    @Test
    void aNewAdapterRestoresAdmissionsAndAdmitsNothingTwice() {
        for (String n : List.of("node-a", "node-b", "node-c")) {
            cluster.node(n, 48, 192, 0, Map.of());
        }
        for (String j : List.of("job-1", "job-2", "job-3")) {
            cluster.createJob(cluster.jobBuilder("default", j, "user-queue", 1, "32", 0, true).build());
        }
        first = adapter();
        reconcileUntil(first, () -> !suspended(cluster.job("default", "job-1")) && !suspended(cluster.job("default", "job-2"))
                && cluster.job("default", "job-3").getMetadata().getAnnotations().get(Keys.PENDING_REASON_ANNOTATION) != null,
                "two jobs admitted, the third waits");
        String admission1 = cluster.job("default", "job-1").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION);
        String admission2 = cluster.job("default", "job-2").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION);
        cluster.createPods("default", "job-1");
        reconcileUntil(first, () -> cluster.pods("default", "job-1").stream().noneMatch(Kube::hasGate), "job-1's pod is bound");
        cluster.setPhase("default", "job-1", "Running");
        reconcileUntil(first, () -> first.status("default", "job-1").orElseThrow().state() == JobState.RUNNING, "job-1 runs");
        int eventsBefore = cluster.client.v1().events().inNamespace("default").list().getItems().size();

        // The first adapter dies; job-2's pods appear while no adapter runs.
        first.close();
        first = null;
        cluster.createPods("default", "job-2");
        second = adapter();
        for (int i = 0; i < 5; i++) {
            second.reconcileOnce();
        }

        assertThat(second.status("default", "job-1").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(second.status("default", "job-2").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(second.status("default", "job-3").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(suspended(cluster.job("default", "job-3"))).isTrue();
        assertThat(cluster.job("default", "job-1").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION)).isEqualTo(admission1);
        assertThat(cluster.job("default", "job-2").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION)).isEqualTo(admission2);
        List<Event> newEvents = cluster.client.v1().events().inNamespace("default").list().getItems();
        assertThat(newEvents.subList(eventsBefore, newEvents.size())).extracting(Event::getReason)
                .doesNotContain(Keys.REASON_ADMITTED, Keys.REASON_PENDING);
        // job-2's pod, created while no adapter ran, is bound to the node recorded in its admission.
        AdmissionRecord rec2 = AdmissionRecord.parse(admission2);
        Pod pod2 = cluster.pods("default", "job-2").get(0);
        assertThat(Kube.hasGate(pod2)).isFalse();
        assertThat(pod2.getSpec().getNodeSelector()).containsEntry("kubernetes.io/hostname", rec2.members().get(0).node());
        assertThat(second.checkInvariants()).isEmpty();

        cluster.setPhase("default", "job-1", "Succeeded");
        reconcileUntil(second, () -> !suspended(cluster.job("default", "job-3")), "job-3 is admitted once job-1 finished");
        assertThat(second.status("default", "job-2").orElseThrow().state()).isIn(JobState.ADMITTED, JobState.RUNNING);
        assertThat(second.checkInvariants()).isEmpty();
    }
}
