package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.PreemptionPolicy.BorrowWithinCohort;
import io.fairway.api.model.PreemptionPolicy.CohortRules;
import io.fairway.api.model.PreemptionPolicy.ReclaimWithinCohort;
import io.fairway.api.model.PreemptionPolicy.WithinClusterQueue;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Kueue's preemption rules across a cohort, each scenario written from the facts of one of Kueue's own
 * {@code TestPreemption} cases (pkg/scheduler/preemption), with cpu quotas in cores as there; and the same scenario
 * under Fairway's stricter {@link CohortRules#FAIRWAY_STRICT}, which decides as Fairway did before.
 */
class KueuePreemptionRulesTest {
    private final AtomicLong now = new AtomicLong(1_000);

    private static ClusterQueue cpuQueue(String name, String cohort, long nominalCores, long borrowingLimitCores, PreemptionPolicy p) {
        return ClusterQueue.builder(name).cohort(cohort).preemption(p)
                .resourceGroup(new ResourceGroup(List.of(Resources.CPU), List.of(new FlavorQuotas("default", List.of(new ResourceQuota(Resources.CPU,
                        nominalCores * 1000, borrowingLimitCores < 0 ? ResourceQuota.UNLIMITED : borrowingLimitCores * 1000, ResourceQuota.UNLIMITED))))))
                .build();
    }

    private Scheduler scheduler(ClusterQueue... queues) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy("best-effort-fifo").flavor(ResourceFlavor.of("default"));
        for (int i = 0; i < 4; i++) {
            b.node(Node.builder("n" + i).capacity(Resources.builder().cpu(64).memoryGiB(256).build()).build());
        }
        for (ClusterQueue q : queues) {
            b.clusterQueue(q).localQueue(new LocalQueue("ns", q.name(), q.name()));
        }
        return b.build();
    }

    private JobSpec job(String id, String queue, int priority, int cores) {
        return JobSpec.builder(id).namespace("ns").queue(queue).priority(priority).submitTimeMillis(now.get())
                .members(1, Resources.builder().cpu(cores).build()).build();
    }

    /** Submits the jobs and runs a round; they must all be admitted (the scenario's starting state). */
    private void admit(Scheduler s, JobSpec... jobs) {
        now.addAndGet(1_000);
        for (JobSpec j : jobs) {
            s.submit(j);
        }
        RoundResult r = s.runRound();
        assertThat(r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId).toList())
                .as("setup: %s", r.pendingReasons()).containsExactlyInAnyOrder(java.util.Arrays.stream(jobs).map(JobSpec::id).toArray(String[]::new));
        for (JobSpec j : jobs) {
            s.reportStarted(j.id());
        }
    }

    private RoundResult submit(Scheduler s, JobSpec incoming) {
        now.addAndGet(1_000);
        s.submit(incoming);
        return s.runRound();
    }

    private static List<String> preempted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Preempt).map(Decision::jobId).sorted().toList();
    }

    private static boolean admitted(RoundResult r, String id) {
        return r.decisions().stream().anyMatch(d -> d instanceof Admit && d.jobId().equals(id));
    }

    // --- a preemptor whose victims are all in its own queue may end up borrowing ---

    /**
     * Kueue's "preempting locally and borrowing same resource in cohort": c1 (6 cores nominal, may borrow 6) runs
     * c1-med (priority 0, 4 cores) and c1-low (-1, 4), c2 (6) runs c2-low (-1, 4): the cohort's 12 are in use. A
     * priority-1 job of 4 cores in c1 preempts c1-low only and runs with c1 borrowing 2: no other queue's job has to go.
     */
    private RoundResult localPreemptionThenBorrow(CohortRules rules) {
        PreemptionPolicy c1 = new PreemptionPolicy(WithinClusterQueue.LOWER_PRIORITY, ReclaimWithinCohort.LOWER_PRIORITY, BorrowWithinCohort.NEVER)
                .withCohortRules(rules);
        PreemptionPolicy c2 = new PreemptionPolicy(WithinClusterQueue.NEVER, ReclaimWithinCohort.ANY, BorrowWithinCohort.NEVER).withCohortRules(rules);
        Scheduler s = scheduler(cpuQueue("c1", "cohort", 6, 6, c1), cpuQueue("c2", "cohort", 6, 6, c2));
        admit(s, job("c1-med", "c1", 0, 4), job("c2-low", "c2", -1, 4));
        admit(s, job("c1-low", "c1", -1, 4));
        return submit(s, job("in", "c1", 1, 4));
    }

    @Test
    void aPreemptorThatTakesOnlyFromItsOwnQueueMayEndUpBorrowing() {
        RoundResult r = localPreemptionThenBorrow(CohortRules.KUEUE);
        assertThat(preempted(r)).containsExactly("c1-low");
        assertThat(admitted(r, "in")).isTrue();
    }

    @Test
    void fairwayStrictRulesPreemptOneMoreToStayWithinNominal() {
        RoundResult r = localPreemptionThenBorrow(CohortRules.FAIRWAY_STRICT);
        assertThat(preempted(r)).containsExactly("c1-low", "c1-med");
        assertThat(admitted(r, "in")).isTrue();
    }

    // --- every job of a borrowing queue is a reclaim candidate, lowest priority first ---

    /**
     * Kueue's "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny": c1 (6 cores) runs c1-1
     * (priority 0, 4 cores, admitted first) and c1-2 (priority 1, 4, admitted later): it borrows 2. c2 (6, reclaim
     * Any) runs 2 cores and gets a priority-0 job of 4: it reclaims by preempting c1-1, the lowest priority job of the
     * borrowing queue — not c1-2, though c1-2 is the one admitted above nominal.
     */
    private RoundResult reclaimFromABorrowingQueue(CohortRules rules) {
        PreemptionPolicy c1 = new PreemptionPolicy(WithinClusterQueue.LOWER_PRIORITY, ReclaimWithinCohort.LOWER_PRIORITY, BorrowWithinCohort.NEVER)
                .withCohortRules(rules);
        PreemptionPolicy c2 = new PreemptionPolicy(WithinClusterQueue.NEVER, ReclaimWithinCohort.ANY, BorrowWithinCohort.NEVER).withCohortRules(rules);
        Scheduler s = scheduler(cpuQueue("c1", "cohort", 6, 6, c1), cpuQueue("c2", "cohort", 6, 6, c2));
        admit(s, job("c1-1", "c1", 0, 4), job("c2", "c2", 0, 2));
        admit(s, job("c1-2", "c1", 1, 4));
        return submit(s, job("in", "c2", 0, 4));
    }

    @Test
    void reclaimTakesTheLowestPriorityJobOfTheBorrowingQueue() {
        RoundResult r = reclaimFromABorrowingQueue(CohortRules.KUEUE);
        assertThat(preempted(r)).containsExactly("c1-1");
        assertThat(admitted(r, "in")).isTrue();
    }

    @Test
    void fairwayStrictRulesTakeTheJobAdmittedAboveNominalWhateverItsPriority() {
        RoundResult r = reclaimFromABorrowingQueue(CohortRules.FAIRWAY_STRICT);
        assertThat(preempted(r)).containsExactly("c1-2");
        assertThat(admitted(r, "in")).isTrue();
    }

    /**
     * Kueue's "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority": under
     * {@code LowerPriority} only jobs of lower priority than the preemptor are candidates, whatever their order.
     */
    @Test
    void reclaimUnderLowerPriorityTakesOnlyLowerPriorityJobs() {
        PreemptionPolicy c1 = new PreemptionPolicy(WithinClusterQueue.LOWER_PRIORITY, ReclaimWithinCohort.LOWER_PRIORITY, BorrowWithinCohort.NEVER);
        Scheduler s = scheduler(cpuQueue("c1", "cohort", 6, 6, c1), cpuQueue("c2", "cohort", 6, 6, c1));
        admit(s, job("c2-1", "c2", 0, 4), job("c1", "c1", 0, 2));
        admit(s, job("c2-2", "c2", 0, 4));
        RoundResult r = submit(s, job("in", "c1", 0, 4));
        assertThat(preempted(r)).isEmpty();
        assertThat(admitted(r, "in")).isFalse();
    }

    // --- borrowWithinCohort and its maxPriorityThreshold ---

    /** Kueue's with_shared_cq cohort: four queues of 1 (or 0) core nominal that may borrow 12 (13), and one of 10 that lends. */
    private Scheduler sharedCohort(Integer threshold, CohortRules rules) {
        PreemptionPolicy aPolicy = new PreemptionPolicy(WithinClusterQueue.NEVER, ReclaimWithinCohort.LOWER_PRIORITY, BorrowWithinCohort.LOWER_PRIORITY,
                threshold, rules);
        PreemptionPolicy bPolicy = new PreemptionPolicy(WithinClusterQueue.LOWER_PRIORITY, ReclaimWithinCohort.ANY, BorrowWithinCohort.LOWER_PRIORITY,
                threshold, rules);
        return scheduler(cpuQueue("a-standard", "shared-cohort", 1, 12, aPolicy), cpuQueue("b-standard", "shared-cohort", 1, 12, bPolicy),
                cpuQueue("a-best-effort", "shared-cohort", 1, 12, aPolicy), cpuQueue("b-best-effort", "shared-cohort", 0, 13, aPolicy),
                cpuQueue("shared", "shared-cohort", 10, -1, PreemptionPolicy.NEVER));
    }

    /**
     * Kueue's "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while
     * borrowing": a-best-effort runs a priority -1 job of 10 cores (borrowing 9), b-best-effort one of 1 core; a
     * priority-0 job of 10 cores in a-standard must borrow 9: it preempts the 10-core job, though that leaves
     * a-best-effort below its nominal quota (its queue cannot reclaim a job of higher priority back).
     */
    private RoundResult borrowWhilePreempting(CohortRules rules) {
        Scheduler s = sharedCohort(0, rules);
        admit(s, job("a-best-effort-low", "a-best-effort", -1, 10), job("b-best-effort-low", "b-best-effort", -1, 1));
        return submit(s, job("in", "a-standard", 0, 10));
    }

    @Test
    void aBorrowingPreemptorTakesALowerPriorityJobEvenBelowItsQueuesNominal() {
        RoundResult r = borrowWhilePreempting(CohortRules.KUEUE);
        assertThat(preempted(r)).containsExactly("a-best-effort-low");
        assertThat(admitted(r, "in")).isTrue();
    }

    @Test
    void fairwayStrictRulesTakeOnlyWhatVictimsBorrowBeyondNominal() {
        RoundResult r = borrowWhilePreempting(CohortRules.FAIRWAY_STRICT);
        assertThat(preempted(r)).isEmpty();
        assertThat(admitted(r, "in")).isFalse();
    }

    /**
     * Kueue's "don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing
     * is required even after the preemption": a-best-effort runs a priority-1 job of 10 cores; a priority-2 job of 10 in
     * a-standard must borrow, and 1 is above the threshold 0: nothing is preempted. Without a threshold it is.
     */
    @Test
    void maxPriorityThresholdKeepsJobsAboveItWhenThePreemptorMustBorrow() {
        Scheduler s = sharedCohort(0, CohortRules.KUEUE);
        admit(s, job("best-effort", "a-best-effort", 1, 10));
        RoundResult r = submit(s, job("in", "a-standard", 2, 10));
        assertThat(preempted(r)).isEmpty();
        assertThat(admitted(r, "in")).isFalse();

        now.set(1_000);
        Scheduler noThreshold = sharedCohort(null, CohortRules.KUEUE);
        admit(noThreshold, job("best-effort", "a-best-effort", 1, 10));
        r = submit(noThreshold, job("in", "a-standard", 2, 10));
        assertThat(preempted(r)).containsExactly("best-effort");
        assertThat(admitted(r, "in")).isTrue();
    }

    /**
     * Where Fairway keeps its rule: a preemptor that must borrow takes from a queue whose {@code reclaimWithinCohort}
     * is Any only what that queue borrows beyond its nominal quota — that queue could otherwise reclaim the quota back
     * from the borrowing preemptor at once, and the two would take turns (a cycle QuotaProperties finds under Kueue's
     * exact rule). b-standard (1 core nominal, reclaim Any) runs a priority-1 job of 10 cores: taking it would leave
     * b-standard below nominal, so the priority-2 job of a-standard that must borrow waits.
     */
    @Test
    void aBorrowingPreemptorLeavesAQueueThatCouldReclaimItBackAtItsNominal() {
        Scheduler s = sharedCohort(null, CohortRules.KUEUE);
        admit(s, job("b-standard", "b-standard", 1, 10));
        RoundResult r = submit(s, job("in", "a-standard", 2, 10));
        assertThat(preempted(r)).isEmpty();
        assertThat(admitted(r, "in")).isFalse();
    }

    /**
     * Kueue's "allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is
     * not required after the preemption": b-standard runs a priority-1 job of 13 cores (the whole cohort); a
     * priority-2 job of 1 core in a-standard fits its own nominal quota, so it reclaims whatever the threshold.
     */
    @Test
    void maxPriorityThresholdDoesNotApplyWhenThePreemptorEndsWithinNominal() {
        Scheduler s = sharedCohort(0, CohortRules.KUEUE);
        admit(s, job("b-standard", "b-standard", 1, 13));
        RoundResult r = submit(s, job("in", "a-standard", 2, 1));
        assertThat(preempted(r)).containsExactly("b-standard");
        assertThat(admitted(r, "in")).isTrue();
    }
}
