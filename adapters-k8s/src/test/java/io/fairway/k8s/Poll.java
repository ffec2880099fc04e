package io.fairway.k8s;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting in tests for what other threads (the adapter, a leader election, a manager) make true. */
public final class Poll {
    private Poll() {
    }

    /**
     * Polls every 25 ms until the condition holds, failing after 15 s (leader election and watches run on the wall
     * clock).
     *
     * @param condition what to wait for
     * @param what the condition in words, for the failure message
     */
    public static void until(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }
}
