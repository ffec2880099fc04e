package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.AdmissionChecks;
import io.fairway.core.PendingExplanation;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The quota scenarios of the quota guide (docs/concepts/quota.md), each asserting what a Kueue user expects. */
class QuotaScenariosTest {
    private final AtomicLong now = new AtomicLong();

    private static ClusterQueue gpuQueue(String name, String cohort, long nominal, long borrowingLimit, long lendingLimit,
                                         PreemptionPolicy preemption) {
        return ClusterQueue.builder(name).cohort(cohort).preemption(preemption)
                .resourceGroup(new ResourceGroup(List.of(Resources.GPU), List.of(new FlavorQuotas("default",
                        List.of(new ResourceQuota(Resources.GPU, nominal, borrowingLimit, lendingLimit))))))
                .build();
    }

    private Scheduler.Builder base(int nodes) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).flavor(ResourceFlavor.of("default"));
        for (int i = 0; i < nodes; i++) {
            b.node(Node.builder("n" + i).capacity(Resources.builder().cpu(64).build()).gpus(io.fairway.api.model.GpuTopology.nvSwitch8("H100")).build());
        }
        return b;
    }

    private static JobSpec gpuJob(String id, String queue, int gpus, int priority) {
        return JobSpec.builder(id).namespace("ns").queue(queue).priority(priority).submitTimeMillis(0)
                .members(1, Resources.builder().gpus(gpus).build()).build();
    }

    private static List<String> admitted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId).toList();
    }

    private static List<String> preempted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Preempt).map(Decision::jobId).toList();
    }

    @Test
    void borrowsFromAnIdleCohortMemberAndIsPreemptedWhenTheLenderReclaims() {
        PreemptionPolicy reclaim = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.NEVER, PreemptionPolicy.ReclaimWithinCohort.ANY,
                PreemptionPolicy.BorrowWithinCohort.NEVER);
        Scheduler s = base(2).policy("best-effort-fifo")
                .clusterQueue(gpuQueue("team-a", "research", 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, reclaim))
                .clusterQueue(gpuQueue("team-b", "research", 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, reclaim))
                .localQueue(new LocalQueue("ns", "a", "team-a")).localQueue(new LocalQueue("ns", "b", "team-b"))
                .build();
        // team-a uses its 8 and borrows team-b's idle 8
        s.submit(gpuJob("a1", "a", 8, 0));
        s.submit(gpuJob("a2", "a", 8, 0));
        assertThat(admitted(s.runRound())).containsExactly("a1", "a2");
        // team-b comes back: it reclaims its nominal quota by preempting the borrower
        s.submit(gpuJob("b1", "b", 8, 0));
        RoundResult r = s.runRound();
        assertThat(preempted(r)).containsExactly("a2");
        assertThat(admitted(r)).containsExactly("b1");
        assertThat(s.status("a2").orElseThrow().pendingReason().code()).isIn(PendingReason.Code.PREEMPTED, PendingReason.Code.QUOTA,
                PendingReason.Code.POLICY_CHOSE_OTHERS);
        // a2 cannot take it back: team-a is at its nominal quota and team-b does not borrow
        r = s.runRound();
        assertThat(preempted(r)).isEmpty();
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void lendingLimitHoldsBackPartOfAQuota() {
        Scheduler s = base(2).policy("best-effort-fifo")
                .clusterQueue(gpuQueue("team-a", "research", 4, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER))
                .clusterQueue(gpuQueue("team-b", "research", 12, ResourceQuota.UNLIMITED, 4, PreemptionPolicy.NEVER))
                .localQueue(new LocalQueue("ns", "a", "team-a"))
                .build();
        // team-b is idle but lends at most 4 of its 12: team-a may use 4 + 4 = 8
        s.submit(gpuJob("a1", "a", 8, 0));
        s.submit(gpuJob("a2", "a", 1, 0));
        RoundResult r = s.runRound();
        assertThat(admitted(r)).containsExactly("a1");
        PendingReason why = s.status("a2").orElseThrow().pendingReason();
        assertThat(why.code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(why.message()).contains("team-a").contains("cohort research lends 0")
                .contains("lendingLimit binds").contains("team-b lends at most 4 of its 12 and holds back 8 unused")
                .doesNotContain("borrowingLimit").doesNotContain("total");
        assertThat(why.details()).containsEntry("nominal", 4L).containsEntry("used", 8L).containsEntry("cohortLends", 0L)
                .containsEntry("lendingLimit", 4L).containsEntry("heldBack", 8L);
    }

    @Test
    void aFullCohortSaysItsTotalBinds() {
        Scheduler s = base(2).policy("best-effort-fifo")
                .clusterQueue(gpuQueue("team-a", "research", 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER))
                .clusterQueue(gpuQueue("team-b", "research", 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER))
                .localQueue(new LocalQueue("ns", "a", "team-a")).localQueue(new LocalQueue("ns", "b", "team-b"))
                .build();
        s.submit(gpuJob("a1", "a", 4, 0));
        s.submit(gpuJob("b1", "b", 8, 0));
        s.submit(gpuJob("a2", "a", 4, 0));
        s.submit(gpuJob("a3", "a", 2, 0));
        assertThat(admitted(s.runRound())).containsExactlyInAnyOrder("a1", "b1", "a2");
        PendingReason why = s.status("a3").orElseThrow().pendingReason();
        assertThat(why.code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(why.message()).contains("ClusterQueue team-a has 0 unused of 8")
                .contains("cohort research lends 0: the cohort's total binds (16 of its 16 in use)")
                .doesNotContain("borrowingLimit").doesNotContain("lendingLimit");
        assertThat(why.details()).containsEntry("cohortQuota", 16L).containsEntry("cohortUsed", 16L).containsEntry("cohortLends", 0L);
    }

    @Test
    void borrowingLimitCapsBorrowing() {
        Scheduler s = base(4).policy("best-effort-fifo")
                .clusterQueue(gpuQueue("team-a", "research", 4, 2, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER))
                .clusterQueue(gpuQueue("team-b", "research", 20, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER))
                .localQueue(new LocalQueue("ns", "a", "team-a"))
                .build();
        for (int i = 0; i < 8; i++) {
            s.submit(gpuJob("a" + i, "a", 1, 0));
        }
        assertThat(admitted(s.runRound())).hasSize(6); // 4 nominal + 2 borrowed
        PendingReason why = s.status("a6").orElseThrow().pendingReason();
        assertThat(why.code()).isEqualTo(PendingReason.Code.QUOTA);
        // team-b's 20 GPUs are idle: the queue's own borrowing limit binds, not the cohort
        assertThat(why.message()).contains("ClusterQueue team-a has 0 unused of 4")
                .contains("its own borrowingLimit binds: it borrows 2 of at most 2, although cohort research could lend 18")
                .doesNotContain("lendingLimit").doesNotContain("total");
        assertThat(why.details()).containsEntry("borrowingLimit", 2L).containsEntry("borrowed", 2L).containsEntry("cohortLends", 0L)
                .containsEntry("cohortFree", 18L);
    }

    @Test
    void twoFlavorsOnDemandThenSpotWithFallback() {
        ResourceFlavor onDemand = new ResourceFlavor("on-demand", Map.of("capacity", "on-demand"), List.of(), List.of());
        ResourceFlavor spot = new ResourceFlavor("spot", Map.of("capacity", "spot"), List.of(), List.of());
        ClusterQueue cq = ClusterQueue.builder("team-a")
                .resourceGroup(new ResourceGroup(List.of(Resources.GPU), List.of(
                        new FlavorQuotas("on-demand", List.of(ResourceQuota.of(Resources.GPU, 8))),
                        new FlavorQuotas("spot", List.of(ResourceQuota.of(Resources.GPU, 16))))))
                .build();
        Scheduler s = Scheduler.builder().clock(now::get).policy("best-effort-fifo").flavor(onDemand).flavor(spot).clusterQueue(cq)
                .localQueue(new LocalQueue("ns", "a", "team-a"))
                .node(Node.builder("od-1").label("capacity", "on-demand").gpus(io.fairway.api.model.GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("spot-1").label("capacity", "spot").gpus(io.fairway.api.model.GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("spot-2").label("capacity", "spot").gpus(io.fairway.api.model.GpuTopology.nvSwitch8("H100")).build())
                .build();
        s.submit(gpuJob("j1", "a", 8, 0));
        s.submit(gpuJob("j2", "a", 8, 0));
        s.submit(gpuJob("j3", "a", 8, 0));
        s.submit(gpuJob("j4", "a", 8, 0));
        RoundResult r = s.runRound();
        assertThat(admitted(r)).containsExactly("j1", "j2", "j3");
        Map<String, Admit> byJob = new java.util.HashMap<>();
        r.decisions().forEach(d -> byJob.put(d.jobId(), (Admit) d));
        assertThat(byJob.get("j1").flavors()).containsEntry("main", "on-demand");
        assertThat(byJob.get("j1").placement().nodes()).containsExactly("od-1");
        assertThat(byJob.get("j2").flavors()).containsEntry("main", "spot");
        assertThat(byJob.get("j2").placement().nodes()).allMatch(n -> n.startsWith("spot"));
        assertThat(s.status("j4").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    @Test
    void priorityPreemptionWithinAClusterQueueChoosesAMinimalSet() {
        PreemptionPolicy lower = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null);
        Scheduler s = base(1).policy("priority")
                .clusterQueue(gpuQueue("team-a", null, 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, lower))
                .localQueue(new LocalQueue("ns", "a", "team-a"))
                .build();
        s.submit(gpuJob("low-4", "a", 4, 0));
        s.submit(gpuJob("low-2a", "a", 2, 1));
        s.submit(gpuJob("low-2b", "a", 2, 2));
        assertThat(admitted(s.runRound())).hasSize(3);
        s.submit(gpuJob("urgent", "a", 2, 10));
        RoundResult r = s.runRound();
        // one 2-GPU victim suffices; the lowest priority job able to make room is chosen, not the 4-GPU one as well
        assertThat(preempted(r)).hasSize(1);
        assertThat(preempted(r)).containsAnyOf("low-2a", "low-4");
        assertThat(admitted(r)).containsExactly("urgent");
        // an equal-priority job never preempts
        s.submit(gpuJob("peer", "a", 2, 10));
        r = s.runRound();
        assertThat(preempted(r)).doesNotContain("urgent");
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void explainGivesPositionAndReason() {
        Scheduler s = base(1).policy("best-effort-fifo")
                .clusterQueue(gpuQueue("team-a", null, 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER))
                .localQueue(new LocalQueue("ns", "a", "team-a"))
                .build();
        s.submit(gpuJob("j0", "a", 8, 0));
        s.submit(gpuJob("j1", "a", 4, 0));
        s.submit(gpuJob("j2", "a", 4, 0));
        s.runRound();
        PendingExplanation e = s.jobs().explain("j2").orElseThrow();
        assertThat(e.clusterQueue()).isEqualTo("team-a");
        assertThat(e.jobsAhead()).isEqualTo(1);
        assertThat(e.reason().code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(e.toString()).contains("1 jobs ahead").contains("needs 4 nvidia.com/gpu of flavor default");
    }

    @Test
    void missingClusterQueueKeepsJobsWaitingWithThatReason() {
        Scheduler s = base(1).localQueue(new LocalQueue("ns", "a", "not-yet")).build();
        s.submit(gpuJob("j", "a", 1, 0));
        s.runRound();
        assertThat(s.status("j").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.CLUSTER_QUEUE_NOT_FOUND);
        s.queues().addClusterQueue(gpuQueue("not-yet", null, 8, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED, PreemptionPolicy.NEVER));
        assertThat(admitted(s.runRound())).containsExactly("j");
    }

    @Test
    void admissionChecksGateAdmissionAfterQuotaIsReserved() {
        ClusterQueue cq = ClusterQueue.builder("team-a").admissionCheck("warmup").admissionCheck("estimate")
                .resourceGroup(new ResourceGroup(List.of(Resources.GPU), List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, 8))))))
                .build();
        Scheduler s = base(1).policy("best-effort-fifo")
                .admissionCheck(AdmissionChecks.readyAfter("warmup", Duration.ofSeconds(60)))
                .admissionCheck(AdmissionChecks.requireEstimate("estimate"))
                .clusterQueue(cq).localQueue(new LocalQueue("ns", "a", "team-a")).build();
        s.submit(JobSpec.builder("good").namespace("ns").queue("a").members(1, Resources.builder().gpus(4).build()).estimatedSeconds(600).build());
        s.submit(JobSpec.builder("no-estimate").namespace("ns").queue("a").members(1, Resources.builder().gpus(4).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).isEmpty(); // reserved, not yet admitted: nothing to actuate
        assertThat(s.status("good").orElseThrow().state()).isEqualTo(JobState.QUOTA_RESERVED);
        assertThat(s.status("no-estimate").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(s.status("no-estimate").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.ADMISSION_CHECK);
        now.set(61_000);
        r = s.runRound();
        assertThat(s.status("good").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void cohortCycleIsRefusedAndNothingChanges() {
        Scheduler s = base(0).cohort(Cohort.of("a", "b")).cohort(Cohort.of("b", "c")).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.queues().addCohort(Cohort.of("c", "a")))
                .hasMessageContaining("cycle").hasMessageContaining("c -> a -> b -> c");
        assertThat(s.snapshot().cohorts()).containsOnlyKeys("a", "b");
    }
}
