/**
 * Fairway's configuration model: the Kueue vocabulary (ResourceFlavors, cohorts, ClusterQueues, LocalQueues), node
 * pools, topology levels and the policy, read from YAML by {@link io.fairway.config.ConfigYaml} into
 * {@link io.fairway.config.QueuesConfig} and turned into the api model. The simulator and the Kubernetes adapter both
 * read it; errors name the file, the line, the field and the value ({@link io.fairway.config.ConfigException}).
 */
package io.fairway.config;
