package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Cedana scenario on the mock API server: a ClusterQueue with 64 cores of quota and three 32-core Jobs. Two are
 * admitted; the third stays suspended, with an Event and an annotation saying why, and is admitted when one
 * finishes.
 */
class CedanaScenarioTest extends AdapterTestBase {
    static final String QUEUES = QueuesYaml.flavor("default").clusterQueue("cluster-queue").quota("cpu", "64").localQueue("user-queue", "default").yaml();

    @Test
    void thirdJobWaitsForQuotaWithAReasonAndRunsWhenOneFinishes() {
        for (String n : List.of("node-a", "node-b", "node-c")) {
            cluster.node(n, 48, 192, 0, Map.of());
        }
        for (String j : List.of("sample-job-1", "sample-job-2", "sample-job-3")) {
            cluster.createJob(cluster.jobBuilder("default", j, "user-queue", 1, "32", 0, true).build());
        }
        start(QUEUES);

        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "sample-job-1")) && !suspended(cluster.job("default", "sample-job-2"))
                && cluster.job("default", "sample-job-3").getMetadata().getAnnotations() != null
                && cluster.job("default", "sample-job-3").getMetadata().getAnnotations().get(Keys.PENDING_REASON_ANNOTATION) != null,
                "two jobs are admitted and the third says why it waits");

        Job third = cluster.job("default", "sample-job-3");
        assertThat(suspended(third)).isTrue();
        String reason = third.getMetadata().getAnnotations().get(Keys.PENDING_REASON_ANNOTATION);
        assertThat(reason).startsWith("QUOTA").contains("cpu");
        List<Event> events = cluster.events("default", "sample-job-3");
        assertThat(events).anySatisfy(e -> {
            assertThat(e.getReason()).isEqualTo(Keys.REASON_PENDING);
            assertThat(e.getMessage()).isEqualTo(reason);
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Job");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(third.getMetadata().getUid());
        });
        assertThat(cluster.events("default", "sample-job-1")).extracting(Event::getReason).contains(Keys.REASON_ADMITTED);
        assertThat(cluster.job("default", "sample-job-1").getMetadata().getAnnotations()).containsKey(Keys.ADMISSION_ANNOTATION);

        cluster.createPods("default", "sample-job-1");
        cluster.createPods("default", "sample-job-2");
        reconcileUntil(adapter, () -> cluster.pods("default", "sample-job-1").stream().noneMatch(Kube::hasGate)
                && cluster.pods("default", "sample-job-2").stream().noneMatch(Kube::hasGate), "the pods are bound");
        cluster.setPhase("default", "sample-job-1", "Running");
        cluster.setPhase("default", "sample-job-2", "Running");
        reconcileUntil(adapter, () -> adapter.status("default", "sample-job-1").map(s -> s.state() == JobState.RUNNING).orElse(false),
                "job 1 runs");

        cluster.setPhase("default", "sample-job-1", "Succeeded");
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "sample-job-3")), "job 3 is admitted once job 1 finished");
        assertThat(adapter.status("default", "sample-job-1").orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(cluster.events("default", "sample-job-3")).extracting(Event::getReason).contains(Keys.REASON_ADMITTED);
        assertThat(adapter.checkInvariants()).isEmpty();
    }
}
