package io.fairway.k8s.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.List;
import java.util.Optional;

/**
 * KubeRay's {@code RayJob} ({@code ray.io/v1}): the Ray cluster of its {@code spec.rayClusterSpec} — head and worker
 * groups, one gang, as for {@link RayClusterIntegration} — suspended through {@code spec.suspend} (while suspended,
 * KubeRay creates no RayCluster and deletes the one it made). Not resized in place.
 *
 * <p>API reference: https://ray-project.github.io/kuberay/reference/api/ ({@code RayJob}, {@code RayJobSpec},
 * {@code RayJobStatus}); pod and cluster labels from KubeRay's {@code ray-operator/controllers/ray/utils/constant.go}.
 *
 * <p><b>Fields read:</b> {@code spec.suspend}, {@code spec.rayClusterSpec} (as a RayCluster's spec),
 * {@code status.jobDeploymentStatus} ({@code Complete}, {@code Failed}), {@code status.jobStatus}, {@code status.reason},
 * {@code status.message}. <b>Fields written</b> (the allow-list): {@code spec.suspend}, and under
 * {@code spec.rayClusterSpec}: {@code headGroupSpec.template.spec.nodeSelector} / {@code .tolerations} /
 * {@code .schedulingGates}, the same three under {@code workerGroupSpecs[i].template.spec}, and
 * {@code workerGroupSpecs[i].replicas} when admitted with fewer workers.
 *
 * <p>Pods: KubeRay names a RayJob's cluster {@code <rayjob>-<5 characters>} ({@code GenerateRayClusterName}) and labels
 * its pods {@code ray.io/cluster} with that name; the RayJob is the label's value without the last six characters.
 * Differences from Kueue: the submitter pod (the K8s Job running {@code ray job submit}) is not a pod set here — Kueue
 * counts it (its {@code submitterPodTemplate} or a default); a RayJob using {@code spec.clusterSelector} (an existing
 * cluster) cannot be queued.
 */
public final class RayJobIntegration extends RayKind {
    /** The kind. */
    public static final KindRef KIND = new KindRef("ray.io", "v1", "RayJob", "rayjobs");
    private static final String BASE = "/spec/rayClusterSpec";
    /** {@code -} and KubeRay's five random characters. */
    private static final int CLUSTER_SUFFIX = 6;

    /** Public for {@link java.util.ServiceLoader}. */
    public RayJobIntegration() {
        super(KIND, BASE);
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> cluster = Specs.label(pod, RayClusterIntegration.CLUSTER_LABEL);
        if (cluster.isEmpty() || cluster.get().length() <= CLUSTER_SUFFIX || cluster.get().charAt(cluster.get().length() - CLUSTER_SUFFIX) != '-') {
            return Optional.empty();
        }
        String c = cluster.get();
        return Optional.of(new PodRef(c.substring(0, c.length() - CLUSTER_SUFFIX), RayClusterIntegration.podSetOf(pod), null));
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
