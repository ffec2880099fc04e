package io.fairway.sim;

/**
 * Told how far a simulation is, now and then (not on every event).
 *
 * <pre>{@code
 * Simulator.run(input, "priority", options, done -> bar.update(done));
 * }</pre>
 */
@FunctionalInterface
public interface ProgressListener {
    /** Ignores progress. */
    ProgressListener NONE = fraction -> { };

    /** @param fraction jobs finished (or given up) over jobs, 0..1 */
    void progress(double fraction);
}
