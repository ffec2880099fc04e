package io.fairway.sim;

import java.util.List;

/**
 * The outcome of simulating one policy.
 *
 * @param policy the policy
 * @param metrics its metrics
 * @param jobs one outcome per simulated job, in submission order
 * @param skipped jobs of the input that were not simulated
 * @param timeline the cluster state after each round (busy GPUs, queue length)
 * @param totalGpus the cluster's GPUs at the start
 * @param events the scheduler's events (empty unless {@link SimulationOptions#recordEvents()})
 * @param actuations the decisions carried out (empty unless {@link SimulationOptions#recordEvents()})
 */
public record SimulationResult(String policy, PolicyMetrics metrics, List<JobOutcome> jobs, List<SkippedJob> skipped,
                               List<TimelinePoint> timeline, long totalGpus, List<EventRecord> events, List<ActuationRecord> actuations) {
    /** Copies. */
    public SimulationResult {
        jobs = List.copyOf(jobs);
        skipped = List.copyOf(skipped);
        timeline = List.copyOf(timeline);
        events = List.copyOf(events);
        actuations = List.copyOf(actuations);
    }

    /**
     * @param id a job id
     * @return its outcome, or null when it was not simulated
     */
    public JobOutcome job(String id) {
        for (JobOutcome j : jobs) {
            if (j.id().equals(id)) {
                return j;
            }
        }
        return null;
    }
}
