package io.fairway.k8s;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread running a pass again and again, a fixed delay after the last pass ended; closing it interrupts
 * the pass under way and waits up to 10 s for it. The loop of {@link FairwayAdapter#runInBackground()} and of the
 * multi-cluster manager. The pass decides itself whether there is anything to do, and catches its own errors (an
 * uncaught one ends the loop).
 */
public final class BackgroundLoop implements AutoCloseable {
    private final ScheduledExecutorService executor;

    private BackgroundLoop(String threadName, long delayMillis, Runnable pass) {
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(pass, 0, delayMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * @param threadName the name of the loop's thread
     * @param delayMillis the time between the end of one pass and the start of the next, in ms (at least 1)
     * @param pass what each pass does; the first starts at once
     * @return the loop, running
     */
    public static BackgroundLoop start(String threadName, long delayMillis, Runnable pass) {
        if (threadName == null || pass == null || delayMillis < 1) {
            throw new IllegalArgumentException("a loop needs a thread name, a pass and a delay of at least 1 ms, was " + threadName + ", " + delayMillis);
        }
        return new BackgroundLoop(threadName, delayMillis, pass);
    }

    /** Stops the loop: interrupts the pass under way and waits up to 10 s for it to end. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
