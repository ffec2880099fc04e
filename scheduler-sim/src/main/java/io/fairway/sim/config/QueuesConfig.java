package io.fairway.sim.config;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Taint;
import io.fairway.api.model.Toleration;
import io.fairway.api.job.JobSpec;
import io.fairway.sim.QueueModel;
import io.fairway.sim.config.ClusterConfig.TaintConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Flavors, cohorts, ClusterQueues and LocalQueues, as read from YAML. Field names follow Kueue's
 * ({@code nominalQuota}, {@code borrowingLimit}, {@code lendingLimit}, {@code coveredResources},
 * {@code queueingStrategy}, {@code preemption}, {@code fairSharing.weight}); all of the mapping from YAML to
 * the model lives in this file.
 *
 * <pre>
 * flavors:
 *   - name: default
 * cohorts:
 *   - name: research
 * clusterQueues:
 *   - name: team-a
 *     cohort: research
 *     queueingStrategy: BestEffortFIFO        # or StrictFIFO; omit to let the policy decide
 *     preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: Never}}
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
 *   - {name: gpu, namespace: team-a, clusterQueue: team-a}
 * </pre>
 *
 * @param flavors the ResourceFlavors
 * @param cohorts the cohorts
 * @param clusterQueues the ClusterQueues
 * @param localQueues the LocalQueues
 */
public record QueuesConfig(List<FlavorConfig> flavors, List<CohortConfig> cohorts, List<ClusterQueueConfig> clusterQueues,
                           List<LocalQueueConfig> localQueues) {
    /** Validates names unique per kind. */
    public QueuesConfig {
        flavors = Names.list("flavors", flavors);
        cohorts = Names.list("cohorts", cohorts);
        clusterQueues = Names.list("clusterQueues", clusterQueues);
        localQueues = Names.list("localQueues", localQueues);
        unique("flavors", flavors.stream().map(FlavorConfig::name).toList());
        unique("cohorts", cohorts.stream().map(CohortConfig::name).toList());
        unique("clusterQueues", clusterQueues.stream().map(ClusterQueueConfig::name).toList());
        unique("localQueues", localQueues.stream().map(q -> q.namespace() + "/" + q.name()).toList());
    }

    private static void unique(String field, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            InvalidSpecException.check(seen.add(n), field, n, "%s: %s is listed twice", field, n);
        }
    }

    /**
     * @param file a queues YAML file
     * @return the queue model
     * @throws ConfigException naming the file and line of the first error
     */
    public static QueueModel load(Path file) {
        return YamlFiles.read(file, QueuesConfig.class).toModel(file.toString());
    }

    /**
     * @param resource a class-path resource
     * @return the queue model
     */
    public static QueueModel loadResource(String resource) {
        return YamlFiles.readResource(resource, QueuesConfig.class).toModel("classpath:" + resource);
    }

    /**
     * @param source the file name used in errors
     * @return the model
     * @throws ConfigException on an error across entries (a ClusterQueue naming an undefined flavor)
     */
    public QueueModel toModel(String source) {
        Set<String> flavorNames = new HashSet<>();
        List<ResourceFlavor> fs = new ArrayList<>();
        for (FlavorConfig f : flavors) {
            fs.add(f.toModel());
            flavorNames.add(f.name());
        }
        List<Cohort> cs = new ArrayList<>();
        for (CohortConfig c : cohorts) {
            checkFlavors(source, "cohort " + c.name(), c.resourceGroups(), flavorNames);
            cs.add(c.toModel());
        }
        List<ClusterQueue> qs = new ArrayList<>();
        for (ClusterQueueConfig q : clusterQueues) {
            checkFlavors(source, "ClusterQueue " + q.name(), q.resourceGroups(), flavorNames);
            qs.add(q.toModel());
        }
        List<LocalQueue> ls = new ArrayList<>();
        for (LocalQueueConfig l : localQueues) {
            ls.add(l.toModel());
        }
        return new QueueModel(fs, cs, qs, ls);
    }

    private static void checkFlavors(String source, String owner, List<ResourceGroupConfig> groups, Set<String> flavorNames) {
        for (ResourceGroupConfig g : groups) {
            for (FlavorQuotasConfig f : g.flavors()) {
                if (!flavorNames.contains(f.name())) {
                    throw new ConfigException(source, 0, 0, owner + ": flavor " + f.name() + " is not defined under flavors (defined: "
                            + flavorNames.stream().sorted().toList() + ")", null);
                }
            }
        }
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

        ResourceFlavor toModel() {
            List<Taint> ts = new ArrayList<>();
            for (TaintConfig t : nodeTaints) {
                ts.add(new Taint(t.key(), t.value(), t.effect()));
            }
            List<Toleration> tol = new ArrayList<>();
            for (TolerationConfig t : tolerations) {
                tol.add(t.toModel());
            }
            return new ResourceFlavor(name, nodeLabels, ts, tol);
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

        Cohort toModel() {
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
     */
    public record ClusterQueueConfig(String name, String cohort, String queueingStrategy, List<ResourceGroupConfig> resourceGroups,
                                     PreemptionConfig preemption, FairSharingConfig fairSharing, Double fairSharingWeight,
                                     FlavorFungibilityConfig flavorFungibility, Double priorityFactor, String stopPolicy)
            implements Validated {
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

        ClusterQueue toModel() {
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

        ResourceGroup toModel() {
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

        FlavorQuotas toModel() {
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

        ResourceQuota toModel() {
            return new ResourceQuota(name, Names.quantity(name, "nominalQuota", nominalQuota),
                    borrowingLimit == null ? ResourceQuota.UNLIMITED : Names.quantity(name, "borrowingLimit", borrowingLimit),
                    lendingLimit == null ? ResourceQuota.UNLIMITED : Names.quantity(name, "lendingLimit", lendingLimit));
        }
    }

    /**
     * Kueue's {@code preemption} block.
     *
     * @param withinClusterQueue Never, LowerPriority or LowerOrNewerEqualPriority
     * @param reclaimWithinCohort Never, LowerPriority or Any
     * @param borrowWithinCohort {@code {policy: Never|LowerPriority}}
     */
    public record PreemptionConfig(String withinClusterQueue, String reclaimWithinCohort, BorrowWithinCohortConfig borrowWithinCohort)
            implements Validated {
        @Override
        public void validate() {
            toModel();
        }

        PreemptionPolicy toModel() {
            return new PreemptionPolicy(
                    Names.enumValue(PreemptionPolicy.WithinClusterQueue.class, "withinClusterQueue", withinClusterQueue),
                    Names.enumValue(PreemptionPolicy.ReclaimWithinCohort.class, "reclaimWithinCohort", reclaimWithinCohort),
                    borrowWithinCohort == null ? null
                            : Names.enumValue(PreemptionPolicy.BorrowWithinCohort.class, "borrowWithinCohort.policy", borrowWithinCohort.policy()));
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
     * @param whenCanBorrow {@code Borrow} (borrow in this flavor first) or {@code TryNextFlavor}
     * @param whenCanPreempt accepted for compatibility with Kueue files; not used
     */
    public record FlavorFungibilityConfig(String whenCanBorrow, String whenCanPreempt) implements Validated {
        @Override
        public void validate() {
            toModel();
        }

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
    public record LocalQueueConfig(String name, String namespace, String clusterQueue) implements Validated {
        /** Normalises; {@link #validate()} checks the rest. */
        public LocalQueueConfig {
            namespace = namespace == null || namespace.isBlank() ? JobSpec.DEFAULT_NAMESPACE : namespace;
        }

        @Override
        public void validate() {
            toModel();
        }

        /** @return the LocalQueue */
        public LocalQueue toModel() {
            return new LocalQueue(namespace, name, clusterQueue);
        }
    }
}
