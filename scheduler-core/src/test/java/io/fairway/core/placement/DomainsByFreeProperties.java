package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The topology search reads only the domains of a level that may have the GPUs a gang needs, through an index of the
 * level's domains by free GPUs (in powers of two). That is exact only while every domain sits in the bucket of its
 * free GPUs and in no other: this holds it to that through gangs placed (required and preferred racks and blocks),
 * jobs letting go, charges taken back after failed attempts, and copies.
 */
class DomainsByFreeProperties {
    private static final String BLOCK = "fairway.io/block";

    @Property(tries = 200)
    void everyDomainSitsInTheBucketOfItsFreeGpus(@ForAll @IntRange(min = 1, max = 24) int nodeCount,
            @ForAll @IntRange(min = 1, max = 80) int steps, @ForAll long seed) {
        Random rnd = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(Node.builder("n" + i).gpus(rnd.nextBoolean() ? GpuTopology.nvSwitch8("H100") : GpuTopology.pcie4("T4"))
                    .label(BLOCK, "b" + rnd.nextInt(2)).label(ClusterSpec.RACK_LABEL, "r" + rnd.nextInt(3)).build());
        }
        CapacityPlan cap = new CapacityPlan(nodes, Map.of(Node.DEFAULT_CLUSTER,
                new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(BLOCK, ClusterSpec.RACK_LABEL))), new ResourceIndex());
        List<Placer.Taken> held = new ArrayList<>();
        for (int s = 0; s < steps; s++) {
            int op = rnd.nextInt(8);
            if (op == 0 && !held.isEmpty()) {
                Placer.Taken t = held.remove(rnd.nextInt(held.size()));
                cap.give(t.node(), t.req(), t.gpuMask());
            } else if (op == 1) {
                cap = cap.copy();
            } else if (op == 2) { // GPUs taken on a few nodes, then taken back as a failed attempt's are
                cap.begin();
                for (int k = rnd.nextInt(3); k >= 0; k--) {
                    int n = rnd.nextInt(nodeCount);
                    cap.take(n, cap.vector(Resources.builder().build()), cap.freeGpuMask[n] & rnd.nextLong());
                }
                cap.rollback();
            } else {
                Placer.Outcome o = new Placer(cap, PlacementStrategy.TOPOLOGY_AWARE).place(gang("j" + s, rnd), Map.of(), Map.of());
                if (o.result() != null) {
                    held.addAll(o.result().taken());
                }
            }
            CapacityPlan.ClusterIndex ci = cap.clusters.get(0);
            for (int l = 0; l < ci.levels.size(); l++) {
                for (int d = 0; d < ci.domainFree[l].length; d++) {
                    int expected = CapacityPlan.bucket(ci, l, ci.domainFree[l][d]);
                    for (int b = 0; b < ci.domainsByFree[l].length; b++) {
                        assertThat(ci.domainsByFree[l][b].get(d)).as("step %d, level %s, domain %d (%d free), bucket %d", s,
                                ci.levels.get(l), d, ci.domainFree[l][d], b).isEqualTo(b == expected);
                    }
                }
            }
        }
    }

    /** A gang of 1–6 members of 1–4 GPUs, its rack or block required, preferred, or neither. */
    private static JobSpec gang(String id, Random rnd) {
        TopologyRequest t = switch (rnd.nextInt(4)) {
            case 0 -> TopologyRequest.required(ClusterSpec.RACK_LABEL);
            case 1 -> TopologyRequest.required(BLOCK);
            case 2 -> TopologyRequest.preferred(ClusterSpec.RACK_LABEL);
            default -> TopologyRequest.NONE;
        };
        return JobSpec.builder(id).queue("q")
                .podSet(PodSet.of("w", 1 + rnd.nextInt(6), Resources.builder().gpus(1 + rnd.nextInt(4)).build()).withTopology(t))
                .build();
    }
}
