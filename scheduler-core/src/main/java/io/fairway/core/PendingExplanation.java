package io.fairway.core;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;

/**
 * The answer to "why is my job pending": its reason with the numbers, and its place in its ClusterQueue.
 *
 * <pre>{@code
 * scheduler.jobs().explain("train-7").ifPresent(e -> log.info("{}", e));
 * // train-7 is PENDING in ClusterQueue team-a, 3 jobs ahead: QUOTA: needs 16 nvidia.com/gpu of flavor h100; ...
 * }</pre>
 *
 * @param job the job's status
 * @param clusterQueue its ClusterQueue, or null when its queue is missing
 * @param jobsAhead pending jobs of the same ClusterQueue ahead of it in Kueue order (priority, then submission), or
 *     -1 when it is not pending
 * @param reason its pending reason, or null when it is not pending
 */
public record PendingExplanation(JobStatus job, String clusterQueue, int jobsAhead, PendingReason reason) {
    @Override
    public String toString() {
        if (reason == null) {
            return job.id() + " is " + job.state() + (clusterQueue == null ? "" : " in ClusterQueue " + clusterQueue);
        }
        return job.id() + " is PENDING" + (clusterQueue == null ? "" : " in ClusterQueue " + clusterQueue + ", " + jobsAhead + " jobs ahead")
                + ": " + reason.code() + ": " + reason.message();
    }
}
