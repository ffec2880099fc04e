package io.fairway.core.preemption;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.spi.Attempt;
import io.fairway.core.admission.QuotaBook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The preemption search under Kueue's rules ({@link PreemptionPolicy.CohortRules#KUEUE}), as Kueue's classical
 * preemption decides:
 * <ol>
 *   <li>the resources that need preemption: the (flavor, resource) pairs of the job's target flavors (per resource
 *       group, the first flavor whose nominal quota could hold the request) where the request is more than the queue
 *       may use now (all of them when quota is not short and only placement is);</li>
 *   <li>candidates in other ClusterQueues of the cohort tree: every job, under {@code reclaimWithinCohort: Any}, or
 *       every lower-priority job, under {@code LowerPriority}, of a queue that borrows (is above nominal) in one of
 *       those resources, and uses one of them. A queue borrows by the jobs it held when the round began and still
 *       holds in the plan: jobs admitted in this round are not counted (nor candidates), as Kueue picks candidates on
 *       its cycle's starting snapshot — otherwise a queue that a job of this round took above nominal would lose an
 *       older job in its place, which would then take its place back. When the job's request fits its queue's own nominal quota, it may take
 *       them whether or not it then borrows; otherwise a candidate may be taken while the preemptor borrows only under
 *       {@code borrowWithinCohort: LowerPriority}, of lower priority than the preemptor and at most
 *       {@code maxPriorityThreshold};</li>
 *   <li>candidates in its own queue by {@code withinClusterQueue};</li>
 *   <li>order: other queues' jobs first (those the request's fit in nominal quota entitles it to, then the others),
 *       then its own queue's; each by lowest priority, then most recently admitted;</li>
 *   <li>one or two attempts, as Kueue orders them: with borrowing allowed only when no other queue's job is a
 *       candidate, or when {@code borrowWithinCohort} is {@code Never} and the queue is not below nominal; else
 *       first without borrowing when no candidate is entitled by nominal quota and borrowWithinCohort is
 *       {@code Never}, then with; else first with borrowing, then without;</li>
 *   <li>in an attempt, candidates are removed in order — one of another queue only while that queue still borrows in a
 *       resource that needs preemption — until the job fits (quota and placement, and without borrowing when the
 *       attempt does not allow it); then every victim not needed is put back: the set is minimal.</li>
 * </ol>
 */
final class KueuePreemptor {
    private KueuePreemptor() {
    }

    /** How a candidate of another queue may be taken (Kueue's preemption variants). */
    private enum Variant {
        /** The preemptor's request fits its nominal quota: it is entitled to what the candidate borrows. */
        BY_NOMINAL,
        /** Only when the preemptor ends within its nominal quota. */
        WITHOUT_BORROWING,
        /** Also while the preemptor borrows ({@code borrowWithinCohort}). */
        WHILE_BORROWING
    }

    private record Candidate(PreemptionIndex.Held held, Variant variant) {
    }

    static Attempt search(SearchPlan ctx, PreemptionIndex index, JobStatus job, ClusterQueue cq, PendingReason notFitting) {
        PreemptionPolicy p = cq.preemption();
        QuotaBook quota = ctx.quota();
        Map<String, Long> demand = demand(ctx, job, cq);
        Set<String> needed = new java.util.HashSet<>();
        for (Map.Entry<String, Long> e : demand.entrySet()) {
            if (e.getValue() > quota.available(cq.name(), e.getKey())) {
                needed.add(e.getKey());
            }
        }
        if (needed.isEmpty()) {
            needed.addAll(demand.keySet()); // quota is not short, placement is: the pairs it asks for
        }
        boolean fitsNominal = true;
        boolean underNominal = true;
        for (Map.Entry<String, Long> e : demand.entrySet()) {
            long used = quota.used(cq.name(), e.getKey());
            long nominal = quota.nominal(cq.name(), e.getKey());
            if (used + e.getValue() > nominal) {
                fitsNominal = false;
            }
            if (needed.contains(e.getKey()) && used >= nominal) {
                underNominal = false;
            }
        }
        int prio = job.spec().priority();
        boolean borrowForbidden = p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.NEVER;
        List<Candidate> others = new ArrayList<>();
        boolean anyByNominal = false;
        if (p.reclaimWithinCohort() != PreemptionPolicy.ReclaimWithinCohort.NEVER) {
            boolean any = p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY;
            Map<String, Boolean> borrowing = new java.util.HashMap<>();
            List<Candidate> byNominal = new ArrayList<>();
            List<Candidate> byPriority = new ArrayList<>();
            for (PreemptionIndex.Held h : index.ofRoot(index.rootOf(cq))) {
                if (!any && h.priority >= prio) {
                    break; // candidate order is by priority: no lower-priority job follows
                }
                if (h.queue.name.equals(cq.name()) || !index.inPlan(h) || !h.preemptible) {
                    continue;
                }
                if (!borrowing.computeIfAbsent(h.queue.name, q -> index.heldAboveNominal(q, needed)) || !usesAny(h.job, needed)) {
                    continue; // its queue is within nominal in what is needed, or it uses none of it
                }
                if (fitsNominal) {
                    byNominal.add(new Candidate(h, Variant.BY_NOMINAL));
                } else {
                    Integer threshold = p.maxPriorityThreshold();
                    boolean whileBorrowing = !borrowForbidden && h.priority < prio && (threshold == null || h.priority <= threshold);
                    byPriority.add(new Candidate(h, whileBorrowing ? Variant.WHILE_BORROWING : Variant.WITHOUT_BORROWING));
                }
            }
            anyByNominal = !byNominal.isEmpty();
            others.addAll(byNominal);
            others.addAll(byPriority);
        }
        List<Candidate> own = new ArrayList<>();
        if (p.withinClusterQueue() != PreemptionPolicy.WithinClusterQueue.NEVER) {
            boolean newerEqual = p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY;
            for (PreemptionIndex.Held h : index.ofQueue(cq.name())) {
                int hp = h.priority;
                if (hp > prio || (hp == prio && !newerEqual)) {
                    break;
                }
                if (hp == prio && !Preemptor.newer(h.job, job)) {
                    continue;
                }
                if (index.inPlan(h) && h.preemptible && usesAny(h.job, needed)) {
                    own.add(new Candidate(h, null));
                }
            }
        }
        boolean[] attempts;
        if (others.isEmpty() || (borrowForbidden && !underNominal)) {
            attempts = new boolean[] {true};
        } else if (borrowForbidden && !anyByNominal) {
            attempts = new boolean[] {false, true};
        } else {
            attempts = new boolean[] {true, false};
        }
        long before = ctx.state();
        for (boolean borrowing : attempts) {
            List<JobStatus> listed = new ArrayList<>();
            // other queues' victims that the job may take only if it then ends within its nominal quota: all but those
            // taken while borrowing (Kueue admits in the flavor it targeted, where a request its nominal quota holds
            // does not borrow; Fairway admits in the first flavor that fits, so it checks)
            java.util.Set<String> needNominal = new java.util.HashSet<>();
            // taken while borrowing from a queue that could reclaim it back (reclaimWithinCohort Any): only what that
            // queue borrows beyond its nominal quota, as Fairway's rule, or the two would take turns
            java.util.Set<String> keepQueueNominal = new java.util.HashSet<>();
            for (Candidate c : others) {
                if (!borrowing || c.variant() != Variant.WITHOUT_BORROWING) {
                    listed.add(c.held().job);
                    if (c.variant() != Variant.WHILE_BORROWING) {
                        needNominal.add(c.held().job.id());
                    } else {
                        ClusterQueue victimQueue = ctx.snapshot().clusterQueues().get(c.held().queue.name);
                        if (victimQueue != null && victimQueue.preemption().reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY) {
                            keepQueueNominal.add(c.held().job.id());
                        }
                    }
                }
            }
            int fromOthers = listed.size();
            for (Candidate c : own) {
                listed.add(c.held().job);
            }
            if (listed.isEmpty() || !Preemptor.enoughGpus(ctx, job, listed)) {
                continue;
            }
            List<JobStatus> victims = new ArrayList<>();
            boolean fits = false;
            for (int i = 0; i < listed.size(); i++) {
                JobStatus c = listed.get(i);
                if (i < fromOthers && !index.heldAboveNominal(ctx.clusterQueueOf(c), needed)) {
                    continue; // its queue no longer borrows in what is needed: the rest of its jobs are safe
                }
                ctx.preemptForSearch(c, "");
                if (keepQueueNominal.contains(c.id()) && index.heldBelowNominal(ctx.clusterQueueOf(c), usedOf(c, needed))) {
                    ctx.restore(c.id());
                    continue;
                }
                victims.add(c);
                if (ctx.fits(job) && ((borrowing && !anyIn(victims, needNominal)) || !Preemptor.wouldBorrow(ctx, job, cq))) {
                    fits = true;
                    break;
                }
            }
            if (!fits) {
                for (JobStatus v : victims) {
                    ctx.restore(v.id());
                }
                ctx.restoreState(before);
                continue;
            }
            for (int i = victims.size() - 1; i >= 0; i--) {
                JobStatus v = victims.get(i);
                ctx.restore(v.id());
                victims.remove(i);
                if (!(ctx.fits(job) && ((borrowing && !anyIn(victims, needNominal)) || !Preemptor.wouldBorrow(ctx, job, cq)))) {
                    ctx.preemptForSearch(v, "");
                    victims.add(i, v);
                }
            }
            Attempt a = ctx.tryAdmit(job);
            if (a.admitted() && (!borrowing || anyIn(victims, needNominal)) && Preemptor.borrows(ctx, job, a.admission())) {
                ctx.unadmit(job.id());
                a = Attempt.failure(notFitting);
            }
            if (!a.admitted()) {
                for (JobStatus v : victims) {
                    ctx.restore(v.id());
                }
                ctx.restoreState(before);
                continue;
            }
            for (JobStatus v : victims) {
                ctx.explainPreemption(v.id(), Preemptor.describe(v, job, ctx.clusterQueueOf(v), cq.name()));
            }
            return a;
        }
        return Attempt.failure(new PendingReason(notFitting.code(), notFitting.message()
                + "; no set of jobs that ClusterQueue " + cq.name() + " may preempt makes room", notFitting.details()));
    }

    private static boolean anyIn(List<JobStatus> victims, java.util.Set<String> ids) {
        if (ids.isEmpty()) {
            return false;
        }
        for (JobStatus v : victims) {
            if (ids.contains(v.id())) {
                return true;
            }
        }
        return false;
    }

    /** @return the pairs of {@code pairs} the running job is charged for */
    private static Set<String> usedOf(JobStatus j, Set<String> pairs) {
        Set<String> out = new java.util.HashSet<>();
        var a = j.admission();
        for (PodSet ps : j.spec().podSets()) {
            for (String r : ps.resources().names()) {
                String fr = QuotaBook.fr(a.flavorOf(ps.name(), r), r);
                if (pairs.contains(fr)) {
                    out.add(fr);
                }
            }
        }
        return out;
    }

    /** True when the running job is charged for one of the pairs. */
    private static boolean usesAny(JobStatus j, Set<String> pairs) {
        var a = j.admission();
        for (PodSet ps : j.spec().podSets()) {
            for (String r : ps.resources().names()) {
                if (pairs.contains(QuotaBook.fr(a.flavorOf(ps.name(), r), r))) {
                    return true;
                }
            }
        }
        return false;
    }

    static Map<String, Long> demand(SearchPlan ctx, JobStatus job, ClusterQueue cq) {
        return io.fairway.core.admission.Assignment.targetDemand(cq, ctx.snapshot().flavors(), ctx.quota(), job.spec());
    }

}
