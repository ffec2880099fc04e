package io.fairway.sim.config;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.QueueModel;
import io.fairway.sim.trace.Trace;
import io.fairway.sim.trace.Traces;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bundled defaults, so the simulator runs without any file: a 64-GPU cluster (8 nodes × 8 V100 in a
 * hybrid cube-mesh, 2 racks), one ClusterQueue with the cluster's capacity and a LocalQueue per virtual cluster
 * of the bundled Philly sample.
 *
 * <pre>{@code
 * ClusterModel c = Defaults.cluster();
 * QueueModel q = Defaults.queues();
 * Trace t = Defaults.trace();
 * }</pre>
 */
public final class Defaults {
    /** The bundled cluster file. */
    public static final String CLUSTER_RESOURCE = "fairway/defaults/cluster.yaml";
    /** The bundled queues file. */
    public static final String QUEUES_RESOURCE = "fairway/defaults/queues.yaml";
    /** The ClusterQueue of derived default queues. */
    public static final String CLUSTER_QUEUE = "cluster-queue";
    /** The flavor of derived default queues. */
    public static final String FLAVOR = "default";

    private static final Logger LOG = LoggerFactory.getLogger(Defaults.class);

    private Defaults() {
    }

    /** @return the bundled 64-GPU cluster */
    public static ClusterModel cluster() {
        return ClusterConfig.loadResource(CLUSTER_RESOURCE);
    }

    /** @return the bundled queues, made for the bundled cluster and trace */
    public static QueueModel queues() {
        return QueueFiles.loadResource(QUEUES_RESOURCE);
    }

    /** @return the bundled Philly sample */
    public static Trace trace() {
        return Traces.bundledSample();
    }

    /**
     * Queues for a cluster and trace given without a queues file: flavor {@code default}, one ClusterQueue
     * {@code cluster-queue} whose nominal quota is the cluster's whole capacity of cpu, memory and GPUs, and a
     * LocalQueue for every queue the trace uses.
     *
     * @param cluster the cluster
     * @param localQueueKeys the LocalQueues the jobs use, as {@code namespace/name}
     * @return the queues
     */
    public static QueueModel queuesFor(ClusterModel cluster, Collection<String> localQueueKeys) {
        Resources cap = cluster.capacity();
        Resources quota = Resources.builder()
                .put(Resources.CPU, cap.get(Resources.CPU))
                .put(Resources.MEMORY, cap.get(Resources.MEMORY))
                .put(Resources.GPU, cap.gpus())
                .build();
        ClusterQueue cq = ClusterQueue.builder(CLUSTER_QUEUE).quota(FLAVOR, quota).build();
        List<LocalQueue> lqs = new ArrayList<>();
        for (String key : localQueueKeys) {
            lqs.add(localQueue(key, CLUSTER_QUEUE));
        }
        return new QueueModel(List.of(ResourceFlavor.of(FLAVOR)), List.of(), List.of(cq), lqs);
    }

    /**
     * Adds a LocalQueue feeding the first ClusterQueue for every queue the jobs use that the model lacks (for
     * traces run on the bundled queues); logs each one added.
     *
     * @param queues the queues
     * @param localQueueKeys the LocalQueues the jobs use, as {@code namespace/name}
     * @return the queues with the missing LocalQueues
     */
    public static QueueModel withMissingLocalQueues(QueueModel queues, Collection<String> localQueueKeys) {
        if (queues.clusterQueues().isEmpty()) {
            return queues;
        }
        String cq = queues.clusterQueues().get(0).name();
        List<LocalQueue> added = new ArrayList<>();
        for (String key : localQueueKeys) {
            LocalQueue q = localQueue(key, cq);
            if (!queues.hasLocalQueue(q.namespace(), q.name())) {
                added.add(q);
            }
        }
        if (!added.isEmpty()) {
            LOG.info("added {} LocalQueue(s) the trace uses to ClusterQueue {}", added.size(), cq);
        }
        return queues.withLocalQueues(added);
    }

    private static LocalQueue localQueue(String key, String clusterQueue) {
        int slash = key.indexOf('/');
        return new LocalQueue(key.substring(0, slash), key.substring(slash + 1), clusterQueue);
    }
}
