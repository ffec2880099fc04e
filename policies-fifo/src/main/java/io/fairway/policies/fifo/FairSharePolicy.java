package io.fairway.policies.fifo;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Resources;
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
 * Fair sharing between ClusterQueues. Each step admits the next job (in Kueue order) of the ClusterQueue that
 * is furthest below its fair share, then re-ranks that queue; jobs that do not fit are skipped. Two measures:
 * <ul>
 *   <li>{@link Mode#DOMINANT_RESOURCE_SHARE} (Kueue's fair sharing): a queue's dominant resource share —
 *       its usage above nominal quota over what its cohort can lend — divided by its fair-sharing weight;
 *       ties broken by its current share of the cluster divided by its weight;</li>
 *   <li>{@link Mode#OVER_TIME} (HTCondor, Armada): the queue's recent usage decayed with the scheduler's
 *       half-life plus its current share of the cluster, times its priority factor.</li>
 * </ul>
 * Many jobs of one ClusterQueue may be admitted per round.
 */
public final class FairSharePolicy implements SchedulingPolicy {
    /** Which share to equalise. */
    public enum Mode {
        /** Kueue fair sharing: dominant resource share within the cohort, by weight. */
        DOMINANT_RESOURCE_SHARE,
        /** HTCondor/Armada fair share over time: decayed usage times priority factor. */
        OVER_TIME
    }

    private final String name;
    private final Mode mode;

    /**
     * @param name the policy name
     * @param mode the share measure
     */
    public FairSharePolicy(String name, Mode mode) {
        this.name = name;
        this.mode = mode;
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
        Map<String, ClusterQueue> queues = new HashMap<>();
        for (ClusterQueue q : ctx.clusterQueues()) {
            queues.put(q.name(), q);
        }
        // Each queue's jobs in Kueue order: its groups (jobs of one shape and priority) merged by their cursors.
        Map<String, PriorityQueue<OrderedPolicy.Cursor>> heads = new HashMap<>();
        for (PendingGroup g : ctx.pendingGroups()) {
            heads.computeIfAbsent(g.clusterQueue(), k -> new PriorityQueue<>(OrderedPolicy.Cursor.BY_KEYS)) // Kueue order
                    .add(new OrderedPolicy.Cursor(g, true));
        }
        PriorityQueue<Ranked> order = new PriorityQueue<>();
        long gpus = ctx.capacity().total(Resources.GPU);
        long cpus = ctx.capacity().total(Resources.CPU);
        for (ClusterQueue q : ctx.clusterQueues()) {
            if (heads.containsKey(q.name())) {
                order.add(new Ranked(q.name(), key(ctx, q, gpus, cpus)));
            }
        }
        Map<OrderedPolicy.Shape, PendingReason> failedShapes = new HashMap<>();
        while (!order.isEmpty()) {
            Ranked r = order.poll();
            PriorityQueue<OrderedPolicy.Cursor> dq = heads.get(r.queue);
            OrderedPolicy.Cursor c = dq.poll();
            JobStatus j = c.job();
            ClusterQueue q = queues.get(r.queue);
            boolean preempting = OrderedPolicy.preempts(q);
            if (c.shape == null) {
                c.shape = new OrderedPolicy.Shape(r.queue, j.spec().namespace(), j.spec().podSets(), preempting ? j.spec().priority() : 0);
            }
            PendingReason failed = failedShapes.get(c.shape);
            if (failed == null) {
                Attempt a = OrderedPolicy.admit(ctx, j, preempting);
                if (a.admitted()) {
                    if (c.advance()) {
                        dq.add(c);
                    }
                } else {
                    failed = a.reason();
                    failedShapes.put(c.shape, failed);
                }
            }
            if (failed != null) {
                ctx.leaveWaiting(c.group, c.index, failed); // the rest of the group cannot fit either
            }
            if (!dq.isEmpty()) {
                order.add(new Ranked(r.queue, key(ctx, q, gpus, cpus)));
            }
        }
        Elastic.growIntoIdleCapacity(ctx);
    }

    private double[] key(PolicyContext ctx, ClusterQueue q, long gpus, long cpus) {
        double current = Math.max(gpus > 0 ? (double) ctx.quota().usage(q.name(), Resources.GPU) / gpus : 0,
                cpus > 0 ? (double) ctx.quota().usage(q.name(), Resources.CPU) / cpus : 0);
        if (mode == Mode.DOMINANT_RESOURCE_SHARE) {
            return new double[] {ctx.quota().dominantShare(q.name()), current / q.fairSharingWeight()};
        }
        return new double[] {(ctx.quota().decayedUsage(q.name()) + current) * q.priorityFactor(), 0};
    }

    private record Ranked(String queue, double[] key) implements Comparable<Ranked> {
        @Override
        public int compareTo(Ranked o) {
            for (int i = 0; i < key.length; i++) {
                int c = Double.compare(key[i], o.key[i]);
                if (c != 0) {
                    return c;
                }
            }
            return queue.compareTo(o.queue);
        }
    }
}
