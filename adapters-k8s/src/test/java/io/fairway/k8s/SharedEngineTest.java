package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobState;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.unifiedjob.UnifiedJobController;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The adapter runs the UnifiedJob controller on its own engine when {@code integrations:} names
 * {@code fairway.io/v1alpha1.UnifiedJob}: a UnifiedJob and a plain Job share one ClusterQueue's quota and one node,
 * and the Job the UnifiedJob controller creates is not queued a second time as a Job of its own.
 */
class SharedEngineTest extends AdapterTestBase {
    private static final String CONFIG = QueuesYaml.flavor("general").before("integrations: [batch/v1.Job, fairway.io/v1alpha1.UnifiedJob]\n")
            .quota("cpu", "8").localQueue("q", "default").yaml();

    private GenericKubernetesResource unifiedJob(String name) {
        return cluster.client.genericKubernetesResources(UnifiedJobController.resource()).inNamespace("default").withName(name).get();
    }

    @Test
    void aUnifiedJobAndAPlainJobShareTheQuotaAndTheUnderlyingJobIsNotQueuedTwice() {
        cluster.node("n1", 16, 64, 0, Map.of());
        cluster.createJob(cluster.jobBuilder("default", "plain", "q", 1, "5", 0, true).build());
        start(CONFIG);
        reconcileUntil(adapter, () -> !MockCluster.suspended(cluster.job("default", "plain")), "the plain Job is admitted");

        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", "fairway.io/v1alpha1").put("kind", "UnifiedJob");
        o.putObject("metadata").put("name", "elastic").put("namespace", "default");
        ObjectNode spec = o.putObject("spec");
        spec.put("jobType", "batch/v1.Job").put("queueName", "q");
        spec.putObject("replicaSpec").put("minReplicas", 1).put("maxReplicas", 8);
        ObjectNode template = spec.putObject("template");
        // the author also labels the template with the queue: the created Job must still not be queued on its own
        template.putObject("metadata").putObject("labels").put(Keys.QUEUE_LABEL, "q");
        ObjectNode jobSpec = template.putObject("spec");
        jobSpec.put("parallelism", 1);
        ObjectNode pod = jobSpec.putObject("template").putObject("spec");
        pod.put("restartPolicy", "Never");
        ObjectNode c = pod.putArray("containers").addObject();
        c.put("name", "worker").put("image", "ghcr.io/example/train:1");
        c.putObject("resources").putObject("requests").put("cpu", "1");
        cluster.client.genericKubernetesResources(UnifiedJobController.resource()).inNamespace("default")
                .resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class)).create();

        reconcileUntil(adapter, () -> cluster.job("default", "elastic") != null, "the UnifiedJob's Job is created at admission");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        JsonNode uj = Specs.toJson(unifiedJob("elastic"));
        int target = uj.at("/spec/replicaSpec/targetReplicas").intValue();
        Job underlying = cluster.job("default", "elastic");
        // 8 CPUs of quota, 5 held by the plain Job: the UnifiedJob gets what is left, and only that
        assertThat(target).isBetween(1, 3);
        assertThat(underlying.getSpec().getParallelism()).isEqualTo(target);
        assertThat(adapter.status("batch/v1.Job", "default", "plain")).hasValueSatisfying(s -> assertThat(s.state()).isIn(JobState.ADMITTED, JobState.RUNNING));
        assertThat(adapter.status("batch/v1.Job", "default", "elastic")).as("the created Job is the UnifiedJob's, not a Job of its own").isEmpty();
        assertThat(cluster.job("default", "plain").getSpec().getSuspend()).isFalse();

        // its pods run; then the controller restarts (a new process on the same cluster): the running UnifiedJob is
        // adopted — its Job is not deleted and created again, its pods keep running
        cluster.createPods("default", "elastic");
        cluster.setPhase("default", "elastic", "Running");
        reconcileUntil(adapter, () -> "Running".equals(Specs.toJson(unifiedJob("elastic")).at("/status/state").asText()), "the UnifiedJob runs");
        String jobUid = cluster.job("default", "elastic").getMetadata().getUid();
        java.util.List<String> podUids = cluster.pods("default", "elastic").stream().map(p -> p.getMetadata().getUid()).sorted().toList();
        adapter.close();
        start(CONFIG);
        for (int i = 0; i < 4; i++) {
            adapter.reconcileOnce();
        }
        assertThat(cluster.job("default", "elastic").getMetadata().getUid()).as("the underlying Job is not deleted").isEqualTo(jobUid);
        assertThat(cluster.pods("default", "elastic").stream().map(p -> p.getMetadata().getUid()).sorted().toList()).as("no pod restarted")
                .isEqualTo(podUids);
        assertThat(Specs.toJson(unifiedJob("elastic")).at("/status/state").asText()).isEqualTo("Running");
        assertThat(cluster.job("default", "elastic").getSpec().getParallelism()).isEqualTo(target);
    }
}
