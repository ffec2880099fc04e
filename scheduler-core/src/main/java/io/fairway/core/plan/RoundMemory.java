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
 * being made again (a round's cost then follows what changed, not how many jobs wait).
 *
 * <p>Immutable once made: a round reads one ({@link #begin}) and makes the next ({@link Round#finish}), so two rounds
 * computed at once cannot disturb each other. A round without one (a dry run through {@code Rounds.run(snapshot,
 * policy)}) decides everything from scratch, with the same result. Answers are kept per {@link AttemptMemo.AttemptKey};
 * a placement failure for lack of room also stands while that room is still not free ({@link Round#placementStillFails}).
 * The dependencies, their epochs and which answers stand: docs/concepts/engine.md, "Rounds that remember".
 */
public final class RoundMemory {
    /** Layers of answers above which they are merged into one (dropping answers no epoch can match again). */
    private static final int MAX_LAYERS = 8;

    private final Object[] config;
    private final Map<String, Object[]> parts;
    private final Object[] allNodes;
    private final long nodeEpoch;
    private final Map<String, Object[]> trees;
    private final long configEpoch;
    private final Map<String, Long> partEpochs;
    private final Map<String, Long> partNodeEpochs;
    private final Map<String, Long> treeEpochs;
    private final long lastEpoch;
    /** Answers, newest layer first; an answer in a newer layer hides the older ones of its key. */
    private final List<Map<Object, Answer>> layers;
    /** The pending index the round saw, and whether that round decided nothing at all. */
    private final PendingJobs index;
    private final boolean decidedNothing;
    /** How many attempts of the round that made this memory were answered from the one before. */
    private final int answered;
    /** Which parts each node is in, kept while the nodes, flavors and clusters are the same objects. */
    private final NodeParts nodeParts;
    /** The holding jobs the round saw (its parts and trees are made of them). */
    private final List<JobStatus> holding;

    private RoundMemory(Object[] config, Map<String, Object[]> parts, Object[] allNodes, long nodeEpoch, Map<String, Object[]> trees,
                        long configEpoch, Map<String, Long> partEpochs, Map<String, Long> partNodeEpochs,
                        Map<String, Long> treeEpochs, long lastEpoch, List<Map<Object, Answer>> layers, PendingJobs index,
                        boolean decidedNothing, int answered, NodeParts nodeParts, List<JobStatus> holding) {
        this.answered = answered;
        this.holding = holding;
        this.nodeParts = nodeParts;
        this.config = config;
        this.parts = parts;
        this.allNodes = allNodes;
        this.nodeEpoch = nodeEpoch;
        this.trees = trees;
        this.configEpoch = configEpoch;
        this.partEpochs = partEpochs;
        this.partNodeEpochs = partNodeEpochs;
        this.treeEpochs = treeEpochs;
        this.lastEpoch = lastEpoch;
        this.layers = layers;
        this.index = index;
        this.decidedNothing = decidedNothing;
    }

    /**
     * A failed attempt and the epochs it depended on: the configuration, the cohort tree, and (null: it did not read
     * the capacity) the capacity of each part its ClusterQueue's flavors place on ({@link Round#parts}), with the
     * epochs of those parts' nodes alone.
     */
    record Answer(PendingReason reason, long admissions, long config, long tree, long[] capacity, long[] nodes) {
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
        private final Map<String, Object[]> parts = new HashMap<>();
        /** Flavors every node carries: their part is the whole cluster's. */
        private final java.util.Set<String> sharesWhole = new java.util.HashSet<>();
        private final Object[] allNodes;
        private final long nodeEpoch;
        private final Map<String, Object[]> trees = new HashMap<>();
        private final long configEpoch;
        private final Map<String, Long> partEpochs = new HashMap<>();
        private final Map<String, Long> partNodeEpochs = new HashMap<>();
        /** Per ClusterQueue: the capacity parts its flavors place on. */
        private final Map<String, String[]> partsOf = new HashMap<>();
        /** Per part: the nodes in it (for the free room on the starting plan). */
        private final Map<String, List<Node>> nodesIn = new HashMap<>();
        /** Per part: free GPUs on the starting plan, in all its schedulable nodes and on the freest one. */
        private final Map<String, long[]> startingFree = new HashMap<>();
        private io.fairway.core.placement.CapacityPlan startingCapacity;
        private NodeParts nodeParts;
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
            Object[] config = new Object[] {s.placement(), s.flavors(), s.clusters(), s.clusterQueues(), s.cohorts(),
                    s.localQueues(), s.provisioning().reservations(), s.provisioning().pools().isEmpty()};
            // The capacity in parts: the whole cluster, and per flavor the nodes it places on (its clusters whole where
            // they define topology levels: the topology search weighs whole domains) with the holding jobs on them.
            List<String> partNames = new ArrayList<>();
            partNames.add(WHOLE);
            List<io.fairway.api.model.ResourceFlavor> flavors = new ArrayList<>(s.flavors().values());
            for (io.fairway.api.model.ResourceFlavor f : flavors) {
                partNames.add(FLAVOR + f.name());
            }
            partNames.add(LEVELED); // every cluster with topology levels, whole: see wholeJobParts
            Object[] allNodes = s.nodes().toArray();
            boolean sameConfig = previous != null && sameConfig(previous.config, config);
            splitIntoParts(s, flavors, partNames, allNodes, sameConfig);
            this.allNodes = allNodes;
            boolean same = previous != null;
            if (sameConfig) {
                configEpoch = previous.configEpoch;
                this.config = previous.config; // equal: the object stands for the configuration while it lasts
            } else {
                configEpoch = ++lastEpoch;
                this.config = config;
                same = false;
            }
            same &= keepPartEpochs(partNames);
            // the nodes, one epoch for every part
            long nodeEpoch = previous != null && previous.allNodes != null && sameRefs(previous.allNodes, allNodes)
                    ? previous.nodeEpoch : ++lastEpoch;
            this.nodeEpoch = nodeEpoch;
            for (String part : partNames) {
                partNodeEpochs.put(part, nodeEpoch);
            }
            same &= keepTreeEpochs();
            this.unchanged = same;
        }

        /**
         * Fills {@link #parts}, {@link #sharesWhole}, {@link #nodesIn} and {@link #trees}: every part depends on every
         * node (a placement reads whether its cluster has nodes at all, and the never-fits answers read node sizes), and
         * on the holding jobs on its own nodes: finishes and starts elsewhere leave it. Each cohort tree's fingerprint is
         * what its holding jobs are (spec, admission, state of each).
         *
         * <p>When the nodes, the configuration and the holding jobs are the previous round's very objects (the engine
         * hands the same array of holding jobs to every snapshot until one of them changes), every part and tree is
         * made of the same references as before: the previous round's are taken as they are, without reading a job.
         * When only a few holding jobs changed, the parts and trees they are not in are taken as they were, and those
         * they are in are given a fingerprint no round had ({@link #followChanges}).
         *
         * @param sameConfig true when the configuration equals the previous round's (the trees' roots are then the same)
         */
        private void splitIntoParts(Snapshot s, List<io.fairway.api.model.ResourceFlavor> flavors, List<String> partNames,
                                    Object[] allNodes, boolean sameConfig) {
            NodeParts np = previous != null && previous.nodeParts != null && previous.nodeParts.holdsFor(s, allNodes)
                    ? previous.nodeParts : NodeParts.of(s, flavors, partNames.size(), allNodes);
            this.nodeParts = np;
            boolean[] whole = np.whole;
            if (sameConfig && np == previous.nodeParts && followChanges(s, partNames, np)) {
                for (int k = 0; k < partNames.size(); k++) {
                    if (k > 0 && whole[k]) {
                        sharesWhole.add(partNames.get(k));
                    }
                    nodesIn.put(partNames.get(k), np.partNodeList.get(k));
                }
                return;
            }
            boolean anyOwn = np.anyOwn;
            List<JobStatus> holding = s.holding();
            // the whole cluster's part holds every node and every holding job (its spec and admission): made at its
            // final size, the nodes copied in once; the other parts grow as their jobs are found
            Object[] wholePart = java.util.Arrays.copyOf(allNodes, allNodes.length + 2 * holding.size());
            List<List<Object>> partCap = new ArrayList<>(partNames.size());
            partCap.add(null);
            for (int k = 1; k < partNames.size(); k++) {
                List<Object> l = new ArrayList<>();
                if (!whole[k]) {
                    l.addAll(java.util.Arrays.asList(allNodes));
                }
                partCap.add(l);
            }
            int wholeAt = allNodes.length;
            Map<String, List<Object>> perTree = new HashMap<>();
            boolean narrow = partNames.size() <= Long.SIZE; // the parts a job touches as the bits of one long
            java.util.BitSet touched = narrow ? null : new java.util.BitSet();
            String lastCq = null; // holding jobs come in runs of one ClusterQueue: its tree's list is looked up once a run
            List<Object> lastTree = null;
            for (int hi = 0, hn = holding.size(); hi < hn; hi++) {
                JobStatus j = io.fairway.core.snapshot.HeldJobs.stored(holding, hi); // what it holds: no service needed
                wholePart[wholeAt++] = j.spec();
                wholePart[wholeAt++] = j.admission();
                if (anyOwn) {
                    addToParts(j, partsTouched(j, np, partNames.size(), anyOwn, touched), touched, whole, partCap);
                }
                String cq = j.admission() == null ? null : j.admission().clusterQueue();
                List<Object> t;
                if (lastTree != null && java.util.Objects.equals(cq, lastCq)) {
                    t = lastTree;
                } else {
                    t = perTree.computeIfAbsent(root(cq), k -> new ArrayList<>());
                    lastCq = cq;
                    lastTree = t;
                }
                t.add(j.spec());
                t.add(j.admission());
                t.add(j.state());
            }
            for (int k = 0; k < partNames.size(); k++) {
                if (k == 0) {
                    parts.put(partNames.get(k), wholePart);
                } else if (!whole[k]) {
                    parts.put(partNames.get(k), partCap.get(k).toArray());
                } else {
                    sharesWhole.add(partNames.get(k));
                }
                nodesIn.put(partNames.get(k), np.partNodeList.get(k));
            }
            perTree.forEach((k, v) -> trees.put(k, v.toArray()));
        }

        /**
         * Takes the previous round's parts and trees, and gives those a holding job changed in a fingerprint no round
         * had (a new epoch: answers that read them are not given again). A job that changed is found by walking the
         * two arrays of holding jobs side by side (submission order), reading a job only where they differ. A part
         * changes when a job in it starts or stops holding or holds with another spec or admission; a tree, also when
         * its state changes: as the fingerprints made from every job would.
         *
         * @return false, having changed nothing, when the holding jobs are not both the engine's or too many changed
         *     (the fingerprints are then made from every job)
         */
        private boolean followChanges(Snapshot s, List<String> partNames, NodeParts np) {
            JobStatus[] before = io.fairway.core.snapshot.HeldJobs.storedJobs(previous.holding);
            JobStatus[] now = io.fairway.core.snapshot.HeldJobs.storedJobs(s.holding());
            if (before == null || now == null) {
                return false;
            }
            if (before == now) { // no holding job changed
                parts.putAll(previous.parts);
                trees.putAll(previous.trees);
                return true;
            }
            List<JobStatus> changed = new ArrayList<>(); // (before or null, after or null) pairs
            int limit = 2 * (now.length / 8 + 16);
            for (int i = 0, j = 0; i < before.length || j < now.length; ) {
                JobStatus a = i < before.length ? before[i] : null;
                JobStatus b = j < now.length ? now[j] : null;
                if (a == b) {
                    i++;
                    j++;
                    continue;
                }
                long sa = a == null ? Long.MAX_VALUE : a.sequence();
                long sb = b == null ? Long.MAX_VALUE : b.sequence();
                changed.add(sa <= sb ? a : null);
                changed.add(sb <= sa ? b : null);
                i += sa <= sb ? 1 : 0;
                j += sb <= sa ? 1 : 0;
                if (changed.size() > limit) {
                    return false;
                }
            }
            int partCount = partNames.size();
            java.util.BitSet touchedParts = new java.util.BitSet();
            java.util.BitSet scratch = partCount <= Long.SIZE ? null : new java.util.BitSet();
            java.util.Set<String> touchedTrees = new java.util.HashSet<>();
            for (int k = 0; k < changed.size(); k += 2) {
                JobStatus a = changed.get(k);
                JobStatus b = changed.get(k + 1);
                boolean holdsAlike = a != null && b != null && a.spec() == b.spec() && a.admission() == b.admission();
                if (holdsAlike && a.state() == b.state()) {
                    continue;
                }
                for (JobStatus x : a == null ? List.of(b) : b == null ? List.of(a) : List.of(a, b)) {
                    if (!holdsAlike) {
                        long bits = partsTouched(x, np, partCount, np.anyOwn, scratch);
                        if (scratch == null) {
                            for (long rest = bits; rest != 0; rest &= rest - 1) {
                                touchedParts.set(Long.numberOfTrailingZeros(rest));
                            }
                        } else {
                            touchedParts.or(scratch);
                        }
                    }
                    touchedTrees.add(root(x.admission() == null ? null : x.admission().clusterQueue()));
                }
            }
            parts.putAll(previous.parts);
            trees.putAll(previous.trees);
            for (int k = touchedParts.nextSetBit(0); k >= 0; k = touchedParts.nextSetBit(k + 1)) {
                if (k == 0 || !np.whole[k]) {
                    parts.put(partNames.get(k), new Object[] {new Object()});
                }
            }
            for (String t : touchedTrees) {
                trees.put(t, new Object[] {new Object()});
            }
            return true;
        }

        /**
         * The parts a holding job is counted in: the whole cluster's (part 0) and, when some part has nodes of its own,
         * the parts of every node it is placed on (every part for a node the snapshot does not list).
         *
         * @param touched null when the parts fit in one long (then the bits are returned); else cleared and filled
         * @return the parts as bits of one long, when {@code touched} is null
         */
        private static long partsTouched(JobStatus j, NodeParts np, int partCount, boolean anyOwn, java.util.BitSet touched) {
            long bits = 1L;
            if (touched != null) {
                touched.clear();
                touched.set(0);
            }
            if (!anyOwn || j.admission() == null || j.admission().placement() == null) {
                return bits;
            }
            String last = null;
            for (io.fairway.api.decision.MemberPlacement m : j.admission().placement().members()) {
                if (m.node().equals(last)) {
                    continue;
                }
                last = m.node();
                java.util.BitSet b = np.partsOfNode.get(m.node());
                if (touched == null) {
                    bits |= b != null ? np.maskOf.get(m.node()) : -1L >>> (Long.SIZE - partCount);
                } else if (b != null) {
                    touched.or(b);
                } else { // a node the snapshot does not list: count the job in every part
                    touched.set(0, partCount);
                }
            }
            return bits;
        }

        /**
         * Adds what a holding job holds (its spec and admission) to each part it touches, other than the whole
         * cluster's, that keeps its own list (the whole cluster's is filled by the caller).
         */
        private static void addToParts(JobStatus j, long bits, java.util.BitSet touched, boolean[] whole, List<List<Object>> partCap) {
            if (touched == null) {
                for (long rest = bits & ~1L; rest != 0; rest &= rest - 1) {
                    int k = Long.numberOfTrailingZeros(rest);
                    if (!whole[k]) {
                        partCap.get(k).add(j.spec());
                        partCap.get(k).add(j.admission());
                    }
                }
                return;
            }
            for (int k = touched.nextSetBit(1); k >= 0; k = touched.nextSetBit(k + 1)) {
                if (!whole[k]) {
                    partCap.get(k).add(j.spec());
                    partCap.get(k).add(j.admission());
                }
            }
        }

        /**
         * Per node, the parts it is in: bit 0 the whole cluster; bit k+1 flavor k's when the flavor places on the node or on
         * a node of its leveled cluster; bit {@code leveledPart} when its cluster has topology levels.
         */
        private static Map<String, java.util.BitSet> partsOfNodes(Snapshot s, List<io.fairway.api.model.ResourceFlavor> flavors, int leveledPart) {
            java.util.Set<String> leveled = new java.util.HashSet<>();
            s.clusters().forEach((name, c) -> {
                if (!c.topologyLevels().isEmpty()) {
                    leveled.add(name);
                }
            });
            List<java.util.Set<String>> leveledOf = new ArrayList<>(); // per flavor: leveled clusters it has a node in
            for (int k = 0; k < flavors.size(); k++) {
                leveledOf.add(new java.util.HashSet<>());
            }
            for (Node n : s.nodes()) {
                for (int k = 0; k < flavors.size(); k++) {
                    if (leveled.contains(n.cluster()) && matches(flavors.get(k), n)) {
                        leveledOf.get(k).add(n.cluster());
                    }
                }
            }
            Map<String, java.util.BitSet> partsOfNode = new HashMap<>();
            for (Node n : s.nodes()) {
                java.util.BitSet b = new java.util.BitSet();
                b.set(0);
                for (int k = 0; k < flavors.size(); k++) {
                    if (matches(flavors.get(k), n) || leveledOf.get(k).contains(n.cluster())) {
                        b.set(k + 1);
                    }
                }
                if (leveled.contains(n.cluster())) {
                    b.set(leveledPart);
                }
                partsOfNode.put(n.name(), b);
            }
            return partsOfNode;
        }

        /** Keeps each part's epoch when its dependencies are the previous round's (same references), else a new one. @return true when all were kept */
        private boolean keepPartEpochs(List<String> partNames) {
            boolean same = true;
            for (String part : partNames) {
                if (sharesWhole.contains(part)) {
                    continue;
                }
                Object[] before = previous == null ? null : previous.parts.get(part);
                Long epoch = previous == null ? null : previous.partEpochs.get(part);
                if (before != null && epoch != null && sameRefs(before, parts.get(part))) {
                    partEpochs.put(part, epoch);
                } else {
                    partEpochs.put(part, ++lastEpoch);
                    same = false;
                }
            }
            for (String part : sharesWhole) { // epochs are never reused across parts: a change of sharing is a change
                partEpochs.put(part, partEpochs.get(WHOLE));
            }
            return same;
        }

        /** Keeps each cohort tree's epoch when its holding jobs are the previous round's, else a new one. @return true when all were kept */
        private boolean keepTreeEpochs() {
            boolean same = true;
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
            return same;
        }

        /**
         * @return every capacity part's epoch by its name, and every cohort tree's by its root prefixed {@code tree:}
         *     (what answers are checked against; for tests)
         */
        Map<String, Long> epochs() {
            Map<String, Long> m = new java.util.TreeMap<>(partEpochs);
            treeEpochs.forEach((t, e) -> m.put("tree:" + t, e));
            return m;
        }

        /** Counts an attempt answered from the memory after the caller's own check ({@link #placementStillFails}). */
        void answeredAfterCheck() {
            answered++;
        }

        /**
         * An object that stands for this round's configuration (placement, flavors, clusters, ClusterQueues, cohorts,
         * LocalQueues, node reservations): the same object in every round of this memory while the configuration stays
         * equal, and an object no other configuration is given. Whatever follows from the configuration alone (a
         * LocalQueue's ClusterQueue, say) may be kept against it across rounds.
         *
         * @return that object
         */
        public Object configuration() {
            return config;
        }

        /** @return true when the configuration is the previous round's (its epoch was kept) */
        boolean configKept() {
            return previous != null && configEpoch == previous.configEpoch;
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

        private boolean valid(Answer a, AttemptMemo.AttemptKey key) {
            return a != null && a.config() == configEpoch && a.tree() == treeEpoch(key.clusterQueue())
                    && (a.capacity() == null || java.util.Arrays.equals(a.capacity(), epochs(key, partEpochs)));
        }

        /**
         * @return the capacity parts a ClusterQueue's jobs are placed on: one per flavor of its resource groups, or the
         *     whole cluster when one of them is not defined
         */
        String[] parts(String clusterQueue) {
            String[] p = partsOf.get(clusterQueue);
            if (p == null) {
                ClusterQueue cq = snapshot.clusterQueues().get(clusterQueue);
                java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
                boolean known = cq != null;
                if (cq != null) {
                    for (io.fairway.api.model.ResourceGroup g : cq.resourceGroups()) {
                        for (io.fairway.api.model.FlavorQuotas f : g.flavors()) {
                            known &= snapshot.flavors().containsKey(f.flavor());
                            names.add(FLAVOR + f.flavor());
                        }
                    }
                }
                p = known ? names.toArray(new String[0]) : new String[] {WHOLE};
                partsOf.put(clusterQueue, p);
            }
            return p;
        }

        private long[] epochs(String clusterQueue, Map<String, Long> of) {
            String[] p = parts(clusterQueue);
            long[] e = new long[p.length];
            for (int i = 0; i < p.length; i++) {
                e[i] = of.get(p[i]);
            }
            return e;
        }

        /**
         * The epochs of the capacity an attempt of this key reads: the parts of its ClusterQueue's flavors, and for a
         * job placed whole in one domain of a level all its pod sets require, also every cluster with topology levels
         * whole ({@link io.fairway.core.placement.Placer#placesWholeJobInOneDomain}). Such a placement picks the domains
         * to try by their free GPUs over all the cluster's nodes, so the room that other flavors' jobs take or free
         * there decides between a "never fits" answer and a "not now" one, even in a cluster where none of the job's
         * flavors has a node.
         */
        private long[] epochs(AttemptMemo.AttemptKey key, Map<String, Long> of) {
            long[] e = epochs(key.clusterQueue(), of);
            if (!io.fairway.core.placement.Placer.placesWholeJobInOneDomain(key.podSets())) {
                return e;
            }
            long[] withLeveled = java.util.Arrays.copyOf(e, e.length + 1);
            withLeveled[e.length] = of.get(LEVELED);
            return withLeveled;
        }

        /**
         * The capacity of the round's starting plan, for the check of remembered "not now" placement failures.
         *
         * @param cap the starting plan's capacity (read, never changed, while the plan is the starting plan)
         */
        void startingCapacity(io.fairway.core.placement.CapacityPlan cap) {
            this.startingCapacity = cap;
        }

        /**
         * A remembered failure to place a single pod set of {@code m} members of {@code g} GPUs each, for lack of room
         * now (no topology constraint), in a ClusterQueue of one flavor, still fails when that flavor's nodes are the
         * same and the free GPUs on them now are too few for it: no node has {@code g} free, or all of them together
         * fewer than {@code m * g}. Room freed that is still too small does not change that answer. (With its quota
         * fitting, which the caller checks, the attempt fails for placement with the same code; only the numbers its
         * reason quotes may have moved, and the job keeps the reason as of the round that gave it.)
         */
        private boolean stillTooBig(Answer a, AttemptMemo.AttemptKey key) {
            if (startingCapacity == null || a.capacity() == null || a.reason().code() != PendingReason.Code.INSUFFICIENT_CAPACITY
                    || key.podSets().size() != 1 || parts(key.clusterQueue()).length != 1
                    || !java.util.Arrays.equals(a.nodes(), epochs(key, partNodeEpochs))) {
                return false;
            }
            io.fairway.api.job.PodSet ps = key.podSets().get(0);
            long g = ps.resources().get(io.fairway.api.model.Resources.GPU);
            if (g <= 0 || !io.fairway.api.job.TopologyRequest.NONE.equals(ps.topology())) {
                return false;
            }
            for (String part : parts(key.clusterQueue())) {
                long[] free = startingFree.computeIfAbsent(part, this::freeOnStartingPlan);
                if (g <= free[1] && (long) ps.count() * g <= free[0]) {
                    return false; // it might fit there now
                }
            }
            return true;
        }

        private long[] freeOnStartingPlan(String part) {
            long total = 0;
            long largest = 0;
            for (Node n : nodesIn.get(part)) {
                Integer i = n.unschedulable() ? null : startingCapacity.nodeIndex(n.name());
                if (i != null) {
                    long f = startingCapacity.freeGpuCount(i);
                    total += f;
                    largest = Math.max(largest, f);
                }
            }
            return new long[] {total, largest};
        }

        /**
         * @param key an admission's key
         * @return the reason the same admission failed on a starting plan equal to this round's, or null
         */
        PendingReason admission(AttemptMemo.AttemptKey key) {
            Answer a = find(key);
            if (!valid(a, key)) {
                return null;
            }
            answered++;
            return a.reason();
        }

        /**
         * A remembered failure to place, for lack of room now, that stands although the capacity (or the quota) changed
         * since: the caller checks that the job's quota still fits (then the placement is tried on the same flavor's
         * nodes), and this checks that it still cannot be placed there ({@link #stillTooBig}).
         *
         * @param key an admission's key, on the round's starting plan
         * @return the remembered reason, or null
         */
        PendingReason placementStillFails(AttemptMemo.AttemptKey key) {
            Answer a = find(key);
            return a == null || a.config() != configEpoch || !stillTooBig(a, key) ? null : a.reason();
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
            if (a == null || a.capacity() != null || !valid(a, key)) {
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
            String cq = key.clusterQueue();
            added.put(key, new Answer(reason.asOf(snapshot.round()), 0, configEpoch, treeEpoch(cq), quotaOnly ? null : epochs(key, partEpochs),
                    quotaOnly ? null : epochs(key, partNodeEpochs)));
        }

        /** @return the failed search of that key on a starting plan equal to this round's, or null */
        Answer search(SearchKey key) {
            Answer a = find(key);
            if (!valid(a, key.attempt())) {
                return null;
            }
            answered++;
            return a;
        }

        /**
         * The remembered failure of an admission or a search that still stands on a starting plan equal to this
         * round's, read without counting it as answered ({@link PlanContext#standingAnswer}: counted by
         * {@link #countAnswered} once the whole answer is known to stand).
         *
         * @param key an {@link AttemptMemo.AttemptKey} or a {@link SearchKey}
         * @return the answer, or null
         */
        Answer peek(Object key) {
            Answer a = find(key);
            AttemptMemo.AttemptKey attempt = key instanceof SearchKey s ? s.attempt() : (AttemptMemo.AttemptKey) key;
            return valid(a, attempt) ? a : null;
        }

        /** Counts attempts answered from the memory without being made ({@link #peek}). */
        void countAnswered(int attempts) {
            answered += attempts;
        }

        void searchFailed(SearchKey key, PendingReason reason, long admissions) {
            String cq = key.attempt().clusterQueue();
            added.put(key, new Answer(reason.asOf(snapshot.round()), admissions, configEpoch, treeEpoch(cq), epochs(key.attempt(), partEpochs),
                    epochs(key.attempt(), partNodeEpochs)));
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
            return new RoundMemory(config, parts, allNodes, nodeEpoch, trees, configEpoch, Map.copyOf(partEpochs), Map.copyOf(partNodeEpochs),
                    Map.copyOf(treeEpochs), lastEpoch,
                    List.copyOf(layers), snapshot.pendingIndex(), decidedNothing, answered, nodeParts, snapshot.holding());
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

    /**
     * Which capacity parts each node is in, and each part's nodes: they follow from the nodes, the flavors and the
     * clusters alone, so a round whose three are the previous round's objects (the nodes element by element) takes
     * them as they are instead of matching every node against every flavor again. (A snapshot holds its own copies
     * of the flavor and cluster maps: they are compared entry by entry, by reference first.)
     */
    private static final class NodeParts {
        final Object[] flavors;
        final Object[] clusters;
        final Object[] nodes;
        final Map<String, java.util.BitSet> partsOfNode;
        /** The same as {@link #partsOfNode}, as the bits of one long (for up to 64 parts; else empty). */
        final Map<String, Long> maskOf;
        /** Per part, its nodes (read-only). */
        final List<List<Node>> partNodeList;
        /** Per part: true when it is a flavor's that every node carries (it shares the whole cluster's part). */
        final boolean[] whole;
        /** True when some part is not the whole cluster's. */
        final boolean anyOwn;

        private NodeParts(Snapshot s, Object[] nodes, Map<String, java.util.BitSet> partsOfNode, Map<String, Long> maskOf,
                          List<List<Node>> partNodeList, boolean[] whole, boolean anyOwn) {
            this.flavors = entries(s.flavors());
            this.clusters = entries(s.clusters());
            this.nodes = nodes;
            this.partsOfNode = partsOfNode;
            this.maskOf = maskOf;
            this.partNodeList = partNodeList;
            this.whole = whole;
            this.anyOwn = anyOwn;
        }

        /** @return true when the snapshot's nodes, flavors and clusters are the objects these were worked out from */
        boolean holdsFor(Snapshot s, Object[] allNodes) {
            return sameRefs(nodes, allNodes) && sameEntries(s.flavors(), flavors) && sameEntries(s.clusters(), clusters);
        }

        private static Object[] entries(Map<String, ?> m) {
            Object[] kv = new Object[2 * m.size()];
            int i = 0;
            for (Map.Entry<String, ?> e : m.entrySet()) {
                kv[i++] = e.getKey();
                kv[i++] = e.getValue();
            }
            return kv;
        }

        private static boolean sameEntries(Map<String, ?> m, Object[] kv) {
            if (2 * m.size() != kv.length) {
                return false;
            }
            int i = 0;
            for (Map.Entry<String, ?> e : m.entrySet()) {
                Object k = kv[i++];
                Object v = kv[i++];
                if (!k.equals(e.getKey()) || v != e.getValue() && !v.equals(e.getValue())) {
                    return false;
                }
            }
            return true;
        }

        static NodeParts of(Snapshot s, List<io.fairway.api.model.ResourceFlavor> flavors, int partCount, Object[] allNodes) {
            List<Node> nodes = s.nodes();
            Map<String, java.util.BitSet> partsOfNode = Round.partsOfNodes(s, flavors, partCount - 1);
            Map<String, Long> maskOf = new HashMap<>();
            if (partCount <= Long.SIZE) {
                partsOfNode.forEach((n, b) -> maskOf.put(n, b.toLongArray().length == 0 ? 0L : b.toLongArray()[0]));
            }
            List<List<Node>> partNodeList = new ArrayList<>();
            for (int k = 0; k < partCount; k++) {
                partNodeList.add(new ArrayList<>());
            }
            for (Node n : nodes) {
                java.util.BitSet b = partsOfNode.get(n.name());
                for (int k = b.nextSetBit(0); k >= 0; k = b.nextSetBit(k + 1)) {
                    partNodeList.get(k).add(n);
                }
            }
            // A flavor every node carries depends on what the whole cluster does: it shares the whole cluster's part
            // (a superset of what it reads), which is then listed once.
            boolean[] whole = new boolean[partCount];
            boolean anyOwn = false;
            for (int k = 1; k < partCount; k++) {
                whole[k] = partNodeList.get(k).size() == nodes.size();
                anyOwn |= !whole[k];
            }
            for (int k = 0; k < partCount; k++) {
                partNodeList.set(k, java.util.Collections.unmodifiableList(partNodeList.get(k)));
            }
            return new NodeParts(s, allNodes, partsOfNode, maskOf, partNodeList, whole, anyOwn);
        }
    }

    /** The part of the capacity that is the whole cluster; flavors' parts are named {@code FLAVOR + name}. */
    static final String WHOLE = "";
    static final String FLAVOR = "flavor/";
    /** The part that is every cluster with topology levels, whole (what a placement whole in one domain reads). */
    static final String LEVELED = "leveled";

    /** @return true when the node carries every label the flavor selects nodes by */
    private static boolean matches(io.fairway.api.model.ResourceFlavor f, Node n) {
        for (Map.Entry<String, String> e : f.nodeLabels().entrySet()) {
            if (!e.getValue().equals(n.labels().get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameRefs(Object[] a, Object[] b) {
        if (a == b) {
            return true;
        }
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
