package io.fairway.api.job;

import io.fairway.api.decision.Admit;

/**
 * A job as the scheduler sees it at one moment: its spec, its state, and either why it waits or how it was
 * admitted.
 *
 * <p>A job's life cycle is a chain of the transitions below, each returning the next status; the engine makes
 * every change of state through them:
 * <pre>
 *   submitted ──admitted/reserved──▶ QUOTA_RESERVED / ADMITTED ──started──▶ RUNNING ──ended──▶ SUCCEEDED / FAILED
 *      ▲  │                                   │                               │
 *      │  └──────────────ended (cancel)───────┼───────────────────────────────┴──▶ CANCELLED
 *      └───────────requeued (preempted, node lost) / rejected by an admission check
 * </pre>
 *
 * @param spec the job as submitted (with its current priority)
 * @param state its state
 * @param pendingReason why it waits (non-null exactly when {@code state == PENDING})
 * @param admission its admission (non-null exactly when it holds resources)
 * @param stateSinceMillis when it entered its state
 * @param preemptions how many times it was preempted
 * @param sequence the order in which the scheduler accepted it (unique, increasing)
 * @param attainedGpuMillis GPU-milliseconds of service it has received so far (GPUs held × time running)
 * @param runningMillis milliseconds it has spent running so far, over all its runs
 * @param progress the fraction of its work done (0..1) as last reported, or -1 when unknown
 */
public record JobStatus(JobSpec spec, JobState state, PendingReason pendingReason, Admit admission,
                        long stateSinceMillis, int preemptions, long sequence, long attainedGpuMillis,
                        long runningMillis, double progress) implements java.io.Serializable {
    /** @return the job id */
    public String id() {
        return spec.id();
    }

    /**
     * A job just accepted: pending, never run.
     *
     * @param spec the job
     * @param reason why it waits until a round reaches it
     * @param nowMillis the time of submission
     * @param sequence its place in submission order
     * @return its first status
     */
    public static JobStatus submitted(JobSpec spec, PendingReason reason, long nowMillis, long sequence) {
        return new JobStatus(spec, JobState.PENDING, reason, null, nowMillis, 0, sequence, 0, 0, -1);
    }

    /**
     * @param newSpec the job's new spec (same id): a pending job's edit, or a new priority
     * @return this status with that spec, everything else kept
     */
    public JobStatus withSpec(JobSpec newSpec) {
        return new JobStatus(newSpec, state, pendingReason, admission, stateSinceMillis, preemptions, sequence, attainedGpuMillis,
                runningMillis, progress);
    }

    /**
     * @param reason why the pending job waits now
     * @return this pending status with that reason (it keeps its place and its time in the state)
     */
    public JobStatus waitingFor(PendingReason reason) {
        return new JobStatus(spec, JobState.PENDING, reason, null, stateSinceMillis, preemptions, sequence, attainedGpuMillis, runningMillis,
                progress);
    }

    /**
     * @param a the admission a round made
     * @param quotaReserved true when admission checks must still pass ({@link JobState#QUOTA_RESERVED}), false when
     *                 admitted outright
     * @param nowMillis the time of the round
     * @return the status of the job holding that admission
     */
    public JobStatus admitted(Admit a, boolean quotaReserved, long nowMillis) {
        return new JobStatus(spec, quotaReserved ? JobState.QUOTA_RESERVED : JobState.ADMITTED, null, a, nowMillis, preemptions, sequence,
                attainedGpuMillis, runningMillis, progress);
    }

    /**
     * @param nowMillis when the actuator reported the job running
     * @return the running status
     */
    public JobStatus started(long nowMillis) {
        return new JobStatus(spec, JobState.RUNNING, null, admission, nowMillis, preemptions, sequence, attainedGpuMillis, runningMillis,
                progress);
    }

    /**
     * A job sent back to wait that keeps its place: preempted, its node lost, or refused by an admission check.
     *
     * @param reason why it waits
     * @param nowMillis when
     * @param countsAsPreemption true when it held resources it now loses (its epoch grows, see {@link #preemptions})
     * @return the pending status (attained service as of this status: bring a running job up to date with {@link #asOf} first)
     */
    public JobStatus requeued(PendingReason reason, long nowMillis, boolean countsAsPreemption) {
        return new JobStatus(spec, JobState.PENDING, reason, null, nowMillis, countsAsPreemption ? preemptions + 1 : preemptions, sequence,
                attainedGpuMillis, runningMillis, progress);
    }

    /**
     * @param end {@link JobState#SUCCEEDED}, {@link JobState#FAILED} or {@link JobState#CANCELLED}
     * @param nowMillis when
     * @return the final status (a success counts as all work done)
     */
    public JobStatus ended(JobState end, long nowMillis) {
        return new JobStatus(spec, end, null, null, nowMillis, preemptions, sequence, attainedGpuMillis, runningMillis,
                end == JobState.SUCCEEDED ? 1.0 : progress);
    }

    /**
     * @param next the job's admission after a resize or a lease renewal
     * @param stateSince when its state (or, for a resized running job, its current size) began
     * @return this status with that admission
     */
    public JobStatus withAdmission(Admit next, long stateSince) {
        return new JobStatus(spec, state, pendingReason, next, stateSince, preemptions, sequence, attainedGpuMillis, runningMillis, progress);
    }

    /**
     * @param fraction the work done as reported, 0..1
     * @return this status with that progress
     */
    public JobStatus withProgress(double fraction) {
        return new JobStatus(spec, state, pendingReason, admission, stateSinceMillis, preemptions, sequence, attainedGpuMillis, runningMillis,
                fraction);
    }

    /**
     * A running job's service brought up to a time: GPUs held × time running since it entered the state are added
     * to {@link #attainedGpuMillis} and {@link #runningMillis}. Other states are returned as they are.
     *
     * @param nowMillis the time
     * @return the status as of that time
     */
    public JobStatus asOf(long nowMillis) {
        if (state != JobState.RUNNING) {
            return this;
        }
        long ran = Math.max(0, nowMillis - stateSinceMillis);
        int gpus = admission == null ? 0 : admission.placement().gpuCount();
        return new JobStatus(spec, state, pendingReason, admission, stateSinceMillis, preemptions, sequence, attainedGpuMillis + ran * gpus,
                runningMillis + ran, progress);
    }
}
