package io.fairway.api.job;

import io.fairway.api.decision.Admit;

/**
 * A job as the scheduler sees it at one moment: its spec, its state, and either why it waits or how it was
 * admitted.
 *
 * @param spec the job as submitted (with its current priority)
 * @param state its state
 * @param pendingReason why it waits (non-null exactly when {@code state == PENDING})
 * @param admission its admission (non-null exactly when it holds resources)
 * @param stateSinceMillis when it entered its state
 * @param preemptions how many times it was preempted
 * @param sequence the order in which the scheduler accepted it (unique, increasing)
 * @param attainedGpuMillis GPU-milliseconds of service it has received so far (GPUs held × time running)
 * @param runningMillis milliseconds it has spent running so far, over all its runs
 * @param progress the fraction of its work done (0..1) as last reported, or -1 when unknown
 */
public record JobStatus(JobSpec spec, JobState state, PendingReason pendingReason, Admit admission,
                        long stateSinceMillis, int preemptions, long sequence, long attainedGpuMillis,
                        long runningMillis, double progress) implements java.io.Serializable {
    /** @return the job id */
    public String id() {
        return spec.id();
    }
}
