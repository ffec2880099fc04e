/**
 * The UnifiedJob controller: {@code fairway.io/v1alpha1} {@code UnifiedJob}s queued as elastic jobs whose
 * {@code spec.replicaSpec.targetReplicas} the engine decides, run through the integration their {@code spec.jobType}
 * names ({@link io.fairway.k8s.unifiedjob.UnifiedJobController}).
 */
package io.fairway.k8s.unifiedjob;
