package io.fairway.sim.sweep;

/**
 * One run of a sweep: one policy on one workload. Times are simulated seconds; ρ statistics and JCTs are over completed
 * jobs ({@code NaN} when none completed).
 *
 * @param workload the workload's id
 * @param kind {@code philly}, {@code themis} or {@code tiresias}
 * @param seed the sweep seed (it also seeds the scheduler)
 * @param requestedLoad the offered load asked for
 * @param load the offered load achieved
 * @param checkpoints true when the workload's jobs checkpoint
 * @param gpus the cluster's GPUs
 * @param jobs jobs simulated
 * @param policy the policy
 * @param contended true when the workload's FIFO run kept the GPUs at least 60 % busy ({@link Sweep#CONTENDED_UTILISATION})
 * @param completed jobs that finished
 * @param maxRho the largest finish-time fairness ρ
 * @param meanRho the mean ρ
 * @param avgJctSeconds mean job completion time
 * @param p95JctSeconds 95th percentile JCT
 * @param makespanSeconds last completion minus first submission
 * @param gpuHoursLost work thrown away by preemptions, in GPU-hours: Σ over jobs of the seconds of full-size progress
 *     each lost (back to its last checkpoint, or to zero without one) × its GPUs ÷ 3600 (restore time not included)
 * @param utilisation GPU-seconds held by jobs ÷ (cluster GPUs × makespan)
 * @param arrivalUtilisation the same from the first submission to the last only (not diluted by the long tail of the
 *     last jobs to finish); {@code NaN} when every job arrives at once
 * @param preemptions preemptions
 * @param wallSeconds the wall time the run took (not reproducible)
 * @param cpuSeconds the CPU time of the thread that ran it (not reproducible; unlike wall time, not inflated by other
 *     work on the machine)
 */
public record SweepRow(String workload, String kind, long seed, double requestedLoad, double load, boolean checkpoints, long gpus, int jobs,
                       String policy, boolean contended, int completed, double maxRho, double meanRho, double avgJctSeconds,
                       double p95JctSeconds, double makespanSeconds, double gpuHoursLost, double utilisation, double arrivalUtilisation, int preemptions,
                       double wallSeconds, double cpuSeconds) {
    /** @return a copy with the wall and CPU times zeroed, for comparing sweeps */
    public SweepRow withoutTiming() {
        return new SweepRow(workload, kind, seed, requestedLoad, load, checkpoints, gpus, jobs, policy, contended, completed, maxRho, meanRho,
                avgJctSeconds, p95JctSeconds, makespanSeconds, gpuHoursLost, utilisation, arrivalUtilisation, preemptions, 0, 0);
    }

    /** @return true when every job finished */
    public boolean allCompleted() {
        return completed == jobs;
    }
}
