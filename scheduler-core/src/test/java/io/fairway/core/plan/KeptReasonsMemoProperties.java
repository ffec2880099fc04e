package io.fairway.core.plan;

import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Which jobs keep their reasons is the same whether each comparison of a given reason with a carried one is made
 * anew or answered from the round's memory of the last pair compared ({@link KeptReasons}): two schedulers go
 * through the histories of {@link RoundBoundsProperties} (bursts of a few shapes and priorities, rounds, starts,
 * finishes, evictions; quota, placement and preemption failures whose numbers move), the memory on in one and off in
 * the other, under every bundled policy; after every round both made the same decisions, listed the same changed
 * reasons, and every job carries the same reason.
 */
class KeptReasonsMemoProperties {
    @Provide
    Arbitrary<String> policies() {
        return Arbitraries.of(List.of("strict-fifo", "best-effort-fifo", "priority", "fair-sharing",
                "fair-share-over-time", "tiresias-las", "srtf", "isolated-share"));
    }

    @Property(tries = 60)
    void theMemoryKeepsWhatComparingKeeps(@ForAll("policies") String policy, @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        AtomicLong now = new AtomicLong(1_000);
        Scheduler on = RoundBoundsProperties.scheduler(now, policy, Map.of(), seed, null);
        Scheduler off = RoundBoundsProperties.scheduler(now, policy, Map.of(), seed, null);
        RoundBoundsProperties.history(on, off, r, now, memo -> KeptReasons.memo = memo);
    }
}
