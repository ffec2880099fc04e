package io.fairway.core.preemption;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.spi.Attempt;
import io.fairway.core.admission.Assignment;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.Placer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The preemption search. With {@link PreemptionPolicy.CohortRules#KUEUE} (the default) it is {@link KueuePreemptor};
 * this class is the search under {@link PreemptionPolicy.CohortRules#FAIRWAY_STRICT}, Fairway's stricter rules with
 * the same two-phase minimal victim set:
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

    static Attempt search(SearchPlan ctx, PreemptionIndex index, JobStatus job, ClusterQueue cq, PendingReason notFitting) {
        PreemptionPolicy p = cq.preemption();
        if (p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.NEVER && p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.NEVER
                && p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.NEVER) {
            return Attempt.failure(notFitting);
        }
        if (p.cohortRules() == PreemptionPolicy.CohortRules.KUEUE) {
            return KueuePreemptor.search(ctx, index, job, cq, notFitting);
        }
        // Phase A: without borrowing (same queue + reclaim). Phase B: borrowing (same queue + lower priority in cohort).
        // A phase that fails undoes all it tried: the plan is as it was, and takes back its state number.
        long before = ctx.state();
        for (boolean borrowing : new boolean[] {false, true}) {
            if (borrowing && p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.NEVER) {
                continue;
            }
            PreemptionIndex.Listing candidates = candidates(index, job, cq, borrowing);
            if (!candidates.has(0) || !enoughGpus(ctx, job, candidates)) {
                continue; // (the loop below would preempt them all, find no room, and put them all back)
            }
            List<JobStatus> victims = new ArrayList<>();
            boolean fits = false;
            for (int i = 0; candidates.has(i); i++) {
                JobStatus c = candidates.get(i).job;
                ctx.preemptForSearch(c, "");
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
                ctx.restoreState(before);
                continue;
            }
            // Fill back: keep only the victims that are needed. The last one stays: without it the plan is as it was
            // when the previous check (or, for the first victim, the caller: the job did not fit) found no room.
            for (int i = victims.size() - 2; i >= 0; i--) {
                JobStatus v = victims.get(i);
                ctx.restore(v.id());
                if (ctx.fits(job) && (borrowing || !wouldBorrow(ctx, job, cq))) {
                    victims.remove(i);
                } else {
                    ctx.preemptForSearch(v, "");
                }
            }
            if (borrowing && victimQueueBelowNominal(ctx, victims, cq.name())) {
                // a borrowing preemptor may take only what other queues borrow beyond their nominal quota;
                // taking more would let them reclaim it right back (a preemption cycle)
                for (JobStatus v : victims) {
                    ctx.restore(v.id());
                }
                ctx.restoreState(before);
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
                ctx.restoreState(before);
                continue;
            }
            for (JobStatus v : victims) {
                ctx.explainPreemption(v.id(), describe(v, job, ctx.clusterQueueOf(v), cq.name()));
            }
            return a;
        }
        return Attempt.failure(PreemptionSearch.noVictimSet(notFitting, cq.name()));
    }

    /**
     * A necessary condition for the job to fit once some of the candidates are gone: with every candidate gone, there
     * are as many free GPUs as it needs — on one node for a job of one member, in the cluster otherwise. Freeing
     * only some of them frees no more; when even all of them are not enough, no set of victims makes room.
     */
    static boolean enoughGpus(SearchPlan ctx, JobStatus job, PreemptionIndex.Listing candidates) {
        List<io.fairway.api.job.PodSet> podSets = job.spec().podSets();
        long needed = 0;
        for (io.fairway.api.job.PodSet ps : podSets) {
            needed += ps.resources().gpus() * ps.count();
        }
        if (needed <= 0) {
            return true;
        }
        if (podSets.size() == 1 && podSets.get(0).count() == 1) {
            if (ctx.capacity().largestFree() >= needed) {
                return true;
            }
            Map<Integer, Integer> freed = new java.util.HashMap<>();
            for (int i = 0; candidates.has(i); i++) {
                for (Placer.Taken t : ctx.held(candidates.get(i).job.id())) {
                    int n = freed.merge(t.node(), Long.bitCount(t.gpuMask()), Integer::sum);
                    if (ctx.capacity().freeGpuCount(t.node()) + n >= needed) {
                        return true;
                    }
                }
            }
            return false;
        }
        long available = ctx.capacity().freeGpus();
        for (int i = 0; candidates.has(i); i++) {
            for (Placer.Taken t : ctx.held(candidates.get(i).job.id())) {
                available += Long.bitCount(t.gpuMask());
            }
            if (available >= needed) {
                return true;
            }
        }
        return false;
    }

    static String describe(JobStatus victim, JobStatus job, String victimCq, String cq) {
        String how = victimCq.equals(cq) ? "within ClusterQueue " + cq
                : "ClusterQueue " + cq + " reclaims quota from " + victimCq;
        return "preempted by " + job.id() + " (priority " + job.spec().priority() + " over " + victim.spec().priority() + "; " + how + ")";
    }

    /** True when, with the victims gone, another queue is below its nominal quota in a (flavor, resource) a victim held. */
    private static boolean victimQueueBelowNominal(SearchPlan ctx, List<JobStatus> victims, String ownQueue) {
        for (JobStatus v : victims) {
            Admit a = v.admission();
            if (a.clusterQueue().equals(ownQueue)) {
                continue;
            }
            for (var ps : v.spec().podSets()) {
                for (String r : ps.resources().names()) {
                    var fr = QuotaBook.fr(a.flavorOf(ps.name(), r), r);
                    if (ctx.quota().used(a.clusterQueue(), fr) < ctx.quota().nominal(a.clusterQueue(), fr)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** True when the admitted job's queue is above nominal quota in a (flavor, resource) the job uses. */
    static boolean borrows(SearchPlan ctx, JobStatus job, Admit a) {
        for (var ps : job.spec().podSets()) {
            for (String r : ps.resources().names()) {
                String fr = QuotaBook.fr(a.flavorOf(ps.name(), r), r);
                if (ctx.quota().used(a.clusterQueue(), fr) > ctx.quota().nominal(a.clusterQueue(), fr)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when admitting the job now would take its queue above nominal quota for some (flavor, resource). */
    static boolean wouldBorrow(SearchPlan ctx, JobStatus job, ClusterQueue cq) {
        Map<String, Integer> counts = Assignment.fullCounts(job.spec());
        Assignment.Result ar = Assignment.assign(cq, ctx.snapshot().flavors(), ctx.quota(), job.spec(), counts);
        if (ar.reason() != null) {
            return true;
        }
        for (Map.Entry<String, Long> e : ar.choices().get(0).usage().entrySet()) {
            if (ctx.quota().used(cq.name(), e.getKey()) + e.getValue() > ctx.quota().nominal(cq.name(), e.getKey())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The filter of a preemptor's own ClusterQueue: jobs of lower priority, or of equal priority and newer where
     * {@code newerEqual}, that are still in the plan, preemptible, and accepted by {@code also}.
     */
    static PreemptionIndex.Filter ownQueueFilter(JobStatus job, boolean newerEqual, Predicate<PreemptionIndex.Held> also) {
        int prio = job.spec().priority();
        return new PreemptionIndex.Filter() {
            @Override
            public boolean stop(PreemptionIndex.Held h) {
                return h.priority > prio || (h.priority == prio && !newerEqual);
            }

            @Override
            public boolean accept(PreemptionIndex.Held h) {
                return !(h.priority == prio && !newer(h.job, job)) && h.inPlan && h.preemptible && also.test(h);
            }
        };
    }

    /**
     * The candidates of one phase, listed lazily: other queues' borrowing jobs first (as they were when the phase
     * began), then the queue's own; each in the index's candidate order.
     */
    static PreemptionIndex.Listing candidates(PreemptionIndex index, JobStatus job, ClusterQueue cq, boolean borrowing) {
        PreemptionPolicy p = cq.preemption();
        int prio = job.spec().priority();
        boolean others = borrowing ? p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY
                : p.reclaimWithinCohort() != PreemptionPolicy.ReclaimWithinCohort.NEVER;
        List<PreemptionIndex.Held[]> sources = new ArrayList<>();
        if (others) {
            for (PreemptionIndex.Queue q : index.queuesOfRoot(index.rootOf(cq))) {
                if (!q.name.equals(cq.name())) {
                    sources.add(index.borrowers(q)); // never changed afterwards: the borrowers as the phase begins
                }
            }
        }
        boolean any = !borrowing && p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY;
        Integer threshold = borrowing ? p.maxPriorityThreshold() : null;
        PreemptionIndex.Filter othersFilter = new PreemptionIndex.Filter() {
            @Override
            public boolean stop(PreemptionIndex.Held h) {
                // candidate order is by priority: no lower-priority job follows, nor one at or below the threshold
                return (!any && h.priority >= prio) || (threshold != null && h.priority > threshold);
            }

            @Override
            public boolean accept(PreemptionIndex.Held h) {
                return h.preemptible;
            }
        };
        PreemptionIndex.Queue own = p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.NEVER ? null : index.queue(cq.name());
        boolean newerEqual = p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY;
        // a preemptor that must borrow takes only from borrowers, even in its own queue (as they are when the phase begins)
        boolean[] ownBorrowing = own != null && borrowing ? index.borrowingFlags(own) : null;
        PreemptionIndex.Filter ownFilter = ownQueueFilter(job, newerEqual, h -> ownBorrowing == null || ownBorrowing[h.admissionPos]);
        return new PreemptionIndex.Listing(sources, new int[sources.size()], othersFilter,
                own == null ? null : own.byCandidateOrder, own == null ? 0 : index.firstInPlan(own), ownFilter);
    }

    static boolean newer(JobStatus a, JobStatus b) {
        long ta = a.spec().submitTimeMillis();
        long tb = b.spec().submitTimeMillis();
        return ta > tb || (ta == tb && a.sequence() > b.sequence());
    }
}
