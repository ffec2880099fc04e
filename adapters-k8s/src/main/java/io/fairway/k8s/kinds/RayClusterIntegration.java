package io.fairway.k8s.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.List;
import java.util.Optional;

/**
 * KubeRay's {@code RayCluster} ({@code ray.io/v1}): one gang of the head pod set ({@code head}, one pod) and one pod
 * set per worker group (named by its {@code groupName}), admitted whole. Elastic: a worker group may be admitted with
 * fewer replicas, down to its {@code minReplicas}, and is resized in place through its {@code replicas} (KubeRay adds
 * or removes worker pods; the head stays).
 *
 * <p>API reference: https://ray-project.github.io/kuberay/reference/api/ ({@code RayCluster}, {@code RayClusterSpec},
 * {@code HeadGroupSpec}, {@code WorkerGroupSpec}); pod labels from KubeRay's {@code ray-operator/controllers/ray/utils/constant.go}.
 *
 * <p><b>Fields read:</b> {@code spec.suspend}, {@code spec.headGroupSpec.template}, {@code spec.workerGroupSpecs[].groupName},
 * {@code .replicas}, {@code .minReplicas}, {@code .numOfHosts}, {@code .suspend}, {@code .template}; {@code status.state}
 * and {@code status.reason}, {@code status.conditions} ({@code ReplicaFailure}). <b>Fields written</b> (the allow-list): {@code spec.suspend} (KubeRay 1.1+: a suspended
 * RayCluster has its pods deleted), {@code spec.headGroupSpec.template.spec.nodeSelector} / {@code .tolerations} /
 * {@code .schedulingGates}, the same three under {@code spec.workerGroupSpecs[i].template.spec}, and
 * {@code spec.workerGroupSpecs[i].replicas}. Pods are matched by the labels {@code ray.io/cluster} (the RayCluster's
 * name), {@code ray.io/node-type} ({@code head} / {@code worker}) and {@code ray.io/group} (the worker group).
 *
 * <p>A RayCluster runs until it is deleted (deleting it ends its job in the engine); it failed when its
 * {@code ReplicaFailure} condition is true (or, from KubeRay before 1.2, its {@code status.state} is {@code failed}). A RayCluster created by a RayJob (label {@code ray.io/originated-from-crd:
 * RayJob}) is queued through its RayJob, not on its own.
 */
public final class RayClusterIntegration extends RayKind {
    /** The kind. */
    public static final KindRef KIND = new KindRef("ray.io", "v1", "RayCluster", "rayclusters");
    static final String CLUSTER_LABEL = "ray.io/cluster";
    static final String NODE_TYPE_LABEL = "ray.io/node-type";
    static final String GROUP_LABEL = "ray.io/group";
    static final String ORIGIN_CRD_LABEL = "ray.io/originated-from-crd";
    /** KubeRay's RayCluster condition type set when it cannot create or delete a pod. */
    static final String REPLICA_FAILURE = "ReplicaFailure";

    /** Public for {@link java.util.ServiceLoader}. */
    public RayClusterIntegration() {
        super(KIND, "/spec");
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource object) {
        String origin = Specs.label(object, ORIGIN_CRD_LABEL).orElse("");
        InvalidSpecException.check(origin.isEmpty() || "RayCluster".equals(origin), "metadata.labels[" + ORIGIN_CRD_LABEL + "]", origin,
                "metadata.labels[%s] is %s: this RayCluster was created by a %s, which is queued instead", ORIGIN_CRD_LABEL, origin, origin);
        return super.podSets(object);
    }

    @Override
    public boolean resizable() {
        return true;
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        return Specs.label(pod, CLUSTER_LABEL).map(c -> new PodRef(c, podSetOf(pod), null));
    }

    static String podSetOf(Pod pod) {
        return "head".equals(Specs.label(pod, NODE_TYPE_LABEL).orElse("")) ? RayPodSets.HEAD : Specs.label(pod, GROUP_LABEL).orElse("");
    }

    /**
     * Failed when its {@code ReplicaFailure} condition is true (KubeRay could not create or delete its pods; the
     * conditions replaced {@code status.state}, which KubeRay no longer sets to {@code failed} since 1.2), or, from
     * an older KubeRay, when {@code status.state} is {@code failed}.
     */
    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource object, List<Pod> pods) {
        Optional<com.fasterxml.jackson.databind.JsonNode> failure = Specs.trueCondition(object, REPLICA_FAILURE);
        if (failure.isPresent()) {
            return WorkloadOutcome.failed(Specs.describe(failure.get(), "the RayCluster could not create or delete its pods"));
        }
        if ("failed".equals(Specs.at(object, "/status/state").asText())) {
            return WorkloadOutcome.failed(Specs.at(object, "/status/reason").asText("the RayCluster failed"));
        }
        return WorkloadOutcome.ACTIVE;
    }
}
