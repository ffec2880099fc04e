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
 * Every round of the history is run twice in a row, so that rounds in which nothing changed are frequent. A second
 * property then changes one cohort tree only (finishes and starts in cohort {@code co0}, its quotas halved or doubled),
 * or the nodes, between rounds: the other tree's quota failures may then be answered from memory after the plan
 * changed elsewhere, and must still be what a round from scratch finds.
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
                sameLastRound(policy, remembering, scratch);
            }
        }
        sameJobs(remembering, scratch, policy + ", at the end");
    }

    /**
     * A step of a history that changes one cohort tree only (or the nodes, or one queue's quota), then runs a round
     * twice: so that the other tree's waiting jobs keep answers the memory may give after the plan changed elsewhere.
     *
     * @param kind 0: a job holding resources in cohort co0 finishes; 1: a job holding resources in co0 starts;
     *     2: the nominal quota of one ClusterQueue of co0 is halved or doubled; 3: a node is cordoned or uncordoned;
     *     4: a job is submitted (any queue)
     * @param pick which job, queue or node
     * @param job the job submitted (kind 4)
     */
    record LocalStep(int kind, int pick, FairwayArbitraries.JobTemplate job) {
    }

    @Provide
    Arbitrary<List<LocalStep>> localSteps() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 1_000),
                FairwayArbitraries.jobTemplates()).as(LocalStep::new).list().ofMinSize(3).ofMaxSize(15);
    }

    @Property(tries = 80)
    void changesInOneCohortTreeLeaveTheOtherTreesAnswersAsRoundsFromScratch(@ForAll("policies") String policy, @ForAll("worlds") World world,
                                                                             @ForAll("histories") List<Op> prefix,
                                                                             @ForAll("localSteps") List<LocalStep> steps) {
        ConformanceHarness remembering = new ConformanceHarness(world, () -> BuiltInPolicies.named(policy), 7, true);
        ConformanceHarness scratch = new ConformanceHarness(world, () -> BuiltInPolicies.named(policy), 7, false);
        for (Op op : prefix) {
            remembering.apply(op);
            scratch.apply(op);
            if (op instanceof RunRound) {
                sameLastRound(policy, remembering, scratch);
            }
        }
        List<String> co0 = new ArrayList<>();
        for (io.fairway.api.model.ClusterQueue q : world.clusterQueues()) {
            if ("co0".equals(q.cohort())) {
                co0.add(q.name());
            }
        }
        for (LocalStep step : steps) {
            for (ConformanceHarness h : List.of(remembering, scratch)) {
                applyLocal(h, step, co0);
            }
            for (int i = 0; i < 2; i++) {
                remembering.apply(new RunRound());
                scratch.apply(new RunRound());
                sameLastRound(policy, remembering, scratch);
            }
        }
        sameJobs(remembering, scratch, policy + ", at the end");
    }

    private static void applyLocal(ConformanceHarness h, LocalStep step, List<String> co0) {
        io.fairway.core.Scheduler s = h.scheduler;
        switch (step.kind()) {
            case 0, 1 -> {
                List<JobStatus> holding = new ArrayList<>();
                for (JobStatus j : s.jobs().all()) {
                    boolean in = j.admission() != null && co0.contains(j.admission().clusterQueue());
                    if (in && (step.kind() == 0 ? j.state().holdsResources() : j.state() == io.fairway.api.job.JobState.ADMITTED)) {
                        holding.add(j);
                    }
                }
                holding.sort(java.util.Comparator.comparing(JobStatus::id));
                if (!holding.isEmpty()) {
                    String id = holding.get(step.pick() % holding.size()).id();
                    if (step.kind() == 0) {
                        s.reportFinished(id);
                    } else {
                        s.reportStarted(id);
                    }
                }
            }
            case 2 -> {
                if (!co0.isEmpty()) {
                    String name = co0.get(step.pick() % co0.size());
                    io.fairway.api.model.ClusterQueue q = s.snapshot().clusterQueues().get(name);
                    s.queues().addClusterQueue(withNominal(q, step.pick() % 2 == 0 ? 0.5 : 2.0));
                }
            }
            case 3 -> {
                List<io.fairway.api.model.Node> nodes = new ArrayList<>(s.clusters().nodes());
                if (!nodes.isEmpty()) {
                    io.fairway.api.model.Node n = nodes.get(step.pick() % nodes.size());
                    s.clusters().cordon(n.name(), !n.unschedulable());
                }
            }
            default -> h.apply(new FairwayArbitraries.Submit(step.job()));
        }
    }

    /** The queue with every nominal quota scaled (rounded down; a lending limit at most the new nominal). */
    private static io.fairway.api.model.ClusterQueue withNominal(io.fairway.api.model.ClusterQueue q, double factor) {
        List<io.fairway.api.model.ResourceGroup> groups = new ArrayList<>();
        for (io.fairway.api.model.ResourceGroup g : q.resourceGroups()) {
            List<io.fairway.api.model.FlavorQuotas> flavors = new ArrayList<>();
            for (io.fairway.api.model.FlavorQuotas f : g.flavors()) {
                List<io.fairway.api.model.ResourceQuota> rs = new ArrayList<>();
                for (io.fairway.api.model.ResourceQuota r : f.resources()) {
                    long nominal = (long) (r.nominal() * factor);
                    rs.add(new io.fairway.api.model.ResourceQuota(r.resource(), nominal, r.borrowingLimit(),
                            r.lendingLimit() == io.fairway.api.model.ResourceQuota.UNLIMITED ? r.lendingLimit() : Math.min(r.lendingLimit(), nominal)));
                }
                flavors.add(new io.fairway.api.model.FlavorQuotas(f.flavor(), rs));
            }
            groups.add(new io.fairway.api.model.ResourceGroup(g.coveredResources(), flavors));
        }
        return new io.fairway.api.model.ClusterQueue(q.name(), q.cohort(), groups, q.queueingStrategy(), q.preemption(), q.flavorFungibility(),
                q.fairSharingWeight(), q.priorityFactor(), q.stopped(), q.admissionChecks(), q.namespaceSelector());
    }

    private static void sameLastRound(String policy, ConformanceHarness remembering, ConformanceHarness scratch) {
        int n = remembering.rounds.size();
        assertThat(scratch.rounds).hasSize(n);
        RoundResult a = remembering.rounds.get(n - 1).result();
        RoundResult b = scratch.rounds.get(n - 1).result();
        String what = policy + ", round " + n;
        assertThat(a.decisions()).as("decisions, %s", what).isEqualTo(b.decisions());
        // A reason is as of the round that gave it: the remembering round lists a reason only when the answer changed,
        // and then the one a round from scratch gives; a job whose answer stayed keeps its reason, with older numbers.
        // (it also lists one a round from scratch does not, when it refreshes a kept reason to the numbers the other
        // scheduler's job carries: after a change of configuration, reasons are compared in full). An answer the memory
        // gives again is as of the round that found it, for every job of that shape.
        for (Map.Entry<String, io.fairway.api.job.PendingReason> e : a.pendingReasons().entrySet()) {
            io.fairway.api.job.PendingReason given = b.pendingReasons().get(e.getKey());
            if (given != null) {
                // the same, or (an answer remembered for the job's shape) the same answer as of an earlier round
                assertThat(given.equals(e.getValue()) || e.getValue().sameAnswer(given) && e.getValue().asOfRound() < given.asOfRound())
                        .as("reason given to %s, %s: %s / %s", e.getKey(), what, e.getValue(), given).isTrue();
            } else {
                JobStatus o = scratch.scheduler.status(e.getKey()).orElseThrow();
                assertThat(sameButStamp(e.getValue(), o.pendingReason())
                        || e.getValue().sameAnswer(o.pendingReason()) && e.getValue().asOfRound() < o.pendingReason().asOfRound())
                        .as("reason given to %s, %s: %s / %s", e.getKey(), what, e.getValue(), o.pendingReason()).isTrue();
            }
        }
        sameJobs(remembering, scratch, what);
        assertThat(a.refused()).as("refusals, %s", what).isEqualTo(b.refused());
        assertThat(a.wakeAtMillis()).as("wake-up, %s", what).isEqualTo(b.wakeAtMillis());
        assertThat(a.leaseRenewals()).as("lease renewals, %s", what).isEqualTo(b.leaseRenewals());
    }

    /**
     * Every job in the same state with the same admission, waiting for the same answer: where the reasons differ, the
     * remembering scheduler's gives the same answer (code and sentence, but for its numbers) and is from an earlier round.
     */
    private static void sameJobs(ConformanceHarness remembering, ConformanceHarness scratch, String what) {
        Map<String, JobStatus> theirs = new TreeMap<>();
        for (JobStatus j : scratch.scheduler.jobs().all()) {
            theirs.put(j.id(), j);
        }
        Map<String, String> ours = new TreeMap<>();
        Map<String, String> expected = new TreeMap<>();
        for (JobStatus j : remembering.scheduler.jobs().all()) {
            JobStatus o = theirs.get(j.id());
            ours.put(j.id(), j.state() + " " + j.admission());
            expected.put(j.id(), o == null ? "missing" : o.state() + " " + o.admission());
            if (o != null && !sameButStamp(j.pendingReason(), o.pendingReason())) {
                assertThat(j.pendingReason() != null && j.pendingReason().sameAnswer(o.pendingReason()))
                        .as("%s waits for the same answer (%s): %s / %s", j.id(), what, j.pendingReason(), o.pendingReason()).isTrue();
                assertThat(j.pendingReason().asOfRound()).as("%s keeps a reason from an earlier round, %s", j.id(), what)
                        .isLessThan(o.pendingReason().asOfRound());
            }
        }
        assertThat(ours).as("every job's state and admission, %s", what).isEqualTo(expected);
        assertThat(theirs.keySet()).as("jobs, %s", what).isEqualTo(ours.keySet());
    }

    /** Equal but for the round each is from ({@code asOfRound}); null only as null. */
    static boolean sameButStamp(io.fairway.api.job.PendingReason a, io.fairway.api.job.PendingReason b) {
        return a == null ? b == null : a.equalsButRound(b);
    }
}
