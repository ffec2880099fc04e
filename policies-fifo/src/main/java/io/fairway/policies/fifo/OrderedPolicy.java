package io.fairway.policies.fifo;

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
        admitInOrder(ctx);
        Elastic.growIntoIdleCapacity(ctx);
    }

    private void admitInOrder(PolicyContext ctx) {
        Map<String, ClusterQueue> queues = new HashMap<>();
        for (ClusterQueue q : ctx.clusterQueues()) {
            queues.put(q.name(), q);
        }
        Comparator<JobStatus> byOrder = (order == null ? FifoPolicies.SUBMISSION : order).thenComparingLong(JobStatus::sequence);
        // Walk the groups' jobs merged into one order: the head of each group waits in a heap keyed by the job at its cursor.
        PriorityQueue<Cursor> heads = new PriorityQueue<>((x, y) -> byOrder.compare(x.job(), y.job()));
        for (PendingGroup g : ctx.pendingGroups()) {
            heads.add(new Cursor(g));
        }
        Map<String, PendingReason> blockReason = new HashMap<>();
        Map<Shape, PendingReason> failedShapes = new HashMap<>();
        while (!heads.isEmpty()) {
            Cursor c = heads.poll();
            String cq = c.group.clusterQueue();
            PendingReason blocked = blockReason.get(cq);
            if (blocked != null) {
                ctx.leaveWaiting(c.group, c.index, blocked); // behind the blocked head of a StrictFIFO queue
                continue;
            }
            ClusterQueue q = queues.get(cq);
            boolean preempting = preempts(q);
            JobStatus j = c.job();
            if (c.shape == null) {
                c.shape = new Shape(cq, j.spec().namespace(), j.spec().podSets(), preempting ? j.spec().priority() : 0);
            }
            PendingReason failed = failedShapes.get(c.shape);
            if (failed == null) {
                Attempt a = admit(ctx, j, preempting);
                if (a.admitted()) {
                    if (++c.index < c.group.jobs().size()) {
                        heads.add(c);
                    }
                    continue;
                }
                failed = a.reason();
                failedShapes.put(c.shape, failed);
            }
            // Within a round capacity and quota only shrink: no later job of this shape fits either.
            if (isStrict(q)) {
                ctx.leaveWaiting(j, failed);
                PendingReason behind = PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting behind " + j.id()
                        + ", the head of StrictFIFO ClusterQueue " + cq + ", which does not fit: " + failed.message());
                blockReason.put(cq, behind);
                if (c.index + 1 < c.group.jobs().size()) {
                    ctx.leaveWaiting(c.group, c.index + 1, behind);
                }
            } else {
                ctx.leaveWaiting(c.group, c.index, failed);
            }
        }
    }

    /** A group and the position of the next job to consider in it. */
    static final class Cursor {
        final PendingGroup group;
        int index;
        Shape shape;

        Cursor(PendingGroup group) {
            this.group = group;
        }

        JobStatus job() {
            return group.jobs().get(index);
        }
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
        if (j.spec().podSets().size() == 1 && j.spec().isElastic()) {
            PodSet ps = j.spec().podSets().get(0);
            for (int n = ps.count() - 1; n >= ps.minCount(); n--) {
                Attempt smaller = ctx.tryAdmit(j, java.util.Map.of(ps.name(), n));
                if (smaller.admitted()) {
                    return smaller;
                }
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
        return q != null && !q.preemption().equals(io.fairway.api.model.PreemptionPolicy.NEVER);
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
     */
    record Shape(String clusterQueue, String namespace, java.util.List<PodSet> podSets, int priority) {
    }

}
