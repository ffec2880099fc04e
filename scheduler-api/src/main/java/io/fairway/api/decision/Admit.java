package io.fairway.api.decision;

import io.fairway.api.InvalidSpecException;
import java.util.Map;

/**
 * Admit a job: its quota is reserved in {@code clusterQueue} with the given flavor per pod set, and its
 * members are placed as {@code placement} says. This is also the Place decision: actuators unsuspend the job
 * and bind each member to its node and GPUs.
 *
 * @param jobId the job
 * @param clusterQueue the ClusterQueue charged
 * @param flavors the flavor assigned to each pod set
 * @param counts the member count admitted for each pod set (below {@code count} for elastic jobs)
 * @param placement where each member runs
 * @param admittedAtMillis the round clock when it was admitted (ranks jobs within their queue: the earliest
 *     admitted are entitled to nominal quota first, later ones are what the queue borrows)
 */
public record Admit(String jobId, String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts,
                    Placement placement, long admittedAtMillis) implements Decision {
    /**
     * An admission at time 0.
     *
     * @param jobId the job
     * @param clusterQueue the ClusterQueue charged
     * @param flavors the flavor of each pod set
     * @param counts the member count of each pod set
     * @param placement where each member runs
     */
    public Admit(String jobId, String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts, Placement placement) {
        this(jobId, clusterQueue, flavors, counts, placement, 0);
    }

    /** Validates. */
    public Admit {
        InvalidSpecException.requireName("admit.jobId", jobId);
        flavors = Map.copyOf(flavors);
        counts = Map.copyOf(counts);
    }
}
