package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A job without GPUs goes to the first node, CPU-only nodes before GPU nodes, that holds all its members. The scan
 * skips nodes with none left of a resource the job asks for; this checks that skipping never changes the node chosen,
 * whatever mix of placements, releases, failed attempts and copies the free capacity went through; and that a single
 * member the scan finds no node for is not placed by the searches across nodes and racks either (it stops there).
 */
class DrainedNodesProperties {
    @Property(tries = 200)
    void theFirstNodeWithRoomIsChosenWhateverWasDrained(@ForAll @IntRange(min = 1, max = 40) int nodeCount,
            @ForAll @IntRange(min = 1, max = 120) int steps, @ForAll boolean racks, @ForAll long seed) {
        Random rnd = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            Node.Builder b = Node.builder("n" + i)
                    .capacity(Resources.builder().cpu(rnd.nextInt(9)).memoryGiB(rnd.nextInt(33)).build())
                    .label(ClusterSpec.RACK_LABEL, "r" + rnd.nextInt(4));
            if (rnd.nextInt(4) == 0) {
                b.gpus(GpuTopology.nvSwitch8("H100"));
            }
            nodes.add(b.build());
        }
        CapacityPlan cap = new CapacityPlan(nodes, Map.of(Node.DEFAULT_CLUSTER,
                new ClusterSpec(Node.DEFAULT_CLUSTER, racks ? List.of(ClusterSpec.RACK_LABEL) : List.of())),
                new ResourceIndex());
        List<Placer.Taken> held = new ArrayList<>();
        for (int s = 0; s < steps; s++) {
            int op = rnd.nextInt(10);
            if (op == 0 && !held.isEmpty()) { // a job lets go
                Placer.Taken t = held.remove(rnd.nextInt(held.size()));
                cap.give(t.node(), t.req(), t.gpuMask());
            } else if (op == 1) { // the next round's copy
                cap = cap.copy();
            } else if (op == 2 || op == 3) { // charges on random nodes, overdrawing some; taken back after a failed attempt
                cap.begin();
                for (int k = rnd.nextInt(4); k >= 0; k--) {
                    long[] req = cap.vector(Resources.builder().cpu(rnd.nextInt(5)).memoryGiB(rnd.nextInt(20)).build());
                    cap.take(rnd.nextInt(nodeCount), req, 0);
                }
                if (op == 2) {
                    cap.rollback();
                } else {
                    cap.commit();
                }
            } else {
                JobSpec job = job("j" + s, rnd);
                long[] req = cap.vector(job.podSets().get(0).resources());
                int members = job.podSets().get(0).count();
                int expected = firstWithRoom(cap, req, members);
                Placer.Outcome o = new Placer(cap, PlacementStrategy.TOPOLOGY_AWARE).place(job, Map.of(), Map.of());
                if (expected >= 0) {
                    assertThat(o.reason()).as("step %d: node %s has room", s, nodes.get(expected).name()).isNull();
                    assertThat(o.result().placement().members()).extracting(MemberPlacement::node)
                            .as("step %d", s).containsOnly(nodes.get(expected).name());
                } else if (members == 1) {
                    assertThat(o.reason()).as("step %d: no node has room for one member", s).isNotNull();
                }
                if (o.result() != null) {
                    held.addAll(o.result().taken());
                }
            }
        }
    }

    /** A job of 1–3 members asking for CPU, memory or both, and no GPUs. */
    private static JobSpec job(String id, Random rnd) {
        int kind = rnd.nextInt(3);
        Resources.Builder r = Resources.builder();
        if (kind != 1) {
            r.cpu(1 + rnd.nextInt(3));
        }
        if (kind != 0) {
            r.memoryGiB(1 + rnd.nextInt(8));
        }
        return JobSpec.builder(id).queue("q").podSet(PodSet.of("main", 1 + rnd.nextInt(3), r.build())).build();
    }

    /** The reference: every node checked in the placer's order, nothing skipped. @return its index, or -1 */
    private static int firstWithRoom(CapacityPlan cap, long[] req, int members) {
        CapacityPlan.ClusterIndex ci = cap.clusters.get(0);
        for (BitSet set : new BitSet[] {ci.cpuOnly, ci.members}) {
            for (int n = set.nextSetBit(0); n >= 0; n = set.nextSetBit(n + 1)) {
                if (cap.membersFit(n, req, 0) >= members) {
                    return n;
                }
            }
        }
        return -1;
    }
}
