package io.fairway.api.spi;

import io.fairway.api.job.JobStatus;
import java.util.List;
import java.util.Map;

/**
 * The pluggable part of a round: decides which pending jobs are admitted now (and which running ones are
 * preempted or resized), through the services of the {@link PolicyContext}.
 *
 * <p>A policy is a pure function of what the context shows it: the same context must yield the same
 * actions (use {@link PolicyContext#random()} for any randomness). Whatever it proposes, the core validates
 * the plan against every invariant and refuses what breaks one.
 *
 * <pre>{@code
 * public final class LargestFirst implements SchedulingPolicy {
 *     public String name() { return "largest-first"; }
 *     public void plan(PolicyContext ctx) {
 *         ctx.pending().stream()
 *            .sorted(Comparator.comparingLong((JobStatus j) -> j.spec().totalGpus()).reversed())
 *            .forEach(ctx::tryAdmit);
 *     }
 * }
 * }</pre>
 */
public interface SchedulingPolicy {
    /** @return the policy's name, as configured */
    String name();

    /**
     * Plans one round.
     *
     * @param ctx the round's view and services
     */
    void plan(PolicyContext ctx);

    /**
     * Answers, without a full round, a round whose only possible outcome is lease renewals: no job waits, nothing
     * else is to decide, and the jobs below hold resources under leases that have expired. The engine asks this
     * before it builds a round's view; the answer must be exactly what {@link #plan} would do in that round (same
     * renewals, no other action, no {@link PolicyContext#wakeAt}), so that decisions do not depend on which way the
     * round went. A policy that cannot tell returns {@code null} (the default) and the round runs in full.
     *
     * @param nowMillis the round's time
     * @param expired the jobs holding resources whose lease has expired by {@code nowMillis}, as of that time, in the
     *     order of {@link PolicyContext#holding()}
     * @return the new lease expiry of each job whose lease {@link #plan} would renew, in the order it would renew
     *     them; or {@code null}: only a full round can tell
     */
    default Map<String, Long> renewWhenNothingWaits(long nowMillis, List<JobStatus> expired) {
        return null;
    }
}
