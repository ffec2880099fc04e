package io.fairway.api.spi;

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
}
