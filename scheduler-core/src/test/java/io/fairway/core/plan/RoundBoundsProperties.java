package io.fairway.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The failures that answer later attempts of a round ({@link RoundBounds}) decide exactly what the attempts decide:
 * two schedulers go through the same random histories — bursts of arrivals of a few shapes and priorities (so that a
 * lower-priority job of a shape some job failed with is common), rounds, starts, finishes, evictions — one with the
 * bounds on, one with them off, under every bundled policy, on a full cluster of two cohort trees and a queue
 * without a cohort, with preemption rules inside the bounded class and outside it; after every round both made the same
 * decisions, listed the same changed reasons, asked for the same wake-up, and every job is in the same state with the
 * same admission and reason.
 */
class RoundBoundsProperties {
    private static final List<String> POLICIES = List.of("strict-fifo", "best-effort-fifo", "priority", "fair-sharing",
            "fair-share-over-time", "tiresias-las", "srtf", "isolated-share");

    @Provide
    Arbitrary<String> policies() {
        return Arbitraries.of(POLICIES);
    }

    @Property(tries = 80)
    void boundsDecideWhatTheAttemptsDecide(@ForAll("policies") String policy, @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        AtomicLong now = new AtomicLong(1_000);
        Map<String, String> params = policy.equals("fair-sharing") && r.nextBoolean() ? Map.of("preemptToFairShare", "true") : Map.of();
        Scheduler on = scheduler(now, policy, params, seed, null);
        Scheduler off = scheduler(now, policy, params, seed, null);
        history(on, off, r, now, BOUNDS);
    }

    /**
     * A history the property found: a bound answers a quota failure with the reason remembered from the round that
     * found it, given to a job whose answer changed, where the attempt made afresh finds the same answer and stamps it
     * with the later round. The bound's reason is the same answer as of an earlier round (the rule incremental rounds
     * keep: a reason is as of the round that found it), not a different one.
     */
    @net.jqwik.api.Example
    void aBoundGivesTheRememberedReasonAsOfTheRoundThatFoundIt() {
        boundsDecideWhatTheAttemptsDecide("tiresias-las", 8212802L);
    }

    /**
     * A history the property found (with and without the bounds alike): under fair sharing an elastic job is shrunk to
     * make room, the room does not suffice, and it is grown back, its new member placed on another node; a preemption
     * search then takes it and gives it back. The plan lost its resize but kept its capacity where the resize had put
     * it, so a later admission was placed on the GPU the job still held (two jobs on one GPU). A job a search gives back
     * now comes back as the plan had resized it.
     */
    @net.jqwik.api.Example
    void aResizedJobGivenBackByASearchKeepsItsResize() {
        boundsDecideWhatTheAttemptsDecide("fair-sharing", 264746L);
    }

    /** Turns a shortcut on (for the first scheduler's rounds) or off (for the second's). */
    interface Switch {
        void set(boolean on);
    }

    private static final Switch BOUNDS = on -> RoundBounds.enabled = on;

    /**
     * The histories meet the bounds often (else the property proves little): over a few of them under the priority
     * and FIFO walks, many preemption searches and quota failures are answered by a bound after the plan changed.
     */
    @Property(tries = 1)
    void theHistoriesAreAnsweredByBounds() {
        int[] answered = new int[2];
        for (String policy : List.of("priority", "best-effort-fifo", "fair-sharing")) {
            for (long seed = 1; seed <= 10; seed++) {
                AtomicLong now = new AtomicLong(1_000);
                BoundsCounted counted = new BoundsCounted(policy);
                history(scheduler(now, policy, Map.of(), seed, counted), scheduler(now, policy, Map.of(), seed, null), new SplittableRandom(seed), now, BOUNDS);
                answered[0] += counted.allSearches;
                answered[1] += counted.allQuota;
            }
        }
        assertThat(answered[0]).as("searches answered by a bound").isGreaterThan(50);
        assertThat(answered[1]).as("quota failures that stood after the plan changed").isGreaterThan(50);
    }

    /**
     * A random history through both schedulers, {@code shortcut} on for {@code on}'s rounds and off for {@code off}'s;
     * after every round both must have decided, reported and kept the same.
     */
    static void history(Scheduler on, Scheduler off, SplittableRandom r, AtomicLong now, Switch shortcut) {
        int ids = 0;
        for (int step = 0; step < 40; step++) {
            now.addAndGet(1 + r.nextInt(20_000));
            int what = r.nextInt(10);
            if (what < 4) {
                List<JobSpec> burst = new ArrayList<>();
                for (int k = 1 + r.nextInt(6); k > 0; k--) {
                    burst.add(job("j" + ids++, r));
                }
                on.submitAll(burst);
                off.submitAll(burst);
            } else if (what < 8) {
                round(on, off, step, r, shortcut);
            } else {
                endSome(on, off, r, what == 8);
            }
        }
        round(on, off, -1, r, shortcut);
    }

    private static void round(Scheduler on, Scheduler off, int step, SplittableRandom r, Switch shortcut) {
        RoundResult a;
        RoundResult b;
        try {
            shortcut.set(true);
            a = on.runRound();
            shortcut.set(false);
            b = off.runRound();
        } finally {
            shortcut.set(true);
        }
        assertThat(a.decisions()).as("step %d: decisions", step).isEqualTo(b.decisions());
        assertThat(a.refused()).as("step %d: refusals", step).isEqualTo(b.refused());
        assertThat(new TreeMap<>(a.pendingReasons()).keySet()).as("step %d: jobs whose reasons changed", step)
                .isEqualTo(new TreeMap<>(b.pendingReasons()).keySet());
        for (Map.Entry<String, PendingReason> e : a.pendingReasons().entrySet()) {
            // a bound answers with the reason remembered from the round that found it: the same answer, as of that round
            PendingReason attempted = b.pendingReasons().get(e.getKey());
            assertThat(sameOrRemembered(e.getValue(), attempted)).as("step %d: %s's reason %s, by the attempt %s", step, e.getKey(), e.getValue(),
                    attempted).isTrue();
        }
        assertThat(a.wakeAtMillis()).as("step %d: wake-up", step).isEqualTo(b.wakeAtMillis());
        boolean start = r.nextInt(3) != 0;
        for (Decision d : a.decisions()) {
            if (start && d instanceof Admit ad) {
                on.reportStarted(ad.jobId());
                off.reportStarted(ad.jobId());
            }
        }
        Map<String, JobStatus> theirs = new TreeMap<>();
        for (JobStatus j : off.jobs().all()) {
            theirs.put(j.id(), j);
        }
        for (JobStatus j : on.jobs().all()) {
            JobStatus o = theirs.get(j.id());
            assertThat(o).as("step %d: job %s", step, j.id()).isNotNull();
            assertThat(j.state()).as("step %d: state of %s", step, j.id()).isEqualTo(o.state());
            assertThat(j.admission()).as("step %d: admission of %s", step, j.id()).isEqualTo(o.admission());
            assertThat(sameOrRemembered(j.pendingReason(), o.pendingReason())).as("step %d: reason of %s, %s, by the attempts %s", step, j.id(),
                    j.pendingReason(), o.pendingReason()).isTrue();
        }
        assertThat(on.checkInvariants()).as("step %d", step).isEmpty();
    }

    /**
     * @return true when {@code bounded} is {@code attempted}, or the same answer as of an earlier round: what a round
     *     remembers is as of the round that found it (the rule {@code IncrementalRoundsProperties} holds rounds to)
     */
    private static boolean sameOrRemembered(PendingReason bounded, PendingReason attempted) {
        return java.util.Objects.equals(bounded, attempted)
                || bounded != null && attempted != null && bounded.sameAnswer(attempted) && bounded.asOfRound() < attempted.asOfRound();
    }

    /** Some holding jobs finish (or are evicted), the same in both. */
    private static void endSome(Scheduler on, Scheduler off, SplittableRandom r, boolean evict) {
        List<String> holding = new ArrayList<>();
        for (JobStatus j : on.snapshot().holding()) {
            holding.add(j.id());
        }
        holding.sort(null);
        for (int k = 1 + r.nextInt(3); k > 0 && !holding.isEmpty(); k--) {
            String id = holding.remove(r.nextInt(holding.size()));
            if (evict) {
                on.reportEvicted(id, "node drained");
                off.reportEvicted(id, "node drained");
            } else {
                on.reportFinished(id);
                off.reportFinished(id);
            }
        }
    }

    /** Few shapes and priorities, so that a job of a shape that failed, at a lower priority, comes often. */
    private static JobSpec job(String id, SplittableRandom r) {
        JobSpec.Builder b = JobSpec.builder(id).namespace("ns").queue("lq" + r.nextInt(5)).priority(r.nextInt(4));
        int gpus = 1 << r.nextInt(3);
        if (r.nextInt(8) == 0) {
            b.podSet(PodSet.of("workers", 3, Resources.builder().gpus(1).cpu(1).build()).withMinCount(1));
        } else {
            b.members(r.nextInt(6) == 0 ? 2 : 1, Resources.builder().gpus(gpus).cpu(gpus).build());
        }
        return b.build();
    }

    /**
     * Three nodes of 8 GPUs; cohort tree t0 of cq0 and cq1 (LowerPriority / Any / Never: bounded), tree t1 of cq2
     * (Fairway's cohort rules, or reclaim LowerPriority: outside the class) and cq3 (LowerOrNewerEqualPriority), cq4
     * without a cohort (LowerPriority).
     */
    static Scheduler scheduler(AtomicLong now, String policy, Map<String, String> params, long seed, SchedulingPolicy given) {
        Scheduler.Builder b = (given == null ? Scheduler.builder().policy(policy, params) : Scheduler.builder().policy(given)).clock(now::get).seed(seed)
                .flavor(ResourceFlavor.of("default")).cohort(Cohort.of("t0", null)).cohort(Cohort.of("t1", null));
        PreemptionPolicy bounded = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        PreemptionPolicy strict = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER, null, PreemptionPolicy.CohortRules.FAIRWAY_STRICT);
        PreemptionPolicy newer = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.LOWER_PRIORITY, PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY);
        b.clusterQueue(queue("cq0", "t0", 6, bounded)).clusterQueue(queue("cq1", "t0", 6, bounded))
                .clusterQueue(queue("cq2", "t1", 4, seed % 2 == 0 ? strict : newer)).clusterQueue(queue("cq3", "t1", 4, newer))
                .clusterQueue(queue("cq4", null, 4, bounded));
        for (int q = 0; q < 5; q++) {
            b.localQueue(new LocalQueue("ns", "lq" + q, "cq" + q));
        }
        for (int n = 0; n < 3; n++) {
            b.node(Node.builder("n" + n).capacity(Resources.builder().cpu(16).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b.build();
    }

    private static ClusterQueue queue(String name, String cohort, int gpus, PreemptionPolicy preemption) {
        ClusterQueue.Builder q = ClusterQueue.builder(name).preemption(preemption)
                .quota("default", Resources.builder().gpus(gpus).cpu(64).build());
        return (cohort == null ? q : q.cohort(cohort)).build();
    }
}
