package io.fairway.sim;

import io.fairway.core.Scheduler;

/**
 * Lets a caller watch a simulated run from outside while it runs: see its scheduler before the first job arrives,
 * hold the run before each simulated instant (to pace a replay against the wall clock), and hear when it ends.
 * Hooks never change what the run decides: the same input, policy and seed give the same run with or without them.
 */
public interface SimulationHooks {
    /** No hooks. */
    SimulationHooks NONE = new SimulationHooks() {
    };

    /**
     * Called once, after the scheduler is built and before any job is submitted to it.
     *
     * @param scheduler the run's scheduler (thread-safe to read from other threads while the run goes on)
     */
    default void started(Scheduler scheduler) {
    }

    /**
     * Called before the events of each simulated instant are applied; may block (pausing the run).
     *
     * @param simulatedMillis the instant about to be simulated
     */
    default void beforeTime(long simulatedMillis) {
    }

    /**
     * Called once when the run is over.
     *
     * @param endMillis the last simulated instant
     */
    default void finished(long endMillis) {
    }
}
