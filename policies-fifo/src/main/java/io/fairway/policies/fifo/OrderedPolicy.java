package io.fairway.policies.fifo;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy that walks the pending jobs in one order and admits each that fits. With strict blocking, the
 * first job of a ClusterQueue that does not fit blocks the rest of that queue (Kueue's StrictFIFO); without,
 * it is skipped (BestEffortFIFO). A ClusterQueue's own {@link ClusterQueue#queueingStrategy()}, when set,
 * overrides the policy's default.
 *
 * <p>Within a round capacity and quota only shrink, so once a job of some shape fails for lack of room, every
 * later job of the same shape in the same ClusterQueue fails too: it is skipped without a search. That keeps
 * a round over tens of thousands of jobs that cannot fit cheap.
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

    /**
     * @param ctx the round
     * @return the jobs in the order this policy considers them
     */
    protected List<JobStatus> ordered(PolicyContext ctx) {
        List<JobStatus> jobs = ctx.pending();
        if (order == null) {
            return jobs;
        }
        List<JobStatus> copy = new ArrayList<>(jobs);
        copy.sort(order.thenComparingLong(JobStatus::sequence));
        return copy;
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
        Map<String, JobStatus> blockedBy = new HashMap<>();
        Map<String, PendingReason> blockReason = new HashMap<>();
        Map<Shape, PendingReason> failedShapes = new HashMap<>();
        for (JobStatus j : ordered(ctx)) {
            String cq = ctx.clusterQueueOf(j);
            JobStatus head = blockedBy.get(cq);
            if (head != null) {
                ctx.leaveWaiting(j, blockReason.get(cq));
                continue;
            }
            boolean preempting = preempts(queues.get(cq));
            Shape shape = new Shape(cq, j.spec().namespace(), j.spec().podSets(), preempting ? j.spec().priority() : 0);
            PendingReason known = failedShapes.get(shape);
            Attempt a;
            if (known != null) {
                ctx.leaveWaiting(j, known);
                a = Attempt.failure(known);
            } else {
                a = admit(ctx, j, preempting);
                if (!a.admitted()) {
                    failedShapes.put(shape, a.reason());
                }
            }
            if (!a.admitted() && isStrict(queues.get(cq))) {
                blockedBy.put(cq, j);
                blockReason.put(cq, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting behind " + j.id()
                        + ", the head of StrictFIFO ClusterQueue " + cq + ", which does not fit: " + a.reason().message()));
            }
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
