package io.fairway.sim;

import io.fairway.api.job.PodSet;

/** One job's simulation state: whether it runs, how fast, and how much of its work is done and safe. */
final class JobTrack {
    final SimJob job;
    /** Its place in submission order. */
    final int index;
    final double workMillis;
    final int requestedMembers;
    long firstStart = -1;
    long completion = -1;
    boolean running;
    boolean cancelled;
    /** Increases whenever the job starts, stops or changes speed; a scheduled completion of an older run is stale. */
    long runId;
    /** Progress (work ms) safe at the last checkpoint; the job resumes from here. */
    double kept;
    /** Progress of the current run made before its current speed segment. */
    double banked;
    long segmentStart;
    /** While restoring from a checkpoint the job makes no progress. */
    long restoreUntil;
    double speed;
    long gpus;
    int preemptions;
    /** The lease expiry a round is scheduled for, or -1. */
    long leaseWake = -1;
    /** Work (ms at full speed) lost to preemptions. */
    double lost;
    /** Where it runs now, or null. */
    io.fairway.api.decision.Placement placement;

    JobTrack(SimJob job, int index) {
        this.job = job;
        this.index = index;
        this.workMillis = job.durationSeconds() * 1000.0;
        int m = 0;
        for (PodSet p : job.spec().podSets()) {
            m += p.count();
        }
        this.requestedMembers = m;
    }

    /** @return progress (work ms) at time {@code t} of the current run */
    double progressAt(long t) {
        return Math.min(workMillis, kept + banked + Math.max(0, t - Math.max(segmentStart, restoreUntil)) * speed);
    }
}
