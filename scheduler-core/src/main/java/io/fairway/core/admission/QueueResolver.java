package io.fairway.core.admission;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.Snapshot;
import java.util.HashMap;
import java.util.Map;

/**
 * Admission's first step for one round: which ClusterQueue a pending job is admitted through (its LocalQueue's,
 * or the one that reserved its quota while nodes come up), or why it has none. Read by the plan (for the policy's
 * context) and by provisioning (for the jobs left waiting).
 */
public final class QueueResolver {
    private final Snapshot snapshot;
    /** LocalQueues by namespace, then name: resolving a job's queue allocates nothing. */
    private final Map<String, Map<String, LocalQueue>> localQueueIndex = new HashMap<>();
    /** The ClusterQueue of each job holding a node reservation (quota held while it waits for nodes). */
    private final Map<String, String> nodeReservationQueues = new HashMap<>();
    /**
     * Each LocalQueue's ClusterQueue for this round ({@link #NONE}: missing or stopped), resolved on first use: the
     * namespace selector is matched once per LocalQueue and round, not once per job or group.
     */
    private final java.util.IdentityHashMap<LocalQueue, String> resolved = new java.util.IdentityHashMap<>();
    private static final String NONE = new String("");

    /** @param snapshot the round's input */
    public QueueResolver(Snapshot snapshot) {
        this.snapshot = snapshot;
        for (LocalQueue lq : snapshot.localQueues().values()) {
            localQueueIndex.computeIfAbsent(lq.namespace(), k -> new HashMap<>()).put(lq.name(), lq);
        }
        for (Provisioning.Reservation r : snapshot.provisioning().reservations().values()) {
            if (snapshot.clusterQueues().containsKey(r.clusterQueue())) {
                nodeReservationQueues.put(r.jobId(), r.clusterQueue());
            }
        }
    }

    /**
     * @param j a pending job
     * @return true when the job holds a node reservation (quota held while it waits for nodes)
     */
    public boolean hasNodeReservation(JobStatus j) {
        return nodeReservationQueues.containsKey(j.id());
    }

    /**
     * @param j a pending job
     * @return the ClusterQueue a pending job is admitted through now, or null when its queues are missing or stopped
     */
    public String resolve(JobStatus j) {
        if (j == lastJob) {
            return lastQueue; // a job is resolved several times in a row (its checks, attempts and reason): once is enough
        }
        String r = resolveAnew(j);
        lastJob = j;
        lastQueue = r;
        return r;
    }

    /** The last job resolved and its ClusterQueue (the answer never changes: the snapshot is frozen). */
    private JobStatus lastJob;
    private String lastQueue;

    private String resolveAnew(JobStatus j) {
        if (!nodeReservationQueues.isEmpty()) {
            String nodeReservationQueue = nodeReservationQueues.get(j.id());
            if (nodeReservationQueue != null) {
                return nodeReservationQueue;
            }
        }
        String namespace = j.spec().namespace();
        String queue = j.spec().queue();
        if (namespace == lastNamespace && queue == lastQueueName) {
            return lastByName; // the same name objects as the job resolved by name last (the engine shares them between specs)
        }
        String r = resolveByName(namespace, queue);
        lastNamespace = namespace;
        lastQueueName = queue;
        lastByName = r;
        return r;
    }

    /** The namespace and LocalQueue name last resolved by name, and the answer (null: none). */
    private String lastNamespace;
    private String lastQueueName;
    private String lastByName;

    private String resolveByName(String namespace, String queue) {
        Map<String, LocalQueue> ns = localQueueIndex.get(namespace);
        LocalQueue lq = ns == null ? null : ns.get(queue);
        if (lq == null) {
            return null;
        }
        String r = resolved.get(lq);
        if (r == null) {
            ClusterQueue cq = snapshot.clusterQueues().get(lq.clusterQueue());
            r = cq == null || cq.stopped() || !cq.admitsNamespace(lq.namespaceLabels()) ? NONE : cq.name();
            resolved.put(lq, r);
        }
        return r == NONE ? null : r;
    }

    /**
     * @param j a pending job
     * @return why a job's queue does not resolve (call only when {@link #resolve} gave null)
     */
    public PendingReason unresolvedReason(JobStatus j) {
        Map<String, LocalQueue> ns = localQueueIndex.get(j.spec().namespace());
        LocalQueue lq = ns == null ? null : ns.get(j.spec().queue());
        if (lq == null) {
            return PendingReason.of(PendingReason.Code.QUEUE_NOT_FOUND,
                    "LocalQueue " + j.spec().queue() + " not found in namespace " + j.spec().namespace());
        }
        ClusterQueue cq = snapshot.clusterQueues().get(lq.clusterQueue());
        if (cq == null) {
            return PendingReason.of(PendingReason.Code.CLUSTER_QUEUE_NOT_FOUND,
                    "LocalQueue " + lq.key() + " points to ClusterQueue " + lq.clusterQueue() + ", which does not exist");
        }
        if (!cq.stopped() && !cq.admitsNamespace(lq.namespaceLabels())) {
            return PendingReason.of(PendingReason.Code.NAMESPACE_NOT_ALLOWED, "namespace " + lq.namespace() + " (labels " + new java.util.TreeMap<>(
                    lq.namespaceLabels()) + ") does not match the namespaceSelector of ClusterQueue " + cq.name());
        }
        return PendingReason.of(PendingReason.Code.QUEUE_STOPPED, "ClusterQueue " + cq.name() + " is stopped: it admits nothing new");
    }

    /**
     * @param j a pending job
     * @return the reason a pending job waits for a missing or stopped queue, or null when its queue resolves
     */
    public PendingReason unresolvedReasonOf(JobStatus j) {
        return resolve(j) != null ? null : unresolvedReason(j);
    }
}
