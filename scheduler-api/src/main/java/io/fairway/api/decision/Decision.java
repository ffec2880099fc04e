package io.fairway.api.decision;

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
}
