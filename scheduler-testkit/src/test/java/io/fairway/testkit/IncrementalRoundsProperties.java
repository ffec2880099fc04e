package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobStatus;
import io.fairway.core.RoundResult;
import io.fairway.testkit.FairwayArbitraries.Op;
import io.fairway.testkit.FairwayArbitraries.RunRound;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Rounds that remember what earlier rounds found (the engine's default: repeated attempts whose dependencies did not
 * change are answered from memory, and the FIFO and fair-sharing policies end a round in which nothing changed at
 * once) decide exactly what rounds decided from scratch do, for every bundled policy: two schedulers built alike, one
 * remembering and one not, go through the same random history (submissions, job sets, starts, finishes, failures,
 * cancellations, priority changes, stopped queues, nodes added, removed and cordoned, time passing) and must agree on
 * every round's decisions, pending reasons, refusals and wake-up time, and on every job's state and reason at the end.
 * Every round of the history is run twice in a row, so that rounds in which nothing changed are frequent.
 */
class IncrementalRoundsProperties {
    private static final List<String> POLICIES = List.of("strict-fifo", "best-effort-fifo", "priority", "fair-sharing",
            "fair-share-over-time", "tiresias-las", "srtf", "isolated-share", "themis",
            // preemption to fair share acts on the shares now, so a round with nothing changed may still end at once
            "fair-share-over-time:preemptToFairShare=true,priorityFirst=true",
            "fair-sharing:preemptToFairShare=true,rankWithNextJob=true,protectedFractionOfFairShare=0.5");

    @Provide
    Arbitrary<String> policies() {
        return Arbitraries.of(POLICIES);
    }

    @Provide
    Arbitrary<World> worlds() {
        return FairwayArbitraries.worlds();
    }

    @Provide
    Arbitrary<List<Op>> histories() {
        return FairwayArbitraries.operationLists();
    }

    @Property(tries = 150)
    void incrementalRoundsDecideAsRoundsFromScratch(@ForAll("policies") String policy, @ForAll("worlds") World world,
                                                    @ForAll("histories") List<Op> history) {
        ConformanceHarness remembering = new ConformanceHarness(world, () -> BuiltInPolicies.named(policy), 7, true);
        ConformanceHarness scratch = new ConformanceHarness(world, () -> BuiltInPolicies.named(policy), 7, false);
        List<Op> ops = new ArrayList<>();
        for (Op op : history) {
            ops.add(op);
            if (op instanceof RunRound) {
                ops.add(op); // a second round at once: often one in which nothing changed
            }
        }
        for (Op op : ops) {
            remembering.apply(op);
            scratch.apply(op);
            if (op instanceof RunRound) {
                int n = remembering.rounds.size();
                assertThat(scratch.rounds).hasSize(n);
                RoundResult a = remembering.rounds.get(n - 1).result();
                RoundResult b = scratch.rounds.get(n - 1).result();
                String what = policy + ", round " + n;
                assertThat(a.decisions()).as("decisions, %s", what).isEqualTo(b.decisions());
                assertThat(new TreeMap<>(a.pendingReasons())).as("pending reasons, %s", what).isEqualTo(new TreeMap<>(b.pendingReasons()));
                assertThat(a.refused()).as("refusals, %s", what).isEqualTo(b.refused());
                assertThat(a.wakeAtMillis()).as("wake-up, %s", what).isEqualTo(b.wakeAtMillis());
                assertThat(a.leaseRenewals()).as("lease renewals, %s", what).isEqualTo(b.leaseRenewals());
            }
        }
        assertThat(states(remembering)).as("every job's state and reason at the end, %s", policy).isEqualTo(states(scratch));
    }

    private static Map<String, String> states(ConformanceHarness h) {
        Map<String, String> m = new TreeMap<>();
        for (JobStatus j : h.scheduler.jobs().all()) {
            m.put(j.id(), j.state() + " " + j.pendingReason() + " " + j.admission());
        }
        return m;
    }
}
