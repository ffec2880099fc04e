package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * A priority class, defined by the operator (as a Kubernetes PriorityClass, or an Armada priority class): a job
 * names it and takes its priority; a job of a class that is not preemptible is never preempted — not by a job of
 * higher priority, not to reclaim quota lent within a cohort, not for fair share, not to consolidate nodes.
 *
 * <p>A job only names its class: the engine replaces whatever value and flag a submitted job carries with the
 * operator's definition, and refuses a job that names a class the operator did not define.
 *
 * @param name the class name
 * @param value the priority of its jobs
 * @param preemptible false when its jobs are never preempted
 */
public record PriorityClass(String name, int value, boolean preemptible) implements java.io.Serializable {
    /** Validates. */
    public PriorityClass {
        InvalidSpecException.requireName("priorityClass.name", name);
    }

    /**
     * @param name the class name
     * @return a reference to the class by name, resolved by the engine on submission
     */
    public static PriorityClass named(String name) {
        return new PriorityClass(name, 0, true);
    }
}
