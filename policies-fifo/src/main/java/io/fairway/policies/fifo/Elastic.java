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
 * Elastic jobs under the queue-order policies (UnifiedJob's target replicas): running elastic jobs grow into
 * capacity nobody waiting could use, and shrink toward their minimum before anyone is preempted for room.
 */
final class Elastic {
    private Elastic() {
    }

    /** After admission, grows running elastic jobs (oldest first) one member at a time while room and quota allow. */
    static void growIntoIdleCapacity(PolicyContext ctx) {
        for (JobStatus r : ctx.holdingElastic()) {
            if (r.admission() == null || r.spec().podSets().size() != 1 || !r.spec().isElastic()) {
                continue;
            }
            PodSet ps = r.spec().podSets().get(0);
            int cur = r.admission().counts().getOrDefault(ps.name(), ps.count());
            for (int target = ps.count(); target > cur; target--) {
                if (ctx.resize(r, ps.name(), target).admitted()) {
                    break;
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
            if (r.admission() != null && cq.equals(r.admission().clusterQueue()) && r.spec().podSets().size() == 1 && r.spec().isElastic()
                    && r.spec().priority() < job.spec().priority()
                    && r.admission().counts().getOrDefault(r.spec().podSets().get(0).name(), 0) > r.spec().podSets().get(0).minCount()) {
                shrinkable.add(r);
            }
        }
        if (shrinkable.isEmpty()) {
            return Attempt.failure(null);
        }
        shrinkable.sort(Comparator.comparingInt((JobStatus r) -> excess(r)).reversed().thenComparing(JobOrder.SEQUENCE));
        Map<JobStatus, Integer> before = new LinkedHashMap<>();
        for (JobStatus r : shrinkable) {
            PodSet ps = r.spec().podSets().get(0);
            before.put(r, r.admission().counts().get(ps.name()));
            ctx.resize(r, ps.name(), ps.minCount());
            Attempt a = ctx.tryAdmit(job);
            if (a.admitted()) {
                return a;
            }
        }
        before.forEach((r, n) -> ctx.resize(r, r.spec().podSets().get(0).name(), n));
        return Attempt.failure(null);
    }

    private static int excess(JobStatus r) {
        PodSet ps = r.spec().podSets().get(0);
        return (r.admission().counts().getOrDefault(ps.name(), ps.count()) - ps.minCount()) * (int) Math.max(1, ps.resources().gpus());
    }
}
