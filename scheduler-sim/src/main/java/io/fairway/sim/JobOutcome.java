package io.fairway.sim;

/**
 * What happened to one job in a simulation. Times are simulated seconds from the start of the simulation;
 * a value that does not apply (a job that never started or never finished) is {@code NaN}.
 *
 * @param id the job id
 * @param queue the LocalQueue key {@code namespace/name}
 * @param gpus the GPUs it asked for
 * @param submitSeconds its submission time
 * @param durationSeconds its ideal run time (its work)
 * @param firstStartSeconds when it first started
 * @param completionSeconds when it finished
 * @param jctSeconds completion minus submission
 * @param queueingDelaySeconds first start minus submission
 * @param jobsPresent the time-averaged number of jobs present (pending or running) during its lifetime
 * @param isolatedSeconds its run time on a private 1/N share of the cluster
 * @param rho its finish-time fairness, {@code jct / isolated}
 * @param preemptions how often it was preempted
 * @param lostWorkSeconds seconds of progress (at full size) lost to preemptions
 * @param cancelled true when it was cancelled
 */
public record JobOutcome(String id, String queue, long gpus, double submitSeconds, double durationSeconds, double firstStartSeconds,
                         double completionSeconds, double jctSeconds, double queueingDelaySeconds, double jobsPresent,
                         double isolatedSeconds, double rho, int preemptions, double lostWorkSeconds, boolean cancelled) {
    /** @return true when it finished successfully */
    public boolean completed() {
        return !Double.isNaN(completionSeconds) && !cancelled;
    }
}
