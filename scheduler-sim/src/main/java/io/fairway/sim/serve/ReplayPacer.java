package io.fairway.sim.serve;

import io.fairway.core.Scheduler;
import io.fairway.sim.SimulationHooks;
import io.fairway.visibility.SimulationControl;
import java.util.function.LongSupplier;

/**
 * Paces a simulated run against the wall clock for a served replay: before each simulated instant it waits until
 * the wall clock, at {@code speed} simulated seconds per wall second, reaches it; it holds the run while paused
 * (letting {@link #step} advance it), and pauses by itself at the first instant after {@code pauseAtMillis}. Only
 * the timing of the run changes, never what it decides.
 */
final class ReplayPacer implements SimulationHooks, SimulationControl {
    private final LongSupplier wallMillis;
    private double speed;
    private boolean paused;
    private long pauseAt;
    private long stepLimit = Long.MIN_VALUE;
    private long shown;
    private long anchorSim;
    private long anchorWall;
    private long waitingFor = -1;
    private long end = -1;
    private final boolean paced;
    private Scheduler scheduler;
    private final java.util.function.Consumer<Scheduler> onStart;

    /**
     * @param speed simulated seconds per wall second ({@code Double.POSITIVE_INFINITY}: as fast as possible)
     * @param pauseAtMillis pause at the first instant after this one ({@code Long.MAX_VALUE}: never)
     * @param paced false when the run is only shown at its end (no control)
     * @param wallMillis the wall clock
     * @param onStart told the run's scheduler before its first job (the server attaches here)
     */
    ReplayPacer(double speed, long pauseAtMillis, boolean paced, LongSupplier wallMillis, java.util.function.Consumer<Scheduler> onStart) {
        this.onStart = onStart;
        this.speed = speed;
        this.pauseAt = pauseAtMillis;
        this.paced = paced;
        this.wallMillis = wallMillis;
        this.anchorWall = wallMillis.getAsLong();
    }

    @Override
    public synchronized void started(Scheduler s) {
        onStart.accept(s);
        this.scheduler = s;
        notifyAll();
    }

    synchronized Scheduler scheduler() {
        return scheduler;
    }

    @Override
    public synchronized void beforeTime(long t) {
        if (t > pauseAt) {
            pause();
            shown = Math.max(shown, pauseAt);
            pauseAt = Long.MAX_VALUE;
        }
        try {
            while (true) {
                if (paused) {
                    if (t <= stepLimit) {
                        break;
                    }
                    if (stepLimit > shown) {
                        shown = stepLimit;
                    }
                    waitingFor = t;
                    notifyAll();
                    wait();
                    continue;
                }
                if (Double.isInfinite(speed)) {
                    break;
                }
                long due = anchorWall + (long) Math.ceil((t - anchorSim) / speed);
                long now = wallMillis.getAsLong();
                if (now >= due) {
                    break;
                }
                waitingFor = t;
                wait(Math.max(1, due - now));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the served simulation was interrupted", e);
        }
        waitingFor = -1;
        shown = Math.max(shown, t);
    }

    @Override
    public synchronized void finished(long endMillis) {
        end = endMillis;
        shown = Math.max(shown, endMillis);
        notifyAll();
    }

    /** Waits until the run is held (paused and waiting for a later instant) or over. */
    synchronized void awaitHeldOrFinished() throws InterruptedException {
        while (end < 0 && !(paused && waitingFor >= 0)) {
            wait();
        }
    }

    /** Waits until the run's scheduler exists (and the server with it) or the run is over. */
    synchronized void awaitStarted() throws InterruptedException {
        while (end < 0 && scheduler == null) {
            wait();
        }
    }

    /** Waits until the run is over. */
    synchronized void awaitFinished() throws InterruptedException {
        while (end < 0) {
            wait();
        }
    }

    private long shownNow() {
        if (end >= 0 || paused || waitingFor < 0 || Double.isInfinite(speed)) {
            return shown;
        }
        long t = anchorSim + (long) ((wallMillis.getAsLong() - anchorWall) * speed);
        return Math.max(shown, Math.min(waitingFor, t));
    }

    @Override
    public synchronized State state() {
        return new State(shownNow(), end, paused || end >= 0, speed, end >= 0, paced && end < 0);
    }

    private void reanchor(long sim) {
        anchorSim = sim;
        anchorWall = wallMillis.getAsLong();
    }

    @Override
    public synchronized void pause() {
        if (!paused) {
            shown = shownNow();
            paused = true;
            stepLimit = Long.MIN_VALUE;
        }
        notifyAll();
    }

    @Override
    public synchronized void resume() {
        if (paused) {
            reanchor(shown);
            paused = false;
        }
        notifyAll();
    }

    @Override
    public synchronized void speed(double s) {
        if (!(s > 0)) {
            throw new IllegalArgumentException("speed must be > 0, was " + s);
        }
        reanchor(shownNow());
        speed = s;
        notifyAll();
    }

    @Override
    public synchronized void step(long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException("step must be > 0 ms, was " + millis);
        }
        if (!paused) {
            pause();
        }
        long limit = Math.max(stepLimit, shown) + millis;
        stepLimit = limit;
        notifyAll();
        // answer once the run has done every instant up to the limit and waits for a later one (or is over, or was
        // resumed or paused anew meanwhile); a step longer than STEP_WAIT_MILLIS of work answers with where it got
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(STEP_WAIT_MILLIS);
        try {
            while (end < 0 && paused && stepLimit == limit && waitingFor <= limit) {
                long left = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return;
                }
                wait(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (end < 0 && paused && stepLimit == limit) {
            shown = Math.max(shown, limit);
        }
    }

    /** The longest {@link #step} waits for the run to reach its limit before answering. */
    static final long STEP_WAIT_MILLIS = 5_000;
}
