package io.fairway.sim;

/**
 * The metrics of one simulation (one policy). Times are in seconds; ρ is finish-time fairness (see
 * {@link Fairness}); statistics over JCT and ρ are over completed jobs; {@code NaN} when there are none.
 *
 * @param policy the policy
 * @param jobs jobs simulated (submitted to the scheduler)
 * @param skipped jobs of the input not simulated (more GPUs than the whole cluster)
 * @param completed jobs that finished
 * @param avgJctSeconds mean job completion time (completion − submission)
 * @param p50JctSeconds median JCT (nearest rank)
 * @param p95JctSeconds 95th percentile JCT (nearest rank)
 * @param p99JctSeconds 99th percentile JCT (nearest rank)
 * @param avgQueueingDelaySeconds mean of first start − submission, over jobs that started
 * @param p95QueueingDelaySeconds 95th percentile queueing delay
 * @param makespanSeconds the last completion (or cancellation) minus the first submission
 * @param gpuUtilization GPU-seconds held by jobs ÷ (cluster GPUs × makespan)
 * @param maxRho the largest ρ
 * @param meanRho the mean ρ
 * @param jainIndex Jain's fairness index over ρ: (Σρ)² ÷ (n·Σρ²), 1 = all equal
 * @param preemptions preemptions (not counting cancellations)
 * @param lostWorkSeconds progress lost to preemptions, in seconds of full-size work, over all jobs
 * @param rounds rounds run
 * @param schedulerMillisPerRound mean wall time of {@code Scheduler.runRound()} (the only non-deterministic value)
 */
public record PolicyMetrics(String policy, int jobs, int skipped, int completed, double avgJctSeconds, double p50JctSeconds,
                            double p95JctSeconds, double p99JctSeconds, double avgQueueingDelaySeconds, double p95QueueingDelaySeconds,
                            double makespanSeconds, double gpuUtilization, double maxRho, double meanRho, double jainIndex,
                            int preemptions, double lostWorkSeconds, long rounds, double schedulerMillisPerRound) {
    /** @return a copy with the wall-time metric zeroed, for comparing runs */
    public PolicyMetrics withoutTiming() {
        return new PolicyMetrics(policy, jobs, skipped, completed, avgJctSeconds, p50JctSeconds, p95JctSeconds, p99JctSeconds,
                avgQueueingDelaySeconds, p95QueueingDelaySeconds, makespanSeconds, gpuUtilization, maxRho, meanRho, jainIndex,
                preemptions, lostWorkSeconds, rounds, 0);
    }
}
