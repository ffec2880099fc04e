package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A cluster: its name and its ordered topology levels across nodes, broadest first, as Kueue's Topology
 * and Volcano's HyperNode tiers describe (e.g. {@code zone → block → rack}). Each level is a node label key;
 * the host ({@code kubernetes.io/hostname}) is always the implicit last level.
 *
 * @param name the cluster name
 * @param topologyLevels node label keys, broadest first
 */
public record ClusterSpec(String name, List<String> topologyLevels) implements java.io.Serializable {
    /** The rack level label used by the bundled examples. */
    public static final String RACK_LABEL = "fairway.io/rack";
    /** The zone level label used by the bundled examples. */
    public static final String ZONE_LABEL = "topology.kubernetes.io/zone";

    /** Validates: levels unique. */
    public ClusterSpec {
        InvalidSpecException.requireName("cluster.name", name);
        topologyLevels = List.copyOf(topologyLevels == null ? List.of() : topologyLevels);
        Set<String> seen = new HashSet<>();
        for (String l : topologyLevels) {
            InvalidSpecException.check(seen.add(l), "cluster[" + name + "].topologyLevels", l, "cluster %s: topology level %s listed twice", name, l);
            InvalidSpecException.check(!Node.HOSTNAME_LABEL.equals(l), "cluster[" + name + "].topologyLevels", l,
                    "cluster %s: %s is the implicit last level; do not list it", name, l);
        }
    }

    /**
     * @param name the cluster name
     * @return a cluster whose nodes are grouped in racks by {@link #RACK_LABEL}
     */
    public static ClusterSpec withRacks(String name) {
        return new ClusterSpec(name, List.of(RACK_LABEL));
    }
}
