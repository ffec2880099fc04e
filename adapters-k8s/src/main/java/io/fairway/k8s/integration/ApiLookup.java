package io.fairway.k8s.integration;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * Read access to the API server for an {@link Integration} that needs more than the queued object: a TrainJob's
 * (Cluster)TrainingRuntime, the CustomResourceDefinition that says which fields the installed operator serves. The
 * adapter gives its integrations one through {@link Integration#connect}; it only ever reads.
 *
 * <pre>{@code
 * GenericKubernetesResource rt = lookup.get(new KindRef("trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime",
 *         "clustertrainingruntimes"), null, "torch-distributed");
 * }</pre>
 */
@FunctionalInterface
public interface ApiLookup {
    /** A lookup that finds nothing (no API server: unit tests, the simulator). */
    ApiLookup NONE = (kind, namespace, name) -> null;

    /** The CustomResourceDefinition kind ({@code apiextensions.k8s.io/v1}), cluster-scoped. */
    KindRef CRD = new KindRef("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions");

    /**
     * @param kind the kind to read
     * @param namespace its namespace, or null for a cluster-scoped kind
     * @param name its name
     * @return the object, or null when it does not exist or cannot be read (not found, forbidden, unreachable)
     */
    GenericKubernetesResource get(KindRef kind, String namespace, String name);

    /**
     * Like {@link #get}, but never from a cache: for state that changes from one pass to the next (a JobSet's active
     * pods). By default {@link #get}.
     *
     * @param kind the kind to read
     * @param namespace its namespace, or null for a cluster-scoped kind
     * @param name its name
     * @return the object as the API server has it now, or null when it does not exist or cannot be read
     */
    default GenericKubernetesResource current(KindRef kind, String namespace, String name) {
        return get(kind, namespace, name);
    }

    /**
     * @param kind a custom kind
     * @return its CustomResourceDefinition ({@code <plural>.<group>}), or null when it cannot be read
     */
    default GenericKubernetesResource crdOf(KindRef kind) {
        return get(CRD, null, kind.plural() + "." + kind.group());
    }
}
