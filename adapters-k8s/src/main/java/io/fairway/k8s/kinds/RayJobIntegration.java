package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * KubeRay's {@code RayJob} ({@code ray.io/v1}): the Ray cluster of its {@code spec.rayClusterSpec} — head and worker
 * groups, one gang, as for {@link RayClusterIntegration} — plus, in the default {@code K8sJobMode}, the submitter pod
 * (pod set {@value #SUBMITTER}) that runs {@code ray job submit}; suspended through {@code spec.suspend} (while
 * suspended, KubeRay creates no RayCluster and deletes the one it made). Not resized in place (KubeRay ignores
 * changes to {@code rayClusterSpec} once its cluster exists).
 *
 * <p>API reference: https://ray-project.github.io/kuberay/reference/api/ ({@code RayJob}, {@code RayJobSpec},
 * {@code RayJobStatus}); pod and cluster labels from KubeRay's {@code ray-operator/controllers/ray/utils/constant.go}.
 *
 * <p><b>Counted as it runs.</b> The submitter ({@code spec.submissionMode} absent or {@code K8sJobMode}) is a
 * batch/v1 Job of one pod from {@code spec.submitterPodTemplate}, or KubeRay's default container requesting 500m CPU
 * and 200Mi memory ({@code GetDefaultSubmitterContainer}, ray-operator/controllers/ray/common/job.go); in
 * {@code SidecarMode} that container runs in the head pod and is counted there; {@code HTTPMode} and
 * {@code InteractiveMode} run no submitter pod. With {@code rayClusterSpec.enableInTreeAutoscaling} the head counts the
 * autoscaler sidecar (see {@link RayPodSets}).
 *
 * <p><b>Fields read:</b> {@code spec.suspend}, {@code spec.rayClusterSpec} (as a RayCluster's spec),
 * {@code spec.submissionMode}, {@code spec.submitterPodTemplate}, {@code status.rayClusterName},
 * {@code status.jobDeploymentStatus} ({@code Complete}, {@code Failed}), {@code status.jobStatus}, {@code status.reason},
 * {@code status.message}. <b>Fields written</b> (the allow-list): {@code spec.suspend}, and under
 * {@code spec.rayClusterSpec}: {@code headGroupSpec.template.spec.nodeSelector} / {@code .tolerations} /
 * {@code .schedulingGates}, the same three under {@code workerGroupSpecs[i].template.spec} and under
 * {@code spec.submitterPodTemplate.spec} when the RayJob has one (and, for a UnifiedJob that scales a worker group,
 * its {@code workerGroupSpecs[i].replicas} on a new RayJob). Its worker groups are admitted whole: {@code minReplicas}
 * does not make them elastic, since a running RayJob cannot be resized. A default submitter (no {@code submitterPodTemplate}) is counted but not edited: it
 * is placed by the kube-scheduler.
 *
 * <p>Pods: KubeRay records the cluster it made for the RayJob in {@code status.rayClusterName} and labels the cluster's
 * pods {@code ray.io/cluster} with that name, so a pod belongs to the RayJob whose {@code status.rayClusterName} its
 * label names ({@link #podOwners}); the submitter pod carries {@code ray.io/originated-from-crd: RayJob} and
 * {@code ray.io/originated-from-cr-name: <rayjob>}. A RayJob using {@code spec.clusterSelector} (an existing cluster)
 * cannot be queued.
 */
public final class RayJobIntegration extends RayKind {
    /** The kind. */
    public static final KindRef KIND = new KindRef("ray.io", "v1", "RayJob", "rayjobs");
    /** The submitter's pod set. */
    public static final String SUBMITTER = "submitter";
    private static final String BASE = "/spec/rayClusterSpec";
    private static final String SUBMITTER_TEMPLATE = "/spec/submitterPodTemplate";
    static final String ORIGIN_NAME_LABEL = "ray.io/originated-from-cr-name";

    /** Public for {@link java.util.ServiceLoader}. */
    public RayJobIntegration() {
        super(KIND, BASE);
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource object) {
        InvalidSpecException.check(!Specs.at(object, "/spec/clusterSelector").isObject() || Specs.at(object, "/spec/clusterSelector").isEmpty(),
                "spec.clusterSelector", null, "a RayJob that runs on an existing cluster (spec.clusterSelector) cannot be queued: queue the RayCluster");
        List<PodSetTemplate> out = new ArrayList<>(super.podSets(object));
        String mode = Specs.at(object, "/spec/submissionMode").asText("K8sJobMode");
        JsonNode t = Specs.at(object, SUBMITTER_TEMPLATE);
        if ("K8sJobMode".equals(mode) || mode.isEmpty()) {
            out.add(PodSetTemplate.of(SUBMITTER, 1, SUBMITTER_TEMPLATE, t.isObject() ? Specs.templateOf(t, SUBMITTER_TEMPLATE) : defaultSubmitter()));
        } else if ("SidecarMode".equals(mode)) {
            PodSetTemplate head = out.get(0);
            head.template().getSpec().getContainers().add(defaultSubmitter().getSpec().getContainers().get(0));
        }
        return out;
    }

    /** KubeRay's default submitter: one container requesting 500m CPU and 200Mi memory (limits 1 CPU, 1Gi). */
    static PodTemplateSpec defaultSubmitter() {
        return new PodTemplateSpecBuilder().withNewSpec().addToContainers(new ContainerBuilder().withName("ray-job-submitter").withNewResources()
                .addToRequests("cpu", new Quantity("500m")).addToRequests("memory", new Quantity("200Mi"))
                .addToLimits("cpu", new Quantity("1")).addToLimits("memory", new Quantity("1Gi")).endResources().build())
                .withRestartPolicy("Never").endSpec().build();
    }

    /** The default edit, except for a default submitter, which has no template in the RayJob to edit. */
    @Override
    public void admit(ObjectNode object, List<PodSetTemplate> podSets, List<PodSetAdmission> admissions) {
        boolean ownSubmitter = object.at(SUBMITTER_TEMPLATE).isObject();
        List<PodSetAdmission> edited = admissions.stream().filter(a -> ownSubmitter || !SUBMITTER.equals(a.name())).toList();
        super.admit(object, podSets, edited);
    }

    @Override
    public Set<String> podOwners(GenericKubernetesResource object) {
        String cluster = Specs.at(object, "/status/rayClusterName").asText("");
        String name = object.getMetadata().getName();
        return cluster.isEmpty() || cluster.equals(name) ? Set.of(name) : Set.of(name, cluster);
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> cluster = Specs.label(pod, RayClusterIntegration.CLUSTER_LABEL);
        if (cluster.isPresent()) {
            return Optional.of(new PodRef(cluster.get(), RayClusterIntegration.podSetOf(pod), null));
        }
        if ("RayJob".equals(Specs.label(pod, RayClusterIntegration.ORIGIN_CRD_LABEL).orElse(""))) {
            return Specs.label(pod, ORIGIN_NAME_LABEL).map(n -> new PodRef(n, SUBMITTER, null));
        }
        return Optional.empty();
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource object, List<Pod> pods) {
        String deployment = Specs.at(object, "/status/jobDeploymentStatus").asText("");
        String job = Specs.at(object, "/status/jobStatus").asText("");
        String message = Specs.at(object, "/status/message").asText("");
        if ("Failed".equals(deployment) || "Complete".equals(deployment) && !"SUCCEEDED".equals(job)) {
            String reason = Specs.at(object, "/status/reason").asText("");
            return WorkloadOutcome.failed(reason.isEmpty() ? message : message.isEmpty() ? reason : reason + ": " + message);
        }
        return "Complete".equals(deployment) ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }
}
