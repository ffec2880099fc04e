package io.fairway.policies.fifo;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Elastic jobs under the queue-order policies (UnifiedJob's target replicas, an elastic Job's parallelism, a
 * RayCluster's worker groups): running elastic jobs grow into capacity nobody waiting could use, and shrink toward
 * their minimum before anyone is preempted for room. A gang of several pod sets is elastic through the pod sets whose
 * {@code minCount} is below their {@code count} (a RayCluster's worker groups beside its fixed head, a UnifiedJob's
 * scaled pod set beside a launcher); its other pod sets keep their size.
 */
final class Elastic {
    private Elastic() {
    }

    /** After admission, grows running elastic jobs (oldest first) one member at a time while room and quota allow. */
    static void growIntoIdleCapacity(PolicyContext ctx) {
        for (JobStatus r : ctx.holdingElastic()) {
            if (r.admission() == null) {
                continue;
            }
            for (PodSet ps : elasticSets(r)) {
                int cur = r.admission().counts().getOrDefault(ps.name(), ps.count());
                for (int target = ps.count(); target > cur; target--) {
                    if (ctx.resize(r, ps.name(), target).admitted()) {
                        break;
                    }
                }
            }
        }
    }

    /**
     * Shrinks elastic jobs the job's ClusterQueue could preempt (same queue, lower priority) toward their
     * minimum, largest excess first, until the job fits; if it never fits, the shrunk jobs are grown back.
     */
    static Attempt shrinkToAdmit(PolicyContext ctx, JobStatus job) {
        if (ctx.holdingElastic().isEmpty()) {
            return Attempt.failure(null); // nothing to shrink (the common case: asked for every job that does not fit)
        }
        String cq = ctx.clusterQueueOf(job);
        ClusterQueue spec = null;
        for (ClusterQueue q : ctx.clusterQueues()) {
            if (q.name().equals(cq)) {
                spec = q;
            }
        }
        if (spec == null || spec.preemption().withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.NEVER) {
            return Attempt.failure(null);
        }
        List<JobStatus> shrinkable = new ArrayList<>();
        for (JobStatus r : ctx.holdingElastic()) {
            if (r.admission() != null && cq.equals(r.admission().clusterQueue()) && r.spec().priority() < job.spec().priority() && excess(r) > 0) {
                shrinkable.add(r);
            }
        }
        if (shrinkable.isEmpty()) {
            return Attempt.failure(null);
        }
        shrinkable.sort(Comparator.comparingInt((JobStatus r) -> excess(r)).reversed().thenComparing(JobOrder.SEQUENCE));
        Map<JobStatus, Map<String, Integer>> before = new LinkedHashMap<>();
        for (JobStatus r : shrinkable) {
            Map<String, Integer> was = new LinkedHashMap<>();
            for (PodSet ps : elasticSets(r)) {
                was.put(ps.name(), r.admission().counts().getOrDefault(ps.name(), ps.count()));
                ctx.resize(r, ps.name(), ps.minCount());
            }
            before.put(r, was);
            Attempt a = ctx.tryAdmit(job);
            if (a.admitted()) {
                return a;
            }
        }
        before.forEach((r, was) -> was.forEach((ps, n) -> ctx.resize(r, ps, n)));
        return Attempt.failure(null);
    }

    /**
     * @param r a job
     * @return its elastic pod sets ({@code minCount < count}), in spec order; empty for a rigid job
     */
    static List<PodSet> elasticSets(JobStatus r) {
        if (!r.spec().isElastic()) {
            return List.of(); // asked for every job that does not fit: most are rigid
        }
        List<PodSet> out = new ArrayList<>();
        for (PodSet ps : r.spec().podSets()) {
            if (ps.isElastic()) {
                out.add(ps);
            }
        }
        return out;
    }

    /** @return how far above their minimum the job's elastic pod sets run, weighted by GPUs per member */
    private static int excess(JobStatus r) {
        int sum = 0;
        for (PodSet ps : elasticSets(r)) {
            sum += (r.admission().counts().getOrDefault(ps.name(), ps.count()) - ps.minCount()) * (int) Math.max(1, ps.resources().gpus());
        }
        return sum;
    }

    /**
     * The sizes an elastic job is tried at when it does not fit whole, largest first: each step takes one member
     * from the elastic pod set furthest above its minimum (ties: the later pod set, the scaled workers rather than
     * what precedes them), down to every elastic pod set at its minimum. Rigid pod sets keep their count.
     *
     * @param j a job
     * @return the counts to try, after the full size (empty for a rigid job)
     */
    static List<Map<String, Integer>> smallerSizes(JobStatus j) {
        List<PodSet> elastic = elasticSets(j);
        if (elastic.isEmpty()) {
            return List.of();
        }
        List<Map<String, Integer>> out = new ArrayList<>();
        Map<String, Integer> cur = new LinkedHashMap<>();
        for (PodSet ps : j.spec().podSets()) {
            cur.put(ps.name(), ps.count());
        }
        while (true) {
            PodSet pick = null;
            int most = 0;
            for (PodSet ps : elastic) {
                int above = cur.get(ps.name()) - ps.minCount();
                if (above > 0 && above >= most) {
                    pick = ps;
                    most = above;
                }
            }
            if (pick == null) {
                return out;
            }
            cur.put(pick.name(), cur.get(pick.name()) - 1);
            out.add(Map.copyOf(cur));
        }
    }
}
