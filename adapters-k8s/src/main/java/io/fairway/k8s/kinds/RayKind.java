package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.util.List;

/** What RayJob and RayCluster share: a RayClusterSpec at {@link #base} read as pod sets, and {@code spec.suspend}. */
abstract class RayKind implements Integration {
    private final KindRef kind;
    /** The RayClusterSpec's pointer. */
    final String base;

    RayKind(KindRef kind, String base) {
        this.kind = kind;
        this.base = base;
    }

    @Override
    public KindRef kind() {
        return kind;
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource object) {
        return RayPodSets.read(object, base, resizable());
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource object) {
        return Specs.boolAt(object, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode object, boolean suspended) {
        Specs.set(object, "/spec/suspend", suspended);
    }

    /** Worker groups (numOfHosts 1) are written through their {@code replicas}; the head is one pod. */
    @Override
    public String countChangeRefusal(GenericKubernetesResource object, String podSet, int min, int max) {
        if (RayPodSets.HEAD.equals(podSet) || RayJobIntegration.SUBMITTER.equals(podSet)) {
            return "pod set " + podSet + " is one pod; scale a worker group (spec.replicaSpec.podSet)";
        }
        for (com.fasterxml.jackson.databind.JsonNode g : Specs.at(object, base + "/workerGroupSpecs")) {
            if (podSet.equals(g.path("groupName").asText()) && g.path("numOfHosts").asInt(1) > 1) {
                return "worker group " + podSet + " has numOfHosts " + g.path("numOfHosts").asInt() + "; Fairway scales groups of one host per replica";
            }
        }
        return null;
    }

    @Override
    public void setCount(ObjectNode object, String podSet, int count) {
        RayPodSets.setReplicas(object, base, podSet, count);
    }
}
