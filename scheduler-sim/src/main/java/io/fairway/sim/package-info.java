/**
 * The discrete-event simulator: {@link io.fairway.sim.Simulator} runs a real {@code Scheduler} on a simulated
 * clock over a {@link io.fairway.sim.SimulationInput} (cluster, queues, jobs, timed cluster actions) and
 * returns a {@link io.fairway.sim.SimulationResult} with per-job outcomes and {@link io.fairway.sim.PolicyMetrics}
 * (JCT, utilisation, finish-time fairness ρ, Jain's index; see {@link io.fairway.sim.Fairness}).
 */
package io.fairway.sim;
