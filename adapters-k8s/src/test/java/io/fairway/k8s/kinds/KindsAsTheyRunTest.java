package io.fairway.k8s.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.PodResources;
import io.fairway.k8s.integration.ApiLookup;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The kinds counted and written as their operators really run them (each case read from the operator's source):
 * what a Job and a JobSet run at once, a RayJob's submitter and the Ray autoscaler sidecar, a RayCluster's autoscaler
 * and its failure condition, a RayJob's cluster by {@code status.rayClusterName}, a MiniCluster's tolerations and
 * sizes, an MPIJob's launcher left unsynced by an old operator, and the per-kind pod counts a UnifiedJob may set.
 */
class KindsAsTheyRunTest {
    private static GenericKubernetesResource obj(String json) {
        try {
            return Specs.MAPPER.readValue(json, GenericKubernetesResource.class);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static final String POD = "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}";

    private static long cpuMillis(PodSetTemplate ps) {
        return PodResources.of(ps.template().getSpec()).get("cpu");
    }

    @Test
    void aJobRunsMinOfParallelismAndCompletionsAtOnce() {
        GenericKubernetesResource job = obj("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},"
                + "\"spec\":{\"parallelism\":8,\"completions\":3,\"template\":" + POD + "}}");
        assertThat(new BatchJobIntegration().podSets(job)).singleElement().satisfies(ps -> assertThat(ps.count()).as("3 completions: never 8 pods").isEqualTo(3));
        assertThat(new BatchJobIntegration().countChangeRefusal(job, "main", 1, 8)).contains("spec.completions 3");
    }

    @Test
    void aJobSetRunsReplicasTimesMinOfParallelismAndCompletions() {
        GenericKubernetesResource js = obj("{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":{\"name\":\"js\"},"
                + "\"spec\":{\"replicatedJobs\":[{\"name\":\"w\",\"replicas\":2,\"template\":{\"spec\":{\"parallelism\":4,\"completions\":2,\"template\":" + POD + "}}}]}}");
        JobSetIntegration in = new JobSetIntegration();
        assertThat(in.podSets(js)).singleElement().satisfies(ps -> assertThat(ps.count()).isEqualTo(4));
        // scaled by whole replicas of 2 pods, on a new JobSet
        assertThat(in.countChangeRefusal(js, "w", 2, 6)).isNull();
        assertThat(in.countChangeRefusal(js, "w", 3, 6)).contains("multiples of 2");
        ObjectNode o = Specs.toJson(js);
        in.setCount(o, "w", 6);
        assertThat(o.at("/spec/replicatedJobs/0/replicas").asInt()).isEqualTo(3);
    }

    private static String rayCluster(String extra) {
        return "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"name\":\"rc\"" + extra + "},\"spec\":{\"enableInTreeAutoscaling\":true,"
                + "\"headGroupSpec\":{\"template\":" + POD + "},\"workerGroupSpecs\":[{\"groupName\":\"w\",\"replicas\":1,\"minReplicas\":1,"
                + "\"maxReplicas\":5,\"template\":" + POD + "}]}}";
    }

    @Test
    void aRayClusterWithInTreeAutoscalingIsRefusedUnlessDeclaredAndThenCountsTheSidecarAndTheMostWorkers() {
        assertThatThrownBy(() -> new RayClusterIntegration().podSets(obj(rayCluster(""))))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("enableInTreeAutoscaling").hasMessageContaining("fairway.io/elastic");
        List<PodSetTemplate> sets = new RayClusterIntegration().podSets(obj(rayCluster(",\"annotations\":{\"fairway.io/elastic\":\"autoscaler\"}")));
        assertThat(cpuMillis(sets.get(0))).as("the head and KubeRay's autoscaler sidecar (500m)").isEqualTo(1500);
        assertThat(sets.get(1).count()).as("the autoscaler may grow the group to maxReplicas: reserved").isEqualTo(5);
        assertThat(sets.get(1).minCount()).as("and never resized by Fairway").isEqualTo(5);
    }

    private static String rayJob(String mode, String status) {
        return "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"metadata\":{\"name\":\"train\"},\"spec\":{" + mode
                + "\"rayClusterSpec\":{\"headGroupSpec\":{\"template\":" + POD + "},\"workerGroupSpecs\":[{\"groupName\":\"w\",\"replicas\":2,"
                + "\"template\":" + POD + "}]}}" + status + "}";
    }

    @Test
    void aRayJobCountsItsSubmitterPodOrSidecarAsKubeRayRunsThem() {
        List<PodSetTemplate> k8sJob = new RayJobIntegration().podSets(obj(rayJob("", "")));
        assertThat(k8sJob).extracting(PodSetTemplate::name).containsExactly("head", "w", "submitter");
        assertThat(cpuMillis(k8sJob.get(2))).as("KubeRay's default submitter requests 500m").isEqualTo(500);
        List<PodSetTemplate> sidecar = new RayJobIntegration().podSets(obj(rayJob("\"submissionMode\":\"SidecarMode\",", "")));
        assertThat(sidecar).extracting(PodSetTemplate::name).containsExactly("head", "w");
        assertThat(cpuMillis(sidecar.get(0))).as("the submitter runs in the head pod").isEqualTo(1500);
        assertThat(new RayJobIntegration().podSets(obj(rayJob("\"submissionMode\":\"HTTPMode\",", "")))).hasSize(2);
    }

    @Test
    void aRayJobsPodsAreFoundByStatusRayClusterNameNotByTrimmingASuffix() {
        // KubeRay names the cluster in status.rayClusterName; a long RayJob name is shortened there, so no suffix rule holds
        GenericKubernetesResource rj = obj(rayJob("", ",\"status\":{\"rayClusterName\":\"trai-q8z4m\"}"));
        Pod clusterPod = new PodBuilder().withNewMetadata().withName("h").addToLabels("ray.io/cluster", "trai-q8z4m")
                .addToLabels("ray.io/node-type", "head").endMetadata().build();
        Pod submitter = new PodBuilder().withNewMetadata().withName("s").addToLabels("ray.io/originated-from-crd", "RayJob")
                .addToLabels("ray.io/originated-from-cr-name", "train").endMetadata().build();
        RayJobIntegration in = new RayJobIntegration();
        assertThat(in.podOf(clusterPod)).hasValueSatisfying(r -> {
            assertThat(in.podOwners(rj)).contains(r.ownerName());
            assertThat(r.podSet()).isEqualTo("head");
        });
        assertThat(in.podOf(submitter)).hasValueSatisfying(r -> {
            assertThat(in.podOwners(rj)).contains(r.ownerName());
            assertThat(r.podSet()).isEqualTo("submitter");
        });
    }

    @Test
    void aRayClusterHasFailedWhenItsReplicaFailureConditionIsTrue() {
        GenericKubernetesResource rc = obj("{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"name\":\"rc\"},\"spec\":{},\"status\":{"
                + "\"state\":\"ready\",\"conditions\":[{\"type\":\"ReplicaFailure\",\"status\":\"True\",\"reason\":\"FailedCreateHeadPod\","
                + "\"message\":\"admission webhook denied\"}]}}");
        WorkloadOutcome o = new RayClusterIntegration().outcome(rc, List.of());
        assertThat(o.phase()).isEqualTo(WorkloadOutcome.Phase.FAILED);
        assertThat(o.message()).contains("FailedCreateHeadPod");
    }

    private static GenericKubernetesResource miniCluster(String spec, String status) {
        return obj("{\"apiVersion\":\"flux-framework.org/v1alpha2\",\"kind\":\"MiniCluster\",\"metadata\":{\"name\":\"mc\",\"namespace\":\"default\"},"
                + "\"spec\":{" + spec + "\"containers\":[{\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}" + status + "}");
    }

    @Test
    void aMiniClusterIsNeverResizedAboveTheSizeTheOperatorRecordedAndAUnifiedJobAboveMaxSizeIsRefused() {
        MiniClusterIntegration in = new MiniClusterIntegration();
        ObjectNode live = Specs.toJson(miniCluster("\"size\":2,\"maxSize\":8,", ",\"status\":{\"maximumSize\":4}"));
        assertThatThrownBy(() -> in.setCount(live, "flux", 6)).isInstanceOf(InvalidSpecException.class).hasMessageContaining("status.maximumSize 4");
        in.setCount(live, "flux", 4);
        assertThat(live.at("/spec/size").asInt()).isEqualTo(4);
        assertThat(in.countChangeRefusal(miniCluster("\"size\":2,", ""), "flux", 2, 8)).contains("spec.size (no spec.maxSize) 2");
        assertThat(in.countChangeRefusal(miniCluster("\"size\":2,\"maxSize\":8,", ""), "flux", 2, 8)).isNull();
    }

    private static PodSetAdmission tolerating(String podSet, int count) {
        return new PodSetAdmission(podSet, count, Map.of("pool", "gpu"), List.of(new Toleration("NoSchedule", "nvidia.com/gpu", "Exists", null, null)),
                List.of(), List.of());
    }

    @Test
    void aFlavorsTolerationsGoIntoTheMiniClustersPodTolerationsWhichTheUpstreamCrdHas() {
        JsonNode crd = SharedCrds.crd("flux-operator/flux-framework.org_miniclusters.yaml");
        MiniClusterIntegration in = new MiniClusterIntegration();
        in.connect((k, ns, n) -> ApiLookup.CRD.equals(k) ? SharedCrds.resource(crd) : null);
        GenericKubernetesResource mc = miniCluster("\"size\":2,\"maxSize\":4,", "");
        ObjectNode o = Specs.toJson(mc);
        in.admit(o, in.podSets(mc), List.of(tolerating("flux", 2)));
        assertThat(o.at("/spec/pod/tolerations/0/key").asText()).isEqualTo("nvidia.com/gpu");
        assertThat(o.at("/spec/pod/tolerations/0/effect").asText()).isEqualTo("NoSchedule");
        assertThat(SharedCrds.errors(crd, "v1alpha2", o)).as("valid against flux-operator's CRD").isEmpty();

        // an older operator's CRD, without spec.pod.tolerations: refused, naming the field, rather than silently pruned
        JsonNode old = SharedCrds.without(crd, "v1alpha2", "/properties/spec/properties/pod", "tolerations");
        MiniClusterIntegration older = new MiniClusterIntegration();
        older.connect((k, ns, n) -> ApiLookup.CRD.equals(k) ? SharedCrds.resource(old) : null);
        assertThatThrownBy(() -> older.admit(Specs.toJson(mc), older.podSets(mc), List.of(tolerating("flux", 2))))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("spec.pod.tolerations");
    }

    @Test
    void anMpiJobLauncherNotSyncedOnResumeIsReportedAsAnOperatorOlderThan08() {
        GenericKubernetesResource mpi = obj("{\"apiVersion\":\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\",\"metadata\":{\"name\":\"m\"},\"spec\":{"
                + "\"mpiReplicaSpecs\":{\"Launcher\":{\"replicas\":1,\"template\":{\"spec\":{\"nodeSelector\":{\"pool\":\"b\"},\"containers\":[{\"name\":\"l\"}]}}},"
                + "\"Worker\":{\"replicas\":2,\"template\":" + POD + "}}}}");
        Pod stale = new PodBuilder().withNewMetadata().withName("m-launcher-x").addToLabels(MpiJobIntegration.JOB_ROLE_LABEL, "launcher").endMetadata()
                .withNewSpec().addToNodeSelector("pool", "a").endSpec().withNewStatus().withPhase("Pending").endStatus().build();
        Pod synced = new PodBuilder(stale).editSpec().addToNodeSelector("pool", "b").endSpec().build();
        assertThat(new MpiJobIntegration().warning(mpi, List.of(stale))).hasValueSatisfying(w -> assertThat(w).contains(MpiJobIntegration.OLD_OPERATOR));
        assertThat(new MpiJobIntegration().warning(mpi, List.of(synced))).isEmpty();
    }

    @Test
    void everyKindSaysWhetherAndHowAUnifiedJobMayScaleIt() {
        GenericKubernetesResource pt = obj("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
                + "\"pytorchReplicaSpecs\":{\"Master\":{\"replicas\":1,\"template\":" + POD + "},\"Worker\":{\"replicas\":2,\"template\":" + POD + "}}}}");
        Integration torch = new KubeflowJobIntegration.PyTorchJob();
        assertThat(torch.countChangeRefusal(pt, "worker", 1, 8)).isNull();
        assertThat(torch.countChangeRefusal(pt, "master", 1, 2)).contains("leader");
        assertThat(torch.resizableInPlace(pt)).as("no elasticPolicy: recreated").isFalse();
        ObjectNode o = Specs.toJson(pt);
        torch.setCount(o, "worker", 5);
        assertThat(o.at("/spec/pytorchReplicaSpecs/Worker/replicas").asInt()).isEqualTo(5);
        GenericKubernetesResource elastic = obj(Specs.toJson(pt).put("x", 0).toString().replace("\"spec\":{", "\"spec\":{\"elasticPolicy\":{\"minReplicas\":1,\"maxReplicas\":4},"));
        assertThat(torch.resizableInPlace(elastic)).as("torchrun's elastic rendezvous: in place").isTrue();
        assertThat(torch.countChangeRefusal(elastic, "worker", 1, 8)).contains("elasticPolicy");
        ObjectNode m = Specs.toJson(obj("{\"apiVersion\":\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\",\"metadata\":{\"name\":\"m\"},\"spec\":{\"mpiReplicaSpecs\":{"
                + "\"Launcher\":{\"template\":" + POD + "},\"Worker\":{\"replicas\":2,\"template\":" + POD + "}}}}"));
        new MpiJobIntegration().setCount(m, "worker", 3);
        assertThat(m.at("/spec/mpiReplicaSpecs/Worker/replicas").asInt()).isEqualTo(3);
    }
}
