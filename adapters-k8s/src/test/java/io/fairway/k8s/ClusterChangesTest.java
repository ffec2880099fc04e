package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobState;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What other pods use, cordoned and lost nodes, elastic Jobs, Kueue's label, and a namespace scope. */
class ClusterChangesTest extends AdapterTestBase {
    private String node(String job) {
        return AdmissionRecord.parse(cluster.job("default", job).getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION)).members().get(0).node();
    }

    @Test
    void podsFairwayDoesNotManageCountAndCordonedNodesAreAvoided() {
        cluster.node("busy", 48, 192, 0, Map.of());
        cluster.node("cordoned", 48, 192, 0, Map.of());
        cluster.node("free", 48, 192, 0, Map.of());
        cluster.client.nodes().withName("cordoned").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec().build());
        cluster.client.pods().inNamespace("other").resource(new PodBuilder().withNewMetadata().withName("db").withNamespace("other").endMetadata()
                .withNewSpec().withNodeName("busy").addNewContainer().withName("db").withImage("postgres").withNewResources()
                .addToRequests("cpu", new Quantity("40")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
        cluster.createJob(cluster.jobBuilder("default", "job-1", "user-queue", 1, "32", 0, true).build());
        start(AdapterOptions.builder());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "job-1")), "job-1 is admitted");
        assertThat(node("job-1")).isEqualTo("free");

        cluster.createJob(cluster.jobBuilder("default", "job-2", "user-queue", 1, "32", 0, true).build());
        reconcileUntil(adapter, () -> adapter.status("default", "job-2").map(s -> s.pendingReason() != null
                && s.pendingReason().code() != io.fairway.api.job.PendingReason.Code.NOT_YET_CONSIDERED).orElse(false), "job-2 is considered");
        assertThat(suspended(cluster.job("default", "job-2"))).as("quota allows it, but no node has 32 free cores").isTrue();

        cluster.client.nodes().withName("cordoned").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(false).endSpec().build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "job-2")), "job-2 is admitted on the uncordoned node");
        assertThat(node("job-2")).isEqualTo("cordoned");
    }

    @Test
    void aLostNodeSendsItsJobBackToTheQueue() {
        cluster.node("only", 48, 192, 0, Map.of());
        cluster.createJob(cluster.jobBuilder("default", "job-1", "user-queue", 1, "32", 0, true).build());
        start(AdapterOptions.builder());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "job-1")), "job-1 is admitted");
        cluster.client.nodes().withName("only").delete();
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "job-1")), "job-1 is evicted");
        Job j = cluster.job("default", "job-1");
        assertThat(j.getMetadata().getAnnotations()).doesNotContainKey(Keys.ADMISSION_ANNOTATION);
        assertThat(j.getSpec().getTemplate().getSpec().getSchedulingGates()).isNullOrEmpty();
        assertThat(adapter.status("default", "job-1").orElseThrow().state()).isEqualTo(JobState.PENDING);
        cluster.node("replacement", 48, 192, 0, Map.of());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "job-1")), "job-1 is admitted again on the new node");
        assertThat(node("job-1")).isEqualTo("replacement");
    }

    @Test
    void anElasticJobIsAdmittedAtTheSizeThatFits() {
        cluster.node("a", 48, 192, 0, Map.of());
        cluster.node("b", 48, 192, 0, Map.of());
        cluster.node("c", 48, 192, 0, Map.of());
        // Quota: 64 cores. Another job takes 32 first, so 4 x 16 does not fit, but 2 x 16 does.
        cluster.createJob(cluster.jobBuilder("default", "first", "user-queue", 1, "32", 0, true).build());
        start(AdapterOptions.builder());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "first")), "the first job is admitted");
        cluster.createJob(cluster.jobBuilder("default", "elastic", "user-queue", 4, "16", 0, true)
                .editMetadata().addToAnnotations(Keys.MIN_PARALLELISM_ANNOTATION, "2").endMetadata().build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "elastic")), "the elastic job is admitted");
        Job e = cluster.job("default", "elastic");
        int admitted = e.getSpec().getParallelism();
        assertThat(OriginalTemplate.parse(e.getMetadata().getAnnotations().get(Keys.ORIGINAL_TEMPLATE_ANNOTATION)).parallelism()).isEqualTo(4);
        assertThat(adapter.status("default", "elastic").orElseThrow().admission().counts()).containsEntry(JobTranslator.POD_SET, admitted);
        assertThat(admitted).isEqualTo(2);

        // When the other job finishes, the engine grows the elastic job into the freed quota: a Resize.
        cluster.createPods("default", "first");
        cluster.setPhase("default", "first", "Succeeded");
        reconcileUntil(adapter, () -> cluster.job("default", "elastic").getSpec().getParallelism() == 4, "the elastic job grows to 4");
        AdmissionRecord grown = AdmissionRecord.parse(cluster.job("default", "elastic").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION));
        assertThat(grown.members()).hasSize(4);
        assertThat(cluster.events("default", "elastic")).extracting(ev -> ev.getReason()).contains(Keys.REASON_RESIZED);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aConfigurationFileIsReReadWhenItChanges(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        cluster.node("a", 48, 192, 0, Map.of());
        cluster.node("b", 48, 192, 0, Map.of());
        java.nio.file.Path file = dir.resolve("queues.yaml");
        java.nio.file.Files.writeString(file, CedanaScenarioTest.QUEUES.replace("nominalQuota: 64", "nominalQuota: 32"));
        cluster.createJob(cluster.jobBuilder("default", "job-1", "user-queue", 1, "32", 0, true).build());
        cluster.createJob(cluster.jobBuilder("default", "job-2", "user-queue", 1, "32", 0, true).build());
        start(cluster.newClient(), AdapterOptions.builder().configFile(file));
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "job-1")), "job-1 is admitted under 32 cores");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(suspended(cluster.job("default", "job-2"))).isTrue();
        java.nio.file.Files.writeString(file, CedanaScenarioTest.QUEUES);
        java.nio.file.Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "job-2")), "job-2 is admitted under the new quota");
        assertThat(cluster.events("default", "job-1")).filteredOn(e -> Keys.REASON_ADMITTED.equals(e.getReason())).hasSize(1);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void kueueLabelIsHonouredWhenEnabledAndOtherNamespacesAreLeftAlone() {
        cluster.node("a", 96, 192, 0, Map.of());
        Job kueue = cluster.jobBuilder("default", "from-kueue", null, 1, "8", 0, true).editMetadata()
                .addToLabels(Keys.KUEUE_QUEUE_LABEL, "user-queue").endMetadata().build();
        cluster.createJob(kueue);
        cluster.createJob(cluster.jobBuilder("elsewhere", "not-mine", "user-queue", 1, "8", 0, false).build());
        start(AdapterOptions.builder().kueueQueueLabel(true).namespace("default"));
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "from-kueue")), "the Kueue-labelled job is admitted");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        Job other = cluster.job("elsewhere", "not-mine");
        assertThat(suspended(other)).isFalse();
        assertThat(other.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(adapter.status("elsewhere", "not-mine")).isEmpty();
    }
}
