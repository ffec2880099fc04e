package io.fairway.sim;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.sim.trace.GangShape;
import java.util.ArrayList;
import java.util.List;

/** Small clusters, queues and jobs for simulator tests. */
final class SimTestInputs {
    private SimTestInputs() {
    }

    static Node gpuNode(String name, GpuTopology gpus, String rack) {
        Node.Builder b = Node.builder(name).capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(gpus);
        if (rack != null) {
            b.label(ClusterSpec.RACK_LABEL, rack);
        }
        return b.build();
    }

    static ClusterModel nodes(Node... nodes) {
        return new ClusterModel(List.of(ClusterSpec.withRacks("default")), List.of(nodes));
    }

    static QueueModel oneQueue(long gpus) {
        return new QueueModel(List.of(ResourceFlavor.of("default")), List.of(),
                List.of(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(gpus).build()).build()),
                List.of(new LocalQueue("default", "lq", "cq")));
    }

    static SimJob gpuJob(String id, double submitSeconds, double durationSeconds, int gpus) {
        return gpuJob(id, submitSeconds, durationSeconds, gpus, PlacementSensitivity.NONE, null);
    }

    static SimJob gpuJob(String id, double submitSeconds, double durationSeconds, int gpus, PlacementSensitivity s, Checkpointing c) {
        GangShape shape = GangShape.forGpus(gpus);
        JobSpec spec = JobSpec.builder(id).queue("lq").submitTimeMillis(Math.round(submitSeconds * 1000))
                .members(shape.members(), Resources.builder().gpus(shape.gpusPerMember()).build())
                .estimatedSeconds(durationSeconds).sensitivity(s).checkpointing(c).build();
        return new SimJob(spec, durationSeconds);
    }

    static SimulationInput input(ClusterModel cluster, QueueModel queues, List<ClusterAction> actions, SimJob... jobs) {
        return new SimulationInput("test", cluster, queues, new ArrayList<>(List.of(jobs)), actions);
    }

    /**
     * One 8-GPU node, one 8-GPU queue, a 10,000-s 8-GPU job "long" at t = 0 and a 60-s 1-GPU job "short" at
     * {@code shortAt}; nothing checkpoints.
     */
    static SimulationInput longThenShort(double shortAt) {
        return input(nodes(gpuNode("n-0", GpuTopology.nvSwitch8("H100"), null)), oneQueue(8), List.of(),
                gpuJob("long", 0, 10_000, 8), gpuJob("short", shortAt, 60, 1));
    }
}
