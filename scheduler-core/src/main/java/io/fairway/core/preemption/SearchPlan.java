package io.fairway.core.preemption;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.Attempt;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.CapacityPlan;
import io.fairway.core.placement.Placer;
import java.util.List;

/**
 * What the preemption search reads and changes of a round's tentative plan. Implemented by the plan stage; every
 * change is undoable, and a search that fails undoes all it did and gives the plan its state number back.
 */
public interface SearchPlan {
    /** @return the round's input */
    Snapshot snapshot();

    /** @return the plan's quota book */
    QuotaBook quota();

    /** @return the plan's free capacity */
    CapacityPlan capacity();

    /**
     * @param jobId a running job
     * @return what it holds on its nodes in the plan (empty when nothing)
     */
    List<Placer.Taken> held(String jobId);

    /**
     * @param jobId a running job
     * @return true when the plan preempted or resized it
     */
    boolean outOfPlan(String jobId);

    /**
     * @param job a job
     * @return its ClusterQueue, or null when its queues are missing
     */
    String clusterQueueOf(JobStatus job);

    /** @return the plan's state number: equal numbers, equal plans */
    long state();

    /** @param earlier a state number to give back, once every change made since has been undone */
    void restoreState(long earlier);

    /**
     * Preempts a running job on the search's behalf (not counted as the policy's own preemption).
     *
     * @param job a running job
     * @param reason why
     * @return true when it was preempted
     */
    boolean preemptForSearch(JobStatus job, String reason);

    /** @param jobId a job preempted in this plan: it holds its capacity and quota again */
    void restore(String jobId);

    /**
     * @param job a pending job
     * @return true when it would be admitted now (nothing is changed)
     */
    boolean fits(JobStatus job);

    /**
     * @param job a pending job
     * @return the admission at full size, added to the plan, or the reason
     */
    Attempt tryAdmit(JobStatus job);

    /** @param jobId a job admitted in this plan: its capacity and quota are free again */
    void unadmit(String jobId);

    /**
     * @param jobId a job preempted in this plan
     * @param reason the reason that replaces its current one
     */
    void explainPreemption(String jobId, String reason);
}
