package io.fairway.sim;

import java.util.List;

/**
 * What a simulation's nodes cost and did: node pools, spot interruptions, time spent waiting for nodes, and
 * how well multi-GPU gangs were placed.
 *
 * @param pools true when the cluster has node pools (the autoscaling columns of reports apply)
 * @param costDollars instance-hours × price, over pool nodes (billed from their Provision decision to their
 *     removal) and priced static nodes (over the whole simulation)
 * @param poolNodeHours instance-hours of pool nodes
 * @param provisionedNodes pool nodes provisioned
 * @param peakNodes the most nodes present at once (static and pool)
 * @param interruptions spot interruptions that hit a node still present
 * @param gpuHoursLostToInterruptions work lost by jobs migrated off interrupted nodes, in GPU-hours (GPUs held ×
 *     hours of lost progress)
 * @param interruptionLosses one entry per job stopped by a spot interruption
 * @param nodeWaitJobHours job-hours spent with quota reserved, waiting for provisioned nodes
 * @param jobsWaitedForNodes jobs that waited for nodes at least once
 * @param multiGpuPlacements placements (starts) of jobs holding more than one GPU
 * @param bestLocalityPlacements of those, placements at the best locality a gang of that size can have on an
 *     empty cluster (one node when it fits on one, else one rack when it fits in one)
 * @param avgFragmentation time-average of the fraction of free GPUs sitting on nodes with fewer free GPUs than
 *     the largest node has (they cannot host a full-node gang); over the time some GPU is free
 * @param nodes the node count over time
 */
public record InfraMetrics(boolean pools, double costDollars, double poolNodeHours, int provisionedNodes, int peakNodes, int interruptions,
                           double gpuHoursLostToInterruptions, List<InterruptionLoss> interruptionLosses, double nodeWaitJobHours,
                           int jobsWaitedForNodes, int multiGpuPlacements, int bestLocalityPlacements, double avgFragmentation,
                           List<NodeCount> nodes) {
    /** No pools, nothing measured. */
    public static final InfraMetrics NONE = new InfraMetrics(false, 0, 0, 0, 0, 0, 0, List.of(), 0, 0, 0, 0, 0, List.of());

    /** Copies. */
    public InfraMetrics {
        interruptionLosses = List.copyOf(interruptionLosses);
        nodes = List.copyOf(nodes);
    }

    /** @return the share of multi-GPU placements at their best possible locality (1 when there were none) */
    public double bestLocalityShare() {
        return multiGpuPlacements == 0 ? 1.0 : (double) bestLocalityPlacements / multiGpuPlacements;
    }

    /**
     * The node count from a time on.
     *
     * @param timeMillis simulated time
     * @param nodes nodes present (static and pool)
     * @param poolNodes of which pool nodes
     * @param requestedNodes pool nodes requested and not yet up
     */
    public record NodeCount(long timeMillis, int nodes, int poolNodes, int requestedNodes) {
    }

    /**
     * Work one job lost to one spot interruption.
     *
     * @param jobId the job
     * @param node the interrupted node
     * @param lostWorkSeconds progress lost, in seconds of full-size work
     * @param checkpointIntervalSeconds its checkpoint interval, or 0 when it does not checkpoint
     */
    public record InterruptionLoss(String jobId, String node, double lostWorkSeconds, double checkpointIntervalSeconds) {
    }
}
