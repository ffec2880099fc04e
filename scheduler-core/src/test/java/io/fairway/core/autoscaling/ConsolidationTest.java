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
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Consolidation of under-used pool nodes by migration ({@link NodePool.Consolidation#WHEN_UNDERUTILIZED}), and node requests
 * whose job stopped waiting for them.
 */
class ConsolidationTest {
    private static final long DELAY = 300_000;
    private static final InstanceType C32 = new InstanceType("c.8xlarge", Resources.builder().cpu(32).memoryGiB(64).build(), "none", "", 1.36,
            CapacityType.ON_DEMAND);
    private static final InstanceType C64 = new InstanceType("c.16xlarge", Resources.builder().cpu(64).memoryGiB(128).build(), "none", "", 2.72,
            CapacityType.ON_DEMAND);
    private static final Checkpointing CKPT = new Checkpointing(600, 10, 20);

    private final AtomicLong now = new AtomicLong();
    private final List<Decision> actuated = new ArrayList<>();

    private Scheduler scheduler(NodePool.Consolidation policy) {
        NodePool pool = new NodePool("cpu", null, List.of(C32, C64), Resources.builder().cpu(1000).build(), 60_000, DELAY, Map.of(), List.of())
                .withConsolidation(policy);
        return Scheduler.builder().clock(now::get).policy("best-effort-fifo").flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq")).nodePool(pool).actuator(actuated::addAll).build();
    }

    private static JobSpec job(String id, int cpu, boolean checkpoints) {
        JobSpec.Builder b = JobSpec.builder(id).queue("q").members(1, Resources.builder().cpu(cpu).build());
        return (checkpoints ? b.checkpointing(CKPT) : b).build();
    }

    /** Two 32-core nodes, one 16-core job on each, both running since t=0. */
    private Scheduler twoHalfUsedNodes(NodePool.Consolidation policy, boolean checkpoints) {
        Scheduler s = scheduler(policy);
        NodePool pool = s.snapshot().provisioning().pools().get("cpu");
        s.clusters().addNode(pool.nodeOf(C32, "node-a"));
        s.clusters().addNode(pool.nodeOf(C32, "node-b"));
        // one per node: each node is cordoned while the other's job is placed
        s.clusters().cordon("node-b", true);
        s.submit(job("a", 16, checkpoints));
        s.runRound();
        s.clusters().cordon("node-b", false);
        s.clusters().cordon("node-a", true);
        s.submit(job("b", 16, checkpoints));
        s.runRound();
        s.clusters().cordon("node-a", false);
        s.reportStarted("a");
        s.reportStarted("b");
        assertThat(s.status("a").orElseThrow().admission().placement().nodes()).containsExactly("node-a");
        assertThat(s.status("b").orElseThrow().admission().placement().nodes()).containsExactly("node-b");
        actuated.clear();
        return s;
    }

    @Test
    void underUsedNodeIsConsolidatedByMigratingItsCheckpointingJobsAfterTheDelay() {
        Scheduler s = twoHalfUsedNodes(NodePool.Consolidation.WHEN_UNDERUTILIZED, true);
        now.set(DELAY - 1);
        assertThat(s.runRound().decisions()).as("not before the consolidation delay").isEmpty();

        now.set(DELAY);
        RoundResult r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Preempt).singleElement().isInstanceOfSatisfying(Preempt.class, p -> {
            assertThat(p.jobId()).isEqualTo("a");
            assertThat(p.migration()).isTrue();
            assertThat(p.checkpoint()).isTrue();
            assertThat(p.reason()).contains("consolidation", "node-a");
        });
        assertThat(r.decisions()).filteredOn(d -> d instanceof Deprovision).extracting(d -> ((Deprovision) d).node()).containsExactly("node-a");
        // migrated: restarted in the same round on the node that stays, from its checkpoint; nothing is provisioned for it
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).singleElement()
                .satisfies(d -> assertThat(((Admit) d).placement().nodes()).containsExactly("node-b"));
        assertThat(r.decisions()).noneMatch(d -> d instanceof Provision);
        assertThat(actuated).filteredOn(d -> "a".equals(d.jobId())).extracting(d -> d.getClass().getSimpleName())
                .containsExactly("Preempt", "Admit");
        assertThat(s.status("a").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(s.status("a").orElseThrow().preemptions()).isEqualTo(1);
        s.clusters().removeNode("node-a"); // as the provider does
        assertThat(s.checkInvariants()).isEmpty();

        // the node that stays now runs both jobs and is not under-used: nothing more happens
        now.set(3 * DELAY);
        assertThat(s.runRound().decisions()).isEmpty();
    }

    @Test
    void whenEmptyIsTheDefaultAndLeavesUnderUsedNodesAlone() {
        assertThat(new NodePool("p", null, List.of(C32), Resources.NONE, 0, 0, Map.of(), List.of()).consolidation())
                .isEqualTo(NodePool.Consolidation.WHEN_EMPTY);
        Scheduler s = twoHalfUsedNodes(NodePool.Consolidation.WHEN_EMPTY, true);
        now.set(10 * DELAY);
        assertThat(s.runRound().decisions()).isEmpty();
    }

    @Test
    void jobsThatDoNotCheckpointAreNotMigrated() {
        Scheduler s = twoHalfUsedNodes(NodePool.Consolidation.WHEN_UNDERUTILIZED, false);
        now.set(10 * DELAY);
        assertThat(s.runRound().decisions()).isEmpty();
        assertThat(s.status("a").orElseThrow().state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void nodeWhoseJobsFitNowhereElseStays() {
        Scheduler s = scheduler(NodePool.Consolidation.WHEN_UNDERUTILIZED);
        NodePool pool = s.snapshot().provisioning().pools().get("cpu");
        s.clusters().addNode(pool.nodeOf(C32, "node-a"));
        s.clusters().addNode(pool.nodeOf(C32, "node-b"));
        s.submit(job("a", 20, true));
        s.submit(job("b", 20, true));
        s.runRound();
        assertThat(s.status("a").orElseThrow().admission().placement().nodes()).isNotEqualTo(s.status("b").orElseThrow().admission().placement().nodes());
        now.set(10 * DELAY);
        assertThat(s.runRound().decisions()).isEmpty();
    }

    @Test
    void requestOfACancelledJobGoesToTheNextGangThatFitsIt() {
        Scheduler s = scheduler(NodePool.Consolidation.WHEN_EMPTY);
        s.submit(job("first", 32, false));
        RoundResult r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Provision).hasSize(1);
        long request = s.clusters().pendingNodeRequests().get(0).id();

        now.set(10_000);
        s.cancel("first");
        s.submit(job("second", 24, false));
        r = s.runRound();
        // no new node: the one on its way is handed over, with the quota
        assertThat(r.decisions()).noneMatch(d -> d instanceof Provision);
        assertThat(s.clusters().pendingNodeRequests()).singleElement().satisfies(q -> {
            assertThat(q.id()).isEqualTo(request);
            assertThat(q.jobs()).containsExactly("second");
        });
        PendingReason reason = s.status("second").orElseThrow().pendingReason();
        assertThat(reason.code()).isEqualTo(PendingReason.Code.WAITING_FOR_NODES);
        assertThat(reason.message()).contains("node request " + request);

        now.set(60_000);
        s.clusters().addNode(s.snapshot().provisioning().pools().get("cpu").nodeOf(C32, "node-1"));
        r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).singleElement()
                .satisfies(d -> assertThat(((Admit) d).jobId()).isEqualTo("second"));
        assertThat(s.clusters().pendingNodeRequests()).isEmpty();
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void requestNobodyTakesWaitsForNoJobAndItsNodeGoesWhenIdle() {
        Scheduler s = scheduler(NodePool.Consolidation.WHEN_EMPTY);
        NodePool pool = s.snapshot().provisioning().pools().get("cpu");
        s.clusters().addNode(pool.nodeOf(C32, "idle"));
        s.submit(job("big", 64, false));
        s.runRound();
        assertThat(s.clusters().pendingNodeRequests()).singleElement().satisfies(q -> assertThat(q.instanceType()).isEqualTo("c.16xlarge"));

        now.set(10_000);
        s.cancel("big");
        s.runRound();
        assertThat(s.clusters().pendingNodeRequests()).singleElement().satisfies(q -> assertThat(q.jobs()).isEmpty());

        // the idle node of the pool is no longer held up by a request nobody waits for
        now.set(DELAY);
        RoundResult r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Deprovision).extracting(d -> ((Deprovision) d).node()).containsExactly("idle");
        s.clusters().removeNode("idle"); // as the provider does
        // the node that comes for it anyway is empty, and goes after the delay
        now.set(DELAY + 60_000);
        s.clusters().addNode(pool.nodeOf(C64, "late"));
        s.runRound();
        now.set(2 * DELAY + 60_000);
        r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Deprovision).extracting(d -> ((Deprovision) d).node()).containsExactly("late");
        assertThat(s.snapshot().provisioning().inFlight()).extracting(Provisioning.Request::id).isEmpty();
    }

    @Test
    void gangThatMustShareOneNodeGetsOneNodeThatHoldsItWhileTwoSmallerWouldBeCheaper() {
        InstanceType small = new InstanceType("c.8xlarge", Resources.builder().cpu(32).memoryGiB(64).build(), "none", "", 1.00,
                CapacityType.ON_DEMAND);
        NodePool pool = new NodePool("cpu", null, List.of(small, C64), Resources.NONE, 60_000, DELAY, Map.of(), List.of());
        Scheduler s = Scheduler.builder().clock(now::get).flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(1000).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq")).nodePool(pool).build();
        Resources member = Resources.builder().cpu(32).build();
        s.submit(JobSpec.builder("anywhere").queue("q").podSet(io.fairway.api.job.PodSet.of("w", 2, member)).build());
        s.submit(JobSpec.builder("together").queue("q").podSet(io.fairway.api.job.PodSet.of("w", 2, member)
                .withTopology(io.fairway.api.job.TopologyRequest.required(io.fairway.api.model.Node.HOSTNAME_LABEL))).build());
        s.submit(JobSpec.builder("too-big-together").queue("q").podSet(io.fairway.api.job.PodSet.of("w", 3, member)
                .withTopology(io.fairway.api.job.TopologyRequest.required(io.fairway.api.model.Node.HOSTNAME_LABEL))).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).filteredOn(d -> d instanceof Provision).extracting(d -> ((Provision) d).instanceType() + "x"
                + ((Provision) d).count()).containsExactly("c.8xlargex2", "c.16xlargex1");
        assertThat(s.status("too-big-together").orElseThrow().pendingReason().message()).contains("no node pool");
    }
}
