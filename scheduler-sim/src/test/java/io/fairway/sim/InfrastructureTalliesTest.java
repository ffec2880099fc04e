package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.Locality;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The simulator's free, stranded and pool-node tallies (fragmentation and the node counts it records after each
 * round) are kept by change instead of recounted over every node: after any history of placements starting, growing
 * and ending, pool nodes coming up and nodes going away (a CPU-only node, nodes of 4 and 8 GPUs, placements on nodes
 * already gone), they equal the recount over every present node.
 */
class InfrastructureTalliesTest {
    private static final InstanceType G8 = new InstanceType("p3.16xlarge", Resources.builder().cpu(64).memoryGiB(488).build(),
            "hybrid-cube-mesh-8", "V100", 24.48, CapacityType.ON_DEMAND);
    private static final InstanceType C32 = new InstanceType("c.8xlarge", Resources.builder().cpu(32).memoryGiB(64).build(), "none", "", 1.36,
            CapacityType.ON_DEMAND);

    @Property(tries = 60)
    void keptTalliesEqualTheRecountOverEveryNode(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        NodePool pool = new NodePool("gpu", null, List.of(G8, C32), Resources.NONE, 60_000, 120_000, Map.of(), List.of());
        List<Node> fixed = List.of(SimTestInputs.gpuNode("n-0", GpuTopology.nvSwitch8("H100"), "r0"),
                SimTestInputs.gpuNode("n-1", GpuTopology.pcie4("T4"), "r0"), SimTestInputs.gpuNode("n-2", GpuTopology.NONE, "r1"),
                SimTestInputs.gpuNode("n-3", GpuTopology.nvSwitch8("H100"), "r1"));
        ClusterModel cluster = new ClusterModel(List.of(ClusterSpec.withRacks("default")), fixed, List.of(new SimNodePool(pool, Map.of(), 120)),
                Map.of());
        Infrastructure infra = new Infrastructure(cluster, seed);
        List<String> names = new ArrayList<>(List.of("n-0", "n-1", "n-2", "n-3"));
        List<Placement> held = new ArrayList<>();
        for (int step = 0; step < 200; step++) {
            int kind = r.nextInt(10);
            if (kind < 4) { // a placement starts (or an elastic job grows) on one or two nodes, present or gone
                List<MemberPlacement> members = new ArrayList<>();
                for (int m = 0; m < 1 + r.nextInt(2); m++) {
                    List<Integer> gpus = new ArrayList<>();
                    for (int g = 0; g < 1 + r.nextInt(8); g++) {
                        gpus.add(g);
                    }
                    members.add(new MemberPlacement("main", m, names.get(r.nextInt(names.size())), gpus));
                }
                Placement p = new Placement(members, Locality.NODE, 1.0);
                infra.place(p, p.gpuCount(), r.nextBoolean());
                held.add(p);
            } else if (kind < 7 && !held.isEmpty()) { // one ends
                infra.release(held.remove(r.nextInt(held.size())));
            } else if (kind < 9) { // a pool node comes up (a reused name included)
                String name = r.nextInt(4) == 0 && names.size() > 4 ? names.get(4 + r.nextInt(names.size() - 4)) : infra.reserveName("gpu");
                if (!names.contains(name)) {
                    names.add(name);
                }
                infra.nodeUp(pool, r.nextBoolean() ? G8 : C32, name, "rack-x", step * 1_000L);
            } else { // a node goes away
                infra.nodeGone(names.get(r.nextInt(names.size())), step * 1_000L);
            }
            long[][] t = infra.talliesKeptAndRecounted();
            assertThat(t[0]).as("kept {free, stranded, pool nodes} after step %d", step).containsExactly(t[1]);
        }
    }
}
