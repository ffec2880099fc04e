package io.fairway.sim.cli;

import picocli.CommandLine.Option;

/** {@code --no-progress}, a mixin of every command that draws a progress bar while it runs simulations. */
final class ProgressOption {
    @Option(names = "--no-progress", description = "Do not draw the progress bar on stderr (it is drawn only on a terminal).")
    boolean noProgress;

    /** @return whether to draw the progress bar (on a terminal) */
    boolean show() {
        return !noProgress;
    }
}
