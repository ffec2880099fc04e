package io.fairway.k8s;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import io.fairway.api.model.Toleration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The adapter's configuration file: flavors, cohorts, ClusterQueues and LocalQueues with Kueue's field names (the
 * same schema as the simulator's queues YAML), plus the policy and the cluster's topology levels. It is usually
 * mounted from a ConfigMap and reloaded when the ConfigMap changes.
 *
 * <pre>
 * policy: best-effort-fifo                 # any policy on the class path; default best-effort-fifo
 * policyParameters: {}
 * topologyLevels: [topology.kubernetes.io/zone, fairway.io/rack]   # broadest first; the host is implicit
 * flavors:
 *   - name: default
 *   - name: h100
 *     nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
 *     tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
 * cohorts:
 *   - name: research
 * clusterQueues:
 *   - name: team-a
 *     cohort: research
 *     queueingStrategy: BestEffortFIFO
 *     preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: Never}}
 *     resourceGroups:
 *       - coveredResources: [cpu, memory]
 *         flavors:
 *           - name: default
 *             resources:
 *               - {name: cpu, nominalQuota: 64}
 *               - {name: memory, nominalQuota: 512Gi, borrowingLimit: 128Gi}
 * localQueues:
 *   - {name: batch, namespace: team-a, clusterQueue: team-a}
 * nodePools:                               # optional: Karpenter NodeClaims for admitted gangs that fit no node
 *   - name: gpu                            # the Karpenter NodePool (label karpenter.sh/nodepool)
 *     provisioningDelaySeconds: 180        # how long a claimed node takes to join (default 60)
 *     consolidationDelaySeconds: 300       # empty this long: its NodeClaim is deleted (default 300)
 *     consolidation: WhenEmpty             # or WhenUnderutilized: also move checkpointing jobs off under-used nodes
 *     limits: {nvidia.com/gpu: "64"}
 *     labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
 *     instanceTypes:
 *       - {name: p5.48xlarge, cpu: "190", memory: 1900Gi, gpuShape: nvswitch-8, gpuModel: H100,
 *          pricePerHour: 98.32, capacityType: on-demand}
 * </pre>
 *
 * @param policy the policy name
 * @param policyParameters the policy's parameters
 * @param topologyLevels node label keys of the topology levels, broadest first
 * @param flavors the ResourceFlavors
 * @param cohorts the cohorts
 * @param clusterQueues the ClusterQueues
 * @param localQueues the LocalQueues
 * @param nodePools node pools the adapter provisions from with Karpenter NodeClaims (empty: none)
 */
public record QueueConfig(String policy, Map<String, String> policyParameters, List<String> topologyLevels,
                          List<FlavorConfig> flavors, List<CohortConfig> cohorts, List<ClusterQueueConfig> clusterQueues,
                          List<LocalQueueConfig> localQueues, List<NodePoolConfig> nodePools) {
    /** The policy used when the file names none. */
    public static final String DEFAULT_POLICY = "best-effort-fifo";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY);

    /** Defaults and validates: names unique per kind, every flavor named by a quota defined. */
    public QueueConfig {
        policy = policy == null || policy.isBlank() ? DEFAULT_POLICY : policy;
        policyParameters = policyParameters == null ? Map.of() : Map.copyOf(policyParameters);
        topologyLevels = list("topologyLevels", topologyLevels);
        flavors = list("flavors", flavors);
        cohorts = list("cohorts", cohorts);
        clusterQueues = list("clusterQueues", clusterQueues);
        localQueues = list("localQueues", localQueues);
        nodePools = list("nodePools", nodePools);
        unique("flavors", flavors.stream().map(FlavorConfig::name).toList());
        unique("cohorts", cohorts.stream().map(CohortConfig::name).toList());
        unique("clusterQueues", clusterQueues.stream().map(ClusterQueueConfig::name).toList());
        unique("localQueues", localQueues.stream().map(q -> q.namespace() + "/" + q.name()).toList());
        flavors.forEach(FlavorConfig::toModel);
        cohorts.forEach(CohortConfig::toModel);
        clusterQueues.forEach(ClusterQueueConfig::toModel);
        localQueues.forEach(LocalQueueConfig::toModel);
        unique("nodePools", nodePools.stream().map(NodePoolConfig::name).toList());
        nodePools.forEach(NodePoolConfig::toModel);
        Set<String> flavorNames = new HashSet<>(flavors.stream().map(FlavorConfig::name).toList());
        for (CohortConfig c : cohorts) {
            checkFlavors("cohort " + c.name(), c.resourceGroups(), flavorNames);
        }
        for (ClusterQueueConfig q : clusterQueues) {
            checkFlavors("ClusterQueue " + q.name(), q.resourceGroups(), flavorNames);
        }
    }

    /** The largest configuration read: 1 MiB, the most a ConfigMap holds. */
    static final int MAX_CHARS = 1 << 20;
    /** The longest line: one long scalar makes the YAML parser quadratic in its length. */
    static final int MAX_LINE = 64 << 10;

    /** Refuses a configuration too large, or with a line too long, before it reaches the YAML parser. */
    private static void checkBounds(String source, String yaml) {
        if (yaml.length() > MAX_CHARS) {
            throw new InvalidSpecException("config", source, source + ": the configuration is " + yaml.length() + " characters; at most "
                    + MAX_CHARS + " are read");
        }
        int line = 1;
        int start = 0;
        for (int i = 0; i <= yaml.length(); i++) {
            if (i == yaml.length() || yaml.charAt(i) == '\n') {
                if (i - start > MAX_LINE) {
                    throw new InvalidSpecException("config", source, source + " line " + line + ": the line is " + (i - start)
                            + " characters long; at most " + MAX_LINE);
                }
                line++;
                start = i + 1;
            }
        }
    }

    /**
     * Reads the YAML text.
     *
     * @param source where the text came from, for messages ({@code configmap fairway-system/fairway-queues})
     * @param yaml the text
     * @return the configuration
     * @throws InvalidSpecException naming the source, the line and the field of the first error
     */
    public static QueueConfig parse(String source, String yaml) {
        if (yaml == null || yaml.isBlank()) {
            throw new InvalidSpecException("config", source, source + ": the configuration is empty");
        }
        checkBounds(source, yaml);
        try {
            QueueConfig c = YAML.readValue(yaml, QueueConfig.class);
            if (c == null) {
                throw new InvalidSpecException("config", source, source + ": the configuration is empty");
            }
            return c;
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            StringBuilder path = new StringBuilder();
            if (e instanceof JsonMappingException m) {
                for (JsonMappingException.Reference r : m.getPath()) {
                    if (r.getFieldName() != null) {
                        path.append(path.length() > 0 ? "." : "").append(r.getFieldName());
                    } else if (r.getIndex() >= 0) {
                        path.append('[').append(r.getIndex()).append(']');
                    }
                }
            }
            Throwable cause = e.getCause();
            String msg = cause instanceof IllegalArgumentException ? cause.getMessage() : firstLine(e.getOriginalMessage());
            String where = loc == null || loc.getLineNr() <= 0 ? "" : " line " + loc.getLineNr();
            throw new InvalidSpecException(path.length() == 0 ? "config" : path.toString(), source,
                    source + where + ": " + (path.length() == 0 ? "" : path + ": ") + msg);
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return (nl > 0 ? s.substring(0, nl) : s).replace("io.fairway.k8s.QueueConfig$", "");
    }

    /** @return the ResourceFlavors */
    public List<ResourceFlavor> flavorModels() {
        return flavors.stream().map(FlavorConfig::toModel).toList();
    }

    /** @return the cohorts */
    public List<Cohort> cohortModels() {
        return cohorts.stream().map(CohortConfig::toModel).toList();
    }

    /** @return the ClusterQueues */
    public List<ClusterQueue> clusterQueueModels() {
        return clusterQueues.stream().map(ClusterQueueConfig::toModel).toList();
    }

    /** @return the LocalQueues */
    public List<LocalQueue> localQueueModels() {
        return localQueues.stream().map(LocalQueueConfig::toModel).toList();
    }

    /** @return the node pools, in the order given */
    public List<NodePool> nodePoolModels() {
        return nodePools.stream().map(NodePoolConfig::toModel).toList();
    }

    private static void checkFlavors(String owner, List<ResourceGroupConfig> groups, Set<String> flavorNames) {
        for (ResourceGroupConfig g : groups) {
            for (FlavorQuotasConfig f : g.flavors()) {
                InvalidSpecException.check(flavorNames.contains(f.name()), "flavors", f.name(),
                        "%s: flavor %s is not defined under flavors (defined: %s)", owner, f.name(), flavorNames.stream().sorted().toList());
            }
        }
    }

    private static void unique(String field, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            InvalidSpecException.check(seen.add(n), field, n, "%s: %s is listed twice", field, n);
        }
    }

    static <T> List<T> list(String field, List<T> l) {
        if (l == null) {
            return List.of();
        }
        for (int i = 0; i < l.size(); i++) {
            InvalidSpecException.check(l.get(i) != null, field + "[" + i + "]", null, "%s[%d] is empty", field, i);
        }
        return List.copyOf(l);
    }

    /** Reads Kueue's CamelCase values ({@code StrictFIFO}, {@code LowerPriority}) as enum constants. */
    static <E extends Enum<E>> E enumValue(Class<E> type, String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String key = value.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
        List<String> known = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            if (e.name().replace("_", "").toLowerCase(Locale.ROOT).equals(key)) {
                return e;
            }
            known.add(e.name());
        }
        throw new InvalidSpecException(field, value, field + ": unknown value \"" + value + "\"; known: " + String.join(", ", known));
    }

    /**
     * A ResourceFlavor.
     *
     * @param name its name
     * @param nodeLabels labels selecting its nodes (empty: every node)
     * @param nodeTaints taints its nodes carry
     * @param tolerations tolerations added to pods admitted with it
     */
    public record FlavorConfig(String name, Map<String, String> nodeLabels, List<TaintConfig> nodeTaints, List<TolerationConfig> tolerations) {
        /** Validates. */
        public FlavorConfig {
            nodeLabels = nodeLabels == null ? Map.of() : Map.copyOf(nodeLabels);
            nodeTaints = list("nodeTaints", nodeTaints);
            tolerations = list("tolerations", tolerations);
        }

        ResourceFlavor toModel() {
            return new ResourceFlavor(name, nodeLabels, nodeTaints.stream().map(TaintConfig::toModel).toList(),
                    tolerations.stream().map(TolerationConfig::toModel).toList());
        }
    }

    /**
     * A taint.
     *
     * @param key the key
     * @param value the value
     * @param effect NoSchedule, PreferNoSchedule or NoExecute
     */
    public record TaintConfig(String key, String value, String effect) {

        Taint toModel() {
            return new Taint(key, value, effect);
        }
    }

    /**
     * A toleration.
     *
     * @param key the taint key
     * @param operator Equal or Exists
     * @param value the value for Equal
     * @param effect the effect, or empty for all
     */
    public record TolerationConfig(String key, String operator, String value, String effect) {

        Toleration toModel() {
            return new Toleration(key, operator, value, effect);
        }
    }

    /**
     * A cohort.
     *
     * @param name its name
     * @param parent its parent cohort, or null
     * @param resourceGroups quota the cohort holds itself
     * @param fairSharing its fair-sharing weight within its parent
     */
    public record CohortConfig(String name, String parent, List<ResourceGroupConfig> resourceGroups, FairSharingConfig fairSharing) {
        /** Validates. */
        public CohortConfig {
            resourceGroups = list("resourceGroups", resourceGroups);
        }

        Cohort toModel() {
            return new Cohort(name, parent, resourceGroups.stream().map(ResourceGroupConfig::toModel).toList(),
                    fairSharing == null ? 1.0 : fairSharing.weight());
        }
    }

    /**
     * A ClusterQueue.
     *
     * @param name its name
     * @param cohort its cohort, or null
     * @param queueingStrategy {@code StrictFIFO} or {@code BestEffortFIFO}; omitted: the policy decides
     * @param resourceGroups its quota
     * @param preemption when its jobs may preempt others (default never)
     * @param fairSharing its fair-sharing weight
     * @param fairSharingWeight shorthand for {@code fairSharing.weight}
     * @param flavorFungibility {@code {whenCanBorrow: Borrow|TryNextFlavor}}
     * @param priorityFactor its priority factor for fair share over time (default 1)
     * @param stopPolicy {@code None}, {@code Hold} or {@code HoldAndDrain}: admit nothing new unless None
     */
    public record ClusterQueueConfig(String name, String cohort, String queueingStrategy, List<ResourceGroupConfig> resourceGroups,
                                     PreemptionConfig preemption, FairSharingConfig fairSharing, Double fairSharingWeight,
                                     FlavorFungibilityConfig flavorFungibility, Double priorityFactor, String stopPolicy) {
        /** Normalises and checks the stop policy. */
        public ClusterQueueConfig {
            resourceGroups = list("resourceGroups", resourceGroups);
            InvalidSpecException.check(fairSharing == null || fairSharingWeight == null, "fairSharingWeight", fairSharingWeight,
                    "ClusterQueue %s: give fairSharing.weight or fairSharingWeight, not both", name);
            InvalidSpecException.check(stopPolicy == null || List.of("None", "Hold", "HoldAndDrain").contains(stopPolicy), "stopPolicy", stopPolicy,
                    "ClusterQueue %s: stopPolicy must be None, Hold or HoldAndDrain, was %s", name, stopPolicy);
        }

        ClusterQueue toModel() {
            ClusterQueue.Builder b = ClusterQueue.builder(name)
                    .cohort(cohort)
                    .queueingStrategy(enumValue(QueueingStrategy.class, "queueingStrategy", queueingStrategy))
                    .preemption(preemption == null ? PreemptionPolicy.NEVER : preemption.toModel())
                    .fairSharingWeight(fairSharingWeight != null ? fairSharingWeight : fairSharing != null ? fairSharing.weight() : 1.0)
                    .priorityFactor(priorityFactor == null ? 1.0 : priorityFactor)
                    .stopped(stopPolicy != null && !stopPolicy.equals("None"));
            if (flavorFungibility != null) {
                b.flavorFungibility(flavorFungibility.toModel());
            }
            resourceGroups.forEach(g -> b.resourceGroup(g.toModel()));
            return b.build();
        }
    }

    /**
     * A resource group.
     *
     * @param coveredResources the resources it covers
     * @param flavors the flavors in the order they are tried
     */
    public record ResourceGroupConfig(List<String> coveredResources, List<FlavorQuotasConfig> flavors) {
        /** Validates. */
        public ResourceGroupConfig {
            coveredResources = list("coveredResources", coveredResources);
            flavors = list("flavors", flavors);
        }

        ResourceGroup toModel() {
            return new ResourceGroup(coveredResources, flavors.stream().map(FlavorQuotasConfig::toModel).toList());
        }
    }

    /**
     * The quotas of one flavor in a resource group.
     *
     * @param name the flavor
     * @param resources one quota per covered resource
     */
    public record FlavorQuotasConfig(String name, List<ResourceQuotaConfig> resources) {
        /** Validates. */
        public FlavorQuotasConfig {
            InvalidSpecException.requireName("flavors[].name", name);
            resources = list("resources", resources);
        }

        FlavorQuotas toModel() {
            return new FlavorQuotas(name, resources.stream().map(ResourceQuotaConfig::toModel).toList());
        }
    }

    /**
     * The quota of one resource; quantities as in Kubernetes ({@code 64}, {@code 500m}, {@code 512Gi}).
     *
     * @param name the resource
     * @param nominalQuota the nominal quota
     * @param borrowingLimit how much above nominal it may borrow (omitted: unlimited)
     * @param lendingLimit how much of its unused nominal quota it lends (omitted: all)
     */
    public record ResourceQuotaConfig(String name, String nominalQuota, String borrowingLimit, String lendingLimit) {
        /** Validates. */
        public ResourceQuotaConfig {
            InvalidSpecException.requireName("resources[].name", name);
        }

        ResourceQuota toModel() {
            InvalidSpecException.check(nominalQuota != null && !nominalQuota.isBlank(), "nominalQuota", nominalQuota,
                    "resource %s: nominalQuota is required", name);
            return new ResourceQuota(name, Quantities.parse(name, nominalQuota),
                    borrowingLimit == null ? ResourceQuota.UNLIMITED : Quantities.parse(name, borrowingLimit),
                    lendingLimit == null ? ResourceQuota.UNLIMITED : Quantities.parse(name, lendingLimit));
        }
    }

    /**
     * Kueue's {@code preemption} block.
     *
     * @param withinClusterQueue Never, LowerPriority or LowerOrNewerEqualPriority
     * @param reclaimWithinCohort Never, LowerPriority or Any
     * @param borrowWithinCohort {@code {policy: Never|LowerPriority}}
     */
    public record PreemptionConfig(String withinClusterQueue, String reclaimWithinCohort, BorrowWithinCohortConfig borrowWithinCohort) {

        PreemptionPolicy toModel() {
            return new PreemptionPolicy(
                    enumValue(PreemptionPolicy.WithinClusterQueue.class, "withinClusterQueue", withinClusterQueue),
                    enumValue(PreemptionPolicy.ReclaimWithinCohort.class, "reclaimWithinCohort", reclaimWithinCohort),
                    borrowWithinCohort == null ? null
                            : enumValue(PreemptionPolicy.BorrowWithinCohort.class, "borrowWithinCohort.policy", borrowWithinCohort.policy()));
        }
    }

    /**
     * Kueue's {@code borrowWithinCohort}.
     *
     * @param policy Never or LowerPriority
     */
    public record BorrowWithinCohortConfig(String policy) {
    }

    /**
     * Kueue's {@code fairSharing}.
     *
     * @param weight the weight (&gt; 0; default 1)
     */
    public record FairSharingConfig(Double weight) {
        /** Defaults and validates. */
        public FairSharingConfig {
            weight = weight == null ? 1.0 : weight;
            InvalidSpecException.check(weight > 0 && Double.isFinite(weight), "fairSharing.weight", weight,
                    "fairSharing.weight must be > 0, was %s", weight);
        }
    }

    /**
     * Kueue's {@code flavorFungibility}.
     *
     * @param whenCanBorrow {@code Borrow} or {@code TryNextFlavor}
     * @param whenCanPreempt accepted for compatibility with Kueue files; not used
     */
    public record FlavorFungibilityConfig(String whenCanBorrow, String whenCanPreempt) {

        FlavorFungibility toModel() {
            if (whenCanBorrow == null || whenCanBorrow.equals("Borrow")) {
                return FlavorFungibility.BORROW_FIRST;
            }
            if (whenCanBorrow.equals("TryNextFlavor")) {
                return FlavorFungibility.TRY_NEXT_FLAVOR;
            }
            throw new InvalidSpecException("flavorFungibility.whenCanBorrow", whenCanBorrow,
                    "flavorFungibility.whenCanBorrow must be Borrow or TryNextFlavor, was " + whenCanBorrow);
        }
    }

    /**
     * A LocalQueue.
     *
     * @param name its name
     * @param namespace its namespace (default {@code default})
     * @param clusterQueue the ClusterQueue it feeds
     */
    public record LocalQueueConfig(String name, String namespace, String clusterQueue) {
        /** Validates. */
        public LocalQueueConfig {
            namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        }

        LocalQueue toModel() {
            return new LocalQueue(namespace, name, clusterQueue);
        }
    }

    /**
     * A node pool, as Karpenter's NodePool and with the simulator's field names: the instance types the adapter may
     * claim nodes of, limits, and how fast nodes come and go. Its nodes carry its labels and taints.
     *
     * @param name the pool name: the Karpenter NodePool its NodeClaims name in {@value NodePool#POOL_LABEL}
     * @param instanceTypes the instance types it may claim
     * @param limits the most its nodes may add up to (quantities); resources not named are unlimited
     * @param provisioningDelaySeconds seconds a claimed node usually takes to join (default 60)
     * @param consolidationDelaySeconds seconds a node stays empty before its NodeClaim is deleted (default 300)
     * @param labels labels of its nodes (put on the NodeClaim, which Karpenter copies to the Node)
     * @param taints taints of its nodes
     * @param consolidation Karpenter's consolidation policy: {@code WhenEmpty} (default) or {@code WhenUnderutilized}
     *     (checkpointing jobs are also moved off under-used nodes)
     */
    public record NodePoolConfig(String name, List<InstanceTypeConfig> instanceTypes, Map<String, String> limits,
                                 Double provisioningDelaySeconds, Double consolidationDelaySeconds, Map<String, String> labels,
                                 List<TaintConfig> taints, String consolidation) {
        /** Defaults and validates. */
        public NodePoolConfig {
            InvalidSpecException.requireName("nodePools[].name", name);
            instanceTypes = list("nodePools[" + name + "].instanceTypes", instanceTypes);
            limits = limits == null ? Map.of() : Map.copyOf(limits);
            provisioningDelaySeconds = provisioningDelaySeconds == null ? 60.0 : provisioningDelaySeconds;
            consolidationDelaySeconds = consolidationDelaySeconds == null ? 300.0 : consolidationDelaySeconds;
            for (Map.Entry<String, Double> e : Map.of("provisioningDelaySeconds", provisioningDelaySeconds, "consolidationDelaySeconds",
                    consolidationDelaySeconds).entrySet()) {
                InvalidSpecException.check(e.getValue() >= 0 && Double.isFinite(e.getValue()), "nodePools[" + name + "]." + e.getKey(), e.getValue(),
                        "node pool %s: %s must be >= 0, was %s", name, e.getKey(), e.getValue());
            }
            labels = labels == null ? Map.of() : Map.copyOf(labels);
            taints = list("nodePools[" + name + "].taints", taints);
            NodePool.Consolidation.parse("nodePools[" + name + "].consolidation", consolidation); // refuses an unknown one
        }

        NodePool toModel() {
            return new NodePool(name, null, instanceTypes.stream().map(InstanceTypeConfig::toModel).toList(), Resources.parse(limits),
                    Math.round(provisioningDelaySeconds * 1000), Math.round(consolidationDelaySeconds * 1000), labels,
                    taints.stream().map(TaintConfig::toModel).toList(), NodePool.Consolidation.parse("nodePools[" + name + "].consolidation", consolidation));
        }
    }

    /**
     * An instance type of a node pool: what one node of it offers (its allocatable resources).
     *
     * @param name the instance type ({@value NodePool#INSTANCE_TYPE_LABEL})
     * @param cpu CPU per node (quantity)
     * @param memory memory per node (quantity)
     * @param gpuShape the GPU shape ({@code nvswitch-8}, {@code pcie-4} …; {@code none} or omitted for a CPU machine)
     * @param gpuModel the GPU product
     * @param pricePerHour the price of a node-hour
     * @param capacityType {@code spot} or {@code on-demand} (default)
     * @param resources other resources per node (quantities)
     */
    public record InstanceTypeConfig(String name, String cpu, String memory, String gpuShape, String gpuModel, Double pricePerHour,
                                     String capacityType, Map<String, String> resources) {
        /** Defaults and validates. */
        public InstanceTypeConfig {
            InvalidSpecException.requireName("instanceTypes[].name", name);
            pricePerHour = pricePerHour == null ? 0.0 : pricePerHour;
            capacityType = capacityType == null || capacityType.isBlank() ? "on-demand" : capacityType.trim().toLowerCase(Locale.ROOT);
            InvalidSpecException.check(capacityType.equals("spot") || capacityType.equals("on-demand"), "instanceTypes[" + name + "].capacityType",
                    capacityType, "instance type %s: capacityType must be spot or on-demand, was %s", name, capacityType);
            resources = resources == null ? Map.of() : Map.copyOf(resources);
        }

        InstanceType toModel() {
            Map<String, String> q = new java.util.LinkedHashMap<>(resources);
            if (cpu != null) {
                q.put(Resources.CPU, cpu);
            }
            if (memory != null) {
                q.put(Resources.MEMORY, memory);
            }
            return new InstanceType(name, Resources.parse(q), gpuShape, gpuModel, pricePerHour,
                    capacityType.equals("spot") ? CapacityType.SPOT : CapacityType.ON_DEMAND);
        }
    }
}
