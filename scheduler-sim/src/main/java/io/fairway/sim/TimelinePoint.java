package io.fairway.sim;

/**
 * The cluster's state after the round at one event time.
 *
 * @param timeMillis the simulated time
 * @param busyGpus GPUs held by admitted jobs
 * @param pendingJobs jobs waiting (the queue length)
 * @param runningJobs jobs running
 */
public record TimelinePoint(long timeMillis, long busyGpus, int pendingJobs, int runningJobs) {
}
