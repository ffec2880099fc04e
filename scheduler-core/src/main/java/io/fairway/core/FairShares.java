package io.fairway.core;

import io.fairway.api.model.ClusterQueue;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.validation.Invariants;
import java.util.Map;
import java.util.TreeMap;
import io.fairway.core.snapshot.Snapshot;

/**
 * Read-only fairness figures of a {@link Snapshot}, computed with the engine's own quota book, for people to read
 * (the visibility API): nothing here is used by a round.
 */
public final class FairShares {
    private FairShares() {
    }

    /**
     * Each ClusterQueue's dominant resource share, as Kueue's fair sharing (and the {@code fair-share} policy) ranks
     * queues by: for each (flavor, resource) its usage above nominal quota over what its cohort could lend of it; the
     * largest of these, divided by its fair-sharing weight. 0 for a queue within its nominal quota or without a cohort.
     *
     * @param snapshot a snapshot
     * @return dominant resource share by ClusterQueue name, in name order
     */
    public static Map<String, Double> dominantResourceShares(Snapshot snapshot) {
        QuotaBook book = Invariants.charged(snapshot.clusterQueues(), snapshot.cohorts(), snapshot.holding(),
                snapshot.provisioning().reservations().values(), id -> null);
        Map<String, Double> out = new TreeMap<>();
        for (ClusterQueue q : snapshot.clusterQueues().values()) {
            out.put(q.name(), book.dominantShare(q.name(), q));
        }
        return out;
    }
}
