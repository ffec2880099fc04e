package io.fairway.core.internal;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.spi.Attempt;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The preemption search, with Kueue's rules and its two-phase minimal victim set:
 * <ol>
 *   <li>candidates: jobs of the same ClusterQueue allowed by {@code withinClusterQueue}; jobs of other
 *       ClusterQueues in the same cohort tree only when they are part of what their queue borrows (in admission
 *       order, they take their queue above nominal): by {@code reclaimWithinCohort}
 *       when the preemptor's queue then stays within its nominal quota, or by {@code borrowWithinCohort} when
 *       they have lower priority than a preemptor that must borrow;</li>
 *   <li>order: other queues' jobs first, then lowest priority, then most recently admitted;</li>
 *   <li>remove candidates in that order until the job fits (quota and placement), then put back every victim
 *       that is not needed, most recently removed first: the set is minimal.</li>
 * </ol>
 * Victims within a queue are of lower priority (or equal and newer); victims in other queues are always
 * borrowers. A job admitted within its queue's nominal quota is never a borrower, so it cannot be preempted
 * back by the job it reclaimed from; the property test {@code QuotaProperties} checks that no preemption
 * repeats while nothing else changes.
 */
final class Preemptor {
    private Preemptor() {
    }

    static Attempt search(PlanContext ctx, JobStatus job, ClusterQueue cq, PendingReason notFitting) {
        PreemptionPolicy p = cq.preemption();
        if (p.equals(PreemptionPolicy.NEVER)) {
            return Attempt.failure(notFitting);
        }
        // Phase A: without borrowing (same queue + reclaim). Phase B: borrowing (same queue + lower priority in cohort).
        for (boolean borrowing : new boolean[] {false, true}) {
            List<JobStatus> candidates = candidates(ctx, job, cq, borrowing);
            if (candidates.isEmpty() || (borrowing && p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.NEVER)) {
                continue;
            }
            List<JobStatus> victims = new ArrayList<>();
            boolean fits = false;
            for (JobStatus c : candidates) {
                ctx.preempt(c, "");
                victims.add(c);
                if (ctx.fits(job) && (borrowing || !wouldBorrow(ctx, job, cq))) {
                    fits = true;
                    break;
                }
            }
            if (!fits) {
                for (JobStatus v : victims) {
                    ctx.restore(v.id());
                }
                continue;
            }
            // Fill back: keep only the victims that are needed.
            for (int i = victims.size() - 1; i >= 0; i--) {
                JobStatus v = victims.get(i);
                ctx.restore(v.id());
                if (ctx.fits(job) && (borrowing || !wouldBorrow(ctx, job, cq))) {
                    victims.remove(i);
                } else {
                    ctx.preempt(v, "");
                }
            }
            if (borrowing && victimQueueBelowNominal(ctx, victims, cq.name())) {
                // a borrowing preemptor may take only what other queues borrow beyond their nominal quota;
                // taking more would let them reclaim it right back (a preemption cycle)
                for (JobStatus v : victims) {
                    ctx.restore(v.id());
                }
                continue;
            }
            Attempt a = ctx.tryAdmit(job);
            if (a.admitted() && !borrowing && borrows(ctx, job, a.admission())) {
                // without borrowWithinCohort, a preemptor must stay within its queue's nominal quota
                ctx.unadmit(job.id());
                a = Attempt.failure(notFitting);
            }
            if (!a.admitted()) {
                for (JobStatus v : victims) {
                    ctx.restore(v.id());
                }
                continue;
            }
            for (JobStatus v : victims) {
                ctx.explainPreemption(v.id(), describe(v, job, ctx.clusterQueueOf(v), cq.name()));
            }
            return a;
        }
        return Attempt.failure(new PendingReason(notFitting.code(), notFitting.message()
                + "; no set of jobs that ClusterQueue " + cq.name() + " may preempt makes room", notFitting.details()));
    }

    private static String describe(JobStatus victim, JobStatus job, String victimCq, String cq) {
        String how = victimCq.equals(cq) ? "within ClusterQueue " + cq
                : "ClusterQueue " + cq + " reclaims quota from " + victimCq;
        return "preempted by " + job.id() + " (priority " + job.spec().priority() + " over " + victim.spec().priority() + "; " + how + ")";
    }

    /** True when, with the victims gone, another queue is below its nominal quota in a (flavor, resource) a victim held. */
    private static boolean victimQueueBelowNominal(PlanContext ctx, List<JobStatus> victims, String ownQueue) {
        for (JobStatus v : victims) {
            Admit a = v.admission();
            if (a.clusterQueue().equals(ownQueue)) {
                continue;
            }
            for (var ps : v.spec().podSets()) {
                String flavor = a.flavors().get(ps.name());
                for (String r : ps.resources().names()) {
                    var fr = QuotaBook.fr(flavor, r);
                    if (ctx.quota.used(a.clusterQueue(), fr) < ctx.quota.nominal(a.clusterQueue(), fr)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** True when the admitted job's queue is above nominal quota in a (flavor, resource) the job uses. */
    private static boolean borrows(PlanContext ctx, JobStatus job, Admit a) {
        for (var ps : job.spec().podSets()) {
            String flavor = a.flavors().get(ps.name());
            for (String r : ps.resources().names()) {
                String fr = QuotaBook.fr(flavor, r);
                if (ctx.quota.used(a.clusterQueue(), fr) > ctx.quota.nominal(a.clusterQueue(), fr)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when admitting the job now would take its queue above nominal quota for some (flavor, resource). */
    private static boolean wouldBorrow(PlanContext ctx, JobStatus job, ClusterQueue cq) {
        Map<String, Integer> counts = PlanContext.fullCounts(job.spec());
        Assignment.Result ar = Assignment.assign(cq, ctx.snapshot.flavors(), ctx.quota, job.spec(), counts);
        if (ar.reason() != null) {
            return true;
        }
        for (Map.Entry<String, Long> e : ar.choices().get(0).usage().entrySet()) {
            if (ctx.quota.used(cq.name(), e.getKey()) + e.getValue() > ctx.quota.nominal(cq.name(), e.getKey())) {
                return true;
            }
        }
        return false;
    }

    private static List<JobStatus> candidates(PlanContext ctx, JobStatus job, ClusterQueue cq, boolean borrowing) {
        PreemptionPolicy p = cq.preemption();
        String root = root(ctx, cq.cohort());
        int prio = job.spec().priority();
        List<JobStatus> out = new ArrayList<>();
        java.util.Set<String> borrowingPart = borrowingPart(ctx);
        for (JobStatus h : ctx.holdingNotPreempted()) {
            Admit a = h.admission();
            if (a == null) {
                continue;
            }
            int hp = h.spec().priority();
            if (a.clusterQueue().equals(cq.name())) {
                boolean ok = switch (p.withinClusterQueue()) {
                    case LOWER_PRIORITY -> hp < prio;
                    case LOWER_OR_NEWER_EQUAL_PRIORITY -> hp < prio || (hp == prio && newer(h, job));
                    case NEVER -> false;
                };
                // a preemptor that must borrow takes only from borrowers, even in its own queue
                if (ok && (!borrowing || borrowingPart.contains(h.id()))) {
                    out.add(h);
                }
                continue;
            }
            ClusterQueue other = ctx.snapshot.clusterQueues().get(a.clusterQueue());
            if (root == null || other == null || !root.equals(root(ctx, other.cohort()))) {
                continue;
            }
            if (!borrowing) {
                boolean ok = switch (p.reclaimWithinCohort()) {
                    case ANY -> true;
                    case LOWER_PRIORITY -> hp < prio;
                    case NEVER -> false;
                };
                if (ok && borrowingPart.contains(h.id())) {
                    out.add(h);
                }
            } else if (p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY && hp < prio
                    && borrowingPart.contains(h.id())) {
                out.add(h);
            }
        }
        out.sort(Comparator.comparing((JobStatus h) -> h.admission().clusterQueue().equals(cq.name()) ? 1 : 0)
                .thenComparingInt(h -> h.spec().priority())
                .thenComparing(Comparator.comparingLong(JobStatus::stateSinceMillis).reversed())
                .thenComparing(Comparator.comparingLong(JobStatus::sequence).reversed()));
        return out;
    }

    private static boolean newer(JobStatus a, JobStatus b) {
        long ta = a.spec().submitTimeMillis();
        long tb = b.spec().submitTimeMillis();
        return ta > tb || (ta == tb && a.sequence() > b.sequence());
    }

    /**
     * The jobs that make their ClusterQueue borrow: within each queue, jobs ranked by admission time (the
     * earliest admitted are entitled to the nominal quota first); a job is borrowing when, counting it and every
     * job admitted before it, its queue is above nominal quota in a (flavor, resource) it uses. Only these may be
     * preempted by other queues. A job admitted within nominal quota thus never becomes a borrower later.
     */
    private static java.util.Set<String> borrowingPart(PlanContext ctx) {
        Map<String, List<JobStatus>> byQueue = new java.util.TreeMap<>();
        for (JobStatus h : ctx.holdingNotPreempted()) {
            if (h.admission() != null) {
                byQueue.computeIfAbsent(h.admission().clusterQueue(), k -> new ArrayList<>()).add(h);
            }
        }
        java.util.Set<String> out = new java.util.HashSet<>();
        for (Map.Entry<String, List<JobStatus>> e : byQueue.entrySet()) {
            String cq = e.getKey();
            List<JobStatus> jobs = e.getValue();
            jobs.sort(Comparator.comparingLong((JobStatus h) -> h.admission().admittedAtMillis())
                    .thenComparingLong(h -> h.admission().admissionOrder()).thenComparingLong(JobStatus::sequence));
            Map<String, Long> cumulative = new java.util.HashMap<>();
            for (JobStatus h : jobs) {
                boolean borrowing = false;
                for (var ps : h.spec().podSets()) {
                    String flavor = h.admission().flavors().get(ps.name());
                    int m = h.admission().counts().getOrDefault(ps.name(), ps.count());
                    for (Map.Entry<String, Long> r : ps.total(m).asMap().entrySet()) {
                        String fr = QuotaBook.fr(flavor, r.getKey());
                        long c = cumulative.merge(fr, r.getValue(), Long::sum);
                        if (c > ctx.quota.nominal(cq, fr)) {
                            borrowing = true;
                        }
                    }
                }
                if (borrowing) {
                    out.add(h.id());
                }
            }
        }
        return out;
    }

    private static String root(PlanContext ctx, String cohort) {
        String c = cohort;
        int guard = 0;
        while (c != null && guard++ < 1000) {
            Cohort spec = ctx.snapshot.cohorts().get(c);
            if (spec == null || spec.parent() == null) {
                return c;
            }
            c = spec.parent();
        }
        return c;
    }
}
