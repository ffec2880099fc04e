package io.fairway.visibility;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.LocalQueue;
import io.fairway.core.snapshot.Snapshot;

/**
 * One request's consistent view: a {@link Snapshot} taken under the engine's lock, and the lookups every answer
 * needs. Nothing is copied per pending job: the snapshot shares the engine's frozen pending index.
 */
final class StateView {
    final Snapshot snapshot;

    StateView(Snapshot snapshot) {
        this.snapshot = snapshot;
    }

    /** @return the ClusterQueue a job is charged to (its admission's) or would be (its LocalQueue's), or null */
    String clusterQueueOf(JobStatus j) {
        if (j.admission() != null) {
            return j.admission().clusterQueue();
        }
        LocalQueue lq = snapshot.localQueues().get(j.spec().localQueueKey());
        return lq == null ? null : lq.clusterQueue();
    }

    /** @return the ClusterQueue a LocalQueue key points to, or null */
    String clusterQueueOfLocalQueue(String key) {
        LocalQueue lq = snapshot.localQueues().get(key);
        return lq == null ? null : lq.clusterQueue();
    }
}
