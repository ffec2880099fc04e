package io.fairway.k8s.integration;

/**
 * Whether a queued object has ended, as {@link Integration#outcome} reads it.
 *
 * @param phase active, succeeded or failed
 * @param message why it failed (or empty)
 */
public record WorkloadOutcome(Phase phase, String message) {
    /** Still running (or not started). */
    public static final WorkloadOutcome ACTIVE = new WorkloadOutcome(Phase.ACTIVE, "");
    /** Finished successfully. */
    public static final WorkloadOutcome SUCCEEDED = new WorkloadOutcome(Phase.SUCCEEDED, "");

    /** Where the object is. */
    public enum Phase {
        /** Not ended. */
        ACTIVE,
        /** Ended successfully. */
        SUCCEEDED,
        /** Ended in failure. */
        FAILED
    }

    /** Normalises. */
    public WorkloadOutcome {
        java.util.Objects.requireNonNull(phase, "phase");
        message = message == null ? "" : message;
    }

    /**
     * @param message why
     * @return a failure
     */
    public static WorkloadOutcome failed(String message) {
        return new WorkloadOutcome(Phase.FAILED, message);
    }
}
