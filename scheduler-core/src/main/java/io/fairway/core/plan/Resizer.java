package io.fairway.core.plan;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.spi.Attempt;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.PlacementCheck;
import io.fairway.core.placement.Placer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Resizes an elastic job that holds resources (UnifiedJob's target replicas): shrinking releases the members with
 * the highest indexes; growing places the new members on the plan's free capacity, within quota, and keeps the
 * whole gang's placement constraints.
 */
final class Resizer {
    private Resizer() {
    }

    static Attempt resize(TentativePlan plan, JobStatus job, String podSetName, int target) {
        JobStatus held = plan.holding(job.id());
        if (held == null || plan.preempted.containsKey(job.id()) || held.admission() == null) {
            return Attempt.failure(PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "job " + job.id() + " holds no resources to resize"));
        }
        plan.changed();
        Admit cur = plan.resized.getOrDefault(job.id(), held.admission());
        PodSet ps = null;
        for (PodSet p : held.spec().podSets()) {
            if (p.name().equals(podSetName)) {
                ps = p;
            }
        }
        if (ps == null || target < ps.minCount() || target > ps.count()) {
            return Attempt.failure(PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "pod set \"" + podSetName + "\": size " + target
                    + (ps == null ? " of an unknown pod set" : " outside minCount..count " + ps.minCount() + ".." + ps.count())));
        }
        int now = cur.counts().getOrDefault(ps.name(), ps.count());
        if (target == now) {
            return Attempt.success(cur);
        }
        String cqName = cur.clusterQueue();
        String psName = ps.name();
        List<MemberPlacement> members = new ArrayList<>(cur.placement().members());
        if (target < now) {
            members = shrink(plan, members, ps, target);
            ps.total(now - target).asMap().forEach((r, v) -> plan.quota.add(cqName, QuotaBook.fr(cur.flavorOf(psName, r), r), -v));
        } else {
            Grown grown = grow(plan, job, held, cur, ps, now, target, members);
            if (grown.failure() != null) {
                return grown.failure();
            }
            members = grown.members();
        }
        List<Placer.Taken> taken = new ArrayList<>();
        for (MemberPlacement m : members) {
            for (PodSet p : held.spec().podSets()) {
                if (p.name().equals(m.podSet())) {
                    Placer.Taken t = plan.takenBy(m, p);
                    if (t != null) {
                        taken.add(t);
                    }
                }
            }
        }
        Map<String, Integer> counts = new LinkedHashMap<>(cur.counts());
        counts.put(ps.name(), target);
        Placement p = plan.placer.describe(held.spec(), members);
        Admit next = new Admit(job.id(), cqName, cur.flavors(), counts, p, cur.admittedAtMillis(), cur.leaseExpiresAtMillis(), cur.admissionOrder());
        plan.resized(held, next, taken);
        return Attempt.success(next);
    }

    /** Releases the members of {@code ps} with indexes from {@code target} on; returns the members kept. */
    private static List<MemberPlacement> shrink(TentativePlan plan, List<MemberPlacement> members, PodSet ps, int target) {
        List<MemberPlacement> keep = new ArrayList<>();
        for (MemberPlacement m : members) {
            if (m.podSet().equals(ps.name()) && m.index() >= target) {
                Placer.Taken t = plan.takenBy(m, ps);
                if (t != null) {
                    plan.capacityPlan().give(t.node(), t.req(), t.gpuMask());
                }
            } else {
                keep.add(m);
            }
        }
        return keep;
    }

    /**
     * Grows a job back toward the size it holds: the members of {@code ps} it holds (in the round's snapshot) with indexes
     * from {@code now} to {@code target}, on the very GPUs, when they are all free in the plan. A job shrunk within the
     * round and grown back (a policy that shrinks to make room, finds none, and undoes) then holds what it held, instead
     * of a member moved to wherever the search finds room first (a move of a running member, decided for nothing).
     *
     * @return the members with those taken, or null (nothing taken) when the job did not hold them all, one is not free,
     *     or the whole breaks the gang's placement constraints (the members it kept were moved in this plan)
     */
    private static List<MemberPlacement> regrowAsHeld(TentativePlan plan, JobStatus held, Admit cur, PodSet ps, int now, int target,
                                                      List<MemberPlacement> members) {
        List<MemberPlacement> back = new ArrayList<>();
        for (MemberPlacement m : held.admission().placement().members()) {
            if (m.podSet().equals(ps.name()) && m.index() >= now && m.index() < target) {
                back.add(m);
            }
        }
        if (back.size() != target - now) {
            return null;
        }
        List<Placer.Taken> taken = new ArrayList<>();
        for (MemberPlacement m : back) {
            Placer.Taken t = plan.takenBy(m, ps);
            if (t == null || !plan.capacityPlan().isFree(t.node(), t.req(), t.gpuMask())) {
                plan.give(taken);
                return null;
            }
            plan.capacityPlan().take(t.node(), t.req(), t.gpuMask());
            taken.add(t);
        }
        List<MemberPlacement> grown = new ArrayList<>(members);
        back.sort(java.util.Comparator.comparingInt(MemberPlacement::index));
        grown.addAll(back);
        if (PlacementCheck.constraintError(plan.cap, held.spec(), plan.placer.describe(held.spec(), grown), plan.flavorSpecs(cur.flavors()),
                new HashSet<>(members)) != null) {
            plan.give(taken);
            return null;
        }
        return grown;
    }

    /** The members after growing, or why the job cannot grow. */
    private record Grown(List<MemberPlacement> members, Attempt failure) {
    }

    /** Places {@code target - now} more members of {@code ps}, within quota and the gang's placement constraints. */
    private static Grown grow(TentativePlan plan, JobStatus job, JobStatus held, Admit cur, PodSet ps, int now, int target,
                               List<MemberPlacement> members) {
        String cqName = cur.clusterQueue();
        int delta = target - now;
        Map<String, Long> extra = new LinkedHashMap<>();
        ps.total(delta).asMap().forEach((r, v) -> extra.put(QuotaBook.fr(cur.flavorOf(ps.name(), r), r), v));
        for (Map.Entry<String, Long> e : extra.entrySet()) {
            long avail = plan.quota.available(cqName, e.getKey());
            if (e.getValue() > avail) {
                return new Grown(null, Attempt.failure(PendingReason.of(PendingReason.Code.QUOTA, "growing " + job.id() + " by " + delta + " needs "
                        + e.getValue() + " " + e.getKey().substring(e.getKey().indexOf('\u0000') + 1) + "; ClusterQueue " + cqName
                        + " may use " + avail + " more")));
            }
        }
        List<MemberPlacement> regrown = regrowAsHeld(plan, held, cur, ps, now, target, members);
        if (regrown != null) {
            extra.forEach((fr, v) -> plan.quota.add(cqName, fr, v));
            return new Grown(regrown, null);
        }
        PodSet more = new PodSet(ps.name(), delta, delta, ps.resources(), ps.nodeSelector(), ps.tolerations(), TopologyRequest.NONE, ps.affinity());
        JobSpec probe = new JobSpec(job.id(), held.spec().namespace(), held.spec().queue(), held.spec().jobSet(), held.spec().owner(),
                held.spec().priority(), held.spec().submitTimeMillis(), List.of(more), 0, held.spec().sensitivity(), null);
        Placer.Outcome o = plan.placer.place(probe, Map.of(ps.name(), delta), Map.of(ps.name(), plan.flavorSpecs(cur.flavors()).get(ps.name())));
        if (o.result() == null) {
            return new Grown(null, Attempt.failure(o.reason()));
        }
        List<MemberPlacement> grown = new ArrayList<>(members);
        int idx = now;
        for (MemberPlacement m : o.result().placement().members()) {
            grown.add(new MemberPlacement(m.podSet(), idx++, m.node(), m.gpus()));
        }
        // the new members were searched alone: the whole gang must still be in one cluster and keep its topology
        String broken = PlacementCheck.constraintError(plan.cap, held.spec(), plan.placer.describe(held.spec(), grown),
                plan.flavorSpecs(cur.flavors()), new HashSet<>(members));
        if (broken != null) {
            plan.give(o.result().taken());
            return new Grown(null, Attempt.failure(PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "growing " + job.id() + " to " + target
                    + " members: the free room found breaks its placement (" + broken + ")")));
        }
        extra.forEach((fr, v) -> plan.quota.add(cqName, fr, v));
        return new Grown(grown, null);
    }
}
