package io.fairway.core.snapshot;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import java.util.List;
import java.util.Map;

/**
 * Everything a round reads, frozen: the input of the pure function {@code Rounds.run}. The same snapshot,
 * policy configuration and seed always give the same {@code RoundResult}: this is what dry-runs, replays,
 * simulations and property tests rely on.
 *
 * @param round the round number
 * @param nowMillis the clock
 * @param seed the scheduler's seed
 * @param clusters cluster specs by name
 * @param nodes every node, in the order they were added
 * @param flavors ResourceFlavors by name
 * @param clusterQueues ClusterQueues by name
 * @param cohorts cohorts by name
 * @param localQueues LocalQueues by {@code namespace/name}
 * @param pending pending jobs in submission order
 * @param holding jobs holding resources (quota reserved, admitted, running) in submission order
 * @param decayedUsage each ClusterQueue's recent usage, decayed with the scheduler's half-life, as a dominant
 *     share of the cluster (fair share over time)
 * @param placement how the placement search chooses nodes and GPUs (topology-aware unless stated)
 * @param provisioning node pools, jobs waiting for nodes, node requests in flight
 * @param pendingIndex the pending jobs grouped by what they need (built from {@code pending} on first use when
 *     null; the engine passes the one it keeps up to date)
 */
public record Snapshot(long round, long nowMillis, long seed, Map<String, ClusterSpec> clusters, List<Node> nodes,
                       Map<String, ResourceFlavor> flavors, Map<String, ClusterQueue> clusterQueues,
                       Map<String, Cohort> cohorts, Map<String, LocalQueue> localQueues, List<JobStatus> pending,
                       List<JobStatus> holding, Map<String, Double> decayedUsage, PlacementStrategy placement,
                       Provisioning provisioning, PendingJobs pendingIndex) {
    /**
     * A snapshot whose pending jobs are grouped on first use.
     *
     * @param round round
     * @param nowMillis clock
     * @param seed seed
     * @param clusters clusters
     * @param nodes nodes
     * @param flavors flavors
     * @param clusterQueues ClusterQueues
     * @param cohorts cohorts
     * @param localQueues LocalQueues
     * @param pending pending jobs
     * @param holding jobs holding resources
     * @param decayedUsage recent usage per ClusterQueue
     * @param placement the placement strategy
     * @param provisioning node pools and requests
     */
    public Snapshot(long round, long nowMillis, long seed, Map<String, ClusterSpec> clusters, List<Node> nodes,
                    Map<String, ResourceFlavor> flavors, Map<String, ClusterQueue> clusterQueues,
                    Map<String, Cohort> cohorts, Map<String, LocalQueue> localQueues, List<JobStatus> pending,
                    List<JobStatus> holding, Map<String, Double> decayedUsage, PlacementStrategy placement,
                    Provisioning provisioning) {
        this(round, nowMillis, seed, clusters, nodes, flavors, clusterQueues, cohorts, localQueues, pending, holding, decayedUsage,
                placement, provisioning, null);
    }

    /**
     * A snapshot without node pools.
     *
     * @param round round
     * @param nowMillis clock
     * @param seed seed
     * @param clusters clusters
     * @param nodes nodes
     * @param flavors flavors
     * @param clusterQueues ClusterQueues
     * @param cohorts cohorts
     * @param localQueues LocalQueues
     * @param pending pending jobs
     * @param holding jobs holding resources
     * @param decayedUsage recent usage per ClusterQueue
     * @param placement the placement strategy
     */
    public Snapshot(long round, long nowMillis, long seed, Map<String, ClusterSpec> clusters, List<Node> nodes,
                    Map<String, ResourceFlavor> flavors, Map<String, ClusterQueue> clusterQueues,
                    Map<String, Cohort> cohorts, Map<String, LocalQueue> localQueues, List<JobStatus> pending,
                    List<JobStatus> holding, Map<String, Double> decayedUsage, PlacementStrategy placement) {
        this(round, nowMillis, seed, clusters, nodes, flavors, clusterQueues, cohorts, localQueues, pending, holding, decayedUsage,
                placement, Provisioning.NONE);
    }

    /**
     * A snapshot with the default, topology-aware placement.
     *
     * @param round round
     * @param nowMillis clock
     * @param seed seed
     * @param clusters clusters
     * @param nodes nodes
     * @param flavors flavors
     * @param clusterQueues ClusterQueues
     * @param cohorts cohorts
     * @param localQueues LocalQueues
     * @param pending pending jobs
     * @param holding jobs holding resources
     * @param decayedUsage recent usage per ClusterQueue
     */
    public Snapshot(long round, long nowMillis, long seed, Map<String, ClusterSpec> clusters, List<Node> nodes,
                    Map<String, ResourceFlavor> flavors, Map<String, ClusterQueue> clusterQueues,
                    Map<String, Cohort> cohorts, Map<String, LocalQueue> localQueues, List<JobStatus> pending,
                    List<JobStatus> holding, Map<String, Double> decayedUsage) {
        this(round, nowMillis, seed, clusters, nodes, flavors, clusterQueues, cohorts, localQueues, pending, holding, decayedUsage,
                PlacementStrategy.TOPOLOGY_AWARE);
    }

    /**
     * A snapshot without usage history.
     *
     * @param round round
     * @param nowMillis clock
     * @param seed seed
     * @param clusters clusters
     * @param nodes nodes
     * @param flavors flavors
     * @param clusterQueues ClusterQueues
     * @param cohorts cohorts
     * @param localQueues LocalQueues
     * @param pending pending jobs
     * @param holding jobs holding resources
     */
    public Snapshot(long round, long nowMillis, long seed, Map<String, ClusterSpec> clusters, List<Node> nodes,
                    Map<String, ResourceFlavor> flavors, Map<String, ClusterQueue> clusterQueues,
                    Map<String, Cohort> cohorts, Map<String, LocalQueue> localQueues, List<JobStatus> pending,
                    List<JobStatus> holding) {
        this(round, nowMillis, seed, clusters, nodes, flavors, clusterQueues, cohorts, localQueues, pending, holding, Map.of());
    }

    /** Copies the collections (shallowly; their elements are immutable); maps iterate in name order. */
    public Snapshot {
        clusters = sorted(clusters);
        nodes = List.copyOf(nodes);
        flavors = sorted(flavors);
        clusterQueues = sorted(clusterQueues);
        cohorts = sorted(cohorts);
        localQueues = sorted(localQueues);
        pending = PendingIndex.isIndexView(pending) ? pending : List.copyOf(pending); // a view of an immutable index
        holding = holding instanceof HeldJobs ? holding : List.copyOf(holding); // immutable already
        decayedUsage = sorted(decayedUsage == null ? Map.of() : decayedUsage);
        placement = placement == null ? PlacementStrategy.TOPOLOGY_AWARE : placement;
        provisioning = provisioning == null ? Provisioning.NONE : provisioning;
        pendingIndex = pendingIndex == null ? PendingJobs.of(pending) : pendingIndex;
    }

    /**
     * @param strategy a placement strategy
     * @return this snapshot with that strategy (to replay a round under another placement)
     */
    public Snapshot withPlacement(PlacementStrategy strategy) {
        return new Snapshot(round, nowMillis, seed, clusters, nodes, flavors, clusterQueues, cohorts, localQueues, pending, holding,
                decayedUsage, strategy, provisioning, pendingIndex);
    }

    private static <V> Map<String, V> sorted(Map<String, V> m) {
        return m instanceof java.util.SortedMap && isUnmodifiable(m) ? m : java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(m));
    }

    private static boolean isUnmodifiable(Map<?, ?> m) {
        return m.getClass().getName().startsWith("java.util.Collections$Unmodifiable");
    }
}
