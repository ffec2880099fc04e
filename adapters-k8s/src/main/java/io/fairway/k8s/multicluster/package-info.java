/**
 * Many clusters, one queue: a manager cluster holds the Jobs users submit (kept suspended, the source of truth), and
 * one engine schedules them over the nodes of several worker clusters; a per-worker executor copies each admitted Job
 * into its worker and reports its status back. See {@link io.fairway.k8s.multicluster.MultiClusterManager}.
 */
package io.fairway.k8s.multicluster;
