package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A copy of a capacity plan and the plan it was copied from change apart: GPUs taken or given back in either (in any
 * order, copies of copies included) leave the other's index of nodes by free GPUs as it was, and each plan's index
 * lists every schedulable node under its own free GPUs and under no other count. (Copies share the index's sets until
 * one of them writes.)
 */
class CopiedCapacityProperties {
    @Property(tries = 200)
    void aCopyAndItsSourceChangeApart(@ForAll long seed) {
        Random rnd = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        int nodeCount = 1 + rnd.nextInt(12);
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(Node.builder("n" + i).gpus(rnd.nextBoolean() ? GpuTopology.nvSwitch8("H100") : GpuTopology.pcie4("T4")).build());
        }
        List<CapacityPlan> plans = new ArrayList<>(List.of(new CapacityPlan(nodes, Map.of(), new ResourceIndex())));
        long[] none = plans.get(0).vector(Resources.builder().build());
        for (int step = 0; step < 60; step++) {
            CapacityPlan p = plans.get(rnd.nextInt(plans.size()));
            int n = rnd.nextInt(nodeCount);
            if (rnd.nextInt(4) == 0 && plans.size() < 6) {
                plans.add(p.copy());
            } else if (rnd.nextBoolean()) {
                p.take(n, none, p.freeGpuMask[n] & rnd.nextLong());
            } else {
                long all = (1L << nodes.get(n).gpus().size()) - 1;
                p.give(n, none, all & ~p.freeGpuMask[n] & rnd.nextLong());
            }
            for (CapacityPlan q : plans) {
                for (CapacityPlan.ClusterIndex ci : q.clusters) {
                    for (int free = 0; free < ci.byFreeGpus.length; free++) {
                        BitSet expected = new BitSet();
                        for (int node = 0; node < nodeCount; node++) {
                            if (q.schedulable[node] && ci.members.get(node) && q.freeGpuCount(node) == free) {
                                expected.set(node);
                            }
                        }
                        assertThat(ci.byFreeGpus[free]).as("step %d, nodes with %d free GPUs", step, free).isEqualTo(expected);
                    }
                }
            }
        }
    }
}
