package io.fairway.visibility;

/**
 * The time control of a simulated run served by the visibility API ({@code GET/POST /api/v1/simulation...}): the
 * simulator implements it; the API only calls it. It steers the wall-clock pacing of a replay, never what the
 * scheduler decides, so the API allows it without a token.
 */
public interface SimulationControl {
    /**
     * The replay's state.
     *
     * @param timeMillis the simulated time shown now
     * @param endMillis the simulated time the run ended at, or -1 while it runs
     * @param paused true while paused
     * @param speed simulated seconds per wall second
     * @param finished true when the run is over (the API shows its final state)
     * @param controllable false when the run is only shown at its final state (no pacing to control)
     */
    record State(long timeMillis, long endMillis, boolean paused, double speed, boolean finished, boolean controllable) {
    }

    /** @return the state now */
    State state();

    /** Pauses the replay. */
    void pause();

    /** Resumes the replay. */
    void resume();

    /** @param speed simulated seconds per wall second, {@code > 0} */
    void speed(double speed);

    /**
     * Lets a paused replay advance this much simulated time, and returns once it has (every instant up to the new
     * time done, so the state answered next shows it), or the run is over; an implementation may bound the wait.
     *
     * @param millis simulated milliseconds, {@code > 0}
     */
    void step(long millis);
}
