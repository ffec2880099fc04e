package io.fairway.policies.fifo;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;

/** Remaining-time estimates from a job's work estimate, its reported progress and its current speed. */
final class JobEstimates {
    private JobEstimates() {
    }

    /**
     * @param j a job
     * @return its speed now: (GPUs held ÷ GPUs at full size) × the placement's throughput factor; 0 when it holds nothing
     */
    static double speed(JobStatus j) {
        Admit a = j.admission();
        if (a == null || !j.state().holdsResources()) {
            return 0;
        }
        long full = 0;
        long held = 0;
        for (PodSet ps : j.spec().podSets()) {
            long per = Math.max(1, ps.resources().gpus());
            full += per * ps.count();
            held += per * a.counts().getOrDefault(ps.name(), ps.count());
        }
        return (double) held / full * a.placement().throughputFactor();
    }

    /**
     * Seconds of work done: the reported progress (taken as where the current run started) plus the current run at
     * its speed; without a report, the executed time at the current speed (1 when it holds nothing).
     *
     * @param j a job with an estimate
     * @param now the clock
     * @return seconds of full-size work done, at most the estimate
     */
    static double doneSeconds(JobStatus j, long now) {
        double w = j.spec().estimatedSeconds();
        double s = speed(j);
        double done;
        if (j.progress() >= 0) {
            double run = j.state() == JobState.RUNNING ? Math.max(0, now - j.stateSinceMillis()) / 1000.0 : 0;
            done = j.progress() * w + run * s;
        } else {
            done = j.runningMillis() / 1000.0 * (s > 0 ? s : 1);
        }
        return Math.max(0, Math.min(w, done));
    }

    /**
     * @param j a job
     * @param now the clock
     * @return its remaining seconds of work at full speed, {@code +∞} when it has no estimate
     */
    static double remainingSeconds(JobStatus j, long now) {
        double w = j.spec().estimatedSeconds();
        if (w <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.max(0, w - doneSeconds(j, now));
    }

    /**
     * @param j a job holding resources
     * @param now the clock
     * @return seconds of work a preemption would destroy: all of it, or the work since its last checkpoint
     */
    static double lostIfPreempted(JobStatus j, long now) {
        double done = j.spec().estimatedSeconds() > 0 ? doneSeconds(j, now) : j.runningMillis() / 1000.0;
        if (j.spec().checkpointing() == null) {
            return done;
        }
        double i = j.spec().checkpointing().intervalSeconds();
        return done - Math.floor(done / i) * i;
    }

    /**
     * @param j a pending job
     * @param now the clock
     * @return milliseconds it has waited in its current wait (since submission or its last preemption)
     */
    static long waitedMillis(JobStatus j, long now) {
        return Math.max(0, now - j.stateSinceMillis());
    }
}
