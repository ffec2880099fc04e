package io.fairway.sim.cli;

import java.io.PrintWriter;

/**
 * A one-line progress bar on stderr, shown only on a terminal (not when the output goes to a file, a pipe or a
 * build log) and only once a run has taken a couple of seconds.
 */
final class ProgressBar {
    private static final long SHOW_AFTER_NANOS = 2_000_000_000L;
    private static final long REDRAW_NANOS = 100_000_000L;
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long lastDraw;
    private boolean shown;
    private int lastLength;

    /**
     * @param err where to draw
     * @param enabled false to draw nothing (e.g. {@code --no-progress}); also nothing without a console
     */
    ProgressBar(PrintWriter err, boolean enabled) {
        this.err = err;
        this.enabled = enabled && System.console() != null;
    }

    void update(double fraction, String label) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - start < SHOW_AFTER_NANOS || now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        int filled = (int) Math.round(Math.max(0, Math.min(1, fraction)) * WIDTH);
        String line = String.format("\r[%s%s] %3d%%  %s  %.0f s", "#".repeat(filled), " ".repeat(WIDTH - filled),
                Math.round(fraction * 100), label, (now - start) / 1e9);
        int pad = Math.max(0, lastLength - line.length());
        err.print(line + " ".repeat(pad));
        err.flush();
        lastLength = line.length();
        shown = true;
    }

    void finish() {
        if (shown) {
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
            shown = false;
        }
    }
}
