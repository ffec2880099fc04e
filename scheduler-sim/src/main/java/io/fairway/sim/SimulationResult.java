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
 * @param infra nodes, cost, spot interruptions, waiting for nodes, placement quality
 * @param actuator the actuator's failures, timeouts and retries ({@link ActuatorMetrics#NONE} without {@link ActuatorFaults})
 */
public record SimulationResult(String policy, PolicyMetrics metrics, List<JobOutcome> jobs, List<SkippedJob> skipped,
                               List<TimelinePoint> timeline, long totalGpus, List<EventRecord> events, List<ActuationRecord> actuations,
                               InfraMetrics infra, ActuatorMetrics actuator) {
    /**
     * Without actuator metrics.
     *
     * @param policy the policy
     * @param metrics its metrics
     * @param jobs job outcomes
     * @param skipped skipped jobs
     * @param timeline the cluster state after each round
     * @param totalGpus the cluster's GPUs
     * @param events the event log
     * @param actuations the actuated decisions
     * @param infra node metrics
     */
    public SimulationResult(String policy, PolicyMetrics metrics, List<JobOutcome> jobs, List<SkippedJob> skipped, List<TimelinePoint> timeline,
                            long totalGpus, List<EventRecord> events, List<ActuationRecord> actuations, InfraMetrics infra) {
        this(policy, metrics, jobs, skipped, timeline, totalGpus, events, actuations, infra, ActuatorMetrics.NONE);
    }

    /**
     * Without node metrics.
     *
     * @param policy the policy
     * @param metrics its metrics
     * @param jobs job outcomes
     * @param skipped skipped jobs
     * @param timeline the cluster state after each round
     * @param totalGpus the cluster's GPUs
     * @param events the event log
     * @param actuations the actuated decisions
     */
    public SimulationResult(String policy, PolicyMetrics metrics, List<JobOutcome> jobs, List<SkippedJob> skipped, List<TimelinePoint> timeline,
                            long totalGpus, List<EventRecord> events, List<ActuationRecord> actuations) {
        this(policy, metrics, jobs, skipped, timeline, totalGpus, events, actuations, InfraMetrics.NONE);
    }

    /** Copies. */
    public SimulationResult {
        infra = infra == null ? InfraMetrics.NONE : infra;
        actuator = actuator == null ? ActuatorMetrics.NONE : actuator;
        jobs = List.copyOf(jobs);
        skipped = List.copyOf(skipped);
        timeline = List.copyOf(timeline);
        events = List.copyOf(events);
        actuations = List.copyOf(actuations);
    }

    /**
     * @param m node metrics
     * @return a copy with them
     */
    public SimulationResult withInfra(InfraMetrics m) {
        return new SimulationResult(policy, metrics, jobs, skipped, timeline, totalGpus, events, actuations, m, actuator);
    }

    /**
     * @param m actuator metrics
     * @return a copy with them
     */
    public SimulationResult withActuator(ActuatorMetrics m) {
        return new SimulationResult(policy, metrics, jobs, skipped, timeline, totalGpus, events, actuations, infra, m);
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
