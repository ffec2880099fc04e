package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.GpuTopology;
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
 * Kueue keeps a lender's unused nominal quota while the lender's own job waits for it and the lender could not reclaim
 * a loan ({@code reclaimWithinCohort} Never or LowerPriority): its scheduler reserves the waiting job's request, up to
 * the unused nominal quota, so that other ClusterQueues do not borrow it in the same cycle
 * ({@code reserveCapacityForUnreclaimablePreempt}). Otherwise the lender's job could wait forever behind borrowers it
 * may never preempt.
 */
class KueueLenderKeepsQuotaTest {
    private final AtomicLong now = new AtomicLong(1_000);

    private RoundResult scenario(ReclaimWithinCohort lenderReclaim, CohortRules rules) {
        PreemptionPolicy lender = new PreemptionPolicy(WithinClusterQueue.NEVER, lenderReclaim, BorrowWithinCohort.NEVER, null, rules);
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy("best-effort-fifo").flavor(ResourceFlavor.of("default"));
        for (int i = 0; i < 2; i++) {
            b.node(Node.builder("n" + i).capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        b.clusterQueue(gpuQueue("lender", 8, lender)).clusterQueue(gpuQueue("borrower", 0, PreemptionPolicy.NEVER.withCohortRules(rules)))
                .localQueue(new LocalQueue("ns", "lender", "lender")).localQueue(new LocalQueue("ns", "borrower", "borrower"));
        Scheduler s = b.build();
        // the borrower runs 4 GPUs of the lender's idle 8
        s.submit(job("b1", "borrower", 4));
        assertThat(admitted(s.runRound())).containsExactly("b1");
        s.reportStarted("b1");
        // the lender's job of 6 fits its nominal quota but only 4 are unused; the borrower asks for 4 more
        now.addAndGet(1_000);
        s.submit(job("l1", "lender", 6));
        now.addAndGet(1_000);
        s.submit(job("b2", "borrower", 4));
        return s.runRound();
    }

    private static ClusterQueue gpuQueue(String name, long nominal, PreemptionPolicy p) {
        return ClusterQueue.builder(name).cohort("research").preemption(p)
                .resourceGroup(new ResourceGroup(List.of(Resources.GPU), List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, nominal))))))
                .build();
    }

    private JobSpec job(String id, String queue, int gpus) {
        return JobSpec.builder(id).namespace("ns").queue(queue).submitTimeMillis(now.get()).members(1, Resources.builder().gpus(gpus).build()).build();
    }

    private static List<String> admitted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId).toList();
    }

    @Test
    void aLenderThatCannotReclaimKeepsItsUnusedQuotaForItsWaitingJob() {
        RoundResult r = scenario(ReclaimWithinCohort.NEVER, CohortRules.KUEUE);
        assertThat(admitted(r)).as("b2 does not borrow the 4 GPUs the lender's waiting job needs").isEmpty();
        assertThat(r.pendingReasons().get("l1").code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(r.pendingReasons().get("b2").code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    @Test
    void theSameUnderLowerPriority() {
        RoundResult r = scenario(ReclaimWithinCohort.LOWER_PRIORITY, CohortRules.KUEUE);
        assertThat(admitted(r)).isEmpty();
    }

    @Test
    void aLenderThatCanReclaimLendsItsQuotaAndTakesItBackByPreemption() {
        // reclaimWithinCohort Any: the lender can always reclaim, so Kueue keeps nothing; here it reclaims at once
        RoundResult r = scenario(ReclaimWithinCohort.ANY, CohortRules.KUEUE);
        assertThat(admitted(r)).contains("l1");
    }

    @Test
    void fairwayStrictRulesLendTheQuota() {
        RoundResult r = scenario(ReclaimWithinCohort.NEVER, CohortRules.FAIRWAY_STRICT);
        assertThat(admitted(r)).containsExactly("b2");
    }
}
