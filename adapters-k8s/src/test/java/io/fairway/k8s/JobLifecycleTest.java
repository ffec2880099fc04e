package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fairway.api.job.JobState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Jobs that cannot be queued, that are deleted while pending, and that are preempted. */
class JobLifecycleTest extends AdapterTestBase {
    static final String PREEMPTING = QueuesYaml.flavor("general").pool("general", "fairway.io/batch").preemptLowerPriority().quota("cpu", "32")
            .localQueue("q", "default").yaml();

    private String reason(String name) {
        Map<String, String> a = cluster.job("default", name).getMetadata().getAnnotations();
        return a == null ? null : a.get(Keys.PENDING_REASON_ANNOTATION);
    }

    @Test
    void malformedQueueLabelGetsAnEventAndNothingElse() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        Job bad = cluster.createJob(cluster.jobBuilder("default", "bad-label", "Not_A_Queue!", 1, "2", 0, true).build());
        start(PREEMPTING);
        reconcileUntil(adapter, () -> reason("bad-label") != null, "the job says what is wrong");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        Job now = cluster.job("default", "bad-label");
        assertThat(reason("bad-label")).startsWith(Keys.REASON_INVALID).contains("Not_A_Queue!").contains("not a valid LocalQueue name");
        assertThat(now.getSpec()).isEqualTo(bad.getSpec());
        assertThat(cluster.events("default", "bad-label")).singleElement().satisfies(e -> {
            assertThat(e.getReason()).isEqualTo(Keys.REASON_INVALID);
            assertThat(e.getType()).isEqualTo("Warning");
        });
        assertThat(adapter.status("default", "bad-label")).isEmpty();
    }

    @Test
    void requestNoFlavorCanSatisfyAndUnknownQueueWaitWithTheirReason() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        Job fpga = cluster.jobBuilder("default", "wants-fpga", "q", 1, "2", 0, true).build();
        fpga.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests().put("example.com/fpga", new Quantity("1"));
        Job fpgaCreated = cluster.createJob(fpga);
        Job huge = cluster.createJob(cluster.jobBuilder("default", "too-big", "q", 1, "100", 0, true).build());
        cluster.createJob(cluster.jobBuilder("default", "no-queue", "missing", 1, "1", 0, true).build());
        start(PREEMPTING);
        reconcileUntil(adapter, () -> reason("wants-fpga") != null && reason("too-big") != null && reason("no-queue") != null,
                "every job says why it waits");
        assertThat(reason("wants-fpga")).startsWith("RESOURCE_NOT_IN_QUOTA").contains("example.com/fpga");
        assertThat(reason("no-queue")).startsWith("QUEUE_NOT_FOUND");
        assertThat(reason("too-big")).isNotBlank();
        for (String j : List.of("wants-fpga", "too-big", "no-queue")) {
            assertThat(suspended(cluster.job("default", j))).isTrue();
            assertThat(cluster.events("default", j)).extracting(Event::getReason).containsOnly(Keys.REASON_PENDING);
            assertThat(cluster.events("default", j)).extracting(Event::getMessage).contains(reason(j));
            assertThat(adapter.status("default", j).orElseThrow().state()).isEqualTo(JobState.PENDING);
        }
        assertThat(cluster.job("default", "wants-fpga").getSpec()).isEqualTo(fpgaCreated.getSpec());
        assertThat(cluster.job("default", "too-big").getSpec()).isEqualTo(huge.getSpec());
    }

    @Test
    void aJobDeletedWhilePendingIsForgotten() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        for (String j : List.of("first", "second", "third")) {
            cluster.createJob(cluster.jobBuilder("default", j, "q", 1, "16", 0, true).build());
        }
        start(PREEMPTING);
        reconcileUntil(adapter, () -> reason("third") != null, "the third waits");
        assertThat(adapter.status("default", "third").orElseThrow().state()).isEqualTo(JobState.PENDING);
        cluster.client.batch().v1().jobs().inNamespace("default").withName("third").delete();
        reconcileUntil(adapter, () -> adapter.status("default", "third").isEmpty(), "the deleted job is forgotten");
        cluster.createJob(cluster.jobBuilder("default", "fourth", "q", 1, "16", 0, true).build());
        cluster.createPods("default", "first");
        cluster.setPhase("default", "first", "Succeeded");
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "fourth")), "the next job takes the freed quota");
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void preemptionSuspendsAndRestoresTheTemplateExactly() {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general", "team", "ml"));
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        Job low = cluster.jobBuilder("default", "low", "q", 2, "16", 0, true).editSpec().editTemplate().editSpec()
                .addToNodeSelector("team", "ml").addNewToleration().withKey("dedicated").withOperator("Exists").endToleration()
                .endSpec().endTemplate().endSpec().build();
        Job lowCreated = cluster.createJob(low);
        start(PREEMPTING);
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "low")), "low is admitted");
        Job admitted = cluster.job("default", "low");
        assertThat(admitted.getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry("fairway.io/pool", "general");
        assertThat(admitted.getSpec().getTemplate().getSpec().getTolerations()).hasSize(2);

        cluster.createJob(cluster.jobBuilder("default", "high", "q", 1, "16", 0, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "low")), "low is preempted");
        Job evicted = cluster.job("default", "low");
        assertThat(evicted.getSpec().getTemplate()).isEqualTo(lowCreated.getSpec().getTemplate());
        assertThat(evicted.getSpec().getParallelism()).isEqualTo(2);
        assertThat(evicted.getMetadata().getAnnotations()).doesNotContainKeys(Keys.ADMISSION_ANNOTATION, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        assertThat(cluster.events("default", "low")).extracting(Event::getReason).contains(Keys.REASON_PREEMPTED);
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "high")), "high is admitted");
        assertThat(adapter.status("default", "high").orElseThrow().spec().priority()).isEqualTo(1000);
        assertThat(adapter.status("default", "low").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(adapter.checkInvariants()).isEmpty();
    }
}
