package io.fairway.sim;

import java.util.List;

/**
 * Everything a simulation runs on: the cluster, its queues, the jobs and timed cluster changes.
 *
 * <pre>{@code
 * SimulationInput in = new SimulationInput("demo", cluster, queues, jobs, List.of());
 * SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS);
 * }</pre>
 *
 * @param name a name for reports (the trace or scenario)
 * @param cluster the cluster
 * @param queues the flavors and queues
 * @param jobs the jobs (any order; they arrive at their submission time)
 * @param actions cluster and queue changes at given times
 */
public record SimulationInput(String name, ClusterModel cluster, QueueModel queues, List<SimJob> jobs, List<ClusterAction> actions) {
    /** Copies. */
    public SimulationInput {
        name = name == null || name.isBlank() ? "simulation" : name;
        jobs = List.copyOf(jobs == null ? List.of() : jobs);
        actions = List.copyOf(actions == null ? List.of() : actions);
        java.util.Objects.requireNonNull(cluster, "cluster");
        java.util.Objects.requireNonNull(queues, "queues");
    }

    /**
     * Adds the input's clusters, flavors, cohorts, ClusterQueues, LocalQueues and nodes to a scheduler being built
     * (node pools are the caller's: not every run supports them).
     *
     * @param b a scheduler builder
     * @return the same builder
     */
    public io.fairway.core.Scheduler.Builder configure(io.fairway.core.Scheduler.Builder b) {
        cluster.clusters().forEach(b::cluster);
        queues.flavors().forEach(b::flavor);
        queues.priorityClasses().forEach(b::priorityClass);
        queues.cohorts().forEach(b::cohort);
        queues.clusterQueues().forEach(b::clusterQueue);
        queues.localQueues().forEach(b::localQueue);
        return b.nodes(cluster.nodes());
    }
}
