package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Spot interruption notices (taints, conditions) and deleted nodes: Jobs are drained and requeued with their progress. */
class NodeLossTest extends AdapterTestBase {
    private String node(String job) {
        String adm = cluster.job("default", job).getMetadata().getAnnotations() == null ? null
                : cluster.job("default", job).getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION);
        return adm == null ? null : AdmissionRecord.parse(adm).members().get(0).node();
    }

    private JobBuilder job(String name, boolean checkpointing) {
        JobBuilder b = cluster.jobBuilder("default", name, "user-queue", 1, "16", 0, true);
        return checkpointing ? b.editMetadata().addToAnnotations(Keys.CHECKPOINT_INTERVAL_ANNOTATION, "600").endMetadata() : b;
    }

    /** What the workload does: writes the progress of its last checkpoint on its Job. */
    private void writeProgress(String job, String progress) {
        cluster.client.batch().v1().jobs().inNamespace("default").withName(job)
                .edit(j -> new JobBuilder(j).editMetadata().addToAnnotations(Keys.PROGRESS_ANNOTATION, progress).endMetadata().build());
    }

    /** Waits until the adapter's cache has the Job's progress annotation. */
    private void progressSeen(String job, String progress) {
        MockCluster.until(() -> {
            io.fabric8.kubernetes.api.model.GenericKubernetesResource j = adapter.state.kinds.get("batch/v1.Job").informer.getStore().getByKey("default/" + job);
            return j != null && progress.equals(Kube.annotation(j, Keys.PROGRESS_ANNOTATION));
        }, "the adapter sees the progress of " + job);
    }

    private void taint(String node, String key) {
        cluster.client.nodes().withName(node).edit(n -> new NodeBuilder(n).editSpec().addNewTaint().withKey(key).withValue("1764111600")
                .withEffect("NoSchedule").endTaint().endSpec().build());
    }

    private JobStatus status(String job) {
        return adapter.status("default", job).orElseThrow();
    }

    @Test
    void aSpotInterruptionTaintDrainsTheNodeAndCheckpointingJobsKeepTheirProgress() {
        cluster.node("spot-1", 48, 192, 0, Map.of());
        cluster.createJob(job("ckpt", true).build());
        cluster.createJob(job("plain", false).build());
        start(AdapterOptions.builder());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "ckpt")) && !suspended(cluster.job("default", "plain")), "both are admitted");
        assertThat(node("ckpt")).isEqualTo("spot-1");
        assertThat(status("ckpt").spec().checkpointing()).isNotNull();
        assertThat(status("plain").spec().checkpointing()).isNull();
        writeProgress("ckpt", "0.4");
        writeProgress("plain", "0.5");
        progressSeen("ckpt", "0.4");
        progressSeen("plain", "0.5");
        cluster.node("on-demand-1", 48, 192, 0, Map.of());

        taint("spot-1", NodeTermination.AWS_NTH_SPOT_TAINT);
        reconcileUntil(adapter, () -> "on-demand-1".equals(node("ckpt")) && "on-demand-1".equals(node("plain")),
                "both are re-admitted on the node without a notice");
        assertThat(status("ckpt").preemptions()).isEqualTo(1);
        assertThat(status("ckpt").progress()).as("resumes from its checkpoint").isEqualTo(0.4);
        assertThat(status("plain").preemptions()).isEqualTo(1);
        assertThat(status("plain").progress()).as("no checkpointing: starts again").isEqualTo(0.0);
        assertThat(cluster.events("default", "ckpt")).filteredOn(e -> NodeLoss.REASON_NODE_LOST.equals(e.getReason())).extracting(Event::getMessage)
                .singleElement().asString().contains("spot-1", "taint " + NodeTermination.AWS_NTH_SPOT_TAINT, "last checkpoint (progress 40%)");
        assertThat(cluster.events("default", "plain")).filteredOn(e -> NodeLoss.REASON_NODE_LOST.equals(e.getReason())).extracting(Event::getMessage)
                .singleElement().asString().contains("restarts from the beginning");
        assertThat(cluster.events("default", "ckpt")).extracting(Event::getReason).contains(Keys.REASON_PREEMPTED);

        // the tainted node is not used again while it carries the notice; each job was drained once
        cluster.createJob(job("late", false).build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "late")), "a later job is admitted");
        assertThat(node("late")).isEqualTo("on-demand-1");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(status("ckpt").preemptions()).isEqualTo(1);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aConfiguredConditionDrainsAndTheDefaultTaintsCanBeSwitchedOff() {
        cluster.node("n1", 48, 192, 0, Map.of());
        cluster.createJob(job("ckpt", true).build());
        start(AdapterOptions.builder().nodeTermination(NodeTermination.NONE.withConditionTypes(List.of("TerminationNotice"))));
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "ckpt")), "admitted");
        writeProgress("ckpt", "0.25");
        progressSeen("ckpt", "0.25");
        taint("n1", NodeTermination.KARPENTER_DISRUPTED_TAINT);
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(suspended(cluster.job("default", "ckpt"))).as("Karpenter's taint is not configured here").isFalse();
        assertThat(status("ckpt").state().holdsResources()).isTrue();

        cluster.client.nodes().withName("n1").edit(n -> new NodeBuilder(n).editStatus().addNewCondition().withType("TerminationNotice")
                .withStatus("True").withReason("SpotInterruption").endCondition().endStatus().build());
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "ckpt")), "the condition drains the node");
        assertThat(status("ckpt").state()).isEqualTo(JobState.PENDING);
        assertThat(cluster.events("default", "ckpt")).filteredOn(e -> NodeLoss.REASON_NODE_LOST.equals(e.getReason())).extracting(Event::getMessage)
                .singleElement().asString().contains("condition TerminationNotice", "progress 25%");
        assertThat(status("ckpt").progress()).isEqualTo(0.25);
        Job j = cluster.job("default", "ckpt");
        assertThat(j.getMetadata().getAnnotations()).doesNotContainKey(Keys.ADMISSION_ANNOTATION);
    }

    @Test
    void aDeletedNodeRequeuesItsCheckpointingJobWithItsProgress() {
        cluster.node("gone-soon", 48, 192, 0, Map.of());
        cluster.createJob(job("ckpt", true).build());
        start(AdapterOptions.builder());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "ckpt")), "admitted");
        writeProgress("ckpt", "0.7");
        progressSeen("ckpt", "0.7");
        cluster.client.nodes().withName("gone-soon").delete();
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "ckpt")), "evicted");
        assertThat(status("ckpt").progress()).isEqualTo(0.7);
        assertThat(status("ckpt").preemptions()).isEqualTo(1);
        assertThat(cluster.events("default", "ckpt")).filteredOn(e -> NodeLoss.REASON_NODE_LOST.equals(e.getReason())).extracting(Event::getMessage)
                .singleElement().asString().contains("node gone-soon was deleted", "progress 70%");
    }

    @Test
    void aMalformedCheckpointIntervalIsRefusedNamingTheAnnotationAndValue() {
        cluster.node("n1", 48, 192, 0, Map.of());
        cluster.createJob(cluster.jobBuilder("default", "bad", "user-queue", 1, "16", 0, true).editMetadata()
                .addToAnnotations(Keys.CHECKPOINT_INTERVAL_ANNOTATION, "soon").endMetadata().build());
        start(AdapterOptions.builder());
        reconcileUntil(adapter, () -> {
            Map<String, String> a = cluster.job("default", "bad").getMetadata().getAnnotations();
            return a != null && a.get(Keys.PENDING_REASON_ANNOTATION) != null;
        }, "the Job says why it is not queued");
        assertThat(cluster.job("default", "bad").getMetadata().getAnnotations().get(Keys.PENDING_REASON_ANNOTATION))
                .contains(Keys.CHECKPOINT_INTERVAL_ANNOTATION, "soon");
        assertThat(adapter.status("default", "bad")).isEmpty();
        assertThat(suspended(cluster.job("default", "bad"))).isTrue();
    }

    @Test
    void theControllersCommandLineConfiguresTheNotices(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path queues = dir.resolve("queues.yaml");
        java.nio.file.Files.writeString(queues, CedanaScenarioTest.QUEUES);
        FairwayController c = new FairwayController();
        new picocli.CommandLine(c).parseArgs("--config", queues.toString());
        assertThat(c.options().nodeTermination()).isEqualTo(NodeTermination.DEFAULT);
        c = new FairwayController();
        new picocli.CommandLine(c).parseArgs("--config", queues.toString(), "--node-termination-taint", "example.com/reclaim,example.com/spot",
                "--node-termination-condition", "TerminationNotice");
        assertThat(c.options().nodeTermination()).isEqualTo(new NodeTermination(List.of("example.com/reclaim", "example.com/spot"),
                List.of("TerminationNotice")));
        FairwayController bad = new FairwayController();
        new picocli.CommandLine(bad).parseArgs("--config", queues.toString(), "--node-termination-condition", "Has Space");
        org.assertj.core.api.Assertions.assertThatThrownBy(bad::options).hasMessageContaining("nodeTermination.conditionTypes[0]")
                .hasMessageContaining("Has Space");
    }
}
