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
 * @param leaseExpiresAtMillis when the job's lease on its resources expires ({@code Long.MAX_VALUE}: never); after
 *     that the job is revocable and the policy either renews its lease or preempts it (Themis)
 * @param admissionOrder increases with every admission, also within one round (ranks jobs admitted at the same
 *     time: the earlier admitted is entitled to nominal quota first)
 */
public record Admit(String jobId, String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts,
                    Placement placement, long admittedAtMillis, long leaseExpiresAtMillis, long admissionOrder) implements Decision {
    /**
     * An admission with a lease, ordered by its time alone.
     *
     * @param jobId the job
     * @param clusterQueue the ClusterQueue charged
     * @param flavors the flavor of each pod set
     * @param counts the member count of each pod set
     * @param placement where each member runs
     * @param admittedAtMillis when it was admitted
     * @param leaseExpiresAtMillis the lease expiry
     */
    public Admit(String jobId, String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts, Placement placement,
                 long admittedAtMillis, long leaseExpiresAtMillis) {
        this(jobId, clusterQueue, flavors, counts, placement, admittedAtMillis, leaseExpiresAtMillis, 0);
    }

    /** No lease: the job keeps its resources until it ends or is preempted. */
    public static final long NO_LEASE = Long.MAX_VALUE;

    /**
     * An admission without a lease.
     *
     * @param jobId the job
     * @param clusterQueue the ClusterQueue charged
     * @param flavors the flavor of each pod set
     * @param counts the member count of each pod set
     * @param placement where each member runs
     * @param admittedAtMillis when it was admitted
     */
    public Admit(String jobId, String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts, Placement placement,
                 long admittedAtMillis) {
        this(jobId, clusterQueue, flavors, counts, placement, admittedAtMillis, NO_LEASE);
    }

    /**
     * @param expiresAtMillis the new lease expiry
     * @return this admission with that lease
     */
    public Admit withLease(long expiresAtMillis) {
        return new Admit(jobId, clusterQueue, flavors, counts, placement, admittedAtMillis, expiresAtMillis, admissionOrder);
    }

    /**
     * @param nowMillis the clock
     * @return true when the lease has expired: the job is revocable
     */
    public boolean leaseExpired(long nowMillis) {
        return leaseExpiresAtMillis != NO_LEASE && nowMillis >= leaseExpiresAtMillis;
    }

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
        this(jobId, clusterQueue, flavors, counts, placement, 0, NO_LEASE);
    }

    /** Validates. */
    public Admit {
        InvalidSpecException.requireName("admit.jobId", jobId);
        flavors = Map.copyOf(flavors);
        counts = Map.copyOf(counts);
    }
}
