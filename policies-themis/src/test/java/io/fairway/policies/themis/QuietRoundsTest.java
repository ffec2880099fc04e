package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * A round in which nothing waits is answered without planning ({@link ThemisPolicy#renewWhenNothingWaits}): on random
 * histories the decisions and every lease renewal (job, new expiry, order, round) are those of the same history
 * planned in full at every round. (A random history need not have a lease expiring while nothing waits; the example
 * below has many.)
 */
class QuietRoundsTest {
    /** Themis with only {@link SchedulingPolicy#plan}: the engine has to plan every round in full. */
    private static class PlanOnly implements SchedulingPolicy {
        final SchedulingPolicy themis;

        PlanOnly(SchedulingPolicy themis) {
            this.themis = themis;
        }

        @Override
        public String name() {
            return themis.name();
        }

        @Override
        public void plan(PolicyContext ctx) {
            themis.plan(ctx);
        }
    }

    /** Themis counting the rounds answered without planning. */
    private static final class Counting extends PlanOnly {
        int answered;

        Counting(SchedulingPolicy themis) {
            super(themis);
        }

        @Override
        public Map<String, Long> renewWhenNothingWaits(long nowMillis, List<JobStatus> expired) {
            Map<String, Long> r = themis.renewWhenNothingWaits(nowMillis, expired);
            if (r != null) {
                answered++;
            }
            return r;
        }
    }

    @Property(tries = 12)
    void quietRoundsDecideAsFullRounds(@ForAll @LongRange(min = 1, max = 1_000_000) long seed, @ForAll @IntRange(min = 4, max = 24) int apps,
                                       @ForAll @IntRange(min = 1, max = 30) int spanHours, @ForAll boolean checkpoints,
                                       @ForAll boolean perJob) {
        MiniSim.assertDecideAlike(params -> new Counting(Policies.create("themis", params)),
                params -> new PlanOnly(Policies.create("themis", params)), seed, apps, spanHours, checkpoints, perJob);
    }

    /** Jobs that fit together and run for hours: every lease expiry finds nothing waiting. */
    @Example
    void jobsRunningAloneAreRenewedWithoutPlanningAsInFull() {
        Counting quick = new Counting(Policies.create("themis", Map.of()));
        MiniSim fast = longJobs(quick);
        MiniSim full = longJobs(new PlanOnly(Policies.create("themis", Map.of())));
        assertThat(quick.answered).as("rounds answered without planning").isGreaterThan(10);
        assertThat(fast.log).containsExactlyElementsOf(full.log);
        assertThat(fast.leases).isNotEmpty().containsExactlyElementsOf(full.leases);
        assertThat(fast.finished).isEqualTo(full.finished).hasSize(3);
    }

    private static MiniSim longJobs(SchedulingPolicy policy) {
        MiniSim sim = new MiniSim(policy, 2, 2, GpuTopology.pcie4("V100"), 3);
        sim.submitAt(0, MiniSim.job("a-0", "a", 4, 3 * 3600));
        sim.submitAt(60_000, MiniSim.job("b-0", "b", 2, 2 * 3600));
        sim.submitAt(120_000, MiniSim.job("c-0", "c", 1, 5000));
        sim.run(100L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        return sim;
    }
}
