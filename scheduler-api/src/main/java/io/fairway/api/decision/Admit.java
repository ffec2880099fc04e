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
 * @param flavors the flavor assigned to each pod set, by pod set name; when a pod set's resources come from several
 *     resource groups of its ClusterQueue (say cpu and memory in one, GPUs in another), each group has its own flavor,
 *     as in Kueue: the pod set's name gives the flavor of its first resource's group, and every resource whose flavor
 *     differs from that one has its own entry under {@link #resourceKey(String, String)} (read them with
 *     {@link #flavorOf(String, String)} and {@link #flavorsOf(Map, String)})
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

    /**
     * The key of a resource's own flavor in a flavors map, used only when the resource's flavor differs from its pod
     * set's (the resource is in another resource group of the ClusterQueue).
     *
     * @param podSet a pod set name
     * @param resource a resource name
     * @return {@code podSet + "/" + resource}
     */
    public static String resourceKey(String podSet, String resource) {
        return podSet + "/" + resource;
    }

    /**
     * The flavor of one resource of a pod set in a flavors map (an admission's or a reservation's).
     *
     * @param flavors a flavors map, as {@link #flavors()}
     * @param podSet a pod set name
     * @param resource a resource the pod set requests
     * @return its flavor, or null when the pod set has none
     */
    public static String flavorOf(Map<String, String> flavors, String podSet, String resource) {
        if (flavors.size() > 1) {
            String own = flavors.get(resourceKey(podSet, resource));
            if (own != null) {
                return own;
            }
        }
        return flavors.get(podSet);
    }

    /**
     * @param podSet a pod set name
     * @param resource a resource the pod set requests
     * @return the flavor it was admitted with
     */
    public String flavorOf(String podSet, String resource) {
        return flavorOf(flavors, podSet, resource);
    }

    /**
     * Every flavor a pod set was assigned (one per resource group its resources come from), its own first.
     *
     * @param flavors a flavors map, as {@link #flavors()}
     * @param podSet a pod set name
     * @return the flavor names, without duplicates (empty when the pod set has none)
     */
    public static java.util.List<String> flavorsOf(Map<String, String> flavors, String podSet) {
        String first = flavors.get(podSet);
        if (first == null) {
            return java.util.List.of();
        }
        if (flavors.size() == 1) {
            return java.util.List.of(first);
        }
        java.util.List<String> out = new java.util.ArrayList<>(2);
        out.add(first);
        String prefix = podSet + "/";
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(flavors).entrySet()) {
            if (e.getKey().startsWith(prefix) && !out.contains(e.getValue())) {
                out.add(e.getValue());
            }
        }
        return java.util.List.copyOf(out);
    }

    /** Validates. */
    public Admit {
        InvalidSpecException.requireName("admit.jobId", jobId);
        flavors = Map.copyOf(flavors);
        counts = Map.copyOf(counts);
    }

    @Override
    public void applyTo(Handler handler) {
        handler.admit().accept(this);
    }
}
