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
}
