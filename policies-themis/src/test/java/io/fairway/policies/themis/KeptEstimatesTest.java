package io.fairway.policies.themis;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * What Themis keeps from one round to the next ({@link FinishTimeEstimator.Kept}: each job's GPUs and speed while its
 * spec and admission stay, the apps' names in order while the apps stay) changes no decision: on random contended
 * histories (with and without checkpoints, per-job term on and off), a policy that keeps it and one that computes
 * every estimate afresh at every round make the same decisions, the same lease renewals and finish the same jobs at
 * the same times. The histories preempt and restart jobs on other placements (another speed), so a kept speed that
 * outlived its admission would show.
 */
class KeptEstimatesTest {
    @Property(tries = 15)
    void keptEstimatesDecideAsFreshOnes(@ForAll @LongRange(min = 1, max = 1_000_000) long seed, @ForAll @IntRange(min = 6, max = 24) int apps,
                                        @ForAll @IntRange(min = 1, max = 12) int spanHours, @ForAll boolean checkpoints,
                                        @ForAll boolean perJob) {
        MiniSim.assertDecideAlike(params -> new ThemisPolicy("themis", ThemisProvider.config(params), true),
                params -> new ThemisPolicy("themis", ThemisProvider.config(params), false), seed, apps, spanHours, checkpoints, perJob);
    }
}
