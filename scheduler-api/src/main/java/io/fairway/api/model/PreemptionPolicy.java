package io.fairway.api.model;

/**
 * When a ClusterQueue's pending jobs may preempt admitted ones, as in Kueue's
 * {@code ClusterQueue.spec.preemption}.
 *
 * @param withinClusterQueue which jobs of the same ClusterQueue may be preempted
 * @param reclaimWithinCohort whether quota lent to others in the cohort may be reclaimed by preempting them
 * @param borrowWithinCohort whether a job that needs to borrow may preempt lower-priority jobs of the cohort
 */
public record PreemptionPolicy(WithinClusterQueue withinClusterQueue, ReclaimWithinCohort reclaimWithinCohort,
                               BorrowWithinCohort borrowWithinCohort) implements java.io.Serializable {
    /** Kueue's default: no preemption at all. */
    public static final PreemptionPolicy NEVER = new PreemptionPolicy(WithinClusterQueue.NEVER, ReclaimWithinCohort.NEVER, BorrowWithinCohort.NEVER);

    /** Normalises nulls to {@code NEVER}. */
    public PreemptionPolicy {
        withinClusterQueue = withinClusterQueue == null ? WithinClusterQueue.NEVER : withinClusterQueue;
        reclaimWithinCohort = reclaimWithinCohort == null ? ReclaimWithinCohort.NEVER : reclaimWithinCohort;
        borrowWithinCohort = borrowWithinCohort == null ? BorrowWithinCohort.NEVER : borrowWithinCohort;
    }

    /** Victims within the same ClusterQueue. */
    public enum WithinClusterQueue {
        /** Never. */
        NEVER,
        /** Jobs of lower priority. */
        LOWER_PRIORITY,
        /** Jobs of lower priority, or of equal priority submitted later. */
        LOWER_OR_NEWER_EQUAL_PRIORITY
    }

    /** Reclaiming lent quota from other ClusterQueues of the cohort. */
    public enum ReclaimWithinCohort {
        /** Never. */
        NEVER,
        /** Only borrowers' jobs of lower priority. */
        LOWER_PRIORITY,
        /** Any borrower's job. */
        ANY
    }

    /** Preempting in the cohort while borrowing. */
    public enum BorrowWithinCohort {
        /** Never. */
        NEVER,
        /** Jobs of lower priority. */
        LOWER_PRIORITY
    }
}
