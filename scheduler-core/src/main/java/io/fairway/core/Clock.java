package io.fairway.core;

/**
 * The scheduler's clock, in milliseconds. Tiny on purpose: a simulation passes its simulated time, a test a
 * fixed value, a controller {@link #system()}.
 *
 * <pre>{@code
 * AtomicLong now = new AtomicLong();
 * Scheduler s = Scheduler.builder().clock(now::get).build();
 * }</pre>
 */
@FunctionalInterface
public interface Clock {
    /** @return the current time in milliseconds */
    long millis();

    /** @return the wall clock */
    static Clock system() {
        return System::currentTimeMillis;
    }
}
