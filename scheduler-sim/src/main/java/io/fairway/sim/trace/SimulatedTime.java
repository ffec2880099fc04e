package io.fairway.sim.trace;

/**
 * The one rule for times read from files (traces and scenario YAML alike): a submit time, a duration or an event
 * time is a finite number of seconds from 0 to {@link #MAX_SECONDS}. The simulator's clock counts milliseconds in a
 * {@code long} and stops at {@code Long.MAX_VALUE / 2} ms (about 146,000 years); bounding each value far inside it
 * keeps every submit time plus duration representable, so a file cannot run the clock to its end with a job
 * unfinished (a duration of 1e300 did, and the run ended without it, exit 0).
 */
public final class SimulatedTime {
    /** The largest time read, in seconds: 10^10 s, about 317 years. */
    public static final double MAX_SECONDS = 1e10;

    private SimulatedTime() {
    }

    /**
     * @param seconds a time read
     * @return true when it is finite, {@code >= 0} and at most {@link #MAX_SECONDS}
     */
    public static boolean representable(double seconds) {
        return seconds >= 0 && seconds <= MAX_SECONDS;
    }

    /**
     * @param field the field's name
     * @param value the value as written
     * @return the error for a value beyond {@link #MAX_SECONDS} (or not finite)
     */
    public static String beyondTheClock(String field, String value) {
        return field + " " + value + " s is beyond what the simulator's clock can represent (at most 1e10 s, about 317 years)";
    }
}
