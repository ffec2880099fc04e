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
 * @param appMaxRho the largest ρ per <em>app</em> ({@link AppFairness}: an app, a job set, finishes with its last job);
 *     equal to {@code maxRho} on a workload of one job per app; NaN when unknown (rows of older sweeps)
 * @param appAvgJctSeconds mean app completion time (first submission to last completion); NaN when unknown
 * @param maxWaitSeconds the longest wait of any job from its submission to its first start (a job that never started:
 *     from its submission to the end of the run); NaN when unknown (rows of older sweeps)
 */
public record SweepRow(String workload, String kind, long seed, double requestedLoad, double load, boolean checkpoints, long gpus, int jobs,
                       String policy, boolean contended, int completed, double maxRho, double meanRho, double avgJctSeconds,
                       double p95JctSeconds, double makespanSeconds, double gpuHoursLost, double utilisation, double arrivalUtilisation, int preemptions,
                       double wallSeconds, double cpuSeconds, double appMaxRho, double appAvgJctSeconds, double maxWaitSeconds) {
    /**
     * A row without the longest wait (NaN).
     *
     * @param workload the workload @param kind its kind @param seed the seed @param requestedLoad the load asked for
     * @param load the load achieved @param checkpoints whether jobs checkpoint @param gpus cluster GPUs @param jobs jobs
     * @param policy the policy @param contended contended @param completed jobs finished @param maxRho max ρ
     * @param meanRho mean ρ @param avgJctSeconds avg JCT @param p95JctSeconds p95 JCT @param makespanSeconds makespan
     * @param gpuHoursLost GPU-hours lost @param utilisation utilisation @param arrivalUtilisation over the arrivals
     * @param preemptions preemptions @param wallSeconds wall time @param cpuSeconds CPU time
     * @param appMaxRho max ρ per app @param appAvgJctSeconds avg app JCT
     */
    public SweepRow(String workload, String kind, long seed, double requestedLoad, double load, boolean checkpoints, long gpus, int jobs,
                    String policy, boolean contended, int completed, double maxRho, double meanRho, double avgJctSeconds,
                    double p95JctSeconds, double makespanSeconds, double gpuHoursLost, double utilisation, double arrivalUtilisation, int preemptions,
                    double wallSeconds, double cpuSeconds, double appMaxRho, double appAvgJctSeconds) {
        this(workload, kind, seed, requestedLoad, load, checkpoints, gpus, jobs, policy, contended, completed, maxRho, meanRho, avgJctSeconds,
                p95JctSeconds, makespanSeconds, gpuHoursLost, utilisation, arrivalUtilisation, preemptions, wallSeconds, cpuSeconds, appMaxRho,
                appAvgJctSeconds, Double.NaN);
    }

    /**
     * A row without the app-level figures (NaN).
     *
     * @param workload the workload @param kind its kind @param seed the seed @param requestedLoad the load asked for
     * @param load the load achieved @param checkpoints whether jobs checkpoint @param gpus cluster GPUs @param jobs jobs
     * @param policy the policy @param contended contended @param completed jobs finished @param maxRho max ρ
     * @param meanRho mean ρ @param avgJctSeconds avg JCT @param p95JctSeconds p95 JCT @param makespanSeconds makespan
     * @param gpuHoursLost GPU-hours lost @param utilisation utilisation @param arrivalUtilisation over the arrivals
     * @param preemptions preemptions @param wallSeconds wall time @param cpuSeconds CPU time
     */
    public SweepRow(String workload, String kind, long seed, double requestedLoad, double load, boolean checkpoints, long gpus, int jobs,
                    String policy, boolean contended, int completed, double maxRho, double meanRho, double avgJctSeconds,
                    double p95JctSeconds, double makespanSeconds, double gpuHoursLost, double utilisation, double arrivalUtilisation, int preemptions,
                    double wallSeconds, double cpuSeconds) {
        this(workload, kind, seed, requestedLoad, load, checkpoints, gpus, jobs, policy, contended, completed, maxRho, meanRho, avgJctSeconds,
                p95JctSeconds, makespanSeconds, gpuHoursLost, utilisation, arrivalUtilisation, preemptions, wallSeconds, cpuSeconds, Double.NaN,
                Double.NaN, Double.NaN);
    }

    /** @return a copy with the wall and CPU times zeroed, for comparing sweeps */
    public SweepRow withoutTiming() {
        return new SweepRow(workload, kind, seed, requestedLoad, load, checkpoints, gpus, jobs, policy, contended, completed, maxRho, meanRho,
                avgJctSeconds, p95JctSeconds, makespanSeconds, gpuHoursLost, utilisation, arrivalUtilisation, preemptions, 0, 0, appMaxRho,
                appAvgJctSeconds, maxWaitSeconds);
    }

    /** @param isContended whether the workload is contended @return a copy with that */
    public SweepRow withContended(boolean isContended) {
        return new SweepRow(workload, kind, seed, requestedLoad, load, checkpoints, gpus, jobs, policy, isContended, completed, maxRho, meanRho,
                avgJctSeconds, p95JctSeconds, makespanSeconds, gpuHoursLost, utilisation, arrivalUtilisation, preemptions, wallSeconds, cpuSeconds,
                appMaxRho, appAvgJctSeconds, maxWaitSeconds);
    }

    /**
     * @return the row as seen per app: max ρ and avg JCT replaced by the app-level figures ({@link #appMaxRho},
     *     {@link #appAvgJctSeconds}), for judging the same targets per app
     */
    public SweepRow perApp() {
        return new SweepRow(workload, kind, seed, requestedLoad, load, checkpoints, gpus, jobs, policy, contended, completed, appMaxRho, meanRho,
                appAvgJctSeconds, p95JctSeconds, makespanSeconds, gpuHoursLost, utilisation, arrivalUtilisation, preemptions, wallSeconds, cpuSeconds,
                appMaxRho, appAvgJctSeconds, maxWaitSeconds);
    }

    /** @return true when every job finished */
    public boolean allCompleted() {
        return completed == jobs;
    }
}
