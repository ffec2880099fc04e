package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;

/**
 * A job of a simulated workload: what the scheduler is given (its spec, whose {@code submitTimeMillis} is the
 * simulated submission time) and how long it runs.
 *
 * <pre>{@code
 * SimJob j = new SimJob(JobSpec.builder("j1").queue("lq").submitTimeMillis(30_000)
 *         .members(1, Resources.builder().gpus(4).build()).build(), 600);
 * }</pre>
 *
 * @param spec the job as submitted; {@code spec.submitTimeMillis()} is when it arrives, in simulated ms
 * @param durationSeconds its run time at its requested size with ideal placement (its work), &gt; 0
 */
public record SimJob(JobSpec spec, double durationSeconds) {
    /** Validates. */
    public SimJob {
        InvalidSpecException.check(spec != null, "job", null, "job spec is required");
        InvalidSpecException.check(durationSeconds > 0 && Double.isFinite(durationSeconds), "job[" + spec.id() + "].duration",
                durationSeconds, "job %s: duration must be > 0 seconds, was %s", spec.id(), durationSeconds);
    }

    /** @return the job id */
    public String id() {
        return spec.id();
    }

    /** @return the submission time, in simulated milliseconds */
    public long submitMillis() {
        return spec.submitTimeMillis();
    }

    /** @return GPUs requested at full size */
    public long gpus() {
        return spec.totalGpus();
    }
}
