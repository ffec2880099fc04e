/**
 * YAML descriptions of clusters ({@link io.fairway.sim.config.ClusterConfig}), queues with Kueue's field names
 * (the configuration module's {@link io.fairway.config.QueuesConfig}, read by {@link io.fairway.sim.config.QueueFiles}) and self-contained scenarios
 * ({@link io.fairway.sim.config.ScenarioConfig}); errors name file and line
 * ({@link io.fairway.sim.config.SimulationConfigException}); the bundled {@link io.fairway.sim.config.Defaults}.
 */
package io.fairway.sim.config;
