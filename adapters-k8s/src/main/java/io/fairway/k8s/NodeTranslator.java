package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a Kubernetes Node into the model's {@link Node}: allocatable resources less what pods Fairway does not
 * manage already request, the GPUs and their interconnect (from NVIDIA GPU feature discovery labels), labels
 * (which carry the topology levels), taints, and cordoning. A node that is not Ready is treated as cordoned:
 * nothing new is placed on it, and what runs there stays.
 */
public final class NodeTranslator {
    private NodeTranslator() {
    }

    /**
     * @param node the Kubernetes node
     * @param unmanaged what pods Fairway does not manage request on it
     * @return the model node
     */
    public static Node toModel(io.fabric8.kubernetes.api.model.Node node, Resources unmanaged) {
        String name = node.getMetadata().getName();
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        Map<String, Quantity> alloc = node.getStatus() == null || node.getStatus().getAllocatable() == null
                ? Map.of() : node.getStatus().getAllocatable();
        Resources allocatable = Resources.of(PodResources.parse(alloc));
        int gpus = (int) Math.min(64, allocatable.gpus());
        GpuTopology topology = GpuTopology.NONE;
        if (gpus > 0) {
            String shape = labels.get(Keys.GPU_SHAPE_LABEL);
            String product = labels.get(Keys.GPU_PRODUCT_LABEL);
            topology = shape != null && !shape.isBlank() && GpuTopology.named(shape, "gpu").size() == gpus
                    ? GpuTopology.named(shape, product == null ? "gpu" : product)
                    : GpuShapes.forProduct(product, gpus);
        }
        int gpusUsed = (int) Math.min(gpus, unmanaged.gpus());
        topology = GpuShapes.without(topology, gpusUsed);
        Resources free = allocatable.minus(unmanaged).minus(Resources.of(Resources.GPU, allocatable.gpus()));
        List<Taint> taints = new ArrayList<>();
        if (node.getSpec() != null && node.getSpec().getTaints() != null) {
            for (io.fabric8.kubernetes.api.model.Taint t : node.getSpec().getTaints()) {
                taints.add(new Taint(t.getKey(), t.getValue(), t.getEffect()));
            }
        }
        boolean cordoned = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        return Node.builder(name)
                .labels(labels)
                .taints(taints)
                .capacity(free)
                .gpus(topology)
                .unschedulable(cordoned || !isReady(node))
                .build();
    }

    /**
     * @param node a node
     * @return true when its Ready condition is True (a node without conditions counts as ready)
     */
    public static boolean isReady(io.fabric8.kubernetes.api.model.Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null || node.getStatus().getConditions().isEmpty()) {
            return true;
        }
        for (NodeCondition c : node.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return true;
    }
}
