/**
 * The cluster and quota model: resources, nodes with GPUs and their interconnect, clusters with topology
 * levels, ResourceFlavors, ClusterQueues with resource groups, cohorts and LocalQueues. Every type is
 * immutable and validated at construction; errors name the field and the value.
 */
package io.fairway.api.model;
