package io.fairway.k8s;

import io.fairway.core.RoundResult;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A controller beside the integrations that carries out its own jobs' decisions on the shared engine (the UnifiedJob
 * and pod-group controllers): it is told before each round and given the round's result after it, and it says
 * which job ids are its own, so the adapter's actuation leaves those to it. Registered when the engine is built.
 */
interface RoundHandler {
    /** @param jobId an engine job id @return whether this controller carries out that job's decisions */
    boolean owns(String jobId);

    /** Syncs the controller's objects into the engine before the round. */
    void beforeRound();

    /** @param round the round's result, to carry out the decisions on this controller's jobs */
    void afterRound(RoundResult round);

    /**
     * @param owns which job ids are the controller's
     * @param before what it does before a round
     * @param after what it does with a round's result
     * @return a handler of these three functions
     */
    static RoundHandler of(Predicate<String> owns, Runnable before, Consumer<RoundResult> after) {
        return new RoundHandler() {
            @Override
            public boolean owns(String jobId) {
                return owns.test(jobId);
            }

            @Override
            public void beforeRound() {
                before.run();
            }

            @Override
            public void afterRound(RoundResult round) {
                after.accept(round);
            }
        };
    }
}
