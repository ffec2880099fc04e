package io.fairway.core;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The engine's whole state — configuration, nodes, every job with its state, admission, lease and history,
 * usage history, node pools and requests in flight, the round counter and the clock of the last usage update —
 * captured by {@link Scheduler#exportState()} and brought back by {@link Scheduler#restore}. A scheduler
 * restored from it makes exactly the decisions the original would have made.
 *
 * <pre>{@code
 * byte[] saved = scheduler.exportState().toBytes();
 * Scheduler again = Scheduler.restore(SchedulerState.fromBytes(saved), Scheduler.builder().policy("priority").clock(clock));
 * }</pre>
 *
 * @param seed the seed
 * @param placement the placement strategy
 * @param usageHalfLifeMillis the usage half-life
 * @param round rounds run so far
 * @param nextSequence the next job sequence number
 * @param usageUpdatedAt when usage history was last decayed ({@code Long.MIN_VALUE}: never)
 * @param clusters clusters
 * @param flavors flavors
 * @param cohorts cohorts
 * @param clusterQueues ClusterQueues
 * @param localQueues LocalQueues
 * @param nodes nodes, in the order they were added
 * @param nodePools node pools
 * @param jobs every job, in submission order
 * @param decayedUsage usage history per ClusterQueue
 * @param provisioning quota reservations, node requests in flight, empty pool nodes
 */
public record SchedulerState(long seed, PlacementStrategy placement, long usageHalfLifeMillis, long round, long nextSequence, long usageUpdatedAt,
                             List<ClusterSpec> clusters, List<ResourceFlavor> flavors, List<Cohort> cohorts, List<ClusterQueue> clusterQueues,
                             List<LocalQueue> localQueues, List<Node> nodes, List<NodePool> nodePools, List<JobStatus> jobs,
                             Map<String, Double> decayedUsage, Provisioning provisioning) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Copies. */
    public SchedulerState {
        clusters = List.copyOf(clusters);
        flavors = List.copyOf(flavors);
        cohorts = List.copyOf(cohorts);
        clusterQueues = List.copyOf(clusterQueues);
        localQueues = List.copyOf(localQueues);
        nodes = List.copyOf(nodes);
        nodePools = List.copyOf(nodePools);
        jobs = List.copyOf(jobs);
        decayedUsage = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(decayedUsage));
    }

    /** @return the state serialised with Java serialisation (every model type is serialisable) */
    public byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise the scheduler state", e);
        }
        return bytes.toByteArray();
    }

    /**
     * @param bytes what {@link #toBytes()} wrote
     * @return the state
     * @throws IllegalArgumentException when the bytes are not a scheduler state
     */
    public static SchedulerState fromBytes(byte[] bytes) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            Object o = in.readObject();
            if (!(o instanceof SchedulerState s)) {
                throw new IllegalArgumentException("not a scheduler state: " + (o == null ? "null" : o.getClass().getName()));
            }
            return s;
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalArgumentException("cannot read a scheduler state: " + e.getMessage(), e);
        }
    }
}
