package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.AdmissionCheck;
import java.time.Duration;

/**
 * Built-in {@link AdmissionCheck}s, as examples and for common site rules.
 *
 * <pre>{@code
 * Scheduler.builder()
 *     .admissionCheck(AdmissionChecks.readyAfter("capacity-warmup", Duration.ofMinutes(2)))
 *     .admissionCheck(AdmissionChecks.requireEstimate("estimate-required"))
 *     .clusterQueue(ClusterQueue.builder("team-a").admissionCheck("estimate-required")...build())
 * }</pre>
 */
public final class AdmissionChecks {
    private AdmissionChecks() {
    }

    /**
     * Ready once the reservation is {@code delay} old — like Kueue's ProvisioningRequest check, which holds a
     * job until the capacity it needs has come up.
     *
     * @param name the check's name
     * @param delay how long after the reservation the job may start
     * @return the check
     */
    public static AdmissionCheck readyAfter(String name, Duration delay) {
        InvalidSpecException.requireName("admissionCheck.name", name);
        InvalidSpecException.check(delay != null && !delay.isNegative(), "admissionCheck.delay", delay, "delay must be >= 0, was %s", delay);
        long ms = delay.toMillis();
        return named(name, (job, nowMillis) -> {
            long waited = nowMillis - job.stateSinceMillis();
            return waited >= ms ? AdmissionCheck.Result.ready() : AdmissionCheck.Result.pending("capacity warming up: " + (ms - waited) + " ms left");
        });
    }

    /**
     * Rejects jobs that state no run-time estimate ({@code estimatedSeconds == 0}): a site rule that keeps
     * finish-time-fair and backfilling policies honest.
     *
     * @param name the check's name
     * @return the check
     */
    public static AdmissionCheck requireEstimate(String name) {
        InvalidSpecException.requireName("admissionCheck.name", name);
        return named(name, (job, nowMillis) -> job.spec().estimatedSeconds() > 0 ? AdmissionCheck.Result.ready()
                : AdmissionCheck.Result.rejected("job " + job.id() + " states no estimatedSeconds; this ClusterQueue requires one"));
    }

    /** What a built-in check answers for a job at a time (none reads the admission it is asked about). */
    private interface Rule {
        AdmissionCheck.Result evaluate(JobStatus job, long nowMillis);
    }

    private static AdmissionCheck named(String name, Rule rule) {
        return new AdmissionCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Result evaluate(JobStatus job, Admit reservation, long nowMillis) {
                return rule.evaluate(job, nowMillis);
            }
        };
    }
}
