package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Themis in a real scheduler: configuration, the fairness knob's extremes, leases, invariants, determinism. */
class ThemisPolicyTest {
    static SchedulingPolicy themis(Map<String, String> params) {
        return Policies.create("themis", params);
    }

    @Test
    void isFoundByServiceLoaderWithDocumentedDefaults() {
        assertThat(Policies.available()).containsKey("themis");
        ThemisPolicy p = (ThemisPolicy) themis(Map.of());
        assertThat(p.config()).isEqualTo(ThemisPolicy.Config.DEFAULTS);
        assertThat(p.config().f()).isEqualTo(0.0);
        assertThat(p.config().leaseMillis()).isEqualTo(900_000);
        assertThat(p.config().overdueFactor()).isEqualTo(1.5);
        assertThat(p.config().hiddenPayments()).isTrue();
        assertThat(p.config().estimate()).isEqualTo(ThemisPolicy.Estimate.PROGRESS);
    }

    @Test
    void parametersAreParsedAndUnknownOnesRefusedByName() {
        ThemisPolicy p = (ThemisPolicy) themis(Map.of("f", "0.5", "leaseMinutes", "infinite", "hiddenPayments", "false",
                "estimate", "elapsed", "starvationGuard", "false", "method", "greedy", "revokeWithoutCheckpoint", "true", "renewUnlessWorse",
                "false", "earlyRevoke", "false", "guardAboveRho", "1.5"));
        assertThat(p.config()).isEqualTo(ThemisPolicy.Config.builder().f(0.5).leaseMinutes(Double.POSITIVE_INFINITY).hiddenPayments(false)
                .estimate(ThemisPolicy.Estimate.ELAPSED).starvationGuard(false).method(PartialAllocationAuction.Method.GREEDY)
                .revokeWithoutCheckpoint(true).renewUnlessWorse(false).earlyRevoke(false).guardAboveRho(1.5).build());
        assertThat(p.config().leaseMillis()).isEqualTo(Admit.NO_LEASE);
        assertThat(p.config().perJob()).isTrue();
        assertThat(p.config().overdueFactor()).isEqualTo(1.5);
        assertThat(p.config().guardOverdue()).isTrue();
        ThemisPolicy before = (ThemisPolicy) themis(Map.of("overdueFactor", "4", "guardOverdue", "false", "worstJobAboveRho", "1.5",
                "overdueOwnRun", "0.5"));
        assertThat(before.config().overdueFactor()).isEqualTo(4.0);
        assertThat(before.config().guardOverdue()).isFalse();
        assertThat(before.config().worstJobAboveRho()).isEqualTo(1.5);
        assertThat(before.config().overdueOwnRun()).isEqualTo(0.5);
        assertThatThrownBy(() -> themis(Map.of("guardOverdue", "maybe"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("guardOverdue must be true or false");
        assertThatThrownBy(() -> themis(Map.of("worstJobAboveRho", "-1"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("worstJobAboveRho must be >= 0");
        assertThatThrownBy(() -> themis(Map.of("overdueOwnRun", "-0.5"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("overdueOwnRun must be a finite number >= 0");
        ThemisPolicy paper = (ThemisPolicy) themis(Map.of("perJob", "false", "overdueFactor", "infinite"));
        assertThat(paper.config().perJob()).isFalse();
        assertThat(paper.config().overdueFactor()).isInfinite();
        assertThat(((ThemisPolicy) themis(Map.of("worstJobFirst", "false"))).config().worstJobFirst()).isFalse();
        assertThatThrownBy(() -> themis(Map.of("worstJobFirst", "sometimes"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("worstJobFirst must be true or false");
        assertThatThrownBy(() -> themis(Map.of("overdueFactor", "-1"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("overdueFactor must be >= 0");
        assertThatThrownBy(() -> themis(Map.of("fairness", "0.5", "lease", "3")))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("[fairness, lease]");
        assertThatThrownBy(() -> themis(Map.of("f", "1.5"))).isInstanceOf(InvalidSpecException.class).hasMessageContaining("f must be in [0, 1]");
        assertThatThrownBy(() -> themis(Map.of("guardAboveRho", "-1"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("guardAboveRho must be >= 0");
        assertThatThrownBy(() -> themis(Map.of("estimate", "guess"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("progress|elapsed");
    }

    @Test
    void theStarvationGuardsOlderKeysStillRead() {
        Map<String, String> old = Map.of("reserve", "false", "reserveAboveRho", "1.5", "overdueReserve", "false");
        Map<String, String> current = Map.of("starvationGuard", "false", "guardAboveRho", "1.5", "guardOverdue", "false");
        ThemisPolicy.Config c = ((ThemisPolicy) themis(old)).config();
        assertThat(c).isEqualTo(((ThemisPolicy) themis(current)).config());
        assertThat(c.starvationGuard()).isFalse();
        assertThat(c.guardAboveRho()).isEqualTo(1.5);
        assertThat(c.guardOverdue()).isFalse();
        // an error names the key as it was written
        assertThatThrownBy(() -> themis(Map.of("reserveAboveRho", "-1"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("reserveAboveRho must be >= 0").extracting("field").isEqualTo("policy.themis.reserveAboveRho");
        assertThatThrownBy(() -> themis(Map.of("overdueReserve", "maybe"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("overdueReserve must be true or false");
        assertThatThrownBy(() -> themis(Map.of("reserve", "true", "starvationGuard", "false"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("reserve is the older name of starvationGuard");
    }

    /**
     * One 4-GPU node, two apps each wanting all 4 GPUs: "old" has waited 1000 s for a 100,000 s job (worst ρ, barely),
     * "new" just arrived with a 60 s job (far larger speed-up per GPU).
     */
    private static List<String> admittedWith(double f) {
        MiniSim sim = new MiniSim(themis(Map.of("f", Double.toString(f), "reserve", "false")), 1, 1, GpuTopology.pcie4("V100"), 1);
        sim.submitAt(0, MiniSim.job("old-1", "old", 4, 100_000));
        sim.submitAt(1_000_000, MiniSim.job("new-1", "new", 4, 60));
        // fill the node until t = 1000 s with a blocker of another app, so both wait for the same auction
        sim.scheduler.submit(MiniSim.job("blocker", "blocker", 4, 1000));
        sim.scheduler.runRound();
        sim.scheduler.reportStarted("blocker");
        sim.now = 1_000_000;
        sim.scheduler.submitAll(List.of(MiniSim.job("old-1", "old", 4, 100_000).withSubmitTime(1),
                MiniSim.job("new-1", "new", 4, 60).withSubmitTime(1_000_000)));
        sim.scheduler.reportFinished("blocker");
        RoundResult r = sim.scheduler.runRound();
        assertThat(sim.scheduler.checkInvariants()).isEmpty();
        return r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId).toList();
    }

    @Test
    void fNearOneLetsOnlyTheWorstAppBid() {
        assertThat(admittedWith(1.0)).containsExactly("old-1");
        assertThat(admittedWith(0.99)).containsExactly("old-1");
    }

    @Test
    void fZeroLetsEveryAppBidAndTheProportionalFairWinnerTakesIt() {
        assertThat(admittedWith(0.0)).containsExactly("new-1");
    }

    @Test
    void withInfiniteLeasesThemisNeverPreempts() {
        MiniSim sim = new MiniSim(themis(Map.of("leaseMinutes", "infinite")), 2, 4, GpuTopology.pcie4("V100"), 7);
        MiniSim.randomWorkload(sim, 11, 40, 6, 3_600_000);
        sim.run(200L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.preemptions).isZero();
        assertThat(sim.finished).hasSize(sim.specs.size());
        assertThat(sim.log).noneMatch(l -> l.contains("Preempt"));
    }

    @Test
    void withLeasesThemisRevokesCheckpointingJobsAndStillFinishesEverything() {
        MiniSim sim = new MiniSim(themis(Map.of("leaseMinutes", "5")), 2, 4, GpuTopology.pcie4("V100"), 7);
        MiniSim.randomWorkload(sim, 11, 40, 6, 3_600_000, 120);
        sim.run(200L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.finished).hasSize(sim.specs.size());
        assertThat(sim.preemptions).isPositive();
        assertThat(sim.log).filteredOn(l -> l.contains("Preempt")).allMatch(l -> l.contains("checkpoint=true"));
    }

    @Test
    void jobsThatDoNotCheckpointKeepTheirGpusWhenConfiguredSoAndAreRevocableByDefault() {
        MiniSim sim = new MiniSim(themis(Map.of("leaseMinutes", "5", "revokeWithoutCheckpoint", "false")), 2, 4, GpuTopology.pcie4("V100"), 7);
        MiniSim.randomWorkload(sim, 11, 40, 6, 3_600_000);
        sim.run(200L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.finished).hasSize(sim.specs.size());
        assertThat(sim.preemptions).isZero();
        MiniSim revoking = new MiniSim(themis(Map.of("leaseMinutes", "5")), 2, 4,
                GpuTopology.pcie4("V100"), 7);
        MiniSim.randomWorkload(revoking, 11, 40, 6, 3_600_000);
        revoking.run(10L * 3600 * 1000);
        assertThat(revoking.violations).isEmpty();
        assertThat(revoking.preemptions).isPositive();
    }

    @Test
    void sameSeedSameDecisions() {
        List<String> first = null;
        for (int i = 0; i < 2; i++) {
            MiniSim sim = new MiniSim(themis(Map.of("leaseMinutes", "3", "f", "0.5")), 2, 2, GpuTopology.hybridCubeMesh8("V100"), 42);
            MiniSim.randomWorkload(sim, 5, 30, 8, 1_800_000, 90);
            sim.run(200L * 3600 * 1000);
            assertThat(sim.violations).isEmpty();
            if (first == null) {
                first = sim.log;
            } else {
                assertThat(sim.log).isEqualTo(first);
            }
        }
    }

    @Test
    void everyConfigurationKeepsTheInvariants() {
        for (String f : List.of("0", "0.5", "0.8", "1")) {
            for (String hidden : List.of("true", "false")) {
                for (String method : List.of("exact", "greedy")) {
                    MiniSim sim = new MiniSim(themis(Map.of("f", f, "hiddenPayments", hidden, "method", method, "leaseMinutes", "2")),
                            2, 2, GpuTopology.nvSwitch8("H100"), 3);
                    MiniSim.randomWorkload(sim, 17, 25, 5, 1_200_000, 60);
                    sim.run(300L * 3600 * 1000);
                    assertThat(sim.violations).as("f=%s hidden=%s %s", f, hidden, method).isEmpty();
                    assertThat(sim.finished).as("f=%s hidden=%s %s", f, hidden, method).hasSize(sim.specs.size());
                }
            }
        }
    }

    @Test
    void elasticJobsTakeAnySizeFromMinToMax() {
        // every app bids (f = 0): the proportional-fair split of 4 GPUs gives the elastic job 2 of its 1..4
        MiniSim sim = new MiniSim(themis(Map.of("f", "0")), 1, 1, GpuTopology.pcie4("V100"), 1);
        sim.scheduler.submit(MiniSim.job("rigid", "r", 2, 600));
        JobSpec elastic = JobSpec.builder("el").queue("lq").jobSet("e").podSet(io.fairway.api.job.PodSet.of("main", 4,
                io.fairway.api.model.Resources.builder().gpus(1).build()).withMinCount(1)).estimatedSeconds(600).build();
        sim.scheduler.submit(elastic);
        RoundResult r = sim.scheduler.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactlyInAnyOrder("rigid", "el");
        Admit el = (Admit) r.decisions().stream().filter(d -> d.jobId().equals("el")).findFirst().orElseThrow();
        assertThat(el.counts().get("main")).isEqualTo(2);
        assertThat(el.leaseExpiresAtMillis()).as("a default lease: 15 minutes").isEqualTo(900_000);
        assertThat(sim.scheduler.checkInvariants()).isEmpty();
    }

    @Test
    void leasesEndJustAfterACheckpoint() {
        // checkpoints every 420 s of work, full speed from 0: a default 15-minute lease would end at 900 s of work,
        // mid-interval; it is stretched to the checkpoint at 1,260 s, plus a 2 s margin
        MiniSim sim = new MiniSim(themis(Map.of()), 1, 1, GpuTopology.pcie4("V100"), 1);
        JobSpec j = MiniSim.job("ck", "c", 4, 3600);
        sim.scheduler.submit(new JobSpec(j.id(), j.namespace(), j.queue(), j.jobSet(), j.owner(), j.priority(), 0, j.podSets(),
                j.estimatedSeconds(), io.fairway.api.job.PlacementSensitivity.NONE, new io.fairway.api.job.Checkpointing(420, 0, 0)));
        RoundResult r = sim.scheduler.runRound();
        assertThat(((Admit) r.decisions().get(0)).leaseExpiresAtMillis()).isEqualTo(1_262_000);
    }

    /**
     * Four 4-GPU nodes full of 1-GPU checkpointing jobs of 16 apps, whose leases expired; an app with one 8-GPU gang
     * (2 members × 4) has waited more than a lease. Its gang needs two whole nodes: exactly the eight jobs on two nodes
     * are revoked and it starts; the other eight leases are renewed, not revoked.
     */
    @Test
    void aWaitingGangGetsWholeNodesByRevokingJustEnoughExpiredLeases() {
        gangRound(Map.of());
    }

    /**
     * An embedder with a wall clock who leaves {@code submitTimeMillis} unset (0: "at submission") gets finish-time
     * estimates that count from the submission, not from the clock's epoch: a job that has just arrived has ρ near 1.
     * (Before the engine stamped the time, such a job had waited "56 years": every app's ρ was in the millions and a
     * newcomer's outranked one that had waited for hours.)
     */
    @Test
    void aJobWithoutASubmitTimeIsAgedFromItsSubmissionNotFromTheClocksEpoch() {
        // the running job does not checkpoint and may not be revoked: the newcomer waits, with its ρ in its reason
        MiniSim sim = new MiniSim(themis(Map.of("revokeWithoutCheckpoint", "false")), 1, 1, GpuTopology.pcie4("V100"), 1);
        sim.now = 1_764_000_000_000L; // a wall clock (Nov 2025)
        sim.scheduler.submit(MiniSim.job("long", "long", 4, 10_000));
        assertThat(sim.scheduler.runRound().decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactly("long");
        sim.now += 60_000;
        sim.scheduler.submit(MiniSim.job("short", "short", 1, 600));
        assertThat(sim.scheduler.status("short").orElseThrow().spec().submitTimeMillis()).isEqualTo(sim.now);
        sim.now += 1_000;
        sim.scheduler.runRound();
        String reason = sim.scheduler.status("short").orElseThrow().pendingReason().message();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rho ([0-9.]+)").matcher(reason);
        assertThat(m.find()).as(reason).isTrue();
        assertThat(Double.parseDouble(m.group(1))).as(reason).isBetween(1.0, 1.1);
    }

    /**
     * The same gang, once with the guard acting at any ρ and once only from a ρ of 1000: the guard's revocations (their
     * reason names the worst app) happen in the first case only.
     */
    @Test
    void theGuardActsOnlyOnceTheWorstAppsRhoReachesReserveAboveRho() {
        List<String> always = gangReasons(gangRoundResult(Map.of("reserveAboveRho", "0")));
        List<String> never = gangReasons(gangRoundResult(Map.of("reserveAboveRho", "1000")));
        assertThat(always).anyMatch(r -> r.contains("make room for app big, which has the worst rho"));
        assertThat(never).noneMatch(r -> r.contains("which has the worst rho"));
    }

    private static List<String> gangReasons(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof io.fairway.api.decision.Preempt)
                .map(d -> ((io.fairway.api.decision.Preempt) d).reason()).toList();
    }

    private static RoundResult gangRoundResult(Map<String, String> params) {
        return gangRound(params);
    }

    private static RoundResult gangRound(Map<String, String> params) {
        // the scenario's leases are 10 minutes long (it was written when that was the default)
        Map<String, String> p = new java.util.HashMap<>(params);
        p.putIfAbsent("leaseMinutes", "10");
        MiniSim sim = new MiniSim(themis(p), 1, 4, GpuTopology.pcie4("V100"), 1);
        io.fairway.api.job.Checkpointing ck = new io.fairway.api.job.Checkpointing(60, 0, 0);
        List<JobSpec> small = new java.util.ArrayList<>();
        for (int i = 0; i < 16; i++) {
            JobSpec j = MiniSim.job("s" + i, "small-" + i, 1, 100_000);
            small.add(new JobSpec(j.id(), j.namespace(), j.queue(), j.jobSet(), j.owner(), j.priority(), 0, j.podSets(),
                    j.estimatedSeconds(), j.sensitivity(), ck));
        }
        sim.scheduler.submitAll(small);
        RoundResult first = sim.scheduler.runRound();
        assertThat(first.decisions()).filteredOn(d -> d instanceof Admit).hasSize(16);
        for (JobSpec j : small) {
            sim.scheduler.reportStarted(j.id());
        }
        sim.now = 1_000;
        JobSpec big = MiniSim.job("big", "big", 8, 600);
        sim.scheduler.submit(new JobSpec(big.id(), big.namespace(), big.queue(), big.jobSet(), big.owner(), big.priority(), 1_000,
                big.podSets(), big.estimatedSeconds(), big.sensitivity(), ck));
        assertThat(sim.scheduler.runRound().decisions()).noneMatch(d -> d instanceof Admit || d instanceof io.fairway.api.decision.Preempt);
        sim.now = 660_000; // every small lease (602 s, aligned with a checkpoint) has expired
        RoundResult r = sim.scheduler.runRound();
        assertThat(sim.scheduler.checkInvariants()).isEmpty();
        List<String> preempted = r.decisions().stream().filter(d -> d instanceof io.fairway.api.decision.Preempt).map(Decision::jobId).toList();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactly("big");
        assertThat(preempted).hasSize(8);
        java.util.Set<String> nodes = new java.util.TreeSet<>();
        for (Decision d : first.decisions()) {
            if (d instanceof Admit a && preempted.contains(a.jobId())) {
                nodes.addAll(a.placement().nodes());
            }
        }
        assertThat(nodes).hasSize(2);
        assertThat(sim.scheduler.jobs().all().stream().filter(j -> j.spec().jobSet().startsWith("small") && j.admission() != null)
                .filter(j -> !preempted.contains(j.id()))).hasSize(8).allMatch(j -> !j.admission().leaseExpired(660_000));
        return r;
    }

    /**
     * Two apps, each one 4-GPU checkpointing job of 2 h, on one 4-GPU node: each is owed half of it, so they time-share
     * it. With {@code renewUnlessWorse} the holder's lease is renewed until the waiting app's ρ is worse than the
     * holder's would be without the node (every second lease here), instead of the jobs swapping at every expiry.
     */
    @Test
    void leasesAreRenewedUnlessAWorseOffAppNeedsThem() {
        int[] preemptions = new int[2];
        for (int i = 0; i < 2; i++) {
            // f = 0.8: only the worse-off app bids, so the two swap; with f = 0 (the default) both bid and the proportional-fair
            // allocation lets the holder finish first, which leaves both at ρ = 1 without any swap
            MiniSim sim = new MiniSim(themis(Map.of("renewUnlessWorse", i == 0 ? "true" : "false", "f", "0.8")), 1, 1,
                    GpuTopology.pcie4("V100"), 1);
            for (String app : List.of("a", "b")) {
                JobSpec j = MiniSim.job(app + "-1", app, 4, 7200);
                sim.submitAt(0, new JobSpec(j.id(), j.namespace(), j.queue(), j.jobSet(), j.owner(), j.priority(), 0, j.podSets(),
                        j.estimatedSeconds(), j.sensitivity(), new io.fairway.api.job.Checkpointing(60, 0, 0)));
            }
            sim.run(100L * 3600 * 1000);
            assertThat(sim.violations).isEmpty();
            assertThat(sim.finished).hasSize(2);
            preemptions[i] = sim.preemptions;
        }
        assertThat(preemptions[0]).isPositive();
        assertThat(preemptions[1]).isGreaterThanOrEqualTo(preemptions[0] * 3 / 2);
    }
    /**
     * One 4-GPU node held by four 1-GPU checkpointing jobs of four apps (100,000 s each) whose 10-minute leases run
     * for another 9 minutes; a fifth app submits a 2-GPU job. A 30 s job would wait 9 minutes for a lease, a ρ of
     * about 8, while two long jobs lose at most a minute of work: with {@code earlyRevoke} exactly two leases are
     * revoked at once and it starts; without, nothing happens. A long (20,000 s) job gains too little from the same
     * revocation and waits for the leases.
     */
    @Test
    void aShortJobRevokesLeasesEarlyButALongOneWaitsForThem() {
        io.fairway.api.job.Checkpointing ck = new io.fairway.api.job.Checkpointing(60, 0, 0);
        for (String mode : List.of("short", "short-without", "long")) {
            MiniSim sim = new MiniSim(themis(Map.of("earlyRevoke", Boolean.toString(!mode.equals("short-without")))), 1, 1,
                    GpuTopology.pcie4("V100"), 1);
            List<JobSpec> holders = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                JobSpec j = MiniSim.job("h" + i, "holder-" + i, 1, 100_000);
                holders.add(new JobSpec(j.id(), j.namespace(), j.queue(), j.jobSet(), j.owner(), j.priority(), 0, j.podSets(),
                        j.estimatedSeconds(), j.sensitivity(), ck));
            }
            sim.scheduler.submitAll(holders);
            assertThat(sim.scheduler.runRound().decisions()).filteredOn(d -> d instanceof Admit).hasSize(4);
            for (JobSpec j : holders) {
                sim.scheduler.reportStarted(j.id());
            }
            sim.now = 60_000;
            JobSpec w = MiniSim.job("w", "waiting", 2, mode.equals("long") ? 20_000 : 30);
            sim.scheduler.submit(new JobSpec(w.id(), w.namespace(), w.queue(), w.jobSet(), w.owner(), w.priority(), 60_000, w.podSets(),
                    w.estimatedSeconds(), w.sensitivity(), ck));
            RoundResult r = sim.scheduler.runRound();
            assertThat(sim.scheduler.checkInvariants()).isEmpty();
            List<String> preempted = r.decisions().stream().filter(d -> d instanceof io.fairway.api.decision.Preempt).map(Decision::jobId).toList();
            List<String> admitted = r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId).toList();
            if (mode.equals("short")) {
                assertThat(preempted).hasSize(2).allMatch(id -> id.startsWith("h"));
                assertThat(admitted).containsExactly("w");
            } else {
                assertThat(preempted).as(mode).isEmpty();
                assertThat(admitted).as(mode).isEmpty();
            }
        }
    }

    /**
     * One 4-GPU node; one app runs a 20,000 s job on all of it, and a minute later the same app submits a 60 s job of 4
     * GPUs. At the first lease expiry the app's own scheduler ({@code worstJobFirst}) hands the GPUs to its worse-off
     * job, the short one (its own ρ after another lease: about 10; the long job's if revoked: about 0.5), which
     * finishes within minutes; the long job checkpoints and goes on. Without it the app keeps its running job and the
     * short one waits for it to end: five and a half hours.
     */
    @Test
    void anAppHandsItsOwnExpiredLeaseToItsWorseOffJob() {
        io.fairway.api.job.Checkpointing ck = new io.fairway.api.job.Checkpointing(60, 0, 0);
        Map<Boolean, Long> shortDone = new java.util.HashMap<>();
        for (boolean worstJobFirst : List.of(true, false)) {
            // without the overdue guard, which would otherwise make room for the short job after its overdue bound
            MiniSim sim = new MiniSim(themis(Map.of("worstJobFirst", Boolean.toString(worstJobFirst), "overdueReserve", "false",
                    "leaseMinutes", "10")), 1, 1,
                    GpuTopology.pcie4("V100"), 1);
            for (JobSpec j : List.of(MiniSim.job("a-long", "a", 4, 20_000), MiniSim.job("a-short", "a", 4, 60))) {
                sim.submitAt(j.id().equals("a-long") ? 0 : 60_000, new JobSpec(j.id(), j.namespace(), j.queue(), j.jobSet(), j.owner(),
                        j.priority(), 0, j.podSets(), j.estimatedSeconds(), j.sensitivity(), ck));
            }
            sim.run(100L * 3600 * 1000);
            assertThat(sim.violations).isEmpty();
            assertThat(sim.finished).containsOnlyKeys("a-long", "a-short");
            shortDone.put(worstJobFirst, sim.finished.get("a-short"));
        }
        assertThat(shortDone.get(true)).as("worst job first: after the first lease, about 10 minutes").isLessThan(15L * 60_000);
        assertThat(shortDone.get(false)).as("running job kept: after the long job").isGreaterThan(20_000_000L);
        assertThat(((ThemisPolicy) themis(Map.of())).config().worstJobFirst()).as("the default").isTrue();
    }

    /**
     * One 4-GPU node; at t = 0 a 1-hour 4-GPU job and a stream of 30-minute 1-GPU jobs, one every 450 s for 6 hours,
     * each its own app. The short apps' ρ grows far faster than the long job's, so every auction goes to them and the
     * node never has 4 GPUs free at once. The long job is overdue after its own hour (nothing was submitted before
     * it); with {@code overdueReserve} the guard then gathers the node for it and it starts within about a lease;
     * without, being overdue only lets it start when it fits on free GPUs, and it waits for the stream to end.
     */
    @Test
    void theOldestOverdueJobGetsRoomWhenItDoesNotFit() {
        assertThat(firstStartOfTheLongJob(Map.of("overdueReserve", "true"))).as("with the overdue guard")
                .isLessThan(3_600_000L + 2 * 600_000L + 60_000L);
        assertThat(firstStartOfTheLongJob(Map.of("overdueReserve", "false"))).as("without: until the stream ends")
                .isGreaterThan(5L * 3_600_000L);
    }

    /**
     * The same stream without checkpoints: the overdue guard never revokes a job that does not checkpoint (its work
     * would be thrown away, and the job it made room for could be revoked for the next overdue one, without end): the
     * long job waits for the short jobs to finish, every job finishes, and none is preempted for it.
     */
    @Test
    void theOverdueGuardNeverRevokesAJobThatDoesNotCheckpoint() {
        MiniSim sim = streamWithALongJob(Map.of("overdueReserve", "true"), null);
        assertThat(sim.log).noneMatch(l -> l.contains("overdue"));
        assertThat(firstStart(sim)).isPositive();
    }

    private static long firstStartOfTheLongJob(Map<String, String> params) {
        return firstStart(streamWithALongJob(params, new io.fairway.api.job.Checkpointing(60, 0, 0)));
    }

    private static MiniSim streamWithALongJob(Map<String, String> params, io.fairway.api.job.Checkpointing ck) {
        MiniSim sim = new MiniSim(themis(params), 1, 1, GpuTopology.pcie4("V100"), 1);
        List<JobSpec> jobs = new java.util.ArrayList<>();
        jobs.add(MiniSim.job("long", "long", 4, 3_600));
        for (int i = 0; i < 6 * 8; i++) {
            jobs.add(MiniSim.job("s" + i, "short-" + i, 1, 1_800));
        }
        for (int i = 0; i < jobs.size(); i++) {
            JobSpec j = jobs.get(i);
            sim.submitAt(i == 0 ? 0 : (i - 1) * 450_000L, new JobSpec(j.id(), j.namespace(), j.queue(), j.jobSet(), j.owner(), j.priority(), 0,
                    j.podSets(), j.estimatedSeconds(), j.sensitivity(), ck));
        }
        sim.run(48L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.finished).hasSize(jobs.size());
        return sim;
    }

    private static long firstStart(MiniSim sim) {
        for (String line : sim.log) {
            if (line.contains(" Admit[jobId=long,")) {
                return Long.parseLong(line.substring(0, line.indexOf(' ')));
            }
        }
        throw new AssertionError("the long job never started");
    }
}
