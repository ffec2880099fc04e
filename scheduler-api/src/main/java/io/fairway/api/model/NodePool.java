package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node pool, as Karpenter's NodePool: the instance types it may provision, limits on its total capacity,
 * and how fast nodes come and go. Nodes it provisions carry its labels plus {@link #POOL_LABEL},
 * {@link #INSTANCE_TYPE_LABEL} and {@link #CAPACITY_TYPE_LABEL}.
 *
 * @param name the pool name
 * @param cluster the cluster its nodes join
 * @param instanceTypes the allowed instance types
 * @param limits the most the pool's nodes may add up to (e.g. {@code cpu: 1000, nvidia.com/gpu: 64}); resources not
 *     named are unlimited
 * @param provisioningDelayMillis how long a requested node takes to come up
 * @param consolidationDelayMillis how long a node stays empty before it is removed
 * @param labels labels its nodes carry (e.g. flavor labels)
 * @param taints taints its nodes carry
 * @param consolidation which nodes are consolidated after the delay: only empty ones (the default), or also under-used
 *     ones whose jobs all checkpoint and fit on other nodes (they migrate)
 */
public record NodePool(String name, String cluster, List<InstanceType> instanceTypes, Resources limits, long provisioningDelayMillis,
                       long consolidationDelayMillis, Map<String, String> labels, List<Taint> taints, Consolidation consolidation)
        implements java.io.Serializable {
    /** Node label naming the pool a node came from. */
    public static final String POOL_LABEL = "karpenter.sh/nodepool";
    /** Node label naming a node's instance type. */
    public static final String INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";
    /** Node label naming a node's capacity type ({@code spot} / {@code on-demand}). */
    public static final String CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type";

    /** Karpenter's consolidation policy: which nodes a pool removes once the consolidation delay has passed. */
    public enum Consolidation {
        /** Only nodes with nothing on them, empty for the delay (Karpenter's {@code WhenEmpty}). */
        WHEN_EMPTY,
        /**
         * Empty nodes, and nodes whose jobs all checkpoint, fit on the pool's and cluster's other nodes, and have run there for
         * the delay: those jobs migrate (from a checkpoint) and the node is removed (Karpenter's {@code WhenEmptyOrUnderutilized}).
         */
        WHEN_UNDERUTILIZED;

        /**
         * Reads a policy as configuration files spell it: Karpenter's {@code WhenEmpty} and {@code WhenUnderutilized}
         * ({@code WhenEmptyOrUnderutilized}), case, dashes and underscores ignored; absent means {@link #WHEN_EMPTY}.
         *
         * @param field the configuration field, for the error
         * @param value the value, or null
         * @return the policy
         * @throws io.fairway.api.InvalidSpecException naming the field and the value when it is none of these
         */
        public static Consolidation parse(String field, String value) {
            if (value == null) {
                return WHEN_EMPTY;
            }
            return switch (value.replace("_", "").replace("-", "").toLowerCase(java.util.Locale.ROOT)) {
                case "whenempty" -> WHEN_EMPTY;
                case "whenunderutilized", "whenemptyorunderutilized" -> WHEN_UNDERUTILIZED;
                default -> throw new io.fairway.api.InvalidSpecException(field, value,
                        field + ": consolidation must be WhenEmpty or WhenUnderutilized, was " + value);
            };
        }
    }

    /**
     * A pool that removes only empty nodes.
     *
     * @param name the pool name
     * @param cluster the cluster its nodes join
     * @param instanceTypes the allowed instance types
     * @param limits the most the pool's nodes may add up to
     * @param provisioningDelayMillis how long a requested node takes to come up
     * @param consolidationDelayMillis how long a node stays empty before it is removed
     * @param labels labels its nodes carry
     * @param taints taints its nodes carry
     */
    public NodePool(String name, String cluster, List<InstanceType> instanceTypes, Resources limits, long provisioningDelayMillis,
                    long consolidationDelayMillis, Map<String, String> labels, List<Taint> taints) {
        this(name, cluster, instanceTypes, limits, provisioningDelayMillis, consolidationDelayMillis, labels, taints, Consolidation.WHEN_EMPTY);
    }

    /** Validates. */
    public NodePool {
        InvalidSpecException.requireDnsSubdomain("nodePool.name", name);
        cluster = cluster == null || cluster.isBlank() ? Node.DEFAULT_CLUSTER : cluster;
        instanceTypes = List.copyOf(instanceTypes == null ? List.of() : instanceTypes);
        InvalidSpecException.check(!instanceTypes.isEmpty(), "nodePool[" + name + "].instanceTypes", instanceTypes,
                "node pool %s: at least one instance type is required", name);
        Set<String> seen = new HashSet<>();
        for (InstanceType t : instanceTypes) {
            InvalidSpecException.check(seen.add(t.name()), "nodePool[" + name + "].instanceTypes", t.name(),
                    "node pool %s: instance type %s listed twice", name, t.name());
        }
        limits = limits == null ? Resources.NONE : limits;
        InvalidSpecException.check(provisioningDelayMillis >= 0, "nodePool[" + name + "].provisioningDelay", provisioningDelayMillis,
                "node pool %s: provisioning delay must be >= 0, was %d ms", name, provisioningDelayMillis);
        InvalidSpecException.check(consolidationDelayMillis >= 0, "nodePool[" + name + "].consolidationDelay", consolidationDelayMillis,
                "node pool %s: consolidation delay must be >= 0, was %d ms", name, consolidationDelayMillis);
        labels = Map.copyOf(labels == null ? Map.of() : labels);
        taints = List.copyOf(taints == null ? List.of() : taints);
        consolidation = consolidation == null ? Consolidation.WHEN_EMPTY : consolidation;
    }

    /**
     * @param policy the consolidation policy
     * @return this pool with that policy
     */
    public NodePool withConsolidation(Consolidation policy) {
        return new NodePool(name, cluster, instanceTypes, limits, provisioningDelayMillis, consolidationDelayMillis, labels, taints, policy);
    }

    /**
     * @param type an instance type of this pool
     * @param nodeName the new node's name
     * @return the node an instance of that type becomes when it joins
     */
    public Node nodeOf(InstanceType type, String nodeName) {
        return Node.builder(nodeName).cluster(cluster).capacity(type.capacity()).gpus(type.gpus())
                .labels(labels)
                .label(POOL_LABEL, name)
                .label(INSTANCE_TYPE_LABEL, type.name())
                .label(CAPACITY_TYPE_LABEL, type.capacityType() == CapacityType.SPOT ? "spot" : "on-demand")
                .taints(taints)
                .build();
    }

    /**
     * @param type an instance type name
     * @return the instance type, or null
     */
    public InstanceType instanceType(String type) {
        for (InstanceType t : instanceTypes) {
            if (t.name().equals(type)) {
                return t;
            }
        }
        return null;
    }
}
