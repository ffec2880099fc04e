package io.fairway.api.job;

/**
 * Where a job is in its life. Every job submitted is in exactly one state at every moment.
 *
 * <pre>
 * PENDING ──admit──▶ ADMITTED ──started──▶ RUNNING ──▶ SUCCEEDED | FAILED
 *    ▲                  │                     │
 *    └──── preempted / evicted / node lost ───┘           (any live state) ──cancel──▶ CANCELLED
 * </pre>
 */
public enum JobState {
    /** Waiting (suspended: no pods exist, nothing is provisioned for it); carries a pending reason. */
    PENDING,
    /** Admitted and placed; the actuator is starting it. Its quota and capacity are held. */
    ADMITTED,
    /** Running. */
    RUNNING,
    /** Finished successfully. */
    SUCCEEDED,
    /** Finished with a failure. */
    FAILED,
    /** Cancelled by a user. */
    CANCELLED;

    /** @return true for SUCCEEDED, FAILED and CANCELLED */
    public boolean isTerminal() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    /** @return true for ADMITTED and RUNNING: the job holds quota and capacity */
    public boolean holdsResources() {
        return this == ADMITTED || this == RUNNING;
    }
}
