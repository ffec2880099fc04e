package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A capacity plan and a placer over given nodes, for placement tests that look at exact nodes and GPU ids. */
final class PlacementFixture {
    static final String BLOCK = "fairway.io/block";
    static final String RACK = ClusterSpec.RACK_LABEL;

    final List<Node> nodes;
    final CapacityPlan cap;
    final Placer placer;
    private int jobs;

    PlacementFixture(PlacementStrategy strategy, List<String> levels, List<Node> nodes) {
        this.nodes = nodes;
        Map<String, ClusterSpec> specs = new LinkedHashMap<>();
        specs.put(Node.DEFAULT_CLUSTER, new ClusterSpec(Node.DEFAULT_CLUSTER, levels));
        this.cap = new CapacityPlan(nodes, specs, new ResourceIndex());
        this.placer = new Placer(cap, strategy);
    }

    /** One node of the given shape, no levels. */
    static PlacementFixture single(PlacementStrategy strategy, GpuTopology shape) {
        return new PlacementFixture(strategy, List.of(), List.of(Node.builder("n1").gpus(shape).build()));
    }

    /**
     * @param name node name
     * @param shape its GPUs
     * @param labels label key, value, key, value…
     * @return the node
     */
    static Node node(String name, GpuTopology shape, String... labels) {
        Node.Builder b = Node.builder(name).gpus(shape);
        for (int i = 0; i + 1 < labels.length; i += 2) {
            b.label(labels[i], labels[i + 1]);
        }
        return b.build();
    }

    /** @return a job of one pod set: {@code members} members of {@code gpus} GPUs each */
    static JobSpec gang(String id, int members, int gpus, TopologyRequest topology) {
        return JobSpec.builder(id).queue("q")
                .podSet(PodSet.of("workers", members, Resources.builder().gpus(gpus).build()).withTopology(topology))
                .sensitivity(PlacementSensitivity.forModel("vgg16"))
                .build();
    }

    Placer.Outcome place(JobSpec job) {
        return placer.place(job, Map.of(), Map.of());
    }

    /** Places a gang of {@code members} × {@code gpus} and asserts it was placed. */
    Placement placeOk(int members, int gpus, TopologyRequest topology) {
        Placer.Outcome o = place(gang("j" + (++jobs), members, gpus, topology));
        assertThat(o.reason()).as("pending reason").isNull();
        return o.result().placement();
    }

    /** Places a one-member job of {@code gpus} GPUs and returns its GPU ids. */
    List<Integer> gpusFor(int gpus) {
        Placement p = placeOk(1, gpus, TopologyRequest.NONE);
        return p.members().get(0).gpus();
    }

    PendingReason reasonFor(int members, int gpus, TopologyRequest topology) {
        Placer.Outcome o = place(gang("j" + (++jobs), members, gpus, topology));
        assertThat(o.result()).as("placement").isNull();
        return o.reason();
    }

    /** Marks GPUs of a node as used by some other job. */
    void take(String node, int... gpuIndexes) {
        int n = cap.nodeIndex.get(node);
        List<Integer> l = new ArrayList<>();
        for (int g : gpuIndexes) {
            l.add(g);
        }
        long mask = cap.shapes[n].maskOf(l);
        long[] req = new long[cap.width];
        req[cap.resources.gpu] = gpuIndexes.length;
        cap.take(n, req, mask);
    }

    /** @return the free GPU count of a node */
    int free(String node) {
        return cap.freeGpuCount(cap.nodeIndex.get(node));
    }

    /** @return the value of a label on the node of each member */
    List<String> labelOfMembers(Placement p, String label) {
        List<String> out = new ArrayList<>();
        for (MemberPlacement mp : p.members()) {
            out.add(cap.nodes[cap.nodeIndex.get(mp.node())].label(label));
        }
        return out;
    }
}
