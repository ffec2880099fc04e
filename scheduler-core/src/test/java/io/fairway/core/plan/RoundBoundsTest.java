package io.fairway.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failures that answer later attempts of the round after the plan changed elsewhere ({@link RoundBounds}), under the
 * priority policy on two ClusterQueues without a cohort (two cohort trees): what they answer, and what they leave to
 * the attempts.
 */
class RoundBoundsTest {
    private final AtomicLong now = new AtomicLong(1_000);
    /** The priority policy, noting what the bounds answered. */
    private final BoundsCounted counted = new BoundsCounted("priority");

    /** Nodes of 8 GPUs, under {@code policy}; cqA and cqB of {@code quotaA} and {@code quotaB} GPUs, LowerPriority within, no cohort. */
    private Scheduler scheduler(int nodes, int quotaA, int quotaB, SchedulingPolicy policy) {
        PreemptionPolicy lower = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy(policy).flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq-a").preemption(lower).quota("default", Resources.builder().gpus(quotaA).cpu(100).build()).build())
                .clusterQueue(ClusterQueue.builder("cq-b").preemption(lower).quota("default", Resources.builder().gpus(quotaB).cpu(100).build()).build())
                .localQueue(new LocalQueue("ns", "a", "cq-a")).localQueue(new LocalQueue("ns", "b", "cq-b"));
        for (int n = 0; n < nodes; n++) {
            b.node(Node.builder("n" + n).capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b.build();
    }

    private static JobSpec job(String id, String queue, int priority, int gpus) {
        return JobSpec.builder(id).namespace("ns").queue(queue).priority(priority).members(1, Resources.builder().gpus(gpus).cpu(1).build()).build();
    }

    private RoundResult round(Scheduler s, boolean bounds) {
        RoundBounds.enabled = bounds;
        RoundResult r = s.runRound();
        RoundBounds.enabled = true;
        return r;
    }

    /** Runs {@code s} and {@code reference} (bounds off) through the same jobs; returns the last round of {@code s}. */
    private RoundResult sameHistory(Scheduler s, Scheduler reference, List<List<JobSpec>> rounds) {
        RoundResult last = null;
        for (List<JobSpec> jobs : rounds) {
            s.submitAll(jobs);
            reference.submitAll(jobs);
            last = round(s, true);
            RoundResult ref = round(reference, false);
            assertThat(last.decisions()).isEqualTo(ref.decisions());
            assertThat(new TreeMap<>(last.pendingReasons())).isEqualTo(new TreeMap<>(ref.pendingReasons()));
        }
        return last;
    }

    @Test
    void aQueueAtItsQuotaWithoutCandidatesIsAnsweredAfterAnotherTreeAdmits() {
        Scheduler s = scheduler(3, 10, 8, counted);
        Scheduler reference = scheduler(3, 10, 8, Policies.create("priority", Map.of()));
        // cqA holds 8 of its 10 GPUs with jobs of priority 9: no job waiting in it has a candidate; a node stays free
        RoundResult r = sameHistory(s, reference, List.of(List.of(job("a-1", "a", 9, 4), job("a-2", "a", 9, 4)),
                // walked by priority: a-3 takes cqA to its quota; p1 fails for quota and finds no victims; q is admitted in
                // cqB's tree; p2 and p3 (p1's shape, lower priorities) fail the same way, answered without the attempts
                List.of(job("a-3", "a", 8, 2), job("p1", "a", 6, 2), job("q", "b", 5, 2), job("p2", "a", 4, 2), job("p3", "a", 3, 2))));
        assertThat(r.decisions()).hasSize(2);
        assertThat(s.status("q").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(counted.searches).as("searches answered by p1's").isEqualTo(2);
        // p2's admission attempt is answered by p1's quota failure (p3's by the round's memo: nothing changed since p2's)
        assertThat(counted.quota).as("quota failures that stood after q's admission").isEqualTo(1);
        assertThat(s.status("p3").orElseThrow().pendingReason()).isEqualTo(reference.status("p3").orElseThrow().pendingReason());
        assertThat(s.status("p3").orElseThrow().pendingReason().message()).contains("no set of jobs that ClusterQueue cq-a may preempt makes room");
    }

    @Test
    void aSearchThatCountedTheFreeGpusIsMadeAgainOnceAnotherTreeFreedSome() {
        Scheduler s = scheduler(2, 10, 9, counted);
        Scheduler reference = scheduler(2, 10, 9, Policies.create("priority", Map.of()));
        // n0: b-x (cqB, priority 0, 8 GPUs); n1: a-mid (priority 7, 6 GPUs) and a-low (priority 0, 2 GPUs): cqA uses 8 of 10
        sameHistory(s, reference, List.of(List.of(job("b-x", "b", 0, 8)), List.of(job("a-mid", "a", 7, 6)), List.of(job("a-low", "a", 0, 2))));
        // p1 (priority 6, 4 GPUs) is short of quota; taking a-low frees 2 GPUs, too few for it anywhere: it fails, having
        // counted the free GPUs. q (priority 5) preempts b-x in cqB's tree: n0 has 7 free GPUs. p2 (priority 4, p1's
        // shape) is not answered by p1's failure: taking a-low now makes room, on n0
        RoundResult r = sameHistory(s, reference, List.of(List.of(job("p1", "a", 6, 4), job("q", "b", 5, 1), job("p2", "a", 4, 4))));
        assertThat(s.status("q").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(s.status("p2").orElseThrow().state()).as("p2 admitted: %s", r.decisions()).isEqualTo(JobState.ADMITTED);
        assertThat(s.status("a-low").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(s.status("p1").orElseThrow().state()).isEqualTo(JobState.PENDING);
    }
}
