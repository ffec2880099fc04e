package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Map;

/**
 * A ResourceFlavor, as in Kueue: a kind of capacity (say {@code h100-on-demand} or {@code spot}) named by
 * the node labels that select its nodes. Quota is given per flavor; a pod set admitted with a flavor runs on
 * nodes carrying every one of its labels, and gets its tolerations.
 *
 * @param name the flavor name
 * @param nodeLabels labels a node must carry to provide this flavor (empty: every node)
 * @param nodeTaints taints the flavor's nodes carry (informative; placement reads the nodes' own taints)
 * @param tolerations tolerations added to pod sets admitted with this flavor
 */
public record ResourceFlavor(String name, Map<String, String> nodeLabels, List<Taint> nodeTaints, List<Toleration> tolerations) implements java.io.Serializable {
    /** Validates. */
    public ResourceFlavor {
        InvalidSpecException.requireDnsSubdomain("flavor.name", name);
        nodeLabels = Map.copyOf(nodeLabels == null ? Map.of() : nodeLabels);
        nodeTaints = List.copyOf(nodeTaints == null ? List.of() : nodeTaints);
        tolerations = List.copyOf(tolerations == null ? List.of() : tolerations);
    }

    /**
     * @param name the flavor name
     * @return a flavor that every node provides
     */
    public static ResourceFlavor of(String name) {
        return new ResourceFlavor(name, Map.of(), List.of(), List.of());
    }

    /**
     * @param node a node
     * @return true when the node carries every label of this flavor
     */
    public boolean matches(Node node) {
        for (Map.Entry<String, String> e : nodeLabels.entrySet()) {
            if (!e.getValue().equals(node.label(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
