package io.fairway.policies.fifo;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PendingGroup;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A policy that walks the pending jobs in one order and admits each that fits. With strict blocking, the
 * first job of a ClusterQueue that does not fit blocks the rest of that queue (Kueue's StrictFIFO); without,
 * it is skipped (BestEffortFIFO). A ClusterQueue's own {@link ClusterQueue#queueingStrategy()}, when set,
 * overrides the policy's default.
 *
 * <p>Within a round capacity and quota only shrink, so once a job of some shape fails for lack of room, every
 * later job of the same shape in the same ClusterQueue fails too. The policy walks the context's
 * {@link PolicyContext#pendingGroups() pending groups} (jobs of one LocalQueue, shape and priority) merged into
 * its order, and answers the rest of a group whose job does not fit with one reason: a round costs time in the
 * jobs it admits and the groups it looks at, not in the jobs that cannot fit.
 *
 * <p>The order must agree with the groups' own order (submission time, then sequence, within one priority):
 * it may compare priorities, submission times and sequences.
 */
public class OrderedPolicy implements SchedulingPolicy {
    private final String name;
    private final Comparator<JobStatus> order;
    private final boolean strictByDefault;

    /**
     * @param name the policy name
     * @param order the order jobs are considered in (null: submission order)
     * @param strictByDefault true: a head that does not fit blocks its ClusterQueue
     */
    public OrderedPolicy(String name, Comparator<JobStatus> order, boolean strictByDefault) {
        this.name = name;
        this.order = order;
        this.strictByDefault = strictByDefault;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void plan(PolicyContext ctx) {
        if (ctx.previousAnswersStand()) {
            return; // a round that decided nothing, and nothing changed since: every job keeps its answer
        }
        admitInOrder(ctx);
        Elastic.growIntoIdleCapacity(ctx);
    }

    private void admitInOrder(PolicyContext ctx) {
        Map<String, Queue> queues = new HashMap<>();
        List<PendingGroup> groups = ctx.pendingGroups();
        // every group's shape is hashed and counted up front (its first job just read): a group alone with its shape
        // skips the map of failed shapes, and its shape is never made
        ShapeCounts counts = new ShapeCounts(groups.size());
        for (ClusterQueue q : ctx.clusterQueues()) {
            queues.put(q.name(), new Queue(q, isStrict(q), counts));
        }
        // Walk the groups' jobs merged into one order, by the job at each group's cursor. The built-in orders compare
        // keys the cursor keeps (no pointer chasing per comparison); others, their comparator.
        boolean keyed = order == null || order == JobOrder.SUBMISSION || order == JobOrder.PRIORITY;
        Comparator<JobStatus> byOrder = (order == null ? JobOrder.SUBMISSION : order).thenComparing(JobOrder.SEQUENCE);
        boolean byPriority = order == JobOrder.PRIORITY;
        Cursor[] cursors = new Cursor[groups.size()];
        for (int i = 0; i < cursors.length; i++) {
            Cursor c = new Cursor(groups.get(i), byPriority);
            String cq = c.group.clusterQueue();
            Queue q = queues.get(cq);
            if (q == null) { // a queue the context does not list: neither preempting nor strict unless by default
                q = new Queue(null, isStrict(null), counts);
                queues.put(cq, q);
            }
            c.queue = q;
            c.shapeIn(q.preempting);
            counts.add(c.shapeHash);
            cursors[i] = c;
        }
        Heads heads = keyed ? Heads.byKeys(cursors) : new Heads(cursors, (x, y) -> byOrder.compare(x.job(), y.job()));
        while (!heads.isEmpty()) {
            Cursor c = heads.poll();
            String cq = c.group.clusterQueue();
            Queue q = c.queue;
            if (q.blocked != null) {
                ctx.leaveWaiting(c.group, c.index, q.blocked); // behind the blocked head of a StrictFIFO queue
                continue;
            }
            JobStatus j = c.job();
            PendingReason failed = q.failedShapes.get(c);
            if (failed == null && c.index == 0) {
                failed = standing(ctx, c.group, q.preempting);
                if (failed != null) {
                    q.failedShapes.put(c, failed);
                    if (!q.strict) {
                        continue; // the group keeps the reasons it carries
                    }
                }
            }
            if (failed == null) {
                Attempt a = admit(ctx, j, q.preempting);
                if (a.admitted()) {
                    if (c.advance()) {
                        heads.add(c);
                    }
                    continue;
                }
                failed = a.reason();
                q.failedShapes.put(c, failed);
            }
            // Within a round capacity and quota only shrink: no later job of this shape fits either.
            if (q.strict) {
                ctx.leaveWaiting(j, failed);
                PendingReason behind = waitingBehind(j, cq, failed);
                q.blocked = behind;
                if (c.index + 1 < c.group.jobs().size()) {
                    ctx.leaveWaiting(c.group, c.index + 1, behind);
                }
            } else {
                ctx.leaveWaiting(c.group, c.index, failed);
            }
        }
    }

    /**
     * What a round's walk knows of one ClusterQueue, looked up once per group: whether it preempts and is strict, the
     * reason of the jobs behind its blocked head (StrictFIFO), and the shapes of its jobs found not to fit (kept per
     * queue: a shape names its queue, so the queue's own map holds every entry a lookup can find).
     */
    private static final class Queue {
        final boolean preempting;
        final boolean strict;
        PendingReason blocked;
        final ShapeCounts.FailedShapes failedShapes;

        Queue(ClusterQueue q, boolean strict, ShapeCounts counts) {
            this.preempting = preempts(q);
            this.strict = strict;
            this.failedShapes = counts.failedShapes();
        }
    }

    /**
     * The reason of the jobs behind a StrictFIFO head that does not fit. It quotes the head's reason, so it carries
     * that reason's numbers and the round it is from ({@link PendingReason#asOfRound()}): when the head's answer is one
     * an earlier round found (with that round's numbers), the jobs behind it give the same answer as of that round,
     * rather than older numbers presented as this round's.
     *
     * @param head the head of the queue
     * @param cq its ClusterQueue
     * @param failed why the head does not fit
     * @return the reason of the jobs behind it
     */
    static PendingReason waitingBehind(JobStatus head, String cq, PendingReason failed) {
        return new PendingReason(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting behind " + head.id()
                + ", the head of StrictFIFO ClusterQueue " + cq + ", which does not fit: " + failed.message(), failed.details());
    }

    /**
     * A group and the position of the next job to consider in it, with that job's order keys: priority (negated,
     * where the order uses it), submission time and sequence, read once per job rather than once per comparison.
     */
    static final class Cursor {
        /** Compares the keys: priority (highest first, where used), then submission, then sequence. */
        static final Comparator<Cursor> BY_KEYS = (x, y) -> {
            int c = Long.compare(x.negatedPriority, y.negatedPriority);
            if (c == 0) {
                c = Long.compare(x.submitted, y.submitted);
            }
            return c != 0 ? c : Long.compare(x.sequence, y.sequence);
        };

        final PendingGroup group;
        private final boolean byPriority;
        int index;
        /**
         * The hash of its group's shape ({@link #shapeIn}); the shape itself is made only when a walk looks it up
         * ({@link #shape()}: most groups are alone with their shape, and no map ever holds it).
         */
        int shapeHash;
        private boolean shapeWithPriority;
        private Shape shape;
        /** Its ClusterQueue's state in the walk, once looked up. */
        Queue queue;
        private JobStatus job;
        private long negatedPriority;
        private long submitted;
        private long sequence;

        /**
         * @param group the group
         * @param byPriority whether the order starts with priority
         */
        Cursor(PendingGroup group, boolean byPriority) {
            this.group = group;
            this.byPriority = byPriority;
            load();
        }

        private void load() {
            job = group.jobs().get(index);
            negatedPriority = byPriority ? -(long) job.spec().priority() : 0;
            submitted = job.spec().submitTimeMillis();
            sequence = job.sequence();
        }

        /**
         * Gives the cursor its group's shape's hash: the shape of the group's first job in the group's ClusterQueue.
         *
         * @param withPriority whether the job's priority is part of its shape
         */
        void shapeIn(boolean withPriority) {
            JobStatus first = group.jobs().get(0);
            shapeWithPriority = withPriority;
            shapeHash = Shape.hash(group.clusterQueue(), first.spec().namespace(), group.podSetsHash(),
                    withPriority ? first.spec().priority() : 0);
        }

        /** @return the shape {@link #shapeIn} hashed (made at the first call), whose hash code is {@link #shapeHash} */
        Shape shape() {
            if (shape == null) {
                shape = Shape.of(group.clusterQueue(), group, group.jobs().get(0), shapeWithPriority);
            }
            return shape;
        }

        /** @return the job at the cursor */
        JobStatus job() {
            return job;
        }

        /** @return true when it moved to the group's next job, false when the group has no more */
        boolean advance() {
            if (++index >= group.jobs().size()) {
                return false;
            }
            load();
            return true;
        }
    }

    /**
     * The engine's standing answer for a group whose first job is next ({@link PolicyContext#standingAnswer}), when
     * {@link #admit} would make no attempt but the two it covers: the job is not elastic (no smaller sizes), and where
     * the queue preempts, no elastic job holds resources (nothing to shrink first).
     *
     * <p>Whether the job is elastic is asked of its group ({@link PendingGroup#elastic()}), after the context: the
     * engine answers both from the group, and in a deep queue reading every waiting job's pod sets was a memory stall
     * per group. An answer for an elastic job is set aside and the attempts are made (the engine's context gives none;
     * a context that does leaves the policy free to make them: its last call counts).
     *
     * @return the failure {@link #admit} would return, or null to make the attempts
     */
    static PendingReason standing(PolicyContext ctx, PendingGroup group, boolean preempting) {
        if (preempting && !ctx.holdingElastic().isEmpty()) {
            return null;
        }
        PendingReason answer = ctx.standingAnswer(group, preempting);
        return answer == null || group.elastic() ? null : answer;
    }

    /**
     * Admits a job: at full size; for an elastic job, else at the largest size from count down to minCount that
     * fits; and where the queue may preempt, first by shrinking elastic jobs it could preempt (down to their
     * minimum), only then by preempting.
     *
     * @param ctx the round
     * @param j the job
     * @param preempting whether its ClusterQueue may preempt
     * @return the attempt
     */
    static Attempt admit(PolicyContext ctx, JobStatus j, boolean preempting) {
        Attempt a = ctx.tryAdmit(j);
        if (a.admitted()) {
            return a;
        }
        for (java.util.Map<String, Integer> counts : Elastic.smallerSizes(j)) {
            Attempt smaller = ctx.tryAdmit(j, counts);
            if (smaller.admitted()) {
                return smaller;
            }
        }
        if (!preempting) {
            return a;
        }
        Attempt shrunk = Elastic.shrinkToAdmit(ctx, j);
        return shrunk.admitted() ? shrunk : ctx.tryAdmitPreempting(j);
    }

    /**
     * @param q a ClusterQueue
     * @return true when its preemption policy allows any preemption
     */
    static boolean preempts(ClusterQueue q) {
        return q != null && !q.preemption().isNever();
    }

    private boolean isStrict(ClusterQueue q) {
        return isStrict(q, strictByDefault);
    }

    private static boolean isStrict(ClusterQueue q, boolean strictByDefault) {
        if (q != null && q.queueingStrategy() != null) {
            return q.queueingStrategy() == QueueingStrategy.STRICT_FIFO;
        }
        return strictByDefault;
    }

    /**
     * Jobs of equal shape in one ClusterQueue need the same room and quota.
     *
     * @param clusterQueue the ClusterQueue
     * @param namespace the namespace
     * @param podSets the pod sets (records: equal when their counts, resources, selectors and constraints are)
     * @param priority the priority, where it matters (preemption), else 0
     * @param podSetsHash the pod sets' hash code (a group's, computed by the engine once per group)
     */
    static final class Shape {
        private final String clusterQueue;
        private final String namespace;
        private final java.util.List<PodSet> podSets;
        private final int priority;
        /** Hashing the pod sets is most of a lookup: done once per group, not once per job looked up. */
        private final int hash;

        Shape(String clusterQueue, String namespace, java.util.List<PodSet> podSets, int priority, int podSetsHash) {
            this.clusterQueue = clusterQueue;
            this.namespace = namespace;
            this.podSets = podSets;
            this.priority = priority;
            this.hash = hash(clusterQueue, namespace, podSetsHash, priority);
        }

        /**
         * @param clusterQueue the ClusterQueue
         * @param namespace the namespace
         * @param podSetsHash the pod sets' hash
         * @param priority the priority, where it matters, else 0
         * @return the hash code of the shape of these parts
         */
        static int hash(String clusterQueue, String namespace, int podSetsHash, int priority) {
            // each part mixed in: with a plain 31-based sum, names like cq-12 and cq-18 offset pod sets whose hashes
            // differ by a multiple of 31², and a million shapes collide by the hundred thousand (each collision a deep
            // comparison of pod sets)
            int h = mix(podSetsHash);
            h = mix(h ^ java.util.Objects.hashCode(namespace));
            h = mix(h ^ clusterQueue.hashCode());
            return mix(h ^ priority);
        }

        /**
         * @param clusterQueue the ClusterQueue
         * @param group a group of it
         * @param job a job of the group
         * @param withPriority whether the job's priority is part of its shape
         * @return the job's shape, hashed from the group's pod set hash ({@link PendingGroup#podSetsHash()})
         */
        static Shape of(String clusterQueue, PendingGroup group, JobStatus job, boolean withPriority) {
            return new Shape(clusterQueue, job.spec().namespace(), job.spec().podSets(), withPriority ? job.spec().priority() : 0,
                    group.podSetsHash());
        }

        private static int mix(int h) {
            int x = h * 0x9E3779B9; // the golden ratio, then a shift: like parts stay apart
            return x ^ (x >>> 16);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Shape s && hash == s.hash && priority == s.priority && clusterQueue.equals(s.clusterQueue)
                    && java.util.Objects.equals(namespace, s.namespace) && podSets.equals(s.podSets);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * The groups' cursors in walk order: every group's first job sorted once, and a heap for the cursors moved on to a
     * group's next job (after an admission). Taking the lesser of the two heads gives what one heap of every cursor
     * would (the order is total: it ends with the job's sequence), without a heap's sifting per group of a deep queue
     * whose groups are mostly taken once.
     */
    static final class Heads {
        private final Cursor[] sorted;
        private final Comparator<Cursor> order;
        private final PriorityQueue<Cursor> movedOn;
        private int next;

        /**
         * @param cursors one cursor per group, at its first job (sorted in place)
         * @param order the walk's order of cursors
         */
        Heads(Cursor[] cursors, Comparator<Cursor> order) {
            this(cursors, order, false);
        }

        private Heads(Cursor[] cursors, Comparator<Cursor> order, boolean alreadySorted) {
            if (!alreadySorted) {
                java.util.Arrays.sort(cursors, order);
            }
            this.sorted = cursors;
            this.order = order;
            this.movedOn = new PriorityQueue<>(order);
        }

        /**
         * The heads in {@link Cursor#BY_KEYS} order, as {@code new Heads(cursors, Cursor.BY_KEYS)} sorts them. The engine
         * hands its groups over in the submission order of their first jobs (submission time, then sequence); when
         * the cursors come in that order (checked here, one pass over keys the cursors hold), the order by keys is
         * the order by priority alone with ties kept where they stand: a counting sort by priority where the
         * priorities span few values for the number of groups, else a sort of primitive keys (priority above
         * position), either without a comparison sort that reads two cursors per comparison. Otherwise, the
         * comparison sort.
         *
         * @param cursors one cursor per group, at its first job (sorted in place)
         * @return the heads
         */
        static Heads byKeys(Cursor[] cursors) {
            if (!sortByPriorityIfInSubmissionOrder(cursors)) {
                java.util.Arrays.sort(cursors, Cursor.BY_KEYS);
            }
            return new Heads(cursors, Cursor.BY_KEYS, true);
        }

        /** @return false (and the cursors untouched) unless they were in submission order and are now in key order */
        private static boolean sortByPriorityIfInSubmissionOrder(Cursor[] cursors) {
            long least = Long.MAX_VALUE;
            long most = Long.MIN_VALUE;
            for (int i = 0; i < cursors.length; i++) {
                Cursor c = cursors[i];
                if (i > 0) {
                    Cursor p = cursors[i - 1];
                    if (p.submitted > c.submitted || p.submitted == c.submitted && p.sequence > c.sequence) {
                        return false;
                    }
                }
                least = Math.min(least, c.negatedPriority);
                most = Math.max(most, c.negatedPriority);
            }
            if (cursors.length < 2 || least == most) {
                return true; // in submission order with one priority: in key order already
            }
            Cursor[] before = cursors.clone();
            if (most - least < 4L * cursors.length) {
                // few distinct values for the number of groups (Kueue's priorities are small integers): a counting
                // sort, stable, in two passes
                int[] starts = new int[(int) (most - least) + 2];
                for (Cursor c : before) {
                    starts[(int) (c.negatedPriority - least) + 1]++;
                }
                for (int v = 1; v < starts.length; v++) {
                    starts[v] += starts[v - 1];
                }
                for (Cursor c : before) {
                    cursors[starts[(int) (c.negatedPriority - least)]++] = c;
                }
                return true;
            }
            if (least < Integer.MIN_VALUE || most > Integer.MAX_VALUE) {
                return false; // a priority whose negation is beyond an int: the comparison sort
            }
            long[] keys = new long[cursors.length];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = before[i].negatedPriority << 32 | i; // the position is below 2^31: it never reaches the sign
            }
            java.util.Arrays.sort(keys);
            for (int i = 0; i < keys.length; i++) {
                cursors[i] = before[(int) keys[i]];
            }
            return true;
        }

        boolean isEmpty() {
            return next == sorted.length && movedOn.isEmpty();
        }

        /** @return the cursor whose job comes first */
        Cursor poll() {
            if (movedOn.isEmpty() || next < sorted.length && order.compare(sorted[next], movedOn.peek()) <= 0) {
                return sorted[next++];
            }
            return movedOn.poll();
        }

        /** @param c a cursor moved on to its group's next job */
        void add(Cursor c) {
            movedOn.add(c);
        }
    }
}
