package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.plan.HeldCharges;
import io.fairway.core.plan.PlanContext;
import io.fairway.core.plan.TentativePlan;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The capacity and quota the holding jobs charge, kept by the engine across rounds and changed by change, are after
 * every step of random histories — arrivals, rounds, starts, ends, failures, evictions, elastic jobs growing,
 * nodes added, cordoned, changed and removed, quotas changed, a restore — exactly what a round charging every holding
 * job from scratch starts from: the same free capacity per node, GPU and topology domain, and the same quota usage
 * per ClusterQueue and cohort. So a round starting from the kept charges decides what a round from scratch decides.
 */
class HeldChargesProperties {
    private static Scheduler.Builder builder(AtomicLong now, String policy) {
        return Scheduler.builder().clock(now::get).policy(policy);
    }

    @Property(tries = 60)
    void keptChargesAreTheChargesOfTheStateNow(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        AtomicLong now = new AtomicLong();
        String policy = r.nextBoolean() ? "best-effort-fifo" : "priority";
        Scheduler.Builder b = builder(now, policy).flavor(ResourceFlavor.of("default")).cohort(Cohort.of("all", null));
        for (int q = 0; q < 3; q++) {
            b.clusterQueue(quota("cq" + q, 8 + 8 * q));
            b.localQueue(new LocalQueue("ns", "q" + q, "cq" + q));
        }
        for (int n = 0; n < 3; n++) {
            b.node(node("n" + n));
        }
        Scheduler s = b.build();
        List<String> running = new ArrayList<>();
        List<String> live = new ArrayList<>(List.of("n0", "n1", "n2"));
        int ids = 0;
        int nodes = 3;
        for (int step = 0; step < 150; step++) {
            now.addAndGet(1 + r.nextInt(30_000));
            String what;
            switch (r.nextInt(12)) {
                case 0, 1, 2 -> {
                    what = "arrival";
                    JobSpec.Builder j = JobSpec.builder("j" + ids++).namespace("ns").queue("q" + r.nextInt(3)).priority(r.nextInt(3));
                    if (r.nextInt(4) == 0) {
                        int max = 2 + r.nextInt(6);
                        j.podSet(PodSet.of("workers", max, Resources.builder().gpus(1).cpu(1).build()).withMinCount(1 + r.nextInt(max - 1)));
                    } else {
                        j.members(1 + r.nextInt(2), Resources.builder().gpus(1 + r.nextInt(4)).cpu(1 + r.nextInt(4)).build());
                    }
                    s.submit(j.build());
                }
                case 3, 4 -> {
                    what = "round";
                    for (Decision d : s.runRound().decisions()) {
                        if (d instanceof Admit a && r.nextInt(4) != 0) { // some stay admitted, not yet running
                            s.reportStarted(a.jobId());
                        }
                    }
                    running.clear();
                    for (io.fairway.api.job.JobStatus h : s.snapshot().holding()) {
                        running.add(h.id());
                    }
                }
                case 5 -> {
                    what = "end";
                    if (!running.isEmpty()) {
                        String id = running.remove(r.nextInt(running.size()));
                        if (r.nextBoolean()) {
                            s.reportFinished(id);
                        } else {
                            s.reportFailed(id, "crashed");
                        }
                    }
                }
                case 6 -> {
                    what = "eviction";
                    if (!running.isEmpty()) {
                        s.reportEvicted(running.remove(r.nextInt(running.size())), "evicted");
                    }
                }
                case 7 -> {
                    what = "node added";
                    String name = "n" + nodes++;
                    s.clusters().addNode(node(name));
                    live.add(name);
                }
                case 8 -> {
                    what = "node cordoned or removed";
                    if (!live.isEmpty()) {
                        cordonOrRemove(s, r, live, running);
                    }
                }
                case 9 -> {
                    what = "quota changed";
                    int q = r.nextInt(3);
                    s.queues().addClusterQueue(quota("cq" + q, 4 + 4 * r.nextInt(8)));
                }
                case 10 -> {
                    what = "restore";
                    s = Scheduler.restore(s.exportState(), builder(now, policy));
                }
                default -> {
                    what = "cancel";
                    if (!running.isEmpty()) {
                        s.cancel(running.remove(r.nextInt(running.size())));
                    }
                }
            }
            Scheduler current = s;
            running.removeIf(id -> current.status(id).map(j -> !j.state().holdsResources()).orElse(true));
            EngineState st = s.state();
            HeldCharges.Charged kept = st.read(st::chargedForRound);
            Snapshot snap = s.snapshot();
            TentativePlan fresh = new PlanContext(snap).plan();
            assertThat(kept).as("step %d (%s): the keeper hands out charges", step, what).isNotNull();
            assertThat(kept.capacity().sameFreeAs(fresh.capacityPlan()))
                    .as("step %d (%s): free capacity kept equals the capacity %d holding jobs leave", step, what, snap.holding().size())
                    .isTrue();
            assertThat(kept.quota().usage()).as("step %d (%s): quota usage kept", step, what).isEqualTo(fresh.quotaBook().usage());
            assertThat(s.checkInvariants()).as("step %d (%s)", step, what).isEmpty();
        }
    }

    private static Node node(String name) {
        return Node.builder(name).capacity(Resources.builder().cpu(16).build()).gpus(GpuTopology.nvSwitch8("H100")).build();
    }

    private static ClusterQueue quota(String name, int gpus) {
        return ClusterQueue.builder(name).cohort("all").quota("default", Resources.builder().gpus(gpus).cpu(1000).build()).build();
    }

    /** The reference the property compares with must itself see every kind of change (else the property proves little). */
    @Property(tries = 5)
    void historiesChangeTheChargesByChangeAndRebuildOnReconfiguration(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        AtomicLong now = new AtomicLong();
        Scheduler s = builder(now, "best-effort-fifo").flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(64).cpu(1000).build()).build())
                .localQueue(new LocalQueue("ns", "q", "cq")).node(Node.builder("n0").gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build()).build();
        EngineState st = s.state();
        for (int i = 0; i < 4; i++) {
            s.submit(JobSpec.builder("j" + i).namespace("ns").queue("q").members(1, Resources.builder().gpus(1 + r.nextInt(2)).build()).build());
        }
        s.runRound();
        s.runRound(); // follows the first round's admissions (as many changes as jobs held: rebuilt there)
        long rebuilds = st.heldCharges.rebuilds();
        s.reportFinished("j0");
        s.submit(JobSpec.builder("late").namespace("ns").queue("q").members(1, Resources.builder().gpus(1).build()).build());
        s.runRound();
        assertThat(st.heldCharges.rebuilds()).as("a finish and an admission are followed, not rebuilt").isEqualTo(rebuilds);
        assertThat(st.heldCharges.changes()).isGreaterThanOrEqualTo(2);
        s.clusters().cordon("n1", true);
        s.runRound();
        assertThat(st.heldCharges.rebuilds()).as("a cordoned node is a new node: rebuilt").isEqualTo(rebuilds + 1);
        assertThat(s.status("j1").map(j -> j.state() == JobState.PENDING || j.state().holdsResources()).orElse(false)).isTrue();
    }

    /**
     * One of the live nodes, picked at random, cordoned (drained or not) or removed with the jobs it ran.
     *
     * @param live the live nodes' names (a removed one leaves it)
     * @param running the running jobs' ids (the removed node's jobs leave it)
     */
    static void cordonOrRemove(Scheduler s, SplittableRandom r, List<String> live, List<String> running) {
        String name = live.get(r.nextInt(live.size()));
        if (r.nextBoolean()) {
            s.clusters().cordon(name, r.nextBoolean());
        } else {
            running.removeAll(s.clusters().removeNode(name));
            live.remove(name);
        }
    }
}
