package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.api.job.JobState;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.RayClusterIntegration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Elastic gangs end to end on the mock API server, under the {@code priority} policy: a RayCluster — a fixed head and
 * an elastic worker group, one gang — is admitted at what fits and its worker group shrunk in place (its
 * {@code replicas}) for a higher-priority Job instead of being preempted; a Job admitted at full size is shrunk the
 * same way (its {@code parallelism}).
 */
class ElasticGangTest extends AdapterTestBase {
    private static final String QUEUES = QueuesYaml.flavor("default").preemptLowerPriority().quota("cpu", "64").localQueue("user-queue", "default").yaml();

    private void start() {
        cluster.node("a", 64, 256, 0, Map.of());
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        start(QUEUES, AdapterOptions.builder().integrations(List.of("batch/v1.Job", "ray.io/v1.RayCluster")));
    }

    private static ResourceDefinitionContext rayClusters() {
        return new ResourceDefinitionContext.Builder().withGroup("ray.io").withVersion("v1").withKind("RayCluster").withPlural("rayclusters")
                .withNamespaced(true).build();
    }

    private ObjectNode rayCluster() {
        return Specs.toJson(cluster.client.genericKubernetesResources(rayClusters()).inNamespace("default").withName("serve").get());
    }

    private void urgentJob(String cpu) {
        cluster.createJob(cluster.jobBuilder("default", "urgent", "user-queue", 1, cpu, 0, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
    }

    @Test
    void aRayClustersWorkerGroupIsShrunkInPlaceForAHigherPriorityJobWhileItsHeadStays() {
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", "ray.io/v1").put("kind", "RayCluster");
        o.putObject("metadata").put("name", "serve").put("namespace", "default").putObject("labels").put(Keys.QUEUE_LABEL, "user-queue");
        ObjectNode spec = o.putObject("spec").put("suspend", true);
        spec.putObject("headGroupSpec").putObject("template").putObject("spec").putArray("containers").addObject().put("name", "head")
                .putObject("resources").putObject("requests").put("cpu", "4");
        ObjectNode w = spec.putArray("workerGroupSpecs").addObject();
        w.put("groupName", "workers").put("replicas", 3).put("minReplicas", 1).put("maxReplicas", 3);
        w.putObject("template").putObject("spec").putArray("containers").addObject().put("name", "worker")
                .putObject("resources").putObject("requests").put("cpu", "16");
        cluster.client.genericKubernetesResources(rayClusters()).inNamespace("default").resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class)).create();
        start();
        reconcileUntil(adapter, () -> !rayCluster().at("/spec/suspend").asBoolean(true), "the RayCluster is admitted");
        assertThat(adapter.status(new RayClusterIntegration().name(), "default", "serve").orElseThrow().admission().counts())
                .containsEntry("head", 1).containsEntry("workers", 3);

        // 52 of 64 cores held; the urgent Job needs 40: the workers shrink to 1 (20 cores), nobody is preempted
        urgentJob("40");
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "urgent")), "the urgent Job is admitted");
        assertThat(rayCluster().at("/spec/workerGroupSpecs/0/replicas").asInt()).as("the worker group resized in place").isEqualTo(1);
        assertThat(rayCluster().at("/spec/suspend").asBoolean()).as("the RayCluster keeps running").isFalse();
        assertThat(adapter.status(new RayClusterIntegration().name(), "default", "serve").orElseThrow().admission().counts())
                .containsEntry("head", 1).containsEntry("workers", 1);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aJobAdmittedAtFullSizeIsShrunkForAHigherPriorityJobInsteadOfPreempted() {
        cluster.createJob(cluster.jobBuilder("default", "elastic", "user-queue", 4, "16", 0, true)
                .editMetadata().addToAnnotations(Keys.MIN_PARALLELISM_ANNOTATION, "1").endMetadata().build());
        start();
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "elastic")), "the elastic Job is admitted");
        assertThat(cluster.job("default", "elastic").getSpec().getParallelism()).as("at full size").isEqualTo(4);
        cluster.createPods("default", "elastic");
        cluster.setPhase("default", "elastic", "Running");
        reconcileUntil(adapter, () -> adapter.status("default", "elastic").orElseThrow().state() == JobState.RUNNING, "it runs");

        urgentJob("32");
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "urgent")), "the urgent Job is admitted");
        assertThat(cluster.job("default", "elastic").getSpec().getParallelism()).as("shrunk in place to make room").isLessThan(4);
        // shrunk to its minimum first, it regrows into the 16 cores the urgent Job leaves
        reconcileUntil(adapter, () -> cluster.job("default", "elastic").getSpec().getParallelism() == 2, "the elastic Job runs 2 of its 4 pods");
        assertThat(suspended(cluster.job("default", "elastic"))).as("not preempted").isFalse();
        assertThat(cluster.events("default", "elastic")).extracting(e -> e.getReason()).contains(Keys.REASON_RESIZED);
        assertThat(adapter.checkInvariants()).isEmpty();
    }
}
