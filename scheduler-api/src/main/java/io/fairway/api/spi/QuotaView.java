package io.fairway.api.spi;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import java.util.Map;
import java.util.Optional;

/** Read-only quota checks against the round's plan. */
public interface QuotaView {
    /**
     * @param job a pending job
     * @param counts member count per pod set
     * @return empty when the job's quota fits now, else the reason with numbers
     */
    Optional<PendingReason> check(JobStatus job, Map<String, Integer> counts);

    /**
     * @param clusterQueue a ClusterQueue
     * @param resource a resource
     * @return how much of it the ClusterQueue uses in the plan, over all flavors
     */
    long usage(String clusterQueue, String resource);

    /**
     * @param clusterQueue a ClusterQueue
     * @return its dominant resource share in the plan: max over resources of usage above nominal ÷ what the
     *     cohort could lend, or 0 when it borrows nothing (Kueue's fair-sharing share), divided by its weight
     */
    double dominantShare(String clusterQueue);

    /**
     * Fair share over time (HTCondor, Armada): the ClusterQueue's recent usage, decayed with the scheduler's
     * half-life, as a dominant share of the cluster (0 = none, 1 = the whole cluster, on average recently).
     *
     * @param clusterQueue a ClusterQueue
     * @return its decayed usage
     */
    double decayedUsage(String clusterQueue);
}
