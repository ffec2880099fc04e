package io.fairway.api.job;

/**
 * Where a job is in its life. Every job submitted is in exactly one state at every moment.
 *
 * <pre>
 * PENDING ──admit──▶ [QUOTA_RESERVED ──checks ready──▶] ADMITTED ──started──▶ RUNNING ──▶ SUCCEEDED | FAILED
 *    ▲                  │                     │
 *    └──── preempted / evicted / node lost ───┘           (any live state) ──cancel──▶ CANCELLED
 * </pre>
 */
public enum JobState {
    /** Waiting (suspended: no pods exist, nothing is provisioned for it); carries a pending reason. */
    PENDING,
    /**
     * Quota and placement are reserved while its ClusterQueue's admission checks run; no pods exist yet
     * (Kueue's QuotaReserved). It becomes ADMITTED when every check is ready, or PENDING again when one rejects.
     */
    QUOTA_RESERVED,
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

    /** @return true for QUOTA_RESERVED, ADMITTED and RUNNING: the job holds quota and capacity */
    public boolean holdsResources() {
        return this == QUOTA_RESERVED || this == ADMITTED || this == RUNNING;
    }
}
