package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reconfiguration under running work (Kueue's semantics): a change that leaves a ClusterQueue or a cohort above its
 * quota is accepted, what runs keeps running, nothing new is admitted into the over-used part, and rounds go on for
 * every other queue. team-a (8 GPUs nominal) borrows idle team-b's 8; then the configuration changes.
 */
class QuotaReconfigurationTest {
    private static final PreemptionPolicy RECLAIM = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.NEVER,
            PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);

    static ClusterQueue gpuQueue(String name, String cohort, long nominal, long borrowingLimit, long lendingLimit, PreemptionPolicy p) {
        return ClusterQueue.builder(name).cohort(cohort).preemption(p)
                .resourceGroup(new ResourceGroup(List.of(Resources.GPU, Resources.CPU), List.of(new FlavorQuotas("default",
                        List.of(new ResourceQuota(Resources.GPU, nominal, borrowingLimit, lendingLimit), ResourceQuota.of(Resources.CPU, 1_000_000))))))
                .build();
    }

    private static final long U = ResourceQuota.UNLIMITED;

    /** team-a runs a1 and a2 (8 GPUs each, a2 borrowed from team-b) on n0 and n1; "solo" has its own quota and n2. */
    static Scheduler borrowing(PreemptionPolicy p) {
        Scheduler.Builder b = Scheduler.builder().clock(() -> 0).policy("best-effort-fifo").flavor(ResourceFlavor.of("default"))
                .cluster(new ClusterSpec("east", List.of()))
                .clusterQueue(gpuQueue("team-a", "research", 8, U, U, p))
                .clusterQueue(gpuQueue("team-b", "research", 8, U, U, p))
                .clusterQueue(gpuQueue("solo", null, 8, U, U, p))
                .localQueue(new LocalQueue("ns", "a", "team-a")).localQueue(new LocalQueue("ns", "b", "team-b"))
                .localQueue(new LocalQueue("ns", "solo", "solo"));
        for (int i = 0; i < 2; i++) {
            b.node(Node.builder("n" + i).capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        b.node(Node.builder("n2").cluster("east").capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        Scheduler s = b.build();
        s.submit(job("a1", "a", 8));
        s.submit(job("a2", "a", 8));
        assertThat(admitted(s.runRound())).containsExactly("a1", "a2");
        s.reportStarted("a1");
        s.reportStarted("a2");
        return s;
    }

    static JobSpec job(String id, String queue, int gpus) {
        return JobSpec.builder(id).namespace("ns").queue(queue).submitTimeMillis(0).members(1, Resources.builder().gpus(gpus).cpu(1).build()).build();
    }

    static List<String> admitted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId).toList();
    }

    static List<String> preempted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Preempt).map(Decision::jobId).toList();
    }

    static Stream<Arguments> quotaChanges() {
        return Stream.of(
                Arguments.of("remove the idle lender", (Consumer<Scheduler>) s -> s.queues().removeClusterQueue("team-b")),
                Arguments.of("move the lender to another cohort",
                        (Consumer<Scheduler>) s -> s.queues().addClusterQueue(gpuQueue("team-b", "elsewhere", 8, U, U, PreemptionPolicy.NEVER))),
                Arguments.of("set the lender's nominal quota to 0",
                        (Consumer<Scheduler>) s -> s.queues().addClusterQueue(gpuQueue("team-b", "research", 0, U, U, PreemptionPolicy.NEVER))),
                Arguments.of("give the lender a lending limit of 0",
                        (Consumer<Scheduler>) s -> s.queues().addClusterQueue(gpuQueue("team-b", "research", 8, U, 0, PreemptionPolicy.NEVER))),
                Arguments.of("lower the borrower's nominal quota below its use",
                        (Consumer<Scheduler>) s -> s.queues().addClusterQueue(gpuQueue("team-a", "research", 4, U, U, PreemptionPolicy.NEVER))),
                Arguments.of("give the borrower a borrowing limit of 0",
                        (Consumer<Scheduler>) s -> s.queues().addClusterQueue(gpuQueue("team-a", "research", 8, 0, U, PreemptionPolicy.NEVER))),
                Arguments.of("move the borrower to a cohort of its own",
                        (Consumer<Scheduler>) s -> s.queues().addClusterQueue(gpuQueue("team-a", "alone", 8, U, U, PreemptionPolicy.NEVER))),
                Arguments.of("take the cohort out of a parent that lent it quota", (Consumer<Scheduler>) s -> {
                    s.queues().addClusterQueue(gpuQueue("team-b", "elsewhere", 8, U, U, PreemptionPolicy.NEVER));
                    s.queues().addCohort(new Cohort("root", null, List.of(new ResourceGroup(List.of(Resources.GPU),
                            List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, 8)))))), 1));
                    s.queues().addCohort(Cohort.of("research", "root"));
                    s.runRound();
                    s.queues().updateCohort(Cohort.of("research", null));
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("quotaChanges")
    void aQuotaChangeUnderRunningWorkKeepsItRunningAdmitsNothingIntoTheOverUseAndRoundsGoOn(String change, Consumer<Scheduler> apply) {
        Scheduler s = borrowing(PreemptionPolicy.NEVER);
        apply.accept(s);
        s.submit(job("a3", "a", 1));
        s.submit(job("solo1", "solo", 8));
        RoundResult r = s.runRound();
        assertThat(admitted(r)).as(change).containsExactly("solo1");
        assertThat(preempted(r)).as(change).isEmpty();
        assertThat(s.status("a1").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.status("a2").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.status("a3").orElseThrow().pendingReason().code()).as(change).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(s.checkInvariants()).as(change).isEmpty();
        // as the work above the quota ends, rounds go on and the queue is served again once it is back within it
        s.reportFinished("a2");
        assertThatCode(s::runRound).doesNotThrowAnyException();
        assertThat(s.checkInvariants()).as(change).isEmpty();
        s.reportFinished("a1");
        s.runRound();
        assertThat(s.status("a3").orElseThrow().state().holdsResources()).as(change).isTrue();
        assertThat(s.checkInvariants()).as(change).isEmpty();
    }

    @Test
    void aLenderWithinItsNominalQuotaReclaimsFromAnOverUsedCohortByPreemption() {
        Scheduler s = borrowing(RECLAIM);
        // team-a's nominal quota drops to 4: the cohort has 12, team-a uses 16
        s.queues().addClusterQueue(gpuQueue("team-a", "research", 4, U, U, RECLAIM));
        s.submit(job("b1", "b", 8));
        RoundResult r = s.runRound();
        assertThat(preempted(r)).containsExactlyInAnyOrder("a1", "a2");
        assertThat(admitted(r)).containsExactly("b1");
        assertThat(s.checkInvariants()).isEmpty();
        // a1 and a2 wait: team-a may not go back above its lowered quota
        RoundResult next = s.runRound();
        assertThat(admitted(next)).isEmpty();
        assertThat(s.status("a1").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void withoutReclaimTheLenderWaitsAndNothingIsPreempted() {
        Scheduler s = borrowing(PreemptionPolicy.NEVER);
        s.queues().addClusterQueue(gpuQueue("team-a", "research", 4, U, U, PreemptionPolicy.NEVER));
        s.submit(job("b1", "b", 8));
        RoundResult r = s.runRound();
        assertThat(preempted(r)).isEmpty();
        assertThat(s.status("b1").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(s.checkInvariants()).isEmpty();
    }

    private static ClusterQueue onFlavorOther(String name, String cohort) {
        return ClusterQueue.builder(name).cohort(cohort).resourceGroup(new ResourceGroup(List.of(Resources.GPU, Resources.CPU),
                List.of(new FlavorQuotas("other", List.of(ResourceQuota.of(Resources.GPU, 8), ResourceQuota.of(Resources.CPU, 1_000_000))))))
                .build();
    }

    @Test
    void aFlavorTakenOutOfTheQueuesAndRemovedLeavesItsJobsRunningAndRoundsGoOn() {
        Scheduler s = borrowing(PreemptionPolicy.NEVER);
        s.queues().addFlavor(ResourceFlavor.of("other"));
        // every queue now quotes flavor "other" only; team-a's jobs keep the admissions they got under "default"
        s.queues().addClusterQueue(onFlavorOther("team-a", "research"));
        s.queues().addClusterQueue(onFlavorOther("team-b", "research"));
        s.queues().addClusterQueue(onFlavorOther("solo", null));
        assertThat(s.queues().removeFlavor("default")).isTrue();
        s.submit(job("a3", "a", 1));
        RoundResult r = s.runRound();
        assertThat(preempted(r)).isEmpty();
        assertThat(admitted(r)).containsExactly("a3"); // quota of "other" is unused; a1 and a2 hold "default"
        assertThat(s.status("a1").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.checkInvariants()).isEmpty();
        assertThatCode(() -> Scheduler.restore(s.exportState(), Scheduler.builder().clock(() -> 0))).doesNotThrowAnyException();
        s.reportFinished("a1");
        s.reportFinished("a2");
        assertThatCode(s::runRound).doesNotThrowAnyException();
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void capacityChangesSendTheJobsOnWhatWentAwayBackAndRoundsGoOn() {
        Scheduler s = borrowing(PreemptionPolicy.NEVER);
        s.clusters().removeNode("n1");
        s.clusters().removeCluster("east");
        assertThatCode(s::runRound).doesNotThrowAnyException();
        assertThat(s.checkInvariants()).isEmpty();
        // a node that shrinks below what runs on it: the job admitted last on it goes back to pending
        s.clusters().updateNode(Node.builder("n0").capacity(Resources.builder().cpu(0.5).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        assertThat(s.checkInvariants()).isEmpty();
        assertThatCode(s::runRound).doesNotThrowAnyException();
        assertThat(s.checkInvariants()).isEmpty();
    }
}
