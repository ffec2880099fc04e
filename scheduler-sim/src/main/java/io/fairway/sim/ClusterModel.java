package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import java.util.List;

/**
 * The simulated cluster: cluster specs (topology levels) and nodes, as read from a cluster YAML file.
 *
 * @param clusters the clusters with their topology levels
 * @param nodes the nodes, in the order they are added to the scheduler
 */
public record ClusterModel(List<ClusterSpec> clusters, List<Node> nodes) {
    /** Copies; at least one node. */
    public ClusterModel {
        clusters = List.copyOf(clusters == null ? List.of() : clusters);
        nodes = List.copyOf(nodes == null ? List.of() : nodes);
        InvalidSpecException.check(!nodes.isEmpty(), "nodes", nodes, "a cluster needs at least one node");
    }

    /** @return the GPUs of every node */
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
