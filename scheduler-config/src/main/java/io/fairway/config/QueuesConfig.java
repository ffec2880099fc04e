package io.fairway.config;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Toleration;
import io.fairway.api.job.JobSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Kueue vocabulary as read from YAML, one model for the simulator's queues files (and a scenario's
 * {@code queues:} section) and the Kubernetes adapter's queue configuration: ResourceFlavors, cohorts,
 * ClusterQueues and LocalQueues with Kueue's field names ({@code nominalQuota}, {@code borrowingLimit},
 * {@code lendingLimit}, {@code coveredResources}, {@code queueingStrategy}, {@code preemption},
 * {@code fairSharing.weight}), node pools (Karpenter's NodePool), the cluster's topology levels and the policy.
 * All of the mapping from YAML to the api model lives in this module. The simulator takes its policies from the
 * command line or the scenario, its topology levels and node pools from the cluster file; the adapter takes them
 * all from here.
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
 *     queueingStrategy: BestEffortFIFO        # or StrictFIFO; omit to let the policy decide
 *     preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: Never}}
 *     # borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}; cohortRules: Kueue (default) | FairwayStrict
 *     namespaceSelector: {matchLabels: {team: a}}   # omit: every namespace; matched against localQueues' namespaceLabels
 *     flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}
 *     fairSharing: {weight: 2}
 *     resourceGroups:
 *       - coveredResources: [cpu, memory, nvidia.com/gpu]
 *         flavors:
 *           - name: default
 *             resources:
 *               - {name: cpu, nominalQuota: 64}
 *               - {name: memory, nominalQuota: 512Gi}
 *               - {name: nvidia.com/gpu, nominalQuota: 16, borrowingLimit: 8, lendingLimit: 4}
 * localQueues:
 *   - {name: gpu, namespace: team-a, clusterQueue: team-a, namespaceLabels: {team: a}}
 * nodePools:                               # see NodePoolConfig
 *   - name: gpu
 *     instanceTypes:
 *       - {name: p5.48xlarge, cpu: "190", memory: 1900Gi, gpuShape: nvswitch-8, gpuModel: H100, pricePerHour: 98.32}
 * integrations: [batch/v1.Job, jobset.x-k8s.io/v1alpha2.JobSet]   # Kubernetes adapter: kinds it queues; default batch/v1.Job
 * </pre>
 *
 * @param policy the policy name (default {@value #DEFAULT_POLICY})
 * @param policyParameters the policy's parameters
 * @param topologyLevels node label keys of the topology levels, broadest first
 * @param flavors the ResourceFlavors
 * @param cohorts the cohorts
 * @param clusterQueues the ClusterQueues
 * @param localQueues the LocalQueues
 * @param nodePools node pools nodes may be provisioned from (empty: none)
 * @param integrations the Kubernetes adapter's integrations to enable, by name (empty: the adapter's default); the
 *     adapter checks the names
 * @param priorityClasses the priority classes jobs may name ({@code [{name: system, value: 1000, preemptible: false}]}):
 *     a job takes its class's value as its priority, and a job of a class that is not preemptible is never preempted
 */
public record QueuesConfig(String policy, Map<String, String> policyParameters, List<String> topologyLevels,
                           List<FlavorConfig> flavors, List<CohortConfig> cohorts, List<ClusterQueueConfig> clusterQueues,
                           List<LocalQueueConfig> localQueues, List<NodePoolConfig> nodePools, List<String> integrations,
                           List<PriorityClassConfig> priorityClasses) implements Validated {
    /** The policy used when the file names none. */
    public static final String DEFAULT_POLICY = "best-effort-fifo";
    /** The largest configuration {@link #parse} reads: 1 MiB, the most a ConfigMap holds. */
    public static final int MAX_CHARS = 1 << 20;
    /** The longest line {@link #parse} reads: one long scalar makes the YAML parser quadratic in its length. */
    public static final int MAX_LINE = 64 << 10;

    /** Defaults and validates names unique per kind; {@link #checkFlavors()} checks the flavors quotas name. */
    public QueuesConfig {
        policy = policy == null || policy.isBlank() ? DEFAULT_POLICY : policy;
        policyParameters = policyParameters == null ? Map.of() : Map.copyOf(policyParameters);
        topologyLevels = Names.list("topologyLevels", topologyLevels);
        flavors = Names.list("flavors", flavors);
        cohorts = Names.list("cohorts", cohorts);
        clusterQueues = Names.list("clusterQueues", clusterQueues);
        localQueues = Names.list("localQueues", localQueues);
        nodePools = Names.list("nodePools", nodePools);
        integrations = Names.list("integrations", integrations);
        unique("flavors", flavors.stream().map(FlavorConfig::name).toList());
        unique("cohorts", cohorts.stream().map(CohortConfig::name).toList());
        unique("clusterQueues", clusterQueues.stream().map(ClusterQueueConfig::name).toList());
        unique("localQueues", localQueues.stream().map(q -> q.namespace() + "/" + q.name()).toList());
        unique("nodePools", nodePools.stream().map(NodePoolConfig::name).toList());
        unique("integrations", integrations);
        priorityClasses = Names.list("priorityClasses", priorityClasses);
        unique("priorityClasses", priorityClasses.stream().map(PriorityClassConfig::name).toList());
    }

    /**
     * Without priority classes.
     *
     * @param policy the policy
     * @param policyParameters its parameters
     * @param topologyLevels topology levels
     * @param flavors the ResourceFlavors
     * @param cohorts the cohorts
     * @param clusterQueues the ClusterQueues
     * @param localQueues the LocalQueues
     * @param nodePools node pools
     * @param integrations the adapter's integrations
     */
    public QueuesConfig(String policy, Map<String, String> policyParameters, List<String> topologyLevels, List<FlavorConfig> flavors,
                        List<CohortConfig> cohorts, List<ClusterQueueConfig> clusterQueues, List<LocalQueueConfig> localQueues,
                        List<NodePoolConfig> nodePools, List<String> integrations) {
        this(policy, policyParameters, topologyLevels, flavors, cohorts, clusterQueues, localQueues, nodePools, integrations, List.of());
    }

    /** @return the priority classes */
    public List<io.fairway.api.model.PriorityClass> priorityClassModels() {
        return priorityClasses.stream().map(PriorityClassConfig::toModel).toList();
    }

    /**
     * A priority class ({@code {name: system, value: 1000, preemptible: false}}), defined by the operator: jobs only
     * name it.
     *
     * @param name its name
     * @param value the priority of its jobs (default 0)
     * @param preemptible false when its jobs are never preempted (default true)
     */
    public record PriorityClassConfig(String name, Integer value, Boolean preemptible) implements Validated {
        @Override
        public void validate() {
            toModel();
        }

        /** @return the model */
        public io.fairway.api.model.PriorityClass toModel() {
            Names.require("priorityClasses[].name", name);
            return new io.fairway.api.model.PriorityClass(name, value == null ? 0 : value, preemptible == null || preemptible);
        }
    }

    /** Nothing more: each entry is checked as it is read (being {@link Validated} places errors on their lines). */
    @Override
    public void validate() {
    }

    private static void unique(String field, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            InvalidSpecException.check(seen.add(n), field, n, "%s: %s is listed twice", field, n);
        }
    }

    /**
     * Reads a whole configuration (a file or a ConfigMap's value) of at most {@link #MAX_CHARS} characters and lines of
     * at most {@link #MAX_LINE}, and checks that every flavor a quota names is defined.
     *
     * @param source where the text came from, for messages ({@code configmap fairway-system/fairway-queues})
     * @param yaml the text
     * @return the configuration
     * @throws InvalidSpecException naming the source, the line and the field of the first error
     */
    public static QueuesConfig parse(String source, String yaml) {
        if (yaml == null || yaml.isBlank()) {
            throw new InvalidSpecException("config", source, source + ": the configuration is empty");
        }
        checkBounds(source, yaml);
        QueuesConfig c;
        try {
            c = ConfigYaml.read(source, yaml, QueuesConfig.class);
        } catch (ConfigException e) {
            if (e.path().isEmpty() && e.line() == 0) {
                throw new InvalidSpecException("config", source, source + ": the configuration " + e.detail());
            }
            throw new InvalidSpecException(e.path().isEmpty() ? "config" : e.path(), source,
                    source + (e.line() > 0 ? " line " + e.line() : "") + ": " + (e.path().isEmpty() ? "" : e.path() + ": ") + e.detail());
        }
        c.checkFlavors();
        return c;
    }

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
     * Checks what no single entry can: every flavor a cohort's or ClusterQueue's quota names is defined under flavors.
     *
     * @throws InvalidSpecException naming the owner and the flavor
     */
    public void checkFlavors() {
        Set<String> flavorNames = new HashSet<>(flavors.stream().map(FlavorConfig::name).toList());
        for (CohortConfig c : cohorts) {
            checkFlavors("cohort " + c.name(), c.resourceGroups(), flavorNames);
        }
        for (ClusterQueueConfig q : clusterQueues) {
            checkFlavors("ClusterQueue " + q.name(), q.resourceGroups(), flavorNames);
        }
    }

    private static void checkFlavors(String owner, List<ResourceGroupConfig> groups, Set<String> flavorNames) {
        for (ResourceGroupConfig g : groups) {
            for (FlavorQuotasConfig f : g.flavors()) {
                InvalidSpecException.check(flavorNames.contains(f.name()), "flavors", f.name(),
                        "%s: flavor %s is not defined under flavors (defined: %s)", owner, f.name(), flavorNames.stream().sorted().toList());
            }
        }
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

    /** @return the node pools, in the order given, of no named cluster */
    public List<NodePool> nodePoolModels() {
        return nodePools.stream().map(p -> p.toModel(null)).toList();
    }

    /**
     * A ResourceFlavor.
     *
     * @param name its name
     * @param nodeLabels labels selecting its nodes (empty: every node)
     * @param nodeTaints taints its nodes carry
     * @param tolerations tolerations given to pods admitted with it
     */
    public record FlavorConfig(String name, Map<String, String> nodeLabels, List<TaintConfig> nodeTaints, List<TolerationConfig> tolerations)
            implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public FlavorConfig {
            nodeLabels = nodeLabels == null ? Map.of() : Map.copyOf(nodeLabels);
            nodeTaints = Names.list("nodeTaints", nodeTaints);
            tolerations = Names.list("tolerations", tolerations);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public ResourceFlavor toModel() {
            return new ResourceFlavor(name, nodeLabels, nodeTaints.stream().map(TaintConfig::toModel).toList(),
                    tolerations.stream().map(TolerationConfig::toModel).toList());
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
    public record TolerationConfig(String key, String operator, String value, String effect) implements Validated {
        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public Toleration toModel() {
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
    public record CohortConfig(String name, String parent, List<ResourceGroupConfig> resourceGroups, FairSharingConfig fairSharing)
            implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public CohortConfig {
            resourceGroups = Names.list("resourceGroups", resourceGroups);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public Cohort toModel() {
            List<ResourceGroup> gs = new ArrayList<>();
            for (ResourceGroupConfig g : resourceGroups) {
                gs.add(g.toModel());
            }
            return new Cohort(name, parent, gs, fairSharing == null ? 1.0 : fairSharing.weight());
        }
    }

    /**
     * A ClusterQueue.
     *
     * @param name its name
     * @param cohort the cohort it belongs to, or null
     * @param queueingStrategy {@code StrictFIFO} or {@code BestEffortFIFO}; omitted: the policy decides
     * @param resourceGroups its quota
     * @param preemption when its jobs may preempt others (default: never)
     * @param fairSharing its fair-sharing weight ({@code {weight: 2}})
     * @param fairSharingWeight shorthand for {@code fairSharing.weight}
     * @param flavorFungibility {@code {whenCanBorrow: Borrow|TryNextFlavor}}
     * @param priorityFactor its priority factor for fair share over time (Armada; default 1)
     * @param stopPolicy {@code None}, {@code Hold} or {@code HoldAndDrain}: admit nothing new unless None
     * @param namespaceSelector which namespaces may submit ({@code {matchLabels: {...}, matchExpressions: [...]}}), matched
     *     against the {@code namespaceLabels} of the LocalQueues; omitted: every namespace; {@code {}}: every namespace
     */
    public record ClusterQueueConfig(String name, String cohort, String queueingStrategy, List<ResourceGroupConfig> resourceGroups,
                                     PreemptionConfig preemption, FairSharingConfig fairSharing, Double fairSharingWeight,
                                     FlavorFungibilityConfig flavorFungibility, Double priorityFactor, String stopPolicy,
                                     LabelSelectorConfig namespaceSelector)
            implements Validated {
        /**
         * A ClusterQueue open to every namespace.
         *
         * @param name its name
         * @param cohort its cohort or null
         * @param queueingStrategy its strategy or null
         * @param resourceGroups its quota
         * @param preemption its preemption or null
         * @param fairSharing its fair sharing or null
         * @param fairSharingWeight its weight or null
         * @param flavorFungibility its fungibility or null
         * @param priorityFactor its priority factor or null
         * @param stopPolicy its stop policy or null
         */
        public ClusterQueueConfig(String name, String cohort, String queueingStrategy, List<ResourceGroupConfig> resourceGroups,
                                  PreemptionConfig preemption, FairSharingConfig fairSharing, Double fairSharingWeight,
                                  FlavorFungibilityConfig flavorFungibility, Double priorityFactor, String stopPolicy) {
            this(name, cohort, queueingStrategy, resourceGroups, preemption, fairSharing, fairSharingWeight, flavorFungibility, priorityFactor,
                    stopPolicy, null);
        }

        /** Normalises; {@link #validate()} checks by building the ClusterQueue. */
        public ClusterQueueConfig {
            resourceGroups = Names.list("resourceGroups", resourceGroups);
            InvalidSpecException.check(fairSharing == null || fairSharingWeight == null, "fairSharingWeight", fairSharingWeight,
                    "ClusterQueue %s: give fairSharing.weight or fairSharingWeight, not both", name);
            if (stopPolicy != null && !List.of("None", "Hold", "HoldAndDrain").contains(stopPolicy)) {
                throw new InvalidSpecException("stopPolicy", stopPolicy, "ClusterQueue " + name + ": stopPolicy must be None, Hold or HoldAndDrain, was "
                        + stopPolicy);
            }
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public ClusterQueue toModel() {
            ClusterQueue.Builder b = ClusterQueue.builder(name)
                    .cohort(cohort)
                    .queueingStrategy(Names.enumValue(QueueingStrategy.class, "queueingStrategy", queueingStrategy))
                    .preemption(preemption == null ? PreemptionPolicy.NEVER : preemption.toModel())
                    .fairSharingWeight(fairSharingWeight != null ? fairSharingWeight : fairSharing != null ? fairSharing.weight() : 1.0)
                    .priorityFactor(priorityFactor == null ? 1.0 : priorityFactor)
                    .stopped(stopPolicy != null && !stopPolicy.equals("None"));
            if (flavorFungibility != null) {
                b.flavorFungibility(flavorFungibility.toModel());
            }
            if (namespaceSelector != null) {
                b.namespaceSelector(namespaceSelector.toModel("clusterQueue[" + name + "].namespaceSelector"));
            }
            for (ResourceGroupConfig g : resourceGroups) {
                b.resourceGroup(g.toModel());
            }
            return b.build();
        }
    }

    /**
     * A resource group: resources assigned one flavor together, and the flavors to try in order.
     *
     * @param coveredResources the resources it covers
     * @param flavors the flavors, each with a quota for every covered resource
     */
    public record ResourceGroupConfig(List<String> coveredResources, List<FlavorQuotasConfig> flavors) implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public ResourceGroupConfig {
            coveredResources = Names.list("coveredResources", coveredResources);
            flavors = Names.list("flavors", flavors);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public ResourceGroup toModel() {
            List<FlavorQuotas> fq = new ArrayList<>();
            for (FlavorQuotasConfig f : flavors) {
                fq.add(f.toModel());
            }
            return new ResourceGroup(coveredResources, fq);
        }
    }

    /**
     * The quotas of one flavor in a resource group.
     *
     * @param name the flavor
     * @param resources one quota per covered resource
     */
    public record FlavorQuotasConfig(String name, List<ResourceQuotaConfig> resources) implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public FlavorQuotasConfig {
            Names.require("flavors[].name", name);
            resources = Names.list("resources", resources);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public FlavorQuotas toModel() {
            List<ResourceQuota> qs = new ArrayList<>();
            for (ResourceQuotaConfig r : resources) {
                qs.add(r.toModel());
            }
            return new FlavorQuotas(name, qs);
        }
    }

    /**
     * The quota of one resource (quantities: {@code 64}, {@code 500m}, {@code 512Gi}).
     *
     * @param name the resource
     * @param nominalQuota the nominal quota
     * @param borrowingLimit how much it may borrow above nominal (omitted: unlimited)
     * @param lendingLimit how much of its unused nominal quota it lends (omitted: all)
     */
    public record ResourceQuotaConfig(String name, String nominalQuota, String borrowingLimit, String lendingLimit)
            implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public ResourceQuotaConfig {
            Names.require("resources[].name", name);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public ResourceQuota toModel() {
            InvalidSpecException.check(nominalQuota != null && !nominalQuota.isBlank(), "nominalQuota", nominalQuota,
                    "resource %s: nominalQuota is required", name);
            return new ResourceQuota(name, Quantities.parse(name, nominalQuota),
                    borrowingLimit == null ? ResourceQuota.UNLIMITED : Names.quantity(name, "borrowingLimit", borrowingLimit),
                    lendingLimit == null ? ResourceQuota.UNLIMITED : Names.quantity(name, "lendingLimit", lendingLimit));
        }
    }

    /**
     * Kueue's {@code preemption} block.
     *
     * @param withinClusterQueue Never, LowerPriority or LowerOrNewerEqualPriority
     * @param reclaimWithinCohort Never, LowerPriority or Any
     * @param borrowWithinCohort {@code {policy: Never|LowerPriority, maxPriorityThreshold: N}}
     * @param cohortRules {@code Kueue} (default) or {@code FairwayStrict}: whose rules pick victims in other queues
     */
    public record PreemptionConfig(String withinClusterQueue, String reclaimWithinCohort, BorrowWithinCohortConfig borrowWithinCohort,
                                   String cohortRules)
            implements Validated {
        /**
         * Kueue's rules.
         *
         * @param withinClusterQueue Never, LowerPriority or LowerOrNewerEqualPriority
         * @param reclaimWithinCohort Never, LowerPriority or Any
         * @param borrowWithinCohort the borrowWithinCohort block or null
         */
        public PreemptionConfig(String withinClusterQueue, String reclaimWithinCohort, BorrowWithinCohortConfig borrowWithinCohort) {
            this(withinClusterQueue, reclaimWithinCohort, borrowWithinCohort, null);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public PreemptionPolicy toModel() {
            return new PreemptionPolicy(
                    Names.enumValue(PreemptionPolicy.WithinClusterQueue.class, "withinClusterQueue", withinClusterQueue),
                    Names.enumValue(PreemptionPolicy.ReclaimWithinCohort.class, "reclaimWithinCohort", reclaimWithinCohort),
                    borrowWithinCohort == null ? null
                            : Names.enumValue(PreemptionPolicy.BorrowWithinCohort.class, "borrowWithinCohort.policy", borrowWithinCohort.policy()),
                    borrowWithinCohort == null ? null : borrowWithinCohort.maxPriorityThreshold(),
                    Names.enumValue(PreemptionPolicy.CohortRules.class, "preemption.cohortRules", cohortRules));
        }
    }

    /**
     * Kueue's {@code borrowWithinCohort}.
     *
     * @param policy Never or LowerPriority
     * @param maxPriorityThreshold only jobs of at most this priority may be preempted while borrowing (omitted: no threshold)
     */
    public record BorrowWithinCohortConfig(String policy, Integer maxPriorityThreshold) {
        /** @param policy Never or LowerPriority */
        public BorrowWithinCohortConfig(String policy) {
            this(policy, null);
        }
    }

    /**
     * A Kubernetes label selector ({@code {matchLabels: {team: a}, matchExpressions: [{key: tier, operator: In, values: [gold]}]}}).
     *
     * @param matchLabels labels that must be present with these values
     * @param matchExpressions requirements that must all hold (operator In, NotIn, Exists or DoesNotExist)
     */
    public record LabelSelectorConfig(Map<String, String> matchLabels, List<LabelRequirementConfig> matchExpressions) {
        /**
         * @param field where the selector is, for messages
         * @return the api model (checked)
         */
        public io.fairway.api.model.LabelSelector toModel(String field) {
            List<io.fairway.api.model.LabelSelector.Requirement> rs = new ArrayList<>();
            for (LabelRequirementConfig r : matchExpressions == null ? List.<LabelRequirementConfig>of() : matchExpressions) {
                InvalidSpecException.check(r != null && r.key() != null && !r.key().isBlank(), field + ".matchExpressions[].key", r == null ? null : r.key(),
                        "%s.matchExpressions: every expression needs a key", field);
                io.fairway.api.model.LabelSelector.Operator op = Names.enumValue(io.fairway.api.model.LabelSelector.Operator.class,
                        field + ".matchExpressions[" + r.key() + "].operator", r.operator());
                InvalidSpecException.check(op != null, field + ".matchExpressions[" + r.key() + "].operator", r.operator(),
                        "%s.matchExpressions[%s].operator is required: In, NotIn, Exists or DoesNotExist", field, r.key());
                InvalidSpecException.check((op == io.fairway.api.model.LabelSelector.Operator.IN || op == io.fairway.api.model.LabelSelector.Operator.NOT_IN)
                                == (r.values() != null && !r.values().isEmpty()), field + ".matchExpressions[" + r.key() + "].values", r.values(),
                        "%s.matchExpressions[%s]: operator %s %s values, was given %s", field, r.key(), r.operator(),
                        op == io.fairway.api.model.LabelSelector.Operator.IN || op == io.fairway.api.model.LabelSelector.Operator.NOT_IN
                                ? "needs" : "takes no", r.values());
                rs.add(new io.fairway.api.model.LabelSelector.Requirement(r.key(), op, r.values()));
            }
            return new io.fairway.api.model.LabelSelector(matchLabels, rs);
        }
    }

    /**
     * One expression of a label selector.
     *
     * @param key the label key
     * @param operator In, NotIn, Exists or DoesNotExist
     * @param values the values (In and NotIn only)
     */
    public record LabelRequirementConfig(String key, String operator, List<String> values) {
    }

    /**
     * Kueue's {@code fairSharing}.
     *
     * @param weight the weight (&gt; 0; default 1)
     */
    public record FairSharingConfig(Double weight) {
        /** Defaults the weight to 1 and validates it. */
        public FairSharingConfig {
            weight = weight == null ? 1.0 : weight;
            InvalidSpecException.check(weight > 0 && Double.isFinite(weight), "fairSharing.weight", weight,
                    "fairSharing.weight must be > 0, was %s", weight);
        }
    }

    /**
     * Kueue's {@code flavorFungibility}.
     *
     * @param whenCanBorrow {@code MayStopSearch} (Kueue's default; also its older name {@code Borrow}): borrow in this
     *     flavor rather than try the next; or {@code TryNextFlavor}
     * @param whenCanPreempt {@code TryNextFlavor} (Kueue's default, and what Fairway does: every flavor that fits without
     *     preemption is tried before preempting); {@code MayStopSearch} (older name {@code Preempt}) is not supported: it is
     *     accepted, so that Kueue's files load, and logged as a warning
     */
    public record FlavorFungibilityConfig(String whenCanBorrow, String whenCanPreempt) implements Validated {
        private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FlavorFungibilityConfig.class);

        @Override
        public void validate() {
            toModel();
        }

        /** @return the api model (checked) */
        public FlavorFungibility toModel() {
            if (whenCanPreempt != null && !whenCanPreempt.equals("TryNextFlavor")) {
                if (whenCanPreempt.equals("MayStopSearch") || whenCanPreempt.equals("Preempt")) {
                    LOG.warn("flavorFungibility.whenCanPreempt {} is not supported: Fairway tries every flavor that fits without preemption "
                            + "before preempting (TryNextFlavor)", whenCanPreempt);
                } else {
                    throw new InvalidSpecException("flavorFungibility.whenCanPreempt", whenCanPreempt,
                            "flavorFungibility.whenCanPreempt must be TryNextFlavor or MayStopSearch, was " + whenCanPreempt);
                }
            }
            if (whenCanBorrow == null || whenCanBorrow.equals("MayStopSearch") || whenCanBorrow.equals("Borrow")) {
                return FlavorFungibility.BORROW_FIRST;
            }
            if (whenCanBorrow.equals("TryNextFlavor")) {
                return FlavorFungibility.TRY_NEXT_FLAVOR;
            }
            throw new InvalidSpecException("flavorFungibility.whenCanBorrow", whenCanBorrow,
                    "flavorFungibility.whenCanBorrow must be MayStopSearch (or Borrow) or TryNextFlavor, was " + whenCanBorrow);
        }
    }

    /**
     * A LocalQueue.
     *
     * @param name its name
     * @param namespace its namespace (default {@code default})
     * @param clusterQueue the ClusterQueue it feeds
     * @param namespaceLabels the labels of its namespace, for ClusterQueues' {@code namespaceSelector} (default none)
     */
    public record LocalQueueConfig(String name, String namespace, String clusterQueue, Map<String, String> namespaceLabels) implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public LocalQueueConfig {
            namespace = namespace == null || namespace.isBlank() ? JobSpec.DEFAULT_NAMESPACE : namespace;
            namespaceLabels = namespaceLabels == null ? Map.of() : Map.copyOf(namespaceLabels);
        }

        /**
         * A LocalQueue whose namespace has no labels.
         *
         * @param name its name
         * @param namespace its namespace
         * @param clusterQueue the ClusterQueue it feeds
         */
        public LocalQueueConfig(String name, String namespace, String clusterQueue) {
            this(name, namespace, clusterQueue, null);
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the LocalQueue */
        public LocalQueue toModel() {
            return new LocalQueue(namespace, name, clusterQueue, namespaceLabels);
        }
    }
}
