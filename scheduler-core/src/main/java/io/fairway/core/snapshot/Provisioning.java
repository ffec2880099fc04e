package io.fairway.core.snapshot;

import io.fairway.api.model.NodePool;
import java.util.List;
import java.util.Map;

/**
 * The autoscaling part of a snapshot: node pools, jobs whose quota is reserved while they wait for nodes,
 * node requests not yet fulfilled, and since when each pool node has been empty.
 *
 * @param pools node pools by name
 * @param reservations jobs waiting for nodes, by job id
 * @param inFlight node requests not yet fulfilled
 * @param emptySince pool nodes with nothing on them, and since when (ms)
 */
public record Provisioning(Map<String, NodePool> pools, Map<String, Reservation> reservations, List<Request> inFlight,
                           Map<String, Long> emptySince) implements java.io.Serializable {
    /** No node pools. */
    public static final Provisioning NONE = new Provisioning(Map.of(), Map.of(), List.of(), Map.of());

    /** Copies; maps iterate in key order. */
    public Provisioning {
        pools = KeyOrder.copy("provisioning.pools", pools);
        reservations = KeyOrder.copy("provisioning.reservations", reservations);
        inFlight = List.copyOf(inFlight);
        emptySince = KeyOrder.copy("provisioning.emptySince", emptySince);
    }

    /**
     * Quota held for a job while the nodes it needs come up (Kueue: admitted, pods pending, Karpenter provisioning).
     *
     * @param jobId the job
     * @param clusterQueue the ClusterQueue charged
     * @param flavors flavor per pod set
     * @param counts members per pod set
     * @param requestId the node request made for it
     * @param sinceMillis when it was reserved
     */
    public record Reservation(String jobId, String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts, long requestId,
                              long sinceMillis) implements java.io.Serializable {
        /** Copies. */
        public Reservation {
            flavors = Map.copyOf(flavors);
            counts = Map.copyOf(counts);
        }
    }

    /**
     * A node request: {@code count} nodes of one instance type from one pool, for some jobs.
     *
     * @param id the request id (unique, increasing)
     * @param pool the node pool
     * @param instanceType the instance type
     * @param count nodes requested
     * @param arrived nodes that joined so far
     * @param requestedAtMillis when it was made
     * @param jobs the jobs it is for
     */
    public record Request(long id, String pool, String instanceType, int count, int arrived, long requestedAtMillis, List<String> jobs)
            implements java.io.Serializable {
        /** Copies. */
        public Request {
            jobs = List.copyOf(jobs);
        }
    }
}
