package io.fairway.core.plan;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.core.admission.QuotaBook;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.fairway.core.snapshot.PendingIndex;

/**
 * A plan as the policy left it: preemptions, admissions, and a reason for every pending job that is not
 * admitted. Jobs the policy never looked at get one "not reached" reason shared per ClusterQueue; a reason is
 * only listed when it differs from the one the job already carries, and is stamped with the round that gave it
 * ({@link KeptReasons}: in remembering rounds, a job whose answer is the same with moved numbers keeps its reason). A group of the pending index that the
 * policy answered with one reason ({@link PlanContext#leaveWaiting(io.fairway.api.spi.PendingGroup, int,
 * PendingReason)}) and whose jobs all carry that reason already costs nothing: a deep queue of jobs that cannot
 * fit is reported in time proportional to its groups, not its jobs.
 *
 * @param preemptions in plan order
 * @param admissions in plan order
 * @param reasons changed pending reasons by job id
 * @param leaseRenewals new lease expiries of jobs that hold resources (and are not preempted)
 * @param resizes the new admissions of elastic jobs that were resized
 * @param wakeAtMillis the earliest next round the policy asked for ({@code Long.MAX_VALUE}: none)
 * @param quota the plan's quota books: the snapshot's usage, current reservations and the plan's admissions
 *     (provisioning charges the quota it reserves to them)
 * @param engineOnly true when nothing in the plan was supplied by the policy ({@link PlanContext#plannedByEngineOnly()})
 */
public record PlanOutput(List<Preempt> preemptions, List<Admit> admissions, Map<String, PendingReason> reasons,
                         Map<String, Long> leaseRenewals, List<Admit> resizes, long wakeAtMillis, QuotaBook quota,
                         boolean engineOnly) {
    private static final java.util.concurrent.ConcurrentHashMap<String, PendingReason> NOT_REACHED = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The reason of a job no round has looked at yet: shared per ClusterQueue, so an unchanged deep queue costs
     * nothing to report.
     *
     * @param clusterQueue the job's ClusterQueue
     * @return the reason
     */
    public static PendingReason notReached(String clusterQueue) {
        return NOT_REACHED.computeIfAbsent(clusterQueue, k -> PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS,
                "waiting in ClusterQueue " + k + ": the jobs ahead of it go first"));
    }

    /**
     * @param ctx a planned context
     * @return its output
     */
    public static PlanOutput of(PlanContext ctx) {
        KeptReasons kept = new KeptReasons(ctx.plan().snapshot.round(), ctx.keepsReasons());
        GroupedReasons reasons = new GroupedReasons(kept);
        Map<String, PendingReason> notReached = new HashMap<>();
        TentativePlan plan = ctx.plan();
        Map<String, io.fairway.core.snapshot.Provisioning.Reservation> reservations = plan.snapshot.provisioning().reservations();
        // Told that the previous round's answers stand, a policy may leave jobs alone: they keep their reasons. When it
        // gave no reason at all, there is nothing to walk.
        boolean keep = ctx.answersStood();
        List<PendingIndex.Group> groups = keep && ctx.noReasonsGiven() ? List.of() : ctx.pendingIndex().groups();
        for (int at = 0; at < groups.size(); at++) {
            PendingIndex.Group g = groups.get(at);
            List<JobStatus> jobs = g.jobs();
            String cq = ctx.clusterQueueAt(at, g);
            PendingReason bulkReason;
            int from;
            if (cq == null) {
                bulkReason = ctx.unresolvedReasonOf(g.head()); // the same for the whole group: one namespace and LocalQueue
                from = 0;
            } else {
                PendingView.Bulk b = ctx.bulkAt(at);
                bulkReason = b == null ? null : b.reason();
                from = b == null ? jobs.size() : b.from();
            }
            // jobs the policy looked at one by one (or never reached)
            for (int i = 0; i < from; i++) {
                JobStatus j = jobs.get(i);
                if (plan.admitted.containsKey(j.id()) || reservations.containsKey(j.id())) {
                    continue; // admitted, or waiting for nodes with its reason already set
                }
                PendingReason r = plan.reasons.get(j.id());
                if (r == null && keep) {
                    continue;
                }
                if (r == null) {
                    r = notReached.computeIfAbsent(cq, PlanOutput::notReached);
                }
                if (!kept.stands(r, j.pendingReason())) {
                    reasons.putIndividual(j.id(), kept.stamp(r));
                }
            }
            // the rest of the group, answered with one reason: nothing to report when every job carries it already
            // (the round drops the reasons of jobs it admits, should a policy admit one it also answered in bulk)
            if (from < jobs.size() && !kept.stands(bulkReason, g.commonReason()) && !keptByAll(ctx, kept, bulkReason, g)) {
                reasons.putRun(g, at, from, kept.stamp(bulkReason), reservations);
            }
        }
        Map<String, Long> renewals = new LinkedHashMap<>(plan.leaseRenewals);
        renewals.keySet().removeAll(plan.preempted.keySet());
        return new PlanOutput(new ArrayList<>(plan.preempted.values()), new ArrayList<>(plan.admitted.values()), reasons, renewals,
                new ArrayList<>(plan.resized.values()), plan.wakeAt, plan.quota, ctx.plannedByEngineOnly());
    }

    /**
     * Whether every job of the group keeps its reason against {@code reason} although they carry different objects
     * (given in different rounds): in remembering rounds a job keeps a reason that gives the same answer, and the
     * group's jobs all give its {@link PendingIndex.Group#commonAnswer() common answer}, so one comparison stands for
     * a walk over its jobs that would list none of them.
     */
    static boolean keptByAll(PlanContext ctx, KeptReasons kept, PendingReason reason, PendingIndex.Group g) {
        PendingReason answer = g.commonAnswer();
        return answer != null && ctx.keepsReasons() && kept.stands(reason, answer);
    }
}
