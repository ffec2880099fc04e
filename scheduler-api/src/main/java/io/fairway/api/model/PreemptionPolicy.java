package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * When a ClusterQueue's pending jobs may preempt admitted ones, as in Kueue's
 * {@code ClusterQueue.spec.preemption}.
 *
 * @param withinClusterQueue which jobs of the same ClusterQueue may be preempted
 * @param reclaimWithinCohort whether quota lent to others in the cohort may be reclaimed by preempting them
 * @param borrowWithinCohort whether a job that needs to borrow may preempt lower-priority jobs of the cohort
 * @param maxPriorityThreshold Kueue's {@code borrowWithinCohort.maxPriorityThreshold}: a job that must borrow may
 *     preempt only jobs of other queues with a priority at or below it (null: no threshold; only with
 *     {@code borrowWithinCohort: LOWER_PRIORITY})
 * @param cohortRules whose rules pick victims in other queues of the cohort: Kueue's (the default) or Fairway's
 *     stricter ones
 */
public record PreemptionPolicy(WithinClusterQueue withinClusterQueue, ReclaimWithinCohort reclaimWithinCohort,
                               BorrowWithinCohort borrowWithinCohort, Integer maxPriorityThreshold, CohortRules cohortRules)
        implements java.io.Serializable {
    /** Kueue's default: no preemption at all. */
    public static final PreemptionPolicy NEVER = new PreemptionPolicy(WithinClusterQueue.NEVER, ReclaimWithinCohort.NEVER, BorrowWithinCohort.NEVER);

    /** Normalises nulls to {@code NEVER} and Kueue's rules; a threshold needs {@code borrowWithinCohort}. */
    public PreemptionPolicy {
        withinClusterQueue = withinClusterQueue == null ? WithinClusterQueue.NEVER : withinClusterQueue;
        reclaimWithinCohort = reclaimWithinCohort == null ? ReclaimWithinCohort.NEVER : reclaimWithinCohort;
        borrowWithinCohort = borrowWithinCohort == null ? BorrowWithinCohort.NEVER : borrowWithinCohort;
        cohortRules = cohortRules == null ? CohortRules.KUEUE : cohortRules;
        InvalidSpecException.check(maxPriorityThreshold == null || borrowWithinCohort == BorrowWithinCohort.LOWER_PRIORITY,
                "preemption.borrowWithinCohort.maxPriorityThreshold", maxPriorityThreshold,
                "preemption.borrowWithinCohort.maxPriorityThreshold %s needs borrowWithinCohort.policy LowerPriority, was %s",
                maxPriorityThreshold, borrowWithinCohort);
    }

    /**
     * Kueue's rules, no priority threshold.
     *
     * @param withinClusterQueue which jobs of the same ClusterQueue may be preempted
     * @param reclaimWithinCohort whether quota lent to others in the cohort may be reclaimed
     * @param borrowWithinCohort whether a job that needs to borrow may preempt lower-priority jobs of the cohort
     */
    public PreemptionPolicy(WithinClusterQueue withinClusterQueue, ReclaimWithinCohort reclaimWithinCohort, BorrowWithinCohort borrowWithinCohort) {
        this(withinClusterQueue, reclaimWithinCohort, borrowWithinCohort, null, CohortRules.KUEUE);
    }

    /**
     * Whether this policy is {@link #NEVER}: the same as {@code equals(NEVER)}, read from the fields (policies and the
     * engine ask it for every waiting group of a round).
     *
     * @return true when no field differs from {@link #NEVER}'s
     */
    public boolean isNever() {
        return withinClusterQueue == WithinClusterQueue.NEVER && reclaimWithinCohort == ReclaimWithinCohort.NEVER
                && borrowWithinCohort == BorrowWithinCohort.NEVER && maxPriorityThreshold == null && cohortRules == CohortRules.KUEUE;
    }

    /** @param rules the cohort rules @return this policy with them */
    public PreemptionPolicy withCohortRules(CohortRules rules) {
        return new PreemptionPolicy(withinClusterQueue, reclaimWithinCohort, borrowWithinCohort, maxPriorityThreshold, rules);
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

    /** Which jobs of other ClusterQueues may be preempted, and whether the preemptor may end up borrowing. */
    public enum CohortRules {
        /**
         * Kueue's (the default): every job (of lower priority, under {@code LowerPriority}) of a ClusterQueue that
         * borrows in a resource the preemptor needs is a candidate, lowest priority and then most recently admitted
         * first, taken while its queue still borrows; a preemptor whose victims are all in its own queue may end up
         * borrowing; a preemptor that must borrow ({@code borrowWithinCohort}) takes lower-priority jobs of queues that
         * borrow.
         */
        KUEUE,
        /**
         * Fairway's stricter rules: a job of another queue is a candidate only when it is part of what its queue
         * borrows counted in admission order (its queue is above nominal counting it and every job admitted before
         * it); a preemptor that reclaims must end within its nominal quota; one that must borrow takes only from
         * borrowers, even in its own queue, and only what their queues borrow beyond nominal. Victims then never
         * depend on which of a queue's jobs happen to be of low priority, and a job admitted within nominal quota
         * can never be taken by another queue.
         */
        FAIRWAY_STRICT
    }
}
