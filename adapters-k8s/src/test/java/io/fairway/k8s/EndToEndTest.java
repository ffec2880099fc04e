package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobState;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Nodes and suspended Jobs on the mock API server → the adapter admits within quota, gates the pods and binds each
 * to its chosen node → the pods run and succeed → the next Job is admitted.
 */
class EndToEndTest extends AdapterTestBase {
    static final String QUEUES = QueuesYaml.flavor("h100").pool("gpu", "nvidia.com/gpu").clusterQueue("research").quota("cpu", "64")
            .quota("nvidia.com/gpu", "16").localQueue("gpu", "ml").yaml();

    @Test
    void admitsGatesBindsAndMovesOn() {
        cluster.node("gpu-1", 96, 1024, 8, Map.of("fairway.io/pool", "gpu", "team", "ml"));
        cluster.node("gpu-2", 96, 1024, 8, Map.of("fairway.io/pool", "gpu", "team", "ml"));
        cluster.node("cpu-1", 96, 1024, 0, Map.of("fairway.io/pool", "cpu"));
        // train-a: 2 members x 8 GPUs (the whole quota); train-b waits for it.
        Job a = cluster.jobBuilder("ml", "train-a", "gpu", 2, "16", 8, true).editSpec().editTemplate().editSpec()
                .addToNodeSelector("team", "ml").endSpec().endTemplate().endSpec().build();
        cluster.createJob(a);
        Job originalA = cluster.job("ml", "train-a");
        // train-b is created unsuspended: the adapter suspends it at once.
        cluster.createJob(cluster.jobBuilder("ml", "train-b", "gpu", 1, "4", 4, false).build());
        start(QUEUES);

        reconcileUntil(adapter, () -> !suspended(cluster.job("ml", "train-a")) && suspended(cluster.job("ml", "train-b")),
                "train-a is admitted and train-b suspended");

        Job admitted = cluster.job("ml", "train-a");
        var tpl = admitted.getSpec().getTemplate().getSpec();
        assertThat(tpl.getNodeSelector()).containsEntry("fairway.io/pool", "gpu").containsEntry("team", "ml");
        assertThat(tpl.getTolerations()).extracting(Toleration::getKey).contains("nvidia.com/gpu");
        assertThat(tpl.getSchedulingGates()).extracting(PodSchedulingGate::getName).containsExactly(Keys.TOPOLOGY_GATE);
        AdmissionRecord rec = AdmissionRecord.parse(admitted.getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION));
        assertThat(rec.clusterQueue()).isEqualTo("research");
        assertThat(rec.members()).extracting(AdmissionRecord.Member::node).containsExactlyInAnyOrder("gpu-1", "gpu-2");
        assertThat(rec.members()).allSatisfy(m -> assertThat(m.gpus()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7));
        reconcileUntil(adapter, () -> cluster.job("ml", "train-b").getMetadata().getAnnotations() != null
                && cluster.job("ml", "train-b").getMetadata().getAnnotations().getOrDefault(Keys.PENDING_REASON_ANNOTATION, "").startsWith("QUOTA"),
                "train-b says it waits for quota");

        // The Job controller creates the gated pods; the adapter binds each to its member's node.
        List<Pod> created = cluster.createPods("ml", "train-a");
        assertThat(created).allSatisfy(p -> assertThat(Kube.hasGate(p)).isTrue());
        reconcileUntil(adapter, () -> cluster.pods("ml", "train-a").stream().noneMatch(Kube::hasGate), "train-a's pods are ungated");
        Set<String> hosts = new HashSet<>();
        for (Pod p : cluster.pods("ml", "train-a")) {
            int member = Integer.parseInt(p.getMetadata().getAnnotations().get(Keys.MEMBER_ANNOTATION));
            String host = p.getSpec().getNodeSelector().get("kubernetes.io/hostname");
            assertThat(host).isEqualTo(rec.members().get(member).node());
            assertThat(member).isEqualTo(Integer.parseInt(p.getMetadata().getAnnotations().get(Keys.COMPLETION_INDEX)));
            assertThat(p.getMetadata().getAnnotations().get(Keys.GPUS_ANNOTATION)).isEqualTo("0,1,2,3,4,5,6,7");
            hosts.add(host);
        }
        assertThat(hosts).containsExactlyInAnyOrder("gpu-1", "gpu-2");

        cluster.setPhase("ml", "train-a", "Running");
        reconcileUntil(adapter, () -> adapter.status("ml", "train-a").orElseThrow().state() == JobState.RUNNING, "train-a runs");
        assertThat(suspended(cluster.job("ml", "train-b"))).isTrue();

        cluster.setPhase("ml", "train-a", "Succeeded");
        reconcileUntil(adapter, () -> !suspended(cluster.job("ml", "train-b")), "train-b is admitted after train-a finished");
        assertThat(adapter.status("ml", "train-a").orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(cluster.job("ml", "train-a").getMetadata().getAnnotations()).containsEntry(Keys.FINISHED_ANNOTATION, "Succeeded");
        Job b = cluster.job("ml", "train-b");
        assertThat(b.getMetadata().getAnnotations().get(Keys.PENDING_REASON_ANNOTATION)).isNull();
        assertThat(originalA.getSpec().getTemplate().getSpec().getSchedulingGates()).isNullOrEmpty();
        assertThat(adapter.checkInvariants()).isEmpty();
    }
}
