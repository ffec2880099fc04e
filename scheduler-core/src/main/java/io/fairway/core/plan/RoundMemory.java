package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.Node;
import io.fairway.core.snapshot.PendingJobs;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the engine remembers from one round to the next: the failed attempts of the rounds so far, each with the
 * epochs of what it depended on, so that a repeated attempt whose dependencies did not change is answered without
 * being made again.
 *
 * <p><b>Dependencies and epochs.</b> An attempt made on the round's starting plan (before the plan changed anything)
 * reads only that starting plan, which the snapshot determines: the configuration (flavors, clusters, cohorts,
 * ClusterQueues, reservations, the placement strategy), the capacity (the nodes and every holding job's placement)
 * and, per cohort tree (a root cohort with everything under it, or a ClusterQueue without a cohort), the quota
 * and the preemption candidates (the holding jobs charged to it: spec, admission, state). Each of these has an
 * epoch. A round compares each dependency with the previous round's (by identity of the engine's immutable
 * objects, and by equality for the configuration) and keeps its epoch when nothing changed, or gives it a new one.
 * Nothing outside the snapshot is trusted: a reconfiguration, a restore, a change made while a round ran — all show
 * up as a changed dependency, so the memory can never answer from a state that is not the current one.
 *
 * <p>A quota failure (no flavor of the ClusterQueue has the quota) depends on the configuration and the job's
 * cohort tree; a failure to place, and a failed preemption search, on those and the capacity — whose reasons quote
 * the cluster's free GPUs, so the capacity is one dependency for the whole cluster. Answers are kept per
 * {@link AttemptMemo.AttemptKey} (ClusterQueue, namespace, pod sets, sensitivity), and for searches per key and
 * priority (with the submission time and sequence where the candidates depend on them).
 *
 * <p>The memory is immutable once made: a round reads one ({@link #begin}) and makes the next
 * ({@link Round#finish}); two rounds computed at once cannot disturb each other. A round that starts with no memory
 * (a dry run through {@code Rounds.run(snapshot, policy)}) decides everything from scratch — with the same result,
 * which a property test checks on random histories.
 */
public final class RoundMemory {
    /** Layers of answers above which they are merged into one (dropping answers no epoch can match again). */
    private static final int MAX_LAYERS = 8;

    private final Object[] config;
    private final Object[] capacity;
    private final Map<String, Object[]> trees;
    private final long configEpoch;
    private final long capacityEpoch;
    private final Map<String, Long> treeEpochs;
    private final long lastEpoch;
    /** Answers, newest layer first; an answer in a newer layer hides the older ones of its key. */
    private final List<Map<Object, Answer>> layers;
    /** The pending index the round saw, and whether that round decided nothing at all. */
    private final PendingJobs index;
    private final boolean decidedNothing;
    /** How many attempts of the round that made this memory were answered from the one before. */
    private final int answered;

    private RoundMemory(Object[] config, Object[] capacity, Map<String, Object[]> trees, long configEpoch, long capacityEpoch,
                        Map<String, Long> treeEpochs, long lastEpoch, List<Map<Object, Answer>> layers, PendingJobs index,
                        boolean decidedNothing, int answered) {
        this.answered = answered;
        this.config = config;
        this.capacity = capacity;
        this.trees = trees;
        this.configEpoch = configEpoch;
        this.capacityEpoch = capacityEpoch;
        this.treeEpochs = treeEpochs;
        this.lastEpoch = lastEpoch;
        this.layers = layers;
        this.index = index;
        this.decidedNothing = decidedNothing;
    }

    /** A failed attempt and the epochs it depended on ({@code capacity} -1: it did not depend on capacity). */
    record Answer(PendingReason reason, long admissions, long config, long tree, long capacity) {
    }

    /** A preemption search's key across rounds. */
    record SearchKey(AttemptMemo.AttemptKey attempt, int priority, long submitted, long sequence) {
    }

    /**
     * @return how many attempts of the round that made this memory were answered from the previous round's memory
     *     (admissions and preemption searches not made again)
     */
    public int answeredByLastRound() {
        return answered;
    }

    /** @return how many answers the memory holds (all layers; for tests and the heap figures) */
    public int answers() {
        int n = 0;
        for (Map<Object, Answer> l : layers) {
            n += l.size();
        }
        return n;
    }

    /**
     * Starts a round: compares the snapshot's dependencies with the previous round's.
     *
     * @param previous the memory the previous round left, or null for none
     * @param snapshot this round's input
     * @return the round's view of the memory
     */
    public static Round begin(RoundMemory previous, Snapshot snapshot) {
        return new Round(previous, snapshot);
    }

    /** One round's use of the memory: its epochs, the answers it may give, and the answers it adds. */
    public static final class Round {
        private final RoundMemory previous;
        private final Snapshot snapshot;
        private final Object[] config;
        private final Object[] capacity;
        private final Map<String, Object[]> trees;
        private final long configEpoch;
        private final long capacityEpoch;
        private final Map<String, Long> treeEpochs = new HashMap<>();
        private final Map<String, String> rootOf = new HashMap<>();
        private final Map<Object, Answer> added = new HashMap<>();
        private long lastEpoch;
        private int answered;
        /** True when every dependency kept its epoch since the previous round. */
        private final boolean unchanged;

        private Round(RoundMemory previous, Snapshot s) {
            this.previous = previous;
            this.snapshot = s;
            this.lastEpoch = previous == null ? 0 : previous.lastEpoch;
            this.config = new Object[] {s.placement(), s.flavors(), s.clusters(), s.clusterQueues(), s.cohorts(),
                    s.localQueues(), s.provisioning().reservations(), s.provisioning().pools().isEmpty()};
            List<Node> nodes = s.nodes();
            List<JobStatus> holding = s.holding();
            Object[] cap = new Object[nodes.size() + 2 * holding.size()];
            int i = 0;
            for (Node n : nodes) {
                cap[i++] = n;
            }
            Map<String, List<Object>> perTree = new HashMap<>();
            for (JobStatus j : holding) {
                cap[i++] = j.spec();
                cap[i++] = j.admission();
                List<Object> t = perTree.computeIfAbsent(root(j.admission() == null ? null : j.admission().clusterQueue()), k -> new ArrayList<>());
                t.add(j.spec());
                t.add(j.admission());
                t.add(j.state());
            }
            this.capacity = cap;
            this.trees = new HashMap<>();
            perTree.forEach((k, v) -> trees.put(k, v.toArray()));
            boolean same = previous != null;
            if (previous != null && sameConfig(previous.config, config)) {
                configEpoch = previous.configEpoch;
            } else {
                configEpoch = ++lastEpoch;
                same = false;
            }
            if (previous != null && sameRefs(previous.capacity, capacity)) {
                capacityEpoch = previous.capacityEpoch;
            } else {
                capacityEpoch = ++lastEpoch;
                same = false;
            }
            if (previous != null) { // trees nobody holds quota in any more
                for (Map.Entry<String, Object[]> e : previous.trees.entrySet()) {
                    if (!trees.containsKey(e.getKey())) {
                        trees.put(e.getKey(), new Object[0]);
                    }
                }
            }
            for (Map.Entry<String, Object[]> e : trees.entrySet()) {
                Object[] before = previous == null ? null : previous.trees.get(e.getKey());
                Long epoch = previous == null ? null : previous.treeEpochs.get(e.getKey());
                if (before != null && epoch != null && sameRefs(before, e.getValue())) {
                    treeEpochs.put(e.getKey(), epoch);
                } else {
                    treeEpochs.put(e.getKey(), ++lastEpoch);
                    same = false;
                }
            }
            this.unchanged = same;
        }

        /** @return the cohort tree a ClusterQueue belongs to: its root cohort, or the queue itself */
        String root(String clusterQueue) {
            if (clusterQueue == null) {
                return "";
            }
            String r = rootOf.get(clusterQueue);
            if (r == null) {
                ClusterQueue cq = snapshot.clusterQueues().get(clusterQueue);
                if (cq == null || cq.cohort() == null) {
                    r = "queue/" + clusterQueue;
                } else {
                    String c = cq.cohort();
                    java.util.Set<String> seen = new java.util.HashSet<>();
                    while (seen.add(c)) {
                        Cohort co = snapshot.cohorts().get(c);
                        if (co == null || co.parent() == null) {
                            break;
                        }
                        c = co.parent();
                    }
                    r = "cohort/" + c;
                }
                rootOf.put(clusterQueue, r);
            }
            return r;
        }

        private long treeEpoch(String clusterQueue) {
            String r = root(clusterQueue);
            Long e = treeEpochs.get(r);
            if (e == null) { // a tree nobody holds quota in: its epoch is new once, then kept by the empty fingerprint
                Object[] before = previous == null ? null : previous.trees.get(r);
                Long was = previous == null ? null : previous.treeEpochs.get(r);
                e = before != null && before.length == 0 && was != null ? was : ++lastEpoch;
                treeEpochs.put(r, e);
                trees.put(r, new Object[0]);
            }
            return e;
        }

        /**
         * True when the previous round changed nothing (no decision, and every job kept its reason) and nothing it
         * depended on changed since: no dependency took a new epoch and the pending jobs are the same (the engine's
         * pending index is the same object). Every job carries the answer the previous round gave it, and that answer
         * stands, whichever order a policy walks the jobs in.
         *
         * @return whether the previous round's answers all stand
         */
        public boolean previousAnswersStand() {
            return unchanged && previous.decidedNothing && previous.index == snapshot.pendingIndex()
                    && snapshot.provisioning().pools().isEmpty();
        }

        private Answer find(Object key) {
            Answer a = added.get(key);
            if (a != null || previous == null) {
                return a;
            }
            for (Map<Object, Answer> l : previous.layers) {
                a = l.get(key);
                if (a != null) {
                    return a;
                }
            }
            return null;
        }

        private boolean valid(Answer a, String clusterQueue) {
            return a != null && a.config() == configEpoch && a.tree() == treeEpoch(clusterQueue)
                    && (a.capacity() == -1 || a.capacity() == capacityEpoch);
        }

        /**
         * @param key an admission's key
         * @return the reason the same admission failed on a starting plan equal to this round's, or null
         */
        PendingReason admission(AttemptMemo.AttemptKey key) {
            Answer a = find(key);
            if (!valid(a, key.clusterQueue())) {
                return null;
            }
            answered++;
            return a.reason();
        }

        /**
         * A quota failure's answer, asked after the plan changed: it stands while the plan has not changed the quota of
         * the job's cohort tree (the caller checks that), whatever it did elsewhere, since a quota failure reads
         * nothing but the configuration and that tree's usage.
         *
         * @param key an admission's key
         * @return the reason the same admission failed for quota on a starting plan equal to this round's, or null
         */
        PendingReason quotaAdmission(AttemptMemo.AttemptKey key) {
            Answer a = find(key);
            if (a == null || a.capacity() != -1 || !valid(a, key.clusterQueue())) {
                return null;
            }
            answered++;
            return a.reason();
        }

        /**
         * @param a ClusterQueue
         * @param b another
         * @return true when both are in one cohort tree
         */
        boolean sameTree(String a, String b) {
            return root(a).equals(root(b));
        }

        /**
         * Records an admission that failed on this round's starting plan (or, for a quota failure, on a plan whose
         * quota in the job's cohort tree is still the starting plan's).
         *
         * @param key its key
         * @param reason why
         * @param quotaOnly true when it failed for quota (it did not read the capacity)
         */
        void admissionFailed(AttemptMemo.AttemptKey key, PendingReason reason, boolean quotaOnly) {
            added.put(key, new Answer(reason, 0, configEpoch, treeEpoch(key.clusterQueue()), quotaOnly ? -1 : capacityEpoch));
        }

        /** @return the failed search of that key on a starting plan equal to this round's, or null */
        Answer search(SearchKey key) {
            Answer a = find(key);
            if (!valid(a, key.attempt().clusterQueue())) {
                return null;
            }
            answered++;
            return a;
        }

        void searchFailed(SearchKey key, PendingReason reason, long admissions) {
            added.put(key, new Answer(reason, admissions, configEpoch, treeEpoch(key.attempt().clusterQueue()), capacityEpoch));
        }

        /**
         * Makes the memory the next round reads.
         *
         * @param decidedNothing true when the round changed nothing: no decision, no refusal, no lease renewed, and no
         *     pending reason that differs from the one the job carries
         * @return the next memory
         */
        public RoundMemory finish(boolean decidedNothing) {
            List<Map<Object, Answer>> layers = new ArrayList<>(MAX_LAYERS + 1);
            if (!added.isEmpty()) {
                layers.add(added);
            }
            if (previous != null && configEpoch == previous.configEpoch) { // a new configuration: nothing old can match
                layers.addAll(previous.layers);
            }
            if (layers.size() > MAX_LAYERS) {
                layers = List.of(merge(layers));
            } else if (layers.size() > 1) {
                Map<Object, Answer> oldest = layers.get(layers.size() - 1);
                int younger = 0;
                for (int i = 0; i < layers.size() - 1; i++) {
                    younger += layers.get(i).size();
                }
                if (younger > oldest.size() / 2 + 1024) {
                    layers = List.of(merge(layers));
                }
            }
            return new RoundMemory(config, capacity, trees, configEpoch, capacityEpoch, Map.copyOf(treeEpochs), lastEpoch,
                    List.copyOf(layers), snapshot.pendingIndex(), decidedNothing, answered);
        }

        /** One layer of the answers that can still match: newest first wins; answers of old epochs are dropped. */
        private Map<Object, Answer> merge(List<Map<Object, Answer>> layers) {
            Map<Object, Answer> m = new HashMap<>();
            for (int i = layers.size() - 1; i >= 0; i--) {
                for (Map.Entry<Object, Answer> e : layers.get(i).entrySet()) {
                    Answer a = e.getValue();
                    String cq = e.getKey() instanceof SearchKey k ? k.attempt().clusterQueue() : ((AttemptMemo.AttemptKey) e.getKey()).clusterQueue();
                    Long tree = treeEpochs.get(root(cq));
                    if (a.config() == configEpoch && (tree == null || tree == a.tree())) {
                        m.put(e.getKey(), a);
                    } else {
                        m.remove(e.getKey());
                    }
                }
            }
            return m;
        }
    }

    private static boolean sameRefs(Object[] a, Object[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameConfig(Object[] a, Object[] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i] && !a[i].equals(b[i])) {
                return false;
            }
        }
        return true;
    }
}
