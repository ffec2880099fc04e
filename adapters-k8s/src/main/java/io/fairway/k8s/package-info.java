/**
 * Kubernetes actuation for Fairway: {@link io.fairway.k8s.FairwayAdapter} watches Nodes, batch/v1 Jobs and their
 * pods, feeds the engine, and applies its decisions the way Kueue does (suspend on create, unsuspend with the
 * flavor's node labels and tolerations on admission, gate pods and bind each to its chosen node, suspend again and
 * restore the pod template on eviction). {@link io.fairway.k8s.FairwayController} runs it as a controller with
 * leader election and Prometheus metrics.
 */
package io.fairway.k8s;
