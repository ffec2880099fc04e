package io.fairway.api.spi;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;

/**
 * An extra gate before admission, as Kueue's AdmissionChecks: once a round reserves a job's quota and
 * placement (state {@code QUOTA_RESERVED}), every check its ClusterQueue lists is asked, each round, until all
 * are {@link Verdict#READY} (the job is admitted and actuated) or one is {@link Verdict#REJECTED} (the
 * reservation is released and the job waits again with the check's message as its reason).
 *
 * <pre>{@code
 * AdmissionCheck budget = new AdmissionCheck() {
 *     public String name() { return "gpu-hour-budget"; }
 *     public Result evaluate(JobStatus job, Admit reservation, long nowMillis) {
 *         return job.spec().totalGpus() * job.spec().estimatedSeconds() <= 3600 * 64
 *             ? Result.ready() : Result.rejected("over the 64 GPU-hour budget");
 *     }
 * };
 * }</pre>
 */
public interface AdmissionCheck {
    /** @return the name ClusterQueues refer to it by */
    String name();

    /**
     * @param job the job whose quota is reserved
     * @param reservation its reserved flavors and placement
     * @param nowMillis the scheduler clock
     * @return the verdict
     */
    Result evaluate(JobStatus job, Admit reservation, long nowMillis);

    /** A check's verdict. */
    enum Verdict {
        /** The job may be admitted. */
        READY,
        /** Not yet: ask again next round (the reservation is kept). */
        PENDING,
        /** The job may not be admitted now: release the reservation. */
        REJECTED
    }

    /**
     * @param verdict the verdict
     * @param message a reason for the job's owner
     */
    record Result(Verdict verdict, String message) {
        /** @return ready */
        public static Result ready() {
            return new Result(Verdict.READY, "");
        }

        /** @param message why not yet @return pending */
        public static Result pending(String message) {
            return new Result(Verdict.PENDING, message);
        }

        /** @param message why not @return rejected */
        public static Result rejected(String message) {
            return new Result(Verdict.REJECTED, message);
        }
    }
}
