package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.core.preemption.PreemptionSearch;
import io.fairway.core.snapshot.KeyHash;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Memos of failed attempts within the round. An attempt (admission at full size, or the preemption search) reads
 * only the plan — capacity, quota, what is admitted, preempted and resized — and the job's ClusterQueue and shape
 * (and, for the search, its candidates); it fails the same way for every job with the same key while the plan is
 * the same. The plan is named by a state number ({@link TentativePlan}): every change takes a new one, never
 * reused; a preemption search that fails has undone every change it made, and gives the plan its number back.
 */
final class AttemptMemo {
    private final Map<AttemptKey, Failed> failedAdmissions = new HashMap<>();
    private final Map<SearchKey, Failed> failedSearches = new HashMap<>();
    /** The last job keyed, and its key: a job's attempts and its search ask for the same key in a row. */
    private JobStatus keyedJob;
    private AttemptKey lastKey;

    /** What an attempt reads of a job, besides the plan; hashed once (the pod sets are most of it). */
    static final class AttemptKey {
        private final String clusterQueue;
        private final String namespace;
        private final List<PodSet> podSets;
        private final Object sensitivity;
        private final int hash;

        AttemptKey(String clusterQueue, JobStatus job) {
            this.clusterQueue = clusterQueue;
            this.namespace = job.spec().namespace();
            this.podSets = job.spec().podSets();
            this.sensitivity = job.spec().sensitivity();
            int h = KeyHash.with(KeyHash.with(0, podSets.hashCode()), clusterQueue.hashCode());
            this.hash = KeyHash.with(KeyHash.with(h, Objects.hashCode(namespace)), Objects.hashCode(sensitivity));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AttemptKey k && hash == k.hash && clusterQueue.equals(k.clusterQueue)
                    && Objects.equals(namespace, k.namespace) && podSets.equals(k.podSets)
                    && Objects.equals(sensitivity, k.sensitivity);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        /** @return the ClusterQueue */
        String clusterQueue() {
            return clusterQueue;
        }

        /** @return the job's pod sets */
        List<PodSet> podSets() {
            return podSets;
        }
    }

    /** A preemption search's key: the attempt's, and where the job ranks among the candidates it may take. */
    record SearchKey(AttemptKey attempt, PreemptionSearch.Rank rank) {
    }

    /**
     * A failure on the plan of state number {@code state}; {@code admissions}: how many admission numbers the
     * attempt used (a search may admit and take the admission back).
     */
    record Failed(long state, PendingReason reason, long admissions) {
    }

    /**
     * One object for equal keys: the keys kept on groups and those of the round's maps of failures. A deep queue has a
     * handful of keys per ClusterQueue, and a group's kept key is then the very object those maps hold (found by
     * identity, in memory the round has just read), not a copy of its own.
     */
    private static final com.google.common.collect.Interner<AttemptKey> KEYS = com.google.common.collect.Interners.newWeakInterner();

    /**
     * The key of a group's first job in a ClusterQueue, kept on the group across rounds: made from the job once, then
     * read from the group without reading the job again.
     */
    static AttemptKey attemptKey(String clusterQueue, io.fairway.core.snapshot.PendingIndex.Group group) {
        if (group.firstJobKey() instanceof AttemptKey k && k.clusterQueue.equals(clusterQueue)) {
            return k;
        }
        AttemptKey k = KEYS.intern(new AttemptKey(clusterQueue, group.head()));
        group.keepFirstJobKey(k);
        return k;
    }

    /**
     * @return the one object kept for keys equal to {@code key}: what the round's maps of failures are keyed by, so that
     *     a group's kept key finds its entry by identity
     */
    static AttemptKey canonical(AttemptKey key) {
        return KEYS.intern(key);
    }

    AttemptKey attemptKey(String clusterQueue, JobStatus job) {
        if (job != keyedJob || !clusterQueue.equals(lastKey.clusterQueue)) {
            lastKey = new AttemptKey(clusterQueue, job);
            keyedJob = job;
        }
        return lastKey;
    }

    /** @return the failure of an admission with this key on the plan of this state number, or null */
    Failed failedAdmission(AttemptKey key, long state) {
        Failed f = failedAdmissions.get(key);
        return f != null && f.state() == state ? f : null;
    }

    void admissionFailed(AttemptKey key, long state, PendingReason reason) {
        failedAdmissions.put(canonical(key), new Failed(state, reason, 0));
    }

    /** @return the failure of a search with this key on the plan of this state number, or null */
    Failed failedSearch(SearchKey key, long state) {
        Failed f = failedSearches.get(key);
        return f != null && f.state() == state ? f : null;
    }

    void searchFailed(SearchKey key, Failed f) {
        failedSearches.put(key, f);
    }
}
