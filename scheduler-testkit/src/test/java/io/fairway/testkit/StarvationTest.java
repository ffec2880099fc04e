package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.testkit.ContinuousArrivals.Arrival;
import io.fairway.testkit.ContinuousArrivals.Stream;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;

/**
 * The no-starvation property under continuous arrival catches the policies it is meant to catch — shortest job
 * first, and one queue always first — and passes the project's fair policies on the same streams.
 */
class StarvationTest {
    private static final World TWO_QUEUES = FairPolicyConformance.fairWorld(2);

    /** What {@link FairPolicyConformance} asks by default (the bounds are read from it; its policy is not run here). */
    private static final FairPolicyConformance DEFAULTS = new FairPolicyConformance() {
        @Override
        protected SchedulingPolicy policy() {
            return BuiltInPolicies.named("best-effort-fifo");
        }
    };

    private static void check(Stream stream, Supplier<SchedulingPolicy> policy) {
        ConformanceChecks.noStarvationUnderContinuousArrival(TWO_QUEUES, stream, policy, DEFAULTS::admissionBoundRounds,
                DEFAULTS.drainRounds(stream));
    }

    /**
     * Queue 0 receives five 4-GPU jobs of one or two minutes every round for 40 rounds (more than the 16 GPUs run);
     * one 10-minute 4-GPU job arrives in queue 1 before the first round.
     */
    private static Stream shortJobsKeepComing() {
        List<Arrival> l = new ArrayList<>();
        l.add(ContinuousArrivals.arrival(0, ContinuousArrivals.job(1, 1, 4), 600, 1));
        for (int round = 0; round < 40; round++) {
            for (int i = 0; i < 5; i++) {
                l.add(ContinuousArrivals.arrival(round, ContinuousArrivals.job(0, 1, 4), 60 * (1 + (round + i) % 2), 1));
            }
        }
        return new Stream(l);
    }

    @Example
    void shortestJobFirstStarvesTheLongJob() {
        assertThatThrownBy(() -> check(shortJobsKeepComing(), ShortestJobFirstPolicy::new))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("job j0 starved")
                .hasMessageContaining("estimatedSeconds 600");
    }

    @Example
    void preferringOneQueueStarvesTheOther() {
        assertThatThrownBy(() -> check(shortJobsKeepComing(), () -> new OneQueueFirstPolicy("cq0")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("job j0 starved")
                .hasMessageContaining("queue lq1");
    }

    @Example
    void theFairPoliciesAdmitTheLongJobInTime() {
        for (String name : List.of("best-effort-fifo", "fair-sharing", "fair-share-over-time", "isolated-share", "tiresias-las", "themis")) {
            assertThatCode(() -> check(shortJobsKeepComing(), () -> BuiltInPolicies.named(name))).as(name).doesNotThrowAnyException();
        }
    }

    /** The suite's own generator finds both starvations among a handful of streams (a fixed random source). */
    @Example
    void theGeneratedStreamsCatchBothPolicies() {
        Arbitrary<Stream> streams = ContinuousArrivals.streams();
        RandomGenerator<Stream> gen = streams.generator(1000);
        Random random = new Random(42);
        int sjfStarved = 0;
        int oneQueueStarved = 0;
        int tries = 24;
        for (int i = 0; i < tries; i++) {
            Stream s = gen.next(random).value();
            sjfStarved += starves(s, ShortestJobFirstPolicy::new) ? 1 : 0;
            oneQueueStarved += starves(s, () -> new OneQueueFirstPolicy("cq0")) || starves(s, () -> new OneQueueFirstPolicy("cq1")) ? 1 : 0;
        }
        assertThat(sjfStarved).as("streams of %d on which shortest-job-first starved a job", tries).isPositive();
        assertThat(oneQueueStarved).as("streams of %d on which preferring one queue starved a job", tries).isPositive();
    }

    private static boolean starves(Stream s, Supplier<SchedulingPolicy> policy) {
        try {
            check(s, policy);
            return false;
        } catch (AssertionError e) {
            return e.getMessage().contains("starved");
        }
    }
}
