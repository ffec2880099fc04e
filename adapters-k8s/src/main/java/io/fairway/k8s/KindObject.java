package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * A queued object with the enabled kind it belongs to (a kind and object pair; not Kueue's Workload).
 *
 * @param kind the enabled integration it belongs to
 * @param object the object as read
 */
record KindObject(EnabledKind kind, GenericKubernetesResource object) {
    String key() {
        return Kube.key(object);
    }
}
