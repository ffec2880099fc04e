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
        return RayPodSets.read(object, base);
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource object) {
        return Specs.boolAt(object, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode object, boolean suspended) {
        Specs.set(object, "/spec/suspend", suspended);
    }

    @Override
    public void setCount(ObjectNode object, String podSet, int count) {
        RayPodSets.setReplicas(object, base, podSet, count);
    }
}
