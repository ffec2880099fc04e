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
import java.util.function.IntPredicate;

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

    static Attempt search(SearchPlan ctx, PreemptionIndex index, JobStatus job, ClusterQueue cq, PendingReason notFitting) {
        PreemptionPolicy p = cq.preemption();
        QuotaBook quota = ctx.quota();
        Map<String, Long> demand = demand(ctx, job, cq);
        Set<String> needed = index.shared(needed(quota, cq, demand));
        boolean fitsNominal = true;
        boolean underNominal = true;
        for (Map.Entry<String, Long> e : demand.entrySet()) {
            long used = quota.used(cq.name(), e.getKey());
            long nominal = quota.nominal(cq.name(), e.getKey());
            fitsNominal &= used + e.getValue() <= nominal;
            underNominal &= !(needed.contains(e.getKey()) && used >= nominal);
        }
        int prio = job.spec().priority();
        boolean borrowForbidden = p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.NEVER;
        Integer threshold = p.maxPriorityThreshold();
        // whether other queues' jobs are candidates: the first of a full listing, which the first attempt reads on
        // when it leaves nobody out (the plan is still as the search found it)
        PreemptionIndex.Listing full = candidates(index, cq, job, needed, null, true);
        boolean others = full.has(0) && full.fromMerged(0);
        long before = ctx.state();
        for (boolean borrowing : attempts(others, borrowForbidden, underNominal, others && fitsNominal)) {
            // when borrowing, other queues' jobs that may be taken only if the job then ends within its nominal quota
            // are left out
            IntPredicate leftOut = borrowing && !fitsNominal
                    ? hp -> variant(false, borrowForbidden, threshold, prio, hp) == Variant.WITHOUT_BORROWING : null;
            PreemptionIndex.Listing listed = leftOut == null && full != null ? full : candidates(index, cq, job, needed, leftOut, true);
            full = null; // a later attempt lists afresh
            if (!listed.has(0) || !Preemptor.enoughGpus(ctx, job, listed)) {
                continue;
            }
            // other queues' victims that the job may take only if it then ends within its nominal quota: all but those
            // taken while borrowing (Kueue admits in the flavor it targeted, where a request its nominal quota holds
            // does not borrow; Fairway admits in the first flavor that fits, so it checks)
            Victims victims = new Victims();
            boolean fits = false;
            for (int i = 0; listed.has(i); i++) {
                PreemptionIndex.Held h = listed.get(i);
                JobStatus c = h.job;
                boolean fromOthers = listed.fromMerged(i);
                Variant v = fromOthers ? variant(fitsNominal, borrowForbidden, threshold, prio, h.priority) : null;
                if (fromOthers && !index.heldAboveNominal(h.queue.name, needed)) {
                    continue; // its queue no longer borrows in what is needed: the rest of its jobs are safe
                }
                ctx.preemptForSearch(c, "");
                // taken while borrowing from a queue that could reclaim it back (reclaimWithinCohort Any): only what
                // that queue borrows beyond its nominal quota, as Fairway's rule, or the two would take turns
                if (v == Variant.WHILE_BORROWING && reclaimsAny(ctx, h) && index.heldBelowNominal(h.queue.name, usedOf(c, needed))) {
                    ctx.restore(c.id());
                    continue;
                }
                victims.add(c, fromOthers && v != Variant.WHILE_BORROWING);
                if (fitsWith(ctx, job, cq, victims, borrowing)) {
                    fits = true;
                    break;
                }
            }
            if (!fits) {
                giveBack(ctx, victims, before);
                continue;
            }
            putBackUnneeded(ctx, job, cq, victims, borrowing);
            Attempt a = ctx.tryAdmit(job);
            if (a.admitted() && (!borrowing || victims.needNominal > 0) && Preemptor.borrows(ctx, job, a.admission())) {
                ctx.unadmit(job.id());
                a = Attempt.failure(notFitting);
            }
            if (!a.admitted()) {
                giveBack(ctx, victims, before);
                continue;
            }
            victims.jobs.forEach(v -> ctx.explainPreemption(v.id(), Preemptor.describe(v, job, ctx.clusterQueueOf(v), cq.name())));
            return a;
        }
        return Attempt.failure(PreemptionSearch.noVictimSet(notFitting, cq.name()));
    }

    /**
     * The attempts in order, each whether it allows borrowing: one that allows it when no other queue has candidates or
     * borrowing is forbidden while the queue is at its nominal quota; without borrowing first when it is forbidden and no
     * candidate may be taken by nominal entitlement; else borrowing first.
     */
    private static boolean[] attempts(boolean others, boolean borrowForbidden, boolean underNominal, boolean anyByNominal) {
        if (!others || (borrowForbidden && !underNominal)) {
            return new boolean[] {true};
        } else if (borrowForbidden && !anyByNominal) {
            return new boolean[] {false, true};
        }
        return new boolean[] {true, false};
    }

    /** @return the (flavor, resource) pairs of the demand the queue's quota is short of; all of them when none is (placement is short) */
    private static Set<String> needed(QuotaBook quota, ClusterQueue cq, Map<String, Long> demand) {
        Set<String> needed = new java.util.HashSet<>();
        for (Map.Entry<String, Long> e : demand.entrySet()) {
            if (e.getValue() > quota.available(cq.name(), e.getKey())) {
                needed.add(e.getKey());
            }
        }
        if (needed.isEmpty()) {
            needed.addAll(demand.keySet()); // quota is not short, placement is: the pairs it asks for
        }
        return needed;
    }

    /** Whether the job fits with the victims taken so far, borrowing only when the attempt allows it. */
    private static boolean fitsWith(SearchPlan ctx, JobStatus job, ClusterQueue cq, Victims victims, boolean borrowing) {
        return ctx.fits(job) && ((borrowing && victims.needNominal == 0) || !Preemptor.wouldBorrow(ctx, job, cq));
    }

    /**
     * Makes the set minimal: each victim but the last, latest first, is put back when the job still fits without it. The
     * last stays: without it the plan is as it was when the previous check (or, for the first victim, the caller: the job
     * did not fit the plan as it was) found no room.
     */
    private static void putBackUnneeded(SearchPlan ctx, JobStatus job, ClusterQueue cq, Victims victims, boolean borrowing) {
        for (int i = victims.jobs.size() - 2; i >= 0; i--) {
            JobStatus v = victims.jobs.get(i);
            boolean nn = victims.remove(i);
            ctx.restore(v.id());
            if (!fitsWith(ctx, job, cq, victims, borrowing)) {
                ctx.preemptForSearch(v, "");
                victims.add(i, v, nn);
            }
        }
    }

    /** A failed attempt: every victim back in the plan, the plan's state as before the attempt. */
    private static void giveBack(SearchPlan ctx, Victims victims, long before) {
        for (JobStatus v : victims.jobs) {
            ctx.restore(v.id());
        }
        ctx.restoreState(before);
    }

    /**
     * The candidates of an attempt, listed lazily. Other queues' first: the jobs of the cohort tree's queues that
     * borrow in what is needed (when the attempt begins: the plan is then as the search found it), in candidate order,
     * read by merging those queues' own orders — every job ({@code reclaimWithinCohort: Any}) or every lower-priority
     * one, still in the plan, preemptible, charged for what is needed, and not {@code leftOut} (by priority). Then, with
     * {@code withOwn}, the queue's own by {@code withinClusterQueue}.
     */
    static PreemptionIndex.Listing candidates(PreemptionIndex index, ClusterQueue cq, JobStatus job, Set<String> needed,
                                              IntPredicate leftOut, boolean withOwn) {
        PreemptionPolicy p = cq.preemption();
        int prio = job.spec().priority();
        List<PreemptionIndex.Held[]> sources = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        if (p.reclaimWithinCohort() != PreemptionPolicy.ReclaimWithinCohort.NEVER) {
            for (PreemptionIndex.Queue q : index.queuesOfRoot(index.rootOf(cq))) {
                if (!q.name.equals(cq.name()) && index.heldAboveNominal(q.name, needed)) {
                    sources.add(q.byCandidateOrder);
                    starts.add(index.firstInPlan(q));
                }
            }
        }
        int[] startAt = new int[starts.size()];
        for (int i = 0; i < startAt.length; i++) {
            startAt[i] = starts.get(i);
        }
        boolean any = p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY;
        PreemptionIndex.Filter othersFilter = new PreemptionIndex.Filter() {
            @Override
            public boolean stop(PreemptionIndex.Held h) {
                return !any && h.priority >= prio; // candidate order is by priority: no lower-priority job follows
            }

            @Override
            public boolean accept(PreemptionIndex.Held h) {
                return h.inPlan && h.preemptible && (leftOut == null || !leftOut.test(h.priority)) && h.usesAny(needed);
            }
        };
        PreemptionIndex.Queue own = !withOwn || p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.NEVER
                ? null : index.queue(cq.name());
        boolean newerEqual = p.withinClusterQueue() == PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY;
        PreemptionIndex.Filter ownFilter = Preemptor.ownQueueFilter(job, newerEqual, h -> h.usesAny(needed));
        return new PreemptionIndex.Listing(sources, startAt, othersFilter, own == null ? null : own.byCandidateOrder,
                own == null ? 0 : index.firstInPlan(own), ownFilter);
    }

    /** How another queue's job of priority {@code hp} may be taken by a preemptor of priority {@code prio}. */
    private static Variant variant(boolean fitsNominal, boolean borrowForbidden, Integer threshold, int prio, int hp) {
        if (fitsNominal) {
            return Variant.BY_NOMINAL;
        }
        boolean whileBorrowing = !borrowForbidden && hp < prio && (threshold == null || hp <= threshold);
        return whileBorrowing ? Variant.WHILE_BORROWING : Variant.WITHOUT_BORROWING;
    }

    private static boolean reclaimsAny(SearchPlan ctx, PreemptionIndex.Held h) {
        ClusterQueue victimQueue = ctx.snapshot().clusterQueues().get(h.queue.name);
        return victimQueue != null && victimQueue.preemption().reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY;
    }

    /** The victims of an attempt in the order taken, and how many of them oblige the job to end within nominal quota. */
    private static final class Victims {
        final List<JobStatus> jobs = new ArrayList<>();
        private final List<Boolean> needsNominal = new ArrayList<>();
        int needNominal;

        void add(JobStatus j, boolean nominalNeeded) {
            add(jobs.size(), j, nominalNeeded);
        }

        void add(int i, JobStatus j, boolean nominalNeeded) {
            jobs.add(i, j);
            needsNominal.add(i, nominalNeeded);
            if (nominalNeeded) {
                needNominal++;
            }
        }

        /** @return whether the removed victim obliged the job to end within nominal quota */
        boolean remove(int i) {
            jobs.remove(i);
            boolean nn = needsNominal.remove(i);
            if (nn) {
                needNominal--;
            }
            return nn;
        }
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

    static Map<String, Long> demand(SearchPlan ctx, JobStatus job, ClusterQueue cq) {
        return io.fairway.core.admission.Assignment.targetDemand(cq, ctx.snapshot().flavors(), ctx.quota(), job.spec());
    }

}
