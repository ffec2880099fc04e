package io.fairway.sim;

import io.fairway.api.InvalidSpecException;

/**
 * Discrete-event simulation of a cluster under one policy. It embeds a real {@link io.fairway.core.Scheduler}
 * driven by a simulated clock and an actuator that carries its decisions out: an admitted job starts at once
 * and its completion is scheduled from its work and speed; a preempted job stops and loses the progress since
 * its last checkpoint (all of it for jobs without checkpointing).
 *
 * <p>A job's work is its duration at its requested size with ideal placement; its speed is (members placed ÷
 * members requested) × the placement's throughput factor (the Themis locality factor of its
 * {@link io.fairway.api.job.PlacementSensitivity}). A round runs at each distinct event time, after that instant's
 * completions, cluster actions and arrivals, and periodically when {@link SimulationOptions#roundIntervalSeconds()}
 * is set. Jobs asking for more GPUs than the whole cluster are skipped (logged, counted in the result).
 *
 * <p>Deterministic: the same input, policy and seed give the same metrics and event log.
 *
 * <pre>{@code
 * SimulationResult r = Simulator.run(input, "best-effort-fifo", SimulationOptions.DEFAULTS.withSeed(42));
 * r.metrics().avgJctSeconds();
 * }</pre>
 */
public final class Simulator {
    private Simulator() {
    }

    /**
     * @param input the cluster, queues and jobs
     * @param policy a policy name known to {@link io.fairway.core.Policies}
     * @param options seed, round interval, event log
     * @return the outcome
     * @throws InvalidSpecException on an unknown policy or an invalid configuration
     */
    public static SimulationResult run(SimulationInput input, String policy, SimulationOptions options) {
        return run(input, policy, options, ProgressListener.NONE);
    }

    /**
     * @param input the cluster, queues and jobs
     * @param policy a policy name known to {@link io.fairway.core.Policies}
     * @param options seed, round interval, event log
     * @param progress told the fraction of jobs done now and then
     * @return the outcome
     * @throws InvalidSpecException on an unknown policy or an invalid configuration
     */
    public static SimulationResult run(SimulationInput input, String policy, SimulationOptions options, ProgressListener progress) {
        return run(input, policy, options, progress, SimulationHooks.NONE);
    }

    /**
     * @param input the cluster, queues and jobs
     * @param policy a policy name known to {@link io.fairway.core.Policies}
     * @param options seed, round interval, event log
     * @param progress told the fraction of jobs done now and then
     * @param hooks see the run's scheduler, pace it, hear its end (they change nothing the run decides)
     * @return the outcome
     * @throws InvalidSpecException on an unknown policy or an invalid configuration
     */
    public static SimulationResult run(SimulationInput input, String policy, SimulationOptions options, ProgressListener progress,
                                       SimulationHooks hooks) {
        InvalidSpecException.requireName("policy", policy);
        return new SimulationRun(input, policy, options, progress, hooks).run();
    }
}
