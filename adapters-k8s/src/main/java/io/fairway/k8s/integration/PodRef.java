package io.fairway.k8s.integration;

/**
 * Which queued object, pod set and member a pod belongs to, as an {@link Integration} reads it from the pod's labels
 * (the pod is in the object's namespace).
 *
 * @param ownerName the name of the queued object (the Job, JobSet, PyTorchJob …) that the pod runs for
 * @param podSet the pod set's name ({@link PodSetTemplate#name()})
 * @param index the member index within the pod set when the kind labels it (a completion or replica index), or
 *     null: the adapter then gives the pod the lowest free member
 */
public record PodRef(String ownerName, String podSet, Integer index) {
}
