package io.fairway.sim.config;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import io.fairway.config.Names;
import io.fairway.config.NodePoolConfig;
import io.fairway.config.TaintConfig;
import io.fairway.config.Validated;
import io.fairway.sim.ClusterAction;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.SimNodePool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A cluster description, as read from YAML:
 *
 * <pre>
 * clusters:
 *   - name: default
 *     topologyLevels: [fairway.io/rack]      # node label keys, broadest first (the host is implicit)
 *     nodeGroups:
 *       - namePrefix: v100                   # nodes v100-0 .. v100-7
 *         count: 8
 *         gpuShape: hybrid-cube-mesh-8       # nvswitch-8, hybrid-cube-mesh-8, pcie-4, pcie-2socket-8, uniform-N, none
 *         gpuModel: V100
 *         cpu: "64"                          # Kubernetes quantities
 *         memory: 512Gi
 *         racks: 2                           # label fairway.io/rack: rack-0 (nodes 0-3), rack-1 (nodes 4-7)
 *         labels: {pool: training}
 *         taints: [{key: gpu, value: "true", effect: NoSchedule}]
 *         resources: {example.com/fpga: "1"}  # extended resources per node
 *         pricePerHour: 24.48                # optional: the cost of a node-hour, for cost reports
 *     nodePools:                             # optional: nodes provisioned on demand (see NodePoolConfig)
 *       - name: gpu
 *         instanceTypes: [{name: p3.16xlarge, cpu: "64", memory: 488Gi, gpuShape: hybrid-cube-mesh-8, pricePerHour: 24.48}]
 *   - name: west                             # more clusters: fairway simulate runs the multi-cluster engine
 *     nodeGroups: [{namePrefix: west, count: 2, gpuShape: nvswitch-8, cpu: "96", memory: 1Ti}]
 *     lostAtSeconds: 7200                    # optional: its executor falls silent then (the cluster is lost)
 *   - name: late
 *     nodeGroups: [{namePrefix: late, count: 2, gpuShape: nvswitch-8, cpu: "96", memory: 1Ti}]
 *     joinAtSeconds: 14400                   # optional: absent at the start, joins then
 * </pre>
 *
 * <p>A cluster needs node groups, node pools or both.
 *
 * @param clusters the clusters
 */
public record ClusterConfig(List<ClusterEntry> clusters) {
    /** Validates: at least one cluster, names unique. */
    public ClusterConfig {
        clusters = Names.list("clusters", clusters);
        InvalidSpecException.check(!clusters.isEmpty(), "clusters", clusters, "clusters: at least one cluster is required");
        Set<String> names = new HashSet<>();
        for (ClusterEntry c : clusters) {
            InvalidSpecException.check(names.add(c.name()), "clusters", c.name(), "clusters: cluster %s is listed twice", c.name());
        }
    }

    /**
     * @param file a cluster YAML file
     * @return the cluster model
     * @throws SimulationConfigException naming the file and line of the first error
     */
    public static ClusterModel load(Path file) {
        return loadSetup(file).model();
    }

    /**
     * The clusters present at the start and the timed loss and joining of clusters.
     *
     * @param model the clusters present at the start
     * @param actions {@link ClusterAction.LoseCluster} and {@link ClusterAction.JoinCluster}, by time
     */
    public record Setup(ClusterModel model, List<ClusterAction> actions) {
        /** Copies. */
        public Setup {
            actions = List.copyOf(actions);
        }
    }

    /**
     * @param file a cluster YAML file
     * @return the clusters present at the start, and the clusters lost and joining later
     * @throws SimulationConfigException naming the file and line of the first error
     */
    public static Setup loadSetup(Path file) {
        return YamlFiles.read(file, ClusterConfig.class).toSetup(file.toString(), Map.of(), Map.of());
    }

    /**
     * @param source the file name used in errors
     * @param joinAt clusters (of this file) that join later, by name → simulated millisecond, besides those with
     *     {@code joinAtSeconds}
     * @param lostAt clusters lost at a given simulated millisecond, besides those with {@code lostAtSeconds}
     * @return the clusters present at the start, and the clusters lost and joining later
     * @throws SimulationConfigException when a cluster named is not in this file, or a joining cluster has node pools
     */
    public Setup toSetup(String source, Map<String, Long> joinAt, Map<String, Long> lostAt) {
        Map<String, Long> joins = new LinkedHashMap<>(joinAt);
        Map<String, Long> losses = new LinkedHashMap<>(lostAt);
        Set<String> names = new java.util.TreeSet<>();
        for (ClusterEntry c : clusters) {
            names.add(c.name());
            if (c.joinAtSeconds() != null) {
                joins.putIfAbsent(c.name(), Math.round(c.joinAtSeconds() * 1000));
            }
            if (c.lostAtSeconds() != null) {
                losses.putIfAbsent(c.name(), Math.round(c.lostAtSeconds() * 1000));
            }
        }
        for (String n : joins.keySet()) {
            if (!names.contains(n)) {
                throw new SimulationConfigException(source, 0, 0, "joinCluster: cluster " + n + " is not described in the cluster section (known: "
                        + names + ")", null);
            }
        }
        for (String n : losses.keySet()) {
            if (!names.contains(n)) {
                throw new SimulationConfigException(source, 0, 0, "loseCluster: cluster " + n + " is not described in the cluster section (known: "
                        + names + ")", null);
            }
            if (joins.containsKey(n) && joins.get(n) >= losses.get(n)) {
                throw new SimulationConfigException(source, 0, 0, "cluster " + n + ": lost at " + losses.get(n) / 1000.0 + " s, which is not after it joins at "
                        + joins.get(n) / 1000.0 + " s", null);
            }
        }
        List<ClusterEntry> present = new ArrayList<>();
        List<ClusterAction> actions = new ArrayList<>();
        for (ClusterEntry c : clusters) {
            if (joins.containsKey(c.name())) {
                if (!c.nodePools().isEmpty()) {
                    throw new SimulationConfigException(source, 0, 0, "cluster " + c.name() + " joins later, so it cannot have node pools", null);
                }
                List<Node> ns = new ArrayList<>();
                for (NodeGroup g : c.nodeGroups()) {
                    ns.addAll(g.nodes(c.name()));
                }
                actions.add(new ClusterAction.JoinCluster(joins.get(c.name()), new ClusterSpec(c.name(), c.topologyLevels()), ns));
            } else {
                present.add(c);
            }
            if (losses.containsKey(c.name())) {
                actions.add(new ClusterAction.LoseCluster(losses.get(c.name()), c.name()));
            }
        }
        if (present.isEmpty()) {
            throw new SimulationConfigException(source, 0, 0, "every cluster joins later; at least one must be present at the start", null);
        }
        ClusterModel m = new ClusterConfig(present).toModel(source);
        Set<String> nodeNames = new HashSet<>();
        m.nodes().forEach(n -> nodeNames.add(n.name()));
        for (ClusterAction a : actions) {
            if (a instanceof ClusterAction.JoinCluster j) {
                for (Node n : j.nodes()) {
                    if (!nodeNames.add(n.name())) {
                        throw new SimulationConfigException(source, 0, 0, "cluster " + j.cluster().name() + ": node name " + n.name()
                                + " is used twice; give the node groups different namePrefix values", null);
                    }
                }
            }
        }
        actions.sort(java.util.Comparator.comparingLong(ClusterAction::atMillis));
        return new Setup(m, actions);
    }

    /**
     * @param resource a class-path resource
     * @return the cluster model
     */
    public static ClusterModel loadResource(String resource) {
        return YamlFiles.readResource(resource, ClusterConfig.class).toModel("classpath:" + resource);
    }

    /**
     * @param source the file name used in errors
     * @return the cluster model: cluster specs and nodes
     * @throws SimulationConfigException on an error found only across entries (a node name used twice)
     */
    public ClusterModel toModel(String source) {
        List<ClusterSpec> specs = new ArrayList<>();
        List<Node> nodes = new ArrayList<>();
        Set<String> nodeNames = new HashSet<>();
        List<SimNodePool> pools = new ArrayList<>();
        Set<String> poolNames = new HashSet<>();
        Map<String, Double> prices = new LinkedHashMap<>();
        for (ClusterEntry c : clusters) {
            specs.add(new ClusterSpec(c.name(), c.topologyLevels()));
            for (NodeGroup g : c.nodeGroups()) {
                for (Node n : g.nodes(c.name())) {
                    if (!nodeNames.add(n.name())) {
                        throw new SimulationConfigException(source, 0, 0, "cluster " + c.name() + ", node group " + g.namePrefix() + ": node name "
                                + n.name() + " is used twice; give the node groups different namePrefix values", null);
                    }
                    nodes.add(n);
                    if (g.pricePerHour() > 0) {
                        prices.put(n.name(), g.pricePerHour());
                    }
                }
            }
            for (NodePoolConfig p : c.nodePools()) {
                if (!poolNames.add(p.name())) {
                    throw new SimulationConfigException(source, 0, 0, "cluster " + c.name() + ": node pool " + p.name() + " is listed twice", null);
                }
                pools.add(new SimNodePool(p.toModel(c.name()), p.interruptionRates(), p.interruptionNoticeSeconds()));
            }
        }
        try {
            return new ClusterModel(specs, nodes, pools, prices);
        } catch (InvalidSpecException e) {
            throw new SimulationConfigException(source, 0, 0, e.getMessage(), e);
        }
    }

    /**
     * One cluster.
     *
     * @param name its name
     * @param topologyLevels node label keys, broadest first
     * @param nodeGroups its nodes, by group
     * @param nodePools its node pools
     * @param joinAtSeconds when it joins (absent until then), or null when present from the start
     * @param lostAtSeconds when it is lost (its executor falls silent), or null
     */
    public record ClusterEntry(String name, List<String> topologyLevels, List<NodeGroup> nodeGroups, List<NodePoolConfig> nodePools,
                               Double joinAtSeconds, Double lostAtSeconds) {
        /** Normalises and validates. */
        public ClusterEntry {
            name = name == null || name.isBlank() ? Node.DEFAULT_CLUSTER : name;
            topologyLevels = Names.list("topologyLevels", topologyLevels);
            nodeGroups = Names.list("nodeGroups", nodeGroups);
            nodePools = Names.list("nodePools", nodePools);
            new ClusterSpec(name, topologyLevels);
            InvalidSpecException.check(!nodeGroups.isEmpty() || !nodePools.isEmpty(), "nodeGroups", nodeGroups,
                    "cluster %s: at least one node group or node pool is required", name);
            InvalidSpecException.check(joinAtSeconds == null || joinAtSeconds >= 0 && Double.isFinite(joinAtSeconds), "joinAtSeconds",
                    joinAtSeconds, "cluster %s: joinAtSeconds must be >= 0, was %s", name, joinAtSeconds);
            InvalidSpecException.check(lostAtSeconds == null || lostAtSeconds >= 0 && Double.isFinite(lostAtSeconds), "lostAtSeconds",
                    lostAtSeconds, "cluster %s: lostAtSeconds must be >= 0, was %s", name, lostAtSeconds);
        }
    }

    /**
     * A group of identical nodes.
     *
     * @param namePrefix node names are {@code <namePrefix>-0}, {@code <namePrefix>-1}, ...
     * @param count how many nodes
     * @param gpuShape the GPU shape as {@link GpuTopology#named} knows it, or {@code none}
     * @param gpuModel the GPU product name
     * @param cpu CPU per node (quantity)
     * @param memory memory per node (quantity)
     * @param labels labels of every node
     * @param racks spread the nodes over this many racks in contiguous blocks, labelled {@code rackLabel}
     * @param rackLabel the rack label key (default {@code fairway.io/rack})
     * @param taints taints of every node
     * @param resources extended resources per node (quantities)
     * @param pricePerHour the cost of a node-hour (default 0), for cost reports
     */
    public record NodeGroup(String namePrefix, Integer count, String gpuShape, String gpuModel, String cpu, String memory,
                            Map<String, String> labels, Integer racks, String rackLabel, List<TaintConfig> taints,
                            Map<String, String> resources, Double pricePerHour) implements Validated {
        /** Normalises; {@link #validate()} checks every field by building one node. */
        public NodeGroup {
            Names.require("namePrefix", namePrefix);
            InvalidSpecException.check(count != null && count >= 1 && count <= 100_000, "count", count,
                    "node group %s: count must be in 1..100000, was %s", namePrefix, count);
            gpuShape = gpuShape == null || gpuShape.isBlank() ? "none" : gpuShape;
            gpuModel = gpuModel == null || gpuModel.isBlank() ? "gpu" : gpuModel;
            labels = labels == null ? Map.of() : Map.copyOf(labels);
            racks = racks == null ? 0 : racks;
            InvalidSpecException.check(racks >= 0 && racks <= count, "racks", racks,
                    "node group %s: racks must be in 0..count (%d), was %d", namePrefix, count, racks);
            rackLabel = rackLabel == null || rackLabel.isBlank() ? ClusterSpec.RACK_LABEL : rackLabel;
            taints = Names.list("taints", taints);
            resources = resources == null ? Map.of() : Map.copyOf(resources);
            pricePerHour = pricePerHour == null ? 0.0 : pricePerHour;
            InvalidSpecException.check(pricePerHour >= 0 && Double.isFinite(pricePerHour), "pricePerHour", pricePerHour,
                    "node group %s: pricePerHour must be >= 0, was %s", namePrefix, pricePerHour);
        }

        @Override
        public void validate() {
            node(Node.DEFAULT_CLUSTER, 0);
        }

        /** @return the GPUs of one node */
        GpuTopology topology() {
            return gpuShape.equals("none") ? GpuTopology.NONE : GpuTopology.named(gpuShape, gpuModel);
        }

        Node node(String cluster, int i) {
            Map<String, String> quantities = new LinkedHashMap<>(resources);
            if (cpu != null) {
                quantities.put(Resources.CPU, cpu);
            }
            if (memory != null) {
                quantities.put(Resources.MEMORY, memory);
            }
            Map<String, String> l = new LinkedHashMap<>(labels);
            if (racks > 0) {
                l.put(rackLabel, "rack-" + (int) ((long) i * racks / count));
            }
            List<Taint> ts = new ArrayList<>();
            for (TaintConfig t : taints) {
                ts.add(new Taint(t.key(), t.value(), t.effect()));
            }
            return Node.builder(namePrefix + "-" + i).cluster(cluster).capacity(Resources.parse(quantities)).gpus(topology())
                    .labels(l).taints(ts).build();
        }

        List<Node> nodes(String cluster) {
            List<Node> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                out.add(node(cluster, i));
            }
            return out;
        }
    }
}
