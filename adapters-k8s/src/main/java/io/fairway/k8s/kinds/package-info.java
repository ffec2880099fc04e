/**
 * The integrations Fairway ships: batch/v1 Job ({@link io.fairway.k8s.kinds.BatchJobIntegration}, enabled by
 * default), JobSet, the Kubeflow training operator's v1 jobs, MPIJob v2beta1, Trainer v2's TrainJob, KubeRay's
 * RayJob and RayCluster, and the Flux Operator's MiniCluster (queued through a UnifiedJob), each found by
 * {@link java.util.ServiceLoader} and enabled by name.
 */
package io.fairway.k8s.kinds;
