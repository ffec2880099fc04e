package io.fairway.policies.themis;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.policies.themis.Bids.Choice;
import io.fairway.policies.themis.Bids.Item;
import io.fairway.policies.themis.FinishTimeEstimator.AppView;
import io.fairway.policies.themis.FinishTimeEstimator.JobView;
import io.fairway.policies.themis.ThemisPolicy.Config;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Themis' starvation guard ({@link Config#starvationGuard()}): the worst app with a waiting job is not starved by gangs larger
 * than what one auction offers (nodes are revoked or gathered for it), and short jobs stuck behind long jobs' leases
 * may have leases revoked early ({@link Config#earlyRevoke()}). See {@link ThemisPolicy}'s class comment.
 */
final class StarvationGuard {
    private StarvationGuard() {
    }

    /**
     * What the guard for the worst app decided: whether the auction guarantees it its smallest bundle, and what the guard
     * took from the offer.
     *
     * @param guarantee true when the auction must guarantee the worst app its smallest bundle
     * @param taken what the guard took from the offer, for the plan to apply
     */
    record Protection(boolean guarantee, Offer.Taken taken) {
        private static final Protection NONE = new Protection(false, Offer.Taken.NOTHING);
    }

    /**
     * Runs the guard for the worst app with demand, before the auction (the early revocations for short jobs follow,
     * {@link #revokeEarlyForShortJobs}, once the plan has applied what this took).
     *
     * @param r the round
     * @param worst the worst app with a waiting job, or null
     * @param why reasons by app, for the jobs left waiting
     * @return whether the auction guarantees the worst app its smallest bundle, and what the guard took
     */
    static Protection protect(PlanState r, String worst, Map<String, String> why) {
        Config config = r.config;
        boolean guarded = config.starvationGuard() && !config.infiniteLeases() && worst != null;
        boolean acts = guarded && r.apps.get(worst).rho() >= config.guardAboveRho();
        Protection p = acts ? reserve(r, worst, why) : Protection.NONE;
        if (guarded && !acts
                && r.apps.get(worst).jobs().stream().noneMatch(JobView::holding)) {
            // An app that holds nothing sees its ρ grow by 1 ÷ T_id a second: ask for a round when it reaches the guard's
            // threshold. (An app that runs jobs may keep its ρ for hours; its next event brings the next round.)
            AppView w = r.apps.get(worst);
            r.ctx.wakeAt(r.now + Math.max(1_000, (long) Math.ceil((config.guardAboveRho() - w.rho()) * w.idealSeconds() * 1000)));
        }
        return p;
    }

    /**
     * With {@link Config#earlyRevoke()}: early revocation for short jobs ({@link #earlyForShortJobs}), after the guard.
     *
     * @param r the round, with what {@link #protect} took applied
     * @param rank the apps with demand from the worst on, worst ρ first
     * @param why reasons by app, for the jobs left waiting
     * @return what the revocations and starts took from the offer, for the plan to apply
     */
    static Offer.Taken revokeEarlyForShortJobs(PlanState r, List<String> rank, Map<String, String> why) {
        Config config = r.config;
        if (!config.starvationGuard() || !config.earlyRevoke() || config.infiniteLeases()) {
            return Offer.Taken.NOTHING;
        }
        return earlyForShortJobs(r, rank, why);
    }

    /**
     * With {@link Config#guardOverdue()}: the oldest overdue waiting job ({@link Config#overdueFactor()}) that did not
     * fit on the free GPUs gets room as the worst app does in {@link #reserve}: just enough expired leases that nobody
     * kept, of jobs that checkpoint, are revoked (the best-off apps' first) when they make a whole place for it, and it
     * starts; otherwise the nodes where such leases (expired or not) will make that place are gathered for it. Only the
     * oldest: the others wait their turn.
     *
     * @param r the round, with what {@link PlanState#startOverdue} took applied
     * @param why reasons by app, for the jobs left waiting
     * @return what it took from the offer (leases revoked or gathered, the job started), for the plan to apply
     */
    static Offer.Taken protectOverdue(PlanState r, Map<String, String> why) {
        Config config = r.config;
        if (!config.guardOverdue() || !config.starvationGuard() || config.infiniteLeases()) {
            return Offer.Taken.NOTHING;
        }
        for (JobView j : r.overdue) {
            if (r.admitted(j.id())) {
                continue;
            }
            String app = j.status().spec().jobSet();
            Item item = null;
            for (Item it : r.items.getOrDefault(app, List.of())) {
                if (!it.keep() && it.job().id().equals(j.id())) {
                    item = it;
                }
            }
            if (item == null) {
                continue;
            }
            JobStatus job = j.status();
            Map<String, Integer> counts = item.elasticPodSet() == null ? Bids.fullCounts(job.spec()) : item.counts(item.minMembers());
            Predicate<JobStatus> expired = v -> r.offer.has(v.id());
            // only jobs that checkpoint make room: revoking one that does not would throw its work away, and the job it
            // made room for could be revoked in turn for the next overdue job, and so on without end
            Predicate<JobStatus> notKept = v -> !r.kept(v.id()) && r.apps.containsKey(v.spec().jobSet())
                    && v.spec().checkpointing() != null;
            Comparator<JobStatus> bestOffFirst = Comparator.comparingDouble((JobStatus v) -> r.apps.get(v.spec().jobSet()).rho())
                    .thenComparing(JobOrder.SEQUENCE);
            List<JobStatus> victims = Leases.room(r, job, counts, v -> expired.test(v) && notKept.test(v), bestOffFirst);
            if (victims == null) {
                return gather(r, app, item, expired, notKept, why);
            }
            for (JobStatus v : victims) {
                r.revoke(v, String.format(Locale.ROOT, "Themis: lease expired; its GPUs make room for job %s, overdue", job.id()));
            }
            List<Item> started = List.of();
            if (r.start(new Choice(item, item.elasticPodSet() == null ? 0 : item.minMembers()), r.expiry())) {
                started = List.of(item);
                why.put(app, "has an overdue job: it was started on GPUs of expired leases");
            }
            r.dropItems();
            r.items.values().removeIf(List::isEmpty);
            return new Offer.Taken(started, victims, List.of(), List.of());
        }
        return Offer.Taken.NOTHING;
    }

    /**
     * Node-aware starvation guard for the worst app with a waiting job. When its smallest job cannot be placed on the
     * free GPUs, nodes are chosen that can host its members once the GPUs of better-off apps (lower ρ) on them are
     * freed: the nodes with the most free GPUs, then the most GPUs held under expired leases, then under running
     * leases. When the free GPUs and expired leases of those nodes suffice, just enough of those jobs are preempted
     * (they checkpoint at lease expiry) and the job is started at once. Otherwise the expired leases on those nodes are
     * neither renewed nor offered, and new jobs placed there get leases that expire at once, so the nodes drain within
     * one lease; every other node takes part in the auction as usual.
     *
     * @return whether the job fits on the free GPUs as they are (the auction then guarantees the app its smallest
     *     bundle), and what the guard took from the offer
     */
    private static Protection reserve(PlanState r, String worst, Map<String, String> why) {
        AppView app = r.apps.get(worst);
        Item item = null;
        for (Item it : r.items.get(worst)) {
            if (!it.keep() && (item == null || it.minCost() < item.minCost())) {
                item = it;
            }
        }
        if (item == null) {
            return Protection.NONE;
        }
        JobStatus job = item.job().status();
        Map<String, Integer> counts = item.elasticPodSet() == null ? Bids.fullCounts(job.spec()) : item.counts(item.minMembers());
        if (item.minCost() <= r.ctx.capacity().freeGpus() && r.ctx.placement().find(job, counts, Map.of()).isPresent()) {
            return new Protection(true, Offer.Taken.NOTHING); // it fits now: the auction guarantees it its smallest bundle
        }
        long starvingAt = job.stateSinceMillis() + (long) Math.ceil(Math.min(r.leaseMillis, item.job().remaining() * 1000));
        if (r.now < starvingAt) {
            r.ctx.wakeAt(starvingAt); // the guard acts then, whether or not anything else happens
            return Protection.NONE; // not starving yet: it has waited neither a whole lease (every GPU offered again) nor its own length
        }
        Predicate<JobStatus> expired = j -> r.offer.has(j.id());
        Predicate<JobStatus> betterOff = j -> {
            AppView holder = r.apps.get(j.spec().jobSet());
            return holder != null && r.rhoIfRevoked(holder.name()) < app.rho() && !r.kept(j.id());
        };
        Comparator<JobStatus> bestOffFirst = Comparator.comparingDouble((JobStatus j) -> r.apps.get(j.spec().jobSet()).rho())
                .thenComparing(JobOrder.SEQUENCE);
        List<JobStatus> victims = Leases.room(r, job, counts, j -> expired.test(j) && betterOff.test(j), bestOffFirst);
        if (victims != null) {
            for (JobStatus v : victims) {
                r.revoke(v, String.format(Locale.ROOT, "Themis: lease expired; its GPUs make room for app %s, which has the worst rho (%.2f)",
                        worst, app.rho()));
            }
            List<Item> started = List.of();
            if (r.start(new Choice(item, item.elasticPodSet() == null ? 0 : item.minMembers()), r.expiry())) {
                started = List.of(item);
                why.put(worst, "has the worst rho: its smallest job was started on GPUs of expired leases");
            }
            r.dropItems();
            return new Protection(false, new Offer.Taken(started, victims, List.of(), List.of()));
        }
        // the auction does not guarantee the app a bundle while its nodes drain
        return new Protection(false, gather(r, worst, item, expired, betterOff, why));
    }

    /**
     * Early revocation for the worst app's smallest job, when expired leases cannot make room for it: running leases
     * of better-off apps' jobs that checkpoint (or may be revoked without) are revoked before they expire when
     * waiting for them would cost the worst app more than the revocation costs their holders. The victims are chosen
     * like expired leases (the nodes with the most free GPUs first), the cheapest first; a victim's cost is the rise
     * of its app's ρ if it lost the job now (its work since the last checkpoint, its restore, and waiting a lease to
     * get GPUs again), and only victims whose app would still be better off than the worst app are eligible. The
     * worst app's gain is the time it would otherwise wait for the victims' leases to expire, divided by its T_id;
     * the revocation goes ahead only when that gain exceeds the sum of the victims' costs. For a short job stuck
     * behind long jobs' leases the gain is large (minutes of waiting over seconds of ideal time); for a long gang it
     * is small, and the guard keeps gathering nodes as they expire instead.
     *
     * @return what the revocations and the start took from the offer (nothing when the revocation does not go ahead)
     */
    private static Offer.Taken earlyRevoke(PlanState r, AppView app, Item item, Map<String, Integer> counts, Map<String, String> why) {
        JobStatus job = item.job().status();
        Map<String, double[]> cost = new HashMap<>();
        Predicate<JobStatus> eligible = j -> {
            if (r.kept(j.id()) || r.admitted(j.id()) || j.spec().jobSet().equals(app.name()) || !r.revocable(j)
                    || j.admission().leaseExpiresAtMillis() == Admit.NO_LEASE) {
                return false;
            }
            double[] c = cost.computeIfAbsent(j.id(), id -> Leases.revocationCost(r, j));
            return c[0] < app.rho() + c[2] / app.idealSeconds();
        };
        Comparator<JobStatus> cheapestFirst = Comparator.comparingDouble((JobStatus j) -> cost.get(j.id())[1]).thenComparing(JobOrder.SEQUENCE);
        List<JobStatus> victims = Leases.room(r, job, counts, eligible, cheapestFirst);
        if (victims == null || victims.isEmpty()) {
            return Offer.Taken.NOTHING;
        }
        double waitSaved = 0;
        double lost = 0;
        for (JobStatus v : victims) {
            waitSaved = Math.max(waitSaved, cost.get(v.id())[2]);
            lost += cost.get(v.id())[1];
        }
        double gain = waitSaved / app.idealSeconds();
        if (gain <= lost) {
            return Offer.Taken.NOTHING;
        }
        List<JobStatus> offered = new ArrayList<>();
        List<JobStatus> freed = new ArrayList<>();
        for (JobStatus v : victims) {
            r.revoke(v, String.format(Locale.ROOT, "Themis: lease revoked early for app %s, which has the worst rho (%.2f; %.0f s more "
                    + "to wait for this lease)", app.name(), app.rho(), Math.max(0, v.admission().leaseExpiresAtMillis() - r.now) / 1000.0));
            // an expired lease on offer leaves the offer; the GPUs of any other (running, or gathered) were not on offer:
            // they are free now
            (r.offer.has(v.id()) ? offered : freed).add(v);
        }
        List<Item> started = List.of();
        if (r.start(new Choice(item, item.elasticPodSet() == null ? 0 : item.minMembers()), r.expiry())) {
            started = List.of(item);
            why.put(app.name(), "has the worst rho: its smallest job was started on GPUs of leases revoked early");
        }
        return new Offer.Taken(started, offered, List.of(), freed);
    }

    /**
     * Early revocation for short jobs: apps whose shortest waiting job is shorter than a lease and does not fit on
     * the free GPUs, by the ρ they would reach after waiting a lease (worst first), get the test of
     * {@link #earlyRevoke} at once, without first waiting as the starvation guard does: waiting for a lease to expire
     * would multiply such an app's ρ, while the holders of long jobs barely notice a revocation at their checkpoint.
     * Rounds run at events, so a short job that waited for the guard would often wait until the next event.
     *
     * @return what the revocations and starts took from the offer (each revocation's victims are distinct: a revoked
     *     job holds nothing the next one could take)
     */
    private static Offer.Taken earlyForShortJobs(PlanState r, List<String> rank, Map<String, String> why) {
        List<Item> shortJobs = new ArrayList<>();
        boolean noneAdmitted = r.noneAdmitted(); // then no job id need be looked up (thousands of apps per round)
        for (String a : rank) {
            if (r.apps.get(a) == null) {
                continue;
            }
            for (Item it : r.items.get(a)) {
                if (!it.keep() && (noneAdmitted || !r.admitted(it.job().id()))) {
                    if (it.job().remaining() <= r.horizon && !r.fitsNow(it)) {
                        shortJobs.add(it);
                    }
                    break; // its shortest waiting job only
                }
            }
        }
        shortJobs.sort(Comparator.comparingDouble((Item it) -> {
            AppView a = r.apps.get(it.job().status().spec().jobSet());
            return -(a.rho() + r.horizon / a.idealSeconds());
        }).thenComparing(it -> it.job().status(), JobOrder.SEQUENCE));
        List<Item> started = new ArrayList<>();
        List<JobStatus> offered = new ArrayList<>();
        List<JobStatus> freed = new ArrayList<>();
        for (Item it : shortJobs) {
            AppView a = r.apps.get(it.job().status().spec().jobSet());
            Map<String, Integer> counts = it.elasticPodSet() == null ? Bids.fullCounts(it.job().status().spec()) : it.counts(it.minMembers());
            Offer.Taken t = earlyRevoke(r, a, it, counts, why);
            started.addAll(t.items());
            offered.addAll(t.revoked());
            freed.addAll(t.freed());
        }
        if (!started.isEmpty()) {
            r.dropItems();
        }
        return started.isEmpty() && offered.isEmpty() && freed.isEmpty() ? Offer.Taken.NOTHING
                : new Offer.Taken(started, offered, List.of(), freed);
    }

    /**
     * Gathers nodes for the worst app's smallest job: nodes where better-off apps' leases (expired or not) will make
     * room drain within one lease; their expired leases are neither renewed nor offered.
     *
     * @param expired whether a job's expired lease is on offer
     * @return the expired leases on offer on the gathered nodes, taken off the offer with their GPUs (nothing when
     *     nothing is gathered)
     */
    private static Offer.Taken gather(PlanState r, String worst, Item item, Predicate<JobStatus> expired, Predicate<JobStatus> betterOff,
                                      Map<String, String> why) {
        JobStatus job = item.job().status();
        int perMember = 0;
        for (PodSet ps : job.spec().podSets()) {
            perMember = Math.max(perMember, (int) ps.resources().gpus());
        }
        int size = r.nodeSize();
        if (perMember == 0 || perMember > size) {
            return Offer.Taken.NOTHING;
        }
        Map<String, Leases.NodeUse> nodes = Leases.nodeUse(r, j -> expired.test(j) && betterOff.test(j),
                j -> j.admission().leaseExpiresAtMillis() != Admit.NO_LEASE && r.revocable(j) && betterOff.test(j));
        List<Leases.NodeUse> candidates = new ArrayList<>(nodes.values());
        candidates.sort(Comparator.comparingInt((Leases.NodeUse n) -> n.used).thenComparingInt(n -> n.used - n.revocableGpus)
                .thenComparingInt(n -> n.used - n.revocableGpus - n.leasedGpus).thenComparing(n -> n.name));
        int members = item.minCost() / perMember;
        int slots = 0;
        List<Leases.NodeUse> chosen = new ArrayList<>();
        for (Leases.NodeUse n : candidates) {
            if (slots >= members) {
                break;
            }
            int later = (size - n.used + n.revocableGpus + n.leasedGpus) / perMember;
            if (later > 0) {
                chosen.add(n);
                slots += later;
            }
        }
        if (slots < members) {
            return Offer.Taken.NOTHING; // better-off apps do not hold enough in one place: nothing to gather
        }
        List<String> nodeNames = new ArrayList<>();
        List<JobStatus> leases = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Leases.NodeUse n : chosen) {
            nodeNames.add(n.name);
            for (JobStatus j : n.revocable) {
                if (expired.test(j) && seen.add(j.id())) { // a job on two chosen nodes is taken off once
                    leases.add(j);
                }
            }
        }
        Set<String> gathering = r.gather(nodeNames, leases);
        r.dropItems();
        why.put(worst, String.format(Locale.ROOT, "has the worst rho; GPUs are being gathered for it on %s (needs %d GPUs)",
                gathering, item.minCost()));
        return Offer.Taken.gathered(leases);
    }
}
