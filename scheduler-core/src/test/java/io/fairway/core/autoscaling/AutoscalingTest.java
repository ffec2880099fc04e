package io.fairway.core.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Provision;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The Cedana scenario with a node pool: nodes appear for admitted jobs only, and go away when idle. */
class AutoscalingTest {
    private final AtomicLong now = new AtomicLong();
    private final List<Decision> actuated = new ArrayList<>();

    static final InstanceType C32 = new InstanceType("c.8xlarge", Resources.builder().cpu(32).memoryGiB(64).build(), "none", "", 1.36, CapacityType.ON_DEMAND);
    static final InstanceType C64 = new InstanceType("c.16xlarge", Resources.builder().cpu(64).memoryGiB(128).build(), "none", "", 2.72, CapacityType.ON_DEMAND);
    static final InstanceType G8 = new InstanceType("p4d.24xlarge", Resources.builder().cpu(96).memoryGiB(1152).build(), "nvswitch-8", "A100", 32.77,
            CapacityType.ON_DEMAND);

    private Scheduler cedana() {
        NodePool pool = new NodePool("default", null, List.of(G8, C64, C32), Resources.builder().cpu(1000).build(), 60_000, 300_000, Map.of(), List.of());
        return Scheduler.builder().clock(now::get).policy("best-effort-fifo")
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cluster-queue").quota("default", Resources.builder().cpu(64).build()).build())
                .localQueue(new LocalQueue("default", "user-queue", "cluster-queue"))
                .nodePool(pool)
                .actuator(actuated::addAll)
                .build();
    }

    private static JobSpec job(String id) {
        return JobSpec.builder(id).queue("user-queue").members(1, Resources.builder().cpu(32).build()).build();
    }

    @Test
    void nodesAppearForAdmittedJobsOnlyAndGoAwayWhenIdle() {
        Scheduler s = cedana();
        NodePool pool = s.snapshot().provisioning().pools().get("default");
        s.submit(job("gromacs-1"));
        s.submit(job("gromacs-2"));
        s.submit(job("gromacs-3"));
        RoundResult r = s.runRound();
        // two jobs fit the 64-core quota: exactly the nodes they need, of the cheapest type that holds them
        assertThat(r.decisions()).filteredOn(d -> d instanceof Provision).extracting(d -> ((Provision) d).instanceType() + "x" + ((Provision) d).count())
                .containsExactly("c.8xlargex1", "c.8xlargex1");
        assertThat(s.status("gromacs-1").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.WAITING_FOR_NODES);
        // the third is suspended by quota: no provisioning, no admission
        assertThat(s.status("gromacs-3").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(r.decisions()).noneMatch(d -> "gromacs-3".equals(d.jobId()) || (d instanceof Provision p && p.reason().contains("gromacs-3")));

        // a round while nodes come up requests nothing more
        now.set(30_000);
        assertThat(s.runRound().decisions()).isEmpty();

        // the provider adds the nodes after the provisioning delay
        now.set(60_000);
        s.clusters().addNode(pool.nodeOf(C32, "node-a"));
        s.clusters().addNode(pool.nodeOf(C32, "node-b"));
        r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactly("gromacs-1", "gromacs-2");
        assertThat(s.clusters().pendingNodeRequests()).isEmpty();
        s.reportStarted("gromacs-1");
        s.reportStarted("gromacs-2");

        // one finishes: the third takes its node; nothing is provisioned
        now.set(600_000);
        s.reportFinished("gromacs-1");
        r = s.runRound();
        assertThat(r.decisions()).singleElement().isInstanceOf(Admit.class).extracting(Decision::jobId).isEqualTo("gromacs-3");
        s.reportStarted("gromacs-3");

        // all finish; after the consolidation delay the empty nodes are removed
        now.set(700_000);
        s.reportFinished("gromacs-2");
        s.reportFinished("gromacs-3");
        assertThat(s.runRound().decisions()).isEmpty(); // empty, but not for long enough
        now.set(700_000 + 300_000);
        r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Deprovision).extracting(d -> ((Deprovision) d).node())
                .containsExactlyInAnyOrder("node-a", "node-b");
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aNodesConsolidationDelayCountsFromWhenItsLastJobFinishedNotFromTheNextRound() {
        Scheduler s = cedana();
        NodePool pool = s.snapshot().provisioning().pools().get("default");
        s.submit(job("gromacs-1"));
        s.runRound();
        now.set(60_000);
        s.clusters().addNode(pool.nodeOf(C32, "node-a"));
        assertThat(s.runRound().decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactly("gromacs-1");
        s.reportStarted("gromacs-1");

        // the job finishes at 100 s; the next round runs only at 399 s (a controller's pass that came late)
        now.set(100_000);
        s.reportFinished("gromacs-1");
        now.set(399_000);
        assertThat(s.runRound().decisions()).isEmpty(); // empty for 299 s
        now.set(400_000);
        assertThat(s.runRound().decisions()).filteredOn(d -> d instanceof Deprovision).extracting(d -> ((Deprovision) d).node())
                .containsExactly("node-a"); // empty for 300 s: the delay, counted from the finish
    }

    @Test
    void gpuGangGetsTheCheapestInstanceTypeThatHoldsIt() {
        NodePool pool = new NodePool("gpu", null, List.of(G8, C64), Resources.builder().gpus(16).build(), 120_000, 300_000, Map.of(), List.of());
        Scheduler s = Scheduler.builder().clock(now::get).flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(64).cpu(1000).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq")).nodePool(pool).build();
        s.submit(JobSpec.builder("train").queue("q").members(2, Resources.builder().gpus(8).cpu(48).build()).build());
        s.submit(JobSpec.builder("too-big").queue("q").members(1, Resources.builder().gpus(8).cpu(48).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Provision).singleElement()
                .satisfies(d -> assertThat(((Provision) d).instanceType() + "x" + ((Provision) d).count()).isEqualTo("p4d.24xlargex2"));
        // the pool's 16-GPU limit is used up by the first request: the second job waits, with that reason
        assertThat(s.status("too-big").orElseThrow().pendingReason().message()).contains("no node pool");
    }

    @Test
    void drainingANodeMigratesItsJobsWithCheckpoints() {
        Scheduler s = cedana();
        NodePool pool = s.snapshot().provisioning().pools().get("default");
        s.clusters().addNode(pool.nodeOf(C64, "spot-1"));
        s.submit(JobSpec.builder("ckpt").queue("user-queue").members(1, Resources.builder().cpu(32).build())
                .checkpointing(new Checkpointing(600, 10, 20)).build());
        s.runRound();
        s.reportStarted("ckpt");
        actuated.clear();
        List<String> moved = s.clusters().drainNode("spot-1", "spot interruption notice");
        assertThat(moved).containsExactly("ckpt");
        assertThat(actuated).singleElement().isInstanceOfSatisfying(Preempt.class, p -> {
            assertThat(p.checkpoint()).isTrue();
            assertThat(p.migration()).isTrue();
        });
        assertThat(s.status("ckpt").orElseThrow().state()).isEqualTo(JobState.PENDING);
        // the drained node takes nothing new: the job waits for a new node instead
        RoundResult r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Provision).hasSize(1);
    }
}
