package io.fairway.core.preemption;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.spi.Attempt;

/**
 * The preemption stage as the plan sees it: the search for a minimal set of victims ({@link Preemptor}) over an
 * index of the running jobs that is built on the round's first search and kept up to date as the plan changes.
 */
public final class PreemptionSearch {
    private final SearchPlan plan;
    /** The running jobs indexed for the search, built on the first search of the round. */
    private PreemptionIndex index;

    /** @param plan the round's tentative plan */
    public PreemptionSearch(SearchPlan plan) {
        this.plan = plan;
    }

    /**
     * Searches victims whose preemption makes room for a job that does not fit, and admits it. The job must not fit
     * the plan as it is (an admission attempt on this very plan failed): the search relies on it, and does not check
     * again whether the job fits without its last victim.
     *
     * @param job a pending job
     * @param cq its ClusterQueue
     * @param notFitting why it does not fit without preemption
     * @return the admission, or the reason no victim set makes room
     */
    public Attempt run(JobStatus job, ClusterQueue cq, PendingReason notFitting) {
        return Preemptor.search(plan, index(), job, cq, notFitting);
    }

    /**
     * The reason a search that finds no victims gives: the admission attempt's failure with the search's sentence added.
     *
     * @param notFitting why the job does not fit without preemption
     * @param cq its ClusterQueue's name
     * @return the search's failure
     */
    public static PendingReason noVictimSet(PendingReason notFitting, String cq) {
        return new PendingReason(notFitting.code(), notFitting.message() + "; no set of jobs that ClusterQueue " + cq
                + " may preempt makes room", notFitting.details());
    }

    /**
     * Where a job's priority ranks among the candidates it may take: two jobs of one shape and ClusterQueue with
     * the same rank see the same candidates, so a failed search need not be repeated.
     *
     * @param job a pending job
     * @param cq its ClusterQueue
     * @return the rank, or null when the candidates depend on more of the job (equal priorities ranked by
     *     submission; elastic jobs; no preemption)
     */
    public Rank rank(JobStatus job, ClusterQueue cq) {
        PreemptionPolicy p = cq.preemption();
        if (p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY
                || job.spec().isElastic() || p.isNever()) {
            return null;
        }
        PreemptionIndex idx = index();
        int prio = job.spec().priority();
        int own = p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY
                ? PreemptionIndex.countBelow(idx.ofQueue(cq.name()), prio) : 0;
        boolean cohortByPriority = p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.LOWER_PRIORITY
                || p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY;
        int cohort = cohortByPriority ? idx.countBelowInRoot(idx.rootOf(cq), prio) : 0;
        return new Rank(own, cohort);
    }

    /**
     * How many of the ClusterQueue's and of the cohort tree's running jobs rank below a job.
     *
     * @param ownBelow in its ClusterQueue
     * @param cohortBelow in its cohort tree
     */
    public record Rank(int ownBelow, int cohortBelow) {
    }

    /**
     * Tells the index (once built) that a running job was preempted, restored or resized in the plan.
     *
     * @param job a running job
     */
    public void touched(JobStatus job) {
        if (index != null) {
            index.touched(job);
        }
    }

    private PreemptionIndex index() {
        if (index == null) {
            index = new PreemptionIndex(plan);
        }
        return index;
    }
}
