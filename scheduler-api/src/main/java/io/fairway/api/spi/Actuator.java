package io.fairway.api.spi;

import io.fairway.api.decision.Decision;
import java.util.List;

/**
 * Carries decisions out (on Kubernetes, in the simulator, in a test). It reports back through the
 * scheduler's {@code reportStarted}, {@code reportFinished} and {@code reportFailed}.
 *
 * <p>Called after each round with that round's decisions, in order, outside the scheduler's lock.
 */
@FunctionalInterface
public interface Actuator {
    /** An actuator that does nothing (the caller reads decisions from the round result). */
    Actuator NONE = decisions -> { };

    /** @param decisions what the round decided */
    void apply(List<Decision> decisions);
}
