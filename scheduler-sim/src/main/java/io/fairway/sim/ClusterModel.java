package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import java.util.List;
import java.util.Map;

/**
 * The simulated cluster: cluster specs (topology levels) and nodes, as read from a cluster YAML file.
 *
 * @param clusters the clusters with their topology levels
 * @param nodes the nodes, in the order they are added to the scheduler
 * @param nodePools node pools that provision nodes on demand (may be empty)
 * @param nodePricePerHour the price of an hour of a static node, by node name (nodes not named cost nothing)
 */
public record ClusterModel(List<ClusterSpec> clusters, List<Node> nodes, List<SimNodePool> nodePools, Map<String, Double> nodePricePerHour) {
    /** Copies; at least one node or node pool. */
    public ClusterModel {
        clusters = List.copyOf(clusters == null ? List.of() : clusters);
        nodes = List.copyOf(nodes == null ? List.of() : nodes);
        nodePools = List.copyOf(nodePools == null ? List.of() : nodePools);
        nodePricePerHour = Map.copyOf(nodePricePerHour == null ? Map.of() : nodePricePerHour);
        InvalidSpecException.check(!nodes.isEmpty() || !nodePools.isEmpty(), "nodes", nodes, "a cluster needs at least one node or node pool");
    }

    /**
     * A cluster of static nodes only, without prices.
     *
     * @param clusters the clusters with their topology levels
     * @param nodes the nodes
     */
    public ClusterModel(List<ClusterSpec> clusters, List<Node> nodes) {
        this(clusters, nodes, List.of(), Map.of());
    }

    /**
     * @return the most GPUs the cluster can ever have: its static nodes' plus each pool's GPU limit
     *     ({@link Long#MAX_VALUE} when a pool with GPU instance types has no GPU limit)
     */
    public long maxGpus() {
        long g = totalGpus();
        for (SimNodePool p : nodePools) {
            boolean gpuTypes = p.pool().instanceTypes().stream().anyMatch(t -> t.gpus().size() > 0);
            if (!gpuTypes) {
                continue;
            }
            if (!p.pool().limits().names().contains(Resources.GPU)) {
                return Long.MAX_VALUE;
            }
            g += p.pool().limits().gpus();
        }
        return g;
    }

    /** @return the GPUs of every static node */
    public long totalGpus() {
        long g = 0;
        for (Node n : nodes) {
            g += n.capacity().gpus();
        }
        return g;
    }

    /** @return the summed capacity of every node */
    public Resources capacity() {
        Resources r = Resources.NONE;
        for (Node n : nodes) {
            r = r.plus(n.capacity());
        }
        return r;
    }
}
