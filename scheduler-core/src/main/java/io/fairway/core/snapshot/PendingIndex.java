package io.fairway.core.snapshot;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's {@link PendingJobs}: the pending jobs of a {@link Snapshot}, grouped by what they need: one LocalQueue, equal pod sets and one
 * priority ({@link Key}). Jobs of a group are interchangeable for admission, so a round answers a group whose
 * head does not fit with one reason instead of a search per job; and the engine keeps the groups up to date as
 * jobs arrive and leave ({@link Builder}), so a snapshot of a million pending jobs costs only the groups that
 * changed since the last one.
 *
 * <p>Immutable once built. A snapshot built from a plain list of pending jobs groups them on first use.
 */
public final class PendingIndex implements PendingJobs {
    /**
     * The order of a group's jobs and of the groups by their first jobs: {@link JobOrder#SUBMISSION} (submission time,
     * then the order the scheduler accepted the jobs; Kueue's order within one priority).
     */
    public static final Comparator<JobStatus> GROUP_ORDER = JobOrder.SUBMISSION;

    private final List<JobStatus> source;
    private volatile List<Group> groups;

    private PendingIndex(List<JobStatus> source, List<Group> groups) {
        this.source = source;
        this.groups = groups;
    }

    /**
     * @param pending pending jobs (in any order)
     * @return an index that groups them on first use
     */
    public static PendingIndex of(List<JobStatus> pending) {
        return new PendingIndex(List.copyOf(pending), null);
    }

    /**
     * @param snapshot a snapshot
     * @return its pending jobs' groups: its own index, or one formed from its jobs when it carries another kind
     */
    public static PendingIndex of(Snapshot snapshot) {
        PendingJobs p = snapshot.pendingIndex();
        return p instanceof PendingIndex i ? i : of(p.inSubmissionOrder());
    }

    /**
     * @param pending a snapshot's pending list
     * @return true when it is the list view of an index (immutable already: a snapshot need not copy it)
     */
    public static boolean isIndexView(List<JobStatus> pending) {
        return pending instanceof FlatView;
    }

    /** @return the groups, ordered by their first jobs ({@link #GROUP_ORDER}) */
    @Override
    public List<Group> groups() {
        List<Group> g = groups;
        if (g == null) {
            synchronized (this) {
                g = groups;
                if (g == null) {
                    g = group(source);
                    groups = g;
                }
            }
        }
        return g;
    }

    private volatile List<JobStatus> flat;

    /**
     * The index's jobs as one list in submission order (by sequence), merged from the groups on first use: a
     * round whose policy walks groups never pays for it.
     *
     * @return the pending jobs in submission order
     */
    @Override
    public List<JobStatus> inSubmissionOrder() {
        return new FlatView(this);
    }

    private List<JobStatus> flat() {
        List<JobStatus> f = flat;
        if (f == null) {
            synchronized (this) {
                f = flat;
                if (f == null) {
                    if (source != null) {
                        f = source;
                    } else {
                        List<Group> gs = groups();
                        int n = 0;
                        for (Group g : gs) {
                            n += g.size();
                        }
                        JobStatus[] all = new JobStatus[n];
                        int i = 0;
                        for (Group g : gs) {
                            System.arraycopy(g.jobs, 0, all, i, g.jobs.length);
                            i += g.jobs.length;
                        }
                        Arrays.sort(all, JobOrder.SEQUENCE);
                        f = Collections.unmodifiableList(Arrays.asList(all));
                    }
                    flat = f;
                }
            }
        }
        return f;
    }

    /** The pending list of a snapshot built from an index: immutable, materialised on first read. */
    static final class FlatView extends java.util.AbstractList<JobStatus> implements java.util.RandomAccess {
        private final PendingIndex index;

        FlatView(PendingIndex index) {
            this.index = index;
        }

        @Override
        public JobStatus get(int i) {
            return index.flat().get(i);
        }

        @Override
        public int size() {
            return index.flat().size();
        }

        @Override
        public Object[] toArray() {
            return index.flat().toArray();
        }

        @Override
        public <T> T[] toArray(T[] a) {
            return index.flat().toArray(a);
        }
    }

    /** @return how many pending jobs the index holds */
    @Override
    public int size() {
        int n = 0;
        for (Group g : groups()) {
            n += g.size();
        }
        return n;
    }

    private static List<Group> group(List<JobStatus> pending) {
        Map<Key, List<JobStatus>> byKey = new LinkedHashMap<>();
        Map<JobSpec, Key> keyOfSpec = new java.util.IdentityHashMap<>(); // specs are shared between a job's statuses
        Key last = null;
        for (JobStatus j : pending) {
            JobSpec s = j.spec();
            Key k = keyOfSpec.get(s);
            if (k == null) {
                k = Key.of(s);
                if (k.equals(last)) {
                    k = last; // consecutive jobs of one shape share one key
                }
                keyOfSpec.put(s, k);
            }
            last = k;
            byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(j);
        }
        List<Group> out = new ArrayList<>(byKey.size());
        byKey.forEach((k, jobs) -> out.add(Group.of(k, jobs.toArray(new JobStatus[0]), false)));
        out.sort(Comparator.comparing(Group::head, GROUP_ORDER));
        return Collections.unmodifiableList(out);
    }

    /**
     * What makes pending jobs interchangeable for admission: namespace, LocalQueue, pod sets and priority. Its
     * hash is computed once (pod sets are deep records).
     */
    public static final class Key {
        private final String namespace;
        private final String queue;
        private final List<PodSet> podSets;
        private final int priority;
        private final int podSetsHash;
        private final int hash;

        /**
         * @param namespace the namespace
         * @param queue the LocalQueue
         * @param podSets the pod sets
         * @param priority the priority
         */
        public Key(String namespace, String queue, List<PodSet> podSets, int priority) {
            this.namespace = namespace;
            this.queue = queue;
            this.podSets = podSets;
            this.priority = priority;
            this.podSetsHash = podSets.hashCode();
            this.hash = KeyHash.with(KeyHash.with(KeyHash.with(KeyHash.with(0, namespace.hashCode()), queue.hashCode()), podSetsHash), priority);
        }

        /**
         * @param spec a job
         * @return its key
         */
        public static Key of(JobSpec spec) {
            return new Key(spec.namespace(), spec.queue(), spec.podSets(), spec.priority());
        }

        /** @return the namespace */
        public String namespace() {
            return namespace;
        }

        /** @return the LocalQueue */
        public String queue() {
            return queue;
        }

        /** @return the pod sets */
        public List<PodSet> podSets() {
            return podSets;
        }

        /** @return the priority */
        public int priority() {
            return priority;
        }

        /** @return {@code podSets().hashCode()}, computed once */
        public int podSetsHash() {
            return podSetsHash;
        }

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof Key k && hash == k.hash && priority == k.priority && namespace.equals(k.namespace)
                    && queue.equals(k.queue) && podSets.equals(k.podSets);
        }

        /** @return true when the job's key equals this one (compared in place: no key built, no hash computed) */
        boolean matches(JobSpec spec) {
            return priority == spec.priority() && namespace.equals(spec.namespace()) && queue.equals(spec.queue())
                    && (podSets == spec.podSets() || podSets.equals(spec.podSets()));
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** One group: its key, its jobs in {@link #GROUP_ORDER}, and the reason they all carry, when they carry one. */
    public static final class Group implements PendingJobs.Group {
        private final Key key;
        private final JobStatus[] jobs;
        private final PendingReason commonReason;
        private final List<JobStatus> view;
        /** A reason every job's reason gives the same answer as ({@link PendingReason#sameAnswer}), or null. */
        private PendingReason commonAnswer;
        /** The answer the engine's index counts the jobs against, or null; and the positions of the jobs that do not give it. */
        private PendingReason countedAnswer;
        private int[] oddPositions;

        private Group(Key key, JobStatus[] jobs, PendingReason commonReason) {
            this.elastic = jobs[0].spec().isElastic(); // read while the group is made: its jobs share their pod sets
            this.priority = key.priority();
            this.key = key;
            this.jobs = jobs;
            this.commonReason = commonReason;
            this.view = Collections.unmodifiableList(Arrays.asList(jobs));
        }

        static Group of(Key key, JobStatus[] jobs, boolean sorted) {
            if (!sorted) {
                for (int i = 1; i < jobs.length; i++) {
                    if (GROUP_ORDER.compare(jobs[i - 1], jobs[i]) > 0) {
                        Arrays.sort(jobs, GROUP_ORDER);
                        break;
                    }
                }
            }
            PendingReason common = jobs[0].pendingReason();
            PendingReason same = common; // the last object found equal: jobs given one reason share the object
            for (int i = 1; i < jobs.length && common != null; i++) {
                PendingReason r = jobs[i].pendingReason();
                if (r != same) {
                    if (!common.equals(r)) {
                        common = null;
                    }
                    same = r;
                }
            }
            return new Group(key, jobs, common);
        }

        /** Whether its jobs are elastic ({@link io.fairway.api.job.JobSpec#isElastic()}: they share their pod sets). */
        private final boolean elastic;

        /** @return whether the group's jobs are elastic (any pod set may run with fewer members than it asks for) */
        public boolean elastic() {
            return elastic;
        }

        /** Its jobs' priority (the key's), kept on the group: read without the key's object. */
        private final int priority;

        /** @return the priority of the group's jobs */
        public int priority() {
            return priority;
        }

        /** @return the key */
        public Key key() {
            return key;
        }

        /** @return the jobs, in {@link #GROUP_ORDER} */
        @Override
        public List<JobStatus> jobs() {
            return view;
        }

        /** @return the first job */
        public JobStatus head() {
            return jobs[0];
        }

        /** A group's ClusterQueue as resolved under one configuration (see {@link #clusterQueueUnder}). */
        private record Resolved(Object configuration, String clusterQueue) {
        }

        /** The last ClusterQueue resolved for the group, and under which configuration; null before. */
        private volatile Resolved resolved;

        /**
         * The group's ClusterQueue as kept under a configuration: its jobs share one namespace and LocalQueue, so
         * the answer follows from the configuration alone, and a group that lasts across rounds is resolved once
         * per configuration instead of once per round.
         *
         * @param configuration an object that stands for one configuration (the same object only for equal ones)
         * @param resolve resolves the group's first job (called when nothing is kept under {@code configuration})
         * @return its ClusterQueue, or null when its queues are missing or stopped
         */
        public String clusterQueueUnder(Object configuration, java.util.function.Function<JobStatus, String> resolve) {
            Resolved r = resolved;
            if (r == null || r.configuration() != configuration) {
                r = new Resolved(configuration, resolve.apply(jobs[0]));
                resolved = r;
            }
            return r.clusterQueue();
        }

        /**
         * What the engine's planning derived from the group's first job alone and keeps for later rounds (the key of
         * its attempts), or null before. A group's jobs never change (a change makes a new group), so it holds while the
         * group lasts; its owner checks that it was made for the same ClusterQueue.
         */
        private volatile Object firstJobKey;

        /** @return what {@link #keepFirstJobKey} kept, or null */
        public Object firstJobKey() {
            return firstJobKey;
        }

        /** @param key what the planning derived from the first job alone, kept while the group lasts */
        public void keepFirstJobKey(Object key) {
            firstJobKey = key;
        }

        /** @return the number of jobs */
        public int size() {
            return jobs.length;
        }

        /** @return the reason every job of the group carries, or null when they differ (or carry none) */
        public PendingReason commonReason() {
            return commonReason;
        }

        /**
         * A reason that every job's reason gives the same answer as ({@link PendingReason#sameAnswer}: the same code
         * and sentence, perhaps with other numbers or from another round), known only for the groups of an index the
         * engine keeps ({@link Builder}), which follows it as jobs come, go and change reasons. Giving the same answer
         * is an equivalence, so a reason that gives this one's answer gives every job's, and one that does not gives
         * none's: a round can tell whether a whole group keeps its reasons with one comparison.
         *
         * @return that reason, or null when the jobs' answers differ, one carries no reason, or it is not known
         */
        public PendingReason commonAnswer() {
            return commonAnswer;
        }

        /**
         * The answer the engine's index counts this group's jobs against, whether or not every job gives it: with
         * {@link #oddPositions()}, a round that tells which jobs keep their reasons compares one reason with it, then
         * only the jobs that do not give it (giving the same answer is an equivalence: a reason that gives this one's
         * answer gives every job's but theirs). Known only for the groups of an index the engine keeps.
         *
         * @return that answer, or null when it is not known
         */
        public PendingReason countedAnswer() {
            return countedAnswer;
        }

        /**
         * @return the positions in {@link #jobs()} of the jobs whose reason does not give {@link #countedAnswer()}, in
         *     ascending order (null when that answer is not known); kept by change, not by comparing every job
         */
        public int[] oddPositions() {
            return oddPositions;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Group g && key.equals(g.key) && Arrays.equals(jobs, g.jobs);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + jobs.length;
        }

        @Override
        public String toString() {
            return "Group[" + key.namespace() + "/" + key.queue() + ", priority " + key.priority() + ", " + jobs.length + " jobs]";
        }
    }

    /**
     * The engine's mutable side of the index: jobs are added and removed as they enter and leave pending; a
     * {@link #freeze()} rebuilds only the groups that changed since the previous one.
     */
    public static final class Builder {
        private final Map<Key, MutableGroup> groups = new HashMap<>();
        private PendingIndex last;
        /** The group {@link #groupOf} found last (checked against {@code gone} before use). */
        private MutableGroup lastFound;
        /** The groups created since the last freeze (some may have left again): the freeze lists them after the others. */
        private final List<MutableGroup> arrived = new ArrayList<>();

        /** {@link #GROUP_ORDER} of the groups' heads, read from the keys kept at their last freeze. */
        private static final Comparator<MutableGroup> HEAD_ORDER = (a, b) -> {
            int c = Long.compare(a.headSubmitted, b.headSubmitted);
            return c != 0 ? c : Long.compare(a.headSequence, b.headSequence);
        };

        /** The groups of the last freeze, in order: the next freeze starts from it, so its sort has little to move. */
        private List<MutableGroup> lastOrder = List.of();
        private long freezes;

        /**
         * One group's jobs in {@link #GROUP_ORDER}, as arrays: the jobs and their order keys (submission time,
         * sequence). A job that leaves becomes a hole (its keys stay, so binary search still works) until the next
         * {@link #compact()}; jobs arrive at the end in the common case. Copying the group out at a freeze is then a
         * pass over one array, not a walk over a tree's scattered nodes.
         */
        private static final class MutableGroup {
            final Key key;
            JobStatus[] jobs = new JobStatus[4];
            long[] submitted = new long[4];
            long[] sequence = new long[4];
            /** Per slot: true when its job's reason does not give {@link #answer} (valid while the answer is known). */
            boolean[] oddAt = new boolean[4];
            int size; // slots used, holes included
            int live; // jobs present
            Group frozen;
            /** True once it left the builder's map (a group that empties is replaced by a new one if jobs return). */
            boolean gone;
            /** The freeze that last listed it. */
            long listedIn;
            /** The order keys of its first job as of its last freeze (the groups are sorted by them, not by the jobs). */
            long headSubmitted;
            long headSequence;
            /**
             * The answer its jobs are counted against, or null (not known: counted again at the next freeze); and
             * how many present jobs carry a reason that does not give it ({@link PendingReason#sameAnswer}). Kept
             * by change: each job that comes, goes or changes its reason costs one comparison, not a pass.
             */
            PendingReason answer;
            int odd;

            MutableGroup(Key key) {
                this.key = key;
            }

            /** @return true when the reason gives the group's counted answer */
            private boolean givesAnswer(PendingReason r) {
                return r != null && (r == answer || answer.sameAnswer(r));
            }

            /** Counts a job's reason entering ({@code +1}) or leaving ({@code -1}) the group at slot {@code i}. */
            private void countAnswer(JobStatus j, int sign, int i) {
                if (answer != null) {
                    boolean o = !givesAnswer(j.pendingReason());
                    if (o) {
                        odd += sign;
                    }
                    oddAt[i] = sign > 0 && o;
                }
            }

            /** @return the slots (the jobs' positions once compacted) whose job does not give the counted answer */
            int[] oddSlots() {
                int[] out = new int[odd];
                int n = 0;
                for (int i = 0; i < size && n < odd; i++) {
                    if (oddAt[i] && jobs[i] != null) {
                        out[n++] = i;
                    }
                }
                return n == odd ? out : Arrays.copyOf(out, n);
            }

            /**
             * The counted answer when every present job gives it; recounted from the jobs when it is not known or no
             * job gives it any longer (after a round that changed every job's answer, say). @return it, or null
             */
            PendingReason commonAnswer() {
                if (live == 0) {
                    return null;
                }
                if (answer == null || odd == live) {
                    answer = null;
                    odd = 0;
                    PendingReason same = null; // jobs given one reason share the object: one comparison per object
                    Arrays.fill(oddAt, 0, size, false);
                    for (int i = 0; i < size; i++) {
                        if (jobs[i] == null) {
                            continue;
                        }
                        PendingReason r = jobs[i].pendingReason();
                        if (answer == null) {
                            if (r == null) {
                                return null; // recounted at the next freeze
                            }
                            answer = r;
                            same = r;
                        } else if (r != same) {
                            if (givesAnswer(r)) {
                                same = r;
                            } else {
                                odd++;
                                oddAt[i] = true;
                            }
                        }
                    }
                }
                return odd == 0 ? answer : null;
            }

            /** @return the slot with the job's keys (possibly a hole), or {@code -(insertion point) - 1} */
            private int find(JobStatus j) {
                long t = j.spec().submitTimeMillis();
                long q = j.sequence();
                int lo = 0;
                int hi = size - 1;
                while (lo <= hi) {
                    int mid = (lo + hi) >>> 1;
                    int c = submitted[mid] != t ? Long.compare(submitted[mid], t) : Long.compare(sequence[mid], q);
                    if (c < 0) {
                        lo = mid + 1;
                    } else if (c > 0) {
                        hi = mid - 1;
                    } else {
                        return mid;
                    }
                }
                return -(lo + 1);
            }

            /** Adds the job, or replaces the status with its keys. @return true when it was not there */
            boolean add(JobStatus j) {
                int i = find(j);
                if (i >= 0) {
                    boolean added = jobs[i] == null;
                    if (!added) {
                        countAnswer(jobs[i], -1, i);
                    }
                    countAnswer(j, +1, i);
                    jobs[i] = j;
                    if (added) {
                        live++;
                    }
                    return added;
                }
                int at = -i - 1;
                if (at > 0 && jobs[at - 1] == null) {
                    at--; // a hole just before: its keys are smaller than the previous live job's, still in order
                } else {
                    if (size == jobs.length) {
                        int n = Math.max(4, size * 2);
                        jobs = Arrays.copyOf(jobs, n);
                        submitted = Arrays.copyOf(submitted, n);
                        sequence = Arrays.copyOf(sequence, n);
                        oddAt = Arrays.copyOf(oddAt, n);
                    }
                    if (at < size) {
                        System.arraycopy(jobs, at, jobs, at + 1, size - at);
                        System.arraycopy(submitted, at, submitted, at + 1, size - at);
                        System.arraycopy(sequence, at, sequence, at + 1, size - at);
                        System.arraycopy(oddAt, at, oddAt, at + 1, size - at);
                    }
                    size++;
                }
                jobs[at] = j;
                submitted[at] = j.spec().submitTimeMillis();
                sequence[at] = j.sequence();
                live++;
                countAnswer(j, +1, at);
                return true;
            }

            /** @return true when the job (by its keys) was there and is removed */
            boolean remove(JobStatus j) {
                int i = find(j);
                if (i < 0 || jobs[i] == null) {
                    return false;
                }
                countAnswer(jobs[i], -1, i);
                jobs[i] = null;
                live--;
                if (live == 0) {
                    size = 0;
                    answer = null;
                    odd = 0;
                }
                return true;
            }

            /** Writes a job's next status in its slot {@code i}. */
            void restateAt(int i, JobStatus now) {
                countAnswer(jobs[i], -1, i);
                countAnswer(now, +1, i);
                jobs[i] = now;
            }

            /** @return the jobs present, in order (and the holes closed) */
            JobStatus[] compact() {
                if (live != size) {
                    int w = 0;
                    for (int r = 0; r < size; r++) {
                        if (jobs[r] != null) {
                            jobs[w] = jobs[r];
                            submitted[w] = submitted[r];
                            sequence[w] = sequence[r];
                            oddAt[w] = oddAt[r];
                            w++;
                        }
                    }
                    Arrays.fill(jobs, w, size, null);
                    Arrays.fill(oddAt, w, size, false);
                    size = w;
                }
                return Arrays.copyOf(jobs, size);
            }
        }

        /** @param j a job that became pending (or whose pending status changed: replaces the old one) */
        public void add(JobStatus j) {
            Key key = Key.of(j.spec());
            MutableGroup g = groups.get(key);
            if (g == null) {
                g = new MutableGroup(key);
                groups.put(key, g);
                arrived.add(g);
            }
            g.add(j); // the same job with an older status is replaced in place
            g.frozen = null;
            last = null;
        }

        /**
         * The group of a job's key: the group found last when the key matches it (the jobs of a round's run, or of
         * its admissions, come one group at a time), else a lookup by a new key.
         */
        private MutableGroup groupOf(JobSpec spec) {
            MutableGroup g = lastFound;
            if (g != null && !g.gone && g.key.matches(spec)) {
                return g;
            }
            g = groups.get(Key.of(spec));
            lastFound = g;
            return g;
        }

        /** @return the group at {@code at} in the last freeze when it is the live group of the job's key, else {@link #groupOf} */
        private MutableGroup groupAt(int at, JobSpec spec) {
            if (at >= 0 && at < lastOrder.size()) {
                MutableGroup g = lastOrder.get(at);
                if (!g.gone && g.key.matches(spec)) {
                    lastFound = g;
                    return g;
                }
            }
            return groupOf(spec);
        }

        /** @param j a job that left pending */
        public void remove(JobStatus j) {
            MutableGroup g = groupOf(j.spec());
            if (g != null && g.remove(j)) {
                g.frozen = null;
                last = null;
                if (g.live == 0) {
                    groups.remove(g.key);
                    g.gone = true;
                }
            }
        }

        /**
         * A pending job's status changed (its reason, say) but not its spec: the job keeps its place.
         *
         * @param old its old status
         * @param now its new status
         */
        public void replace(JobStatus old, JobStatus now) {
            MutableGroup g = old.spec() == now.spec() ? groupOf(old.spec()) : null;
            if (g == null || old.sequence() != now.sequence() || !g.remove(old)) {
                remove(old);
                add(now);
                return;
            }
            g.add(now);
            g.frozen = null;
            last = null;
        }

        /**
         * A pending job's next status with the same spec and sequence (a new reason, say), written in its slot: one
         * search of its group instead of a removal and an insertion. Falls back to {@link #replace} otherwise.
         *
         * @param old its status in the index
         * @param now its next status
         */
        public void restate(JobStatus old, JobStatus now) {
            restate(old, now, -1, -1);
        }

        /**
         * As {@link #restate(JobStatus, JobStatus)}, with where the job stood at the last freeze: the groups keep
         * their frozen order and a group's slots are its frozen positions until a job arrives before them, so the
         * group is taken by position (its key checked) and the slot checked by identity; a group is looked up by
         * key, or searched, only when the job is no longer there.
         *
         * @param old its status in the index
         * @param now its next status
         * @param group the position of the job's group in the last {@link #freeze()}'s groups, or -1 when not known
         * @param slot the job's position in that group, or -1 when not known
         */
        public void restate(JobStatus old, JobStatus now, int group, int slot) {
            MutableGroup g = old.spec() == now.spec() && old.sequence() == now.sequence() ? groupAt(group, old.spec()) : null;
            int i = g == null ? -1 : slot >= 0 && slot < g.size && g.jobs[slot] == old ? slot : g.find(old);
            if (i < 0 || g.jobs[i] != old) {
                replace(old, now);
                return;
            }
            g.restateAt(i, now);
            g.frozen = null;
            last = null;
        }

        /** @return true when no job is pending */
        public boolean isEmpty() {
            return groups.isEmpty();
        }

        /** Forgets every job. */
        public void clear() {
            groups.values().forEach(g -> g.gone = true);
            groups.clear();
            arrived.clear();
            last = null;
        }

        /** @return an immutable index of the jobs now pending (the same object while nothing changes) */
        public PendingIndex freeze() {
            if (last != null) {
                return last;
            }
            // the previous order, without the groups that left, then the new groups; sorted by their heads (a total
            // order: the result does not depend on where the sort starts, only its cost does)
            long freeze = ++freezes;
            List<MutableGroup> order = new ArrayList<>(groups.size());
            for (MutableGroup g : lastOrder) {
                if (!g.gone) {
                    g.listedIn = freeze;
                    order.add(g);
                }
            }
            for (MutableGroup g : arrived) {
                if (!g.gone && g.listedIn != freeze) {
                    g.listedIn = freeze;
                    order.add(g);
                }
            }
            arrived.clear();
            boolean sorted = true;
            MutableGroup previous = null;
            for (MutableGroup g : order) {
                if (g.frozen == null) {
                    g.frozen = Group.of(g.key, g.compact(), true);
                    g.headSubmitted = g.submitted[0]; // compacted: slot 0 holds the head
                    g.headSequence = g.sequence[0];
                    g.frozen.commonAnswer = g.commonAnswer();
                    if (g.answer != null) {
                        g.frozen.countedAnswer = g.answer;
                        g.frozen.oddPositions = g.oddSlots();
                    }
                }
                sorted &= previous == null || HEAD_ORDER.compare(previous, g) <= 0;
                previous = g;
            }
            if (!sorted) {
                order.sort(HEAD_ORDER);
            }
            lastOrder = order;
            List<Group> out = new ArrayList<>(order.size());
            for (MutableGroup g : order) {
                out.add(g.frozen);
            }
            last = new PendingIndex(null, Collections.unmodifiableList(out));
            return last;
        }
    }

    /** Two indexes are equal when they hold the same groups of the same jobs. */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof PendingIndex other && groups().equals(other.groups());
    }

    @Override
    public int hashCode() {
        return groups().hashCode();
    }

    @Override
    public String toString() {
        return "PendingIndex" + groups();
    }
}
