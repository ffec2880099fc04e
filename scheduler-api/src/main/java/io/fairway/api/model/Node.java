package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node of a cluster: its allocatable capacity, labels (which also carry its place in the cluster's
 * topology levels), taints, and GPUs with their interconnect.
 *
 * <pre>{@code
 * Node n = Node.builder("node-1")
 *     .capacity(Resources.builder().cpu(96).memoryGiB(1024).build())
 *     .gpus(GpuTopology.nvSwitch8("H100"))          // adds nvidia.com/gpu: 8 to the capacity
 *     .label("fairway.io/rack", "r1")
 *     .build();
 * }</pre>
 *
 * @param name the node name, unique in its cluster
 * @param cluster the cluster it belongs to
 * @param labels node labels
 * @param taints node taints
 * @param capacity allocatable capacity; its {@code nvidia.com/gpu} equals the GPU count of {@code gpus}
 * @param gpus the GPUs and their links
 * @param unschedulable true when cordoned: nothing new is placed here
 */
public record Node(String name, String cluster, Map<String, String> labels, List<Taint> taints,
                   Resources capacity, GpuTopology gpus, boolean unschedulable) implements java.io.Serializable {
    /** The cluster name used when none is given. */
    public static final String DEFAULT_CLUSTER = "default";
    /** The label holding the node name, as the implicit last topology level. */
    public static final String HOSTNAME_LABEL = "kubernetes.io/hostname";

    /** Validates: the GPU count in the capacity matches the GPU list. */
    public Node {
        InvalidSpecException.requireName("node.name", name);
        cluster = cluster == null || cluster.isBlank() ? DEFAULT_CLUSTER : cluster;
        labels = Map.copyOf(labels == null ? Map.of() : labels);
        taints = List.copyOf(taints == null ? List.of() : taints);
        gpus = gpus == null ? GpuTopology.NONE : gpus;
        capacity = capacity == null ? Resources.NONE : capacity;
        long declared = capacity.gpus();
        if (declared == 0 && gpus.size() > 0) {
            capacity = capacity.plus(Resources.of(Resources.GPU, gpus.size()));
        } else if (declared > 0 && gpus.size() == 0) {
            gpus = GpuTopology.uniform((int) Math.min(declared, 64), "gpu");
            InvalidSpecException.check(declared <= 64, "node.capacity.nvidia.com/gpu", declared,
                    "node %s: at most 64 GPUs per node, was %d", name, declared);
        } else {
            InvalidSpecException.check(declared == gpus.size(), "node.capacity.nvidia.com/gpu", declared,
                    "node %s: capacity says %d GPUs but %d GPUs are listed", name, declared, gpus.size());
        }
    }

    /**
     * @param name the node name
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * @param key a label key
     * @return the label value, or the node name for {@link #HOSTNAME_LABEL} when not set, or null
     */
    public String label(String key) {
        String v = labels.get(key);
        if (v == null && HOSTNAME_LABEL.equals(key)) {
            return name;
        }
        return v;
    }

    /**
     * @param unschedulable the new cordon state
     * @return a copy with that state
     */
    public Node withUnschedulable(boolean unschedulable) {
        return new Node(name, cluster, labels, taints, capacity, gpus, unschedulable);
    }

    /** Builds a {@link Node}. */
    public static final class Builder {
        private final String name;
        private String cluster = DEFAULT_CLUSTER;
        private final Map<String, String> labels = new LinkedHashMap<>();
        private List<Taint> taints = List.of();
        private Resources capacity = Resources.NONE;
        private GpuTopology gpus = GpuTopology.NONE;
        private boolean unschedulable;

        private Builder(String name) {
            this.name = name;
        }

        /** @param cluster the cluster name @return this */
        public Builder cluster(String cluster) {
            this.cluster = cluster;
            return this;
        }

        /** @param key label key @param value label value @return this */
        public Builder label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        /** @param labels labels to add @return this */
        public Builder labels(Map<String, String> labels) {
            this.labels.putAll(labels);
            return this;
        }

        /** @param taints the taints @return this */
        public Builder taints(List<Taint> taints) {
            this.taints = taints;
            return this;
        }

        /** @param capacity allocatable capacity (without GPUs, which {@link #gpus} adds) @return this */
        public Builder capacity(Resources capacity) {
            this.capacity = capacity;
            return this;
        }

        /** @param gpus the GPUs and links @return this */
        public Builder gpus(GpuTopology gpus) {
            this.gpus = gpus;
            return this;
        }

        /** @param unschedulable cordoned @return this */
        public Builder unschedulable(boolean unschedulable) {
            this.unschedulable = unschedulable;
            return this;
        }

        /** @return the node */
        public Node build() {
            return new Node(name, cluster, labels, taints, capacity, gpus, unschedulable);
        }
    }
}
