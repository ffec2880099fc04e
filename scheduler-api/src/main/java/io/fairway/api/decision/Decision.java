package io.fairway.api.decision;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a round decided should happen. An {@code Actuator} carries decisions out.
 *
 * <ul>
 *   <li>{@link Admit}: admit a job under quota, with its flavors and its placement (member → node → GPU ids)</li>
 *   <li>{@link Preempt}: stop a running job and send it back to pending, with or without a checkpoint</li>
 *   <li>{@link Resize}: change an elastic job's member count (target replicas)</li>
 *   <li>{@link Provision} / {@link Deprovision}: add nodes to a node pool, or remove one</li>
 * </ul>
 */
public sealed interface Decision extends java.io.Serializable permits Admit, Preempt, Resize, Provision, Deprovision {
    /** @return the job the decision is about, or null for node decisions */
    String jobId();

    /**
     * Calls the handler's action for this decision's kind. An actuator that carries every kind out dispatches
     * through here rather than testing types: a new kind of decision adds an action to {@link Handler}, so every
     * actuator fails to compile until it says what it does with it.
     *
     * @param handler what to do with each kind
     */
    void applyTo(Handler handler);

    /**
     * One action per kind of decision, for {@link Decision#applyTo(Handler)}. Every action is required (pass
     * {@code x -> { }} where a kind means nothing to the actuator).
     *
     * @param admit what to do with an {@link Admit}
     * @param preempt what to do with a {@link Preempt}
     * @param resize what to do with a {@link Resize}
     * @param provision what to do with a {@link Provision}
     * @param deprovision what to do with a {@link Deprovision}
     */
    record Handler(Consumer<Admit> admit, Consumer<Preempt> preempt, Consumer<Resize> resize,
                   Consumer<Provision> provision, Consumer<Deprovision> deprovision) {
        /** Checks that every action is given. */
        public Handler {
            Objects.requireNonNull(admit, "admit");
            Objects.requireNonNull(preempt, "preempt");
            Objects.requireNonNull(resize, "resize");
            Objects.requireNonNull(provision, "provision");
            Objects.requireNonNull(deprovision, "deprovision");
        }
    }
}
