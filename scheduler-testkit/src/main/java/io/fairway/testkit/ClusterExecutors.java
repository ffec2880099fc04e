package io.fairway.testkit;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Scheduler;
import io.fairway.testkit.ConformanceHarness.Effect;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * One executor per cluster behind the {@link ConformanceHarness}'s {@link ExecutorHub}: each polls the hub and
 * acknowledges its work, except the executors of clusters lost "via the hub", which stay silent until they rejoin;
 * the hub then declares them lost.
 */
final class ClusterExecutors {
    private final ExecutorHub hub;
    private final Set<String> silent = new TreeSet<>();
    /** The nodes each cluster the hub declared lost had then. */
    private final Map<String, List<Node>> nodesLostWith = new HashMap<>();

    /** @param hub the hub the executors poll */
    ClusterExecutors(ExecutorHub hub) {
        this.hub = hub;
    }

    /**
     * @param cluster a cluster
     * @return true while its executor is silent
     */
    boolean isSilent(String cluster) {
        return silent.contains(cluster);
    }

    /**
     * Silences a cluster's executor.
     *
     * @param cluster the cluster
     * @param lostNodes its nodes when it fell silent
     * @return the recovery: the cluster rejoins the hub
     */
    Runnable silence(String cluster, List<Node> lostNodes) {
        silent.add(cluster);
        return () -> {
            silent.remove(cluster);
            // the nodes the hub's declaration removed (also those that joined while it was silent), or, when
            // it was never declared lost, those it had when it fell silent (still there: rejoin adds none)
            List<Node> nodes = nodesLostWith.containsKey(cluster) ? nodesLostWith.remove(cluster) : lostNodes;
            hub.rejoin(cluster, nodes, Map.of());
        };
    }

    /**
     * Every executor but the silent ones polls the hub and acknowledges what it gets.
     *
     * @param scheduler the scheduler under test
     */
    void poll(Scheduler scheduler) {
        Set<String> clusters = new TreeSet<>(ConformanceHarness.clustersOf(scheduler.clusters().nodes()));
        clusters.add(FairwayArbitraries.CLUSTER.name());
        for (String c : clusters) {
            if (silent.contains(c)) {
                continue;
            }
            ExecutorHub.Poll p;
            try {
                p = hub.poll(c, Integer.MAX_VALUE);
            } catch (io.fairway.api.InvalidSpecException notRegistered) {
                hub.register(c);
                p = hub.poll(c, Integer.MAX_VALUE);
            }
            for (ExecutorHub.WorkItem w : p.items()) {
                hub.ack(c, w.id());
            }
        }
    }

    /**
     * Asks the hub to declare silent clusters lost.
     *
     * @param scheduler the scheduler under test
     * @param holding the jobs holding resources
     * @return what the declaration must have done, or null when no cluster was declared lost
     */
    Effect declareSilentClustersLost(Scheduler scheduler, Supplier<List<JobStatus>> holding) {
        if (silent.isEmpty()) {
            return null;
        }
        Map<String, String> clusterOfNode = new HashMap<>();
        scheduler.clusters().nodes().forEach(n -> clusterOfNode.put(n.name(), n.cluster()));
        Map<String, String> clusterOfJob = new HashMap<>();
        for (JobStatus j : holding.get()) {
            j.admission().placement().members().stream().map(m -> clusterOfNode.get(m.node())).filter(silent::contains)
                    .findFirst().ifPresent(c -> clusterOfJob.put(j.id(), c));
        }
        List<Node> before = scheduler.clusters().nodes();
        List<String> lost = hub.checkLiveness();
        for (String c : lost) {
            nodesLostWith.put(c, before.stream().filter(n -> n.cluster().equals(c)).toList());
        }
        if (!lost.isEmpty()) {
            Set<String> requeued = new TreeSet<>();
            clusterOfJob.forEach((id, c) -> {
                if (lost.contains(c)) {
                    requeued.add(id);
                }
            });
            Set<String> gone = new TreeSet<>();
            clusterOfNode.forEach((n, c) -> {
                if (lost.contains(c)) {
                    gone.add(n);
                }
            });
            return new Effect("hub declared " + lost + " lost", Set.of(), requeued, Map.of(), gone, List.of());
        }
        return null;
    }
}
