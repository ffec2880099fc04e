package io.fairway.policies.themis;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.policies.themis.Bids.Choice;
import io.fairway.policies.themis.FinishTimeEstimator.AppView;
import io.fairway.policies.themis.FinishTimeEstimator.JobView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Themis' leases and their revocation: which nodes better-off apps' jobs hold ({@link NodeUse}), the fewest
 * revocations that make a whole place for a job's members ({@link #room}), what a revocation costs its holder
 * ({@link #revocationCost}), and the step that starts the round's winners, revoking just enough expired leases that
 * nobody kept and renewing the rest ({@link #startRevokingExpired}).
 */
final class Leases {
    private Leases() {
    }

    /**
     * Renews leases: a job in the list keeps its GPUs for another lease.
     *
     * @param r the round
     * @param jobs jobs whose leases expired
     */
    static void renew(PlanState r, List<JobStatus> jobs) {
        for (JobStatus j : jobs) {
            r.keep(j);
        }
    }

    /**
     * Realises the starts: each on free GPUs if it fits, else on the GPUs of just enough expired leases that nobody
     * kept, on the nodes where they make a place for it (best-off apps' jobs first). Expired leases nobody needed
     * are renewed: revoking them would move work without helping anyone.
     *
     * @param r the round
     * @param offered the expired leases still on offer after the steps before the auction ({@link Offer#leases}), in order
     * @param starts the jobs to start, in order
     * @param expiry the leases they get
     */
    static void startRevokingExpired(PlanState r, Collection<JobStatus> offered, List<Choice> starts, long expiry) {
        // the app of each job a start may revoke: only the jobs whose expired lease nobody kept (built from them, not
        // from every live job of every app: most rounds revoke nothing)
        Map<String, AppView> appOfJob = new HashMap<>();
        Set<String> unkept = new HashSet<>();
        for (JobStatus j : offered) {
            if (!r.kept(j.id())) {
                unkept.add(j.id());
                AppView a = r.apps.get(j.spec().jobSet());
                if (a != null) {
                    appOfJob.put(j.id(), a);
                }
            }
        }
        Comparator<JobStatus> bestOffFirst = Comparator.comparingDouble((JobStatus j) -> appOfJob.containsKey(j.id()) ? appOfJob.get(j.id()).rho() : 0)
                .thenComparing(JobOrder.SEQUENCE);
        for (Choice c : starts) {
            if (r.start(c, expiry) || r.admitted(c.item().job().id())) {
                continue;
            }
            JobStatus j = c.item().job().status();
            Map<String, Integer> counts = c.item().elasticPodSet() == null ? Bids.fullCounts(j.spec()) : c.item().counts(c.members());
            String taker = j.spec().jobSet();
            double takerRho = r.apps.get(taker).rho();
            // an app that hands its GPUs to its worst-off jobs first may give its own expired lease to one of them: the
            // bundle it won starts that job rather than keeping the other
            boolean ownFirst = r.config.worstJobFirst();
            Predicate<JobStatus> candidate = v -> unkept.contains(v.id())
                    && (!r.config.renewUnlessWorse() || r.rhoIfRevoked(v.spec().jobSet()) < takerRho
                        || ownFirst && v.spec().jobSet().equals(taker));
            if (!anyOf(offered, candidate)) {
                continue; // no expired lease this start may take: room() could only name no victim
            }
            List<JobStatus> victims = room(r, j, counts, candidate, bestOffFirst);
            if (victims == null || victims.isEmpty()) {
                continue;
            }
            for (JobStatus v : victims) {
                AppView app = appOfJob.get(v.id());
                r.revoke(v, String.format(Locale.ROOT, "Themis: lease expired and app %s (rho %.2f) did not win its GPUs back",
                        v.spec().jobSet(), app == null ? Double.NaN : app.rho()));
                unkept.remove(v.id());
            }
            r.start(c, expiry);
        }
        for (JobStatus j : offered) {
            if (unkept.contains(j.id())) {
                r.keep(j);
            }
        }
    }

    private static boolean anyOf(Collection<JobStatus> jobs, Predicate<JobStatus> p) {
        for (JobStatus j : jobs) {
            if (p.test(j)) {
                return true;
            }
        }
        return false;
    }

    /** A node as the reservation sees it: its GPUs in use, and the jobs on it that better-off apps hold. */
    static final class NodeUse {
        final String name;
        int used;
        int revocableGpus;
        int leasedGpus;
        final List<JobStatus> revocable = new ArrayList<>();

        NodeUse(String name) {
            this.name = name;
        }
    }

    /**
     * GPUs in use per node (running jobs not preempted in this round, plus this round's admissions), with the
     * candidates on each node.
     */
    static Map<String, NodeUse> nodeUse(PlanState r, Predicate<JobStatus> candidate, Predicate<JobStatus> later) {
        Map<String, NodeUse> nodes = new TreeMap<>();
        for (JobStatus j : r.ctx.holding()) {
            if (j.admission() == null || j.spec().totalGpus() == 0 || r.preempted(j.id())) {
                continue;
            }
            boolean c = candidate.test(j);
            boolean l = !c && later.test(j);
            for (MemberPlacement m : j.admission().placement().members()) {
                NodeUse n = nodes.computeIfAbsent(m.node(), NodeUse::new);
                n.used += m.gpus().size();
                if (c) {
                    n.revocableGpus += m.gpus().size();
                    if (!n.revocable.contains(j)) {
                        n.revocable.add(j);
                    }
                } else if (l) {
                    n.leasedGpus += m.gpus().size();
                }
            }
        }
        for (Placement p : r.placed()) {
            for (MemberPlacement m : p.members()) {
                nodes.computeIfAbsent(m.node(), NodeUse::new).used += m.gpus().size();
            }
        }
        return nodes;
    }

    /**
     * The fewest candidates (by {@code order}, node by node) whose preemption frees whole places for a job's
     * members: the nodes with the most free GPUs first, then the most GPUs of candidates.
     *
     * @return the victims, or null when the candidates cannot make room
     */
    static List<JobStatus> room(PlanState r, JobStatus job, Map<String, Integer> counts, Predicate<JobStatus> candidate,
                         Comparator<JobStatus> order) {
        int members = 0;
        int perMember = 0;
        for (PodSet ps : job.spec().podSets()) {
            int m = counts.getOrDefault(ps.name(), ps.count());
            if (ps.resources().gpus() > 0 && m > 0) {
                members += m;
                perMember = Math.max(perMember, (int) ps.resources().gpus());
            }
        }
        int size = r.nodeSize();
        if (members == 0 || perMember > size) {
            return null;
        }
        Map<String, NodeUse> nodes = nodeUse(r, candidate, j -> false);
        long freeSeen = 0;
        for (NodeUse n : nodes.values()) {
            freeSeen += Math.max(0, size - n.used);
        }
        long idleNodes = Math.max(0, r.ctx.capacity().freeGpus() - freeSeen) / size;
        int need = members - (int) Math.min(members, idleNodes * (size / perMember));
        List<NodeUse> candidates = new ArrayList<>(nodes.values());
        candidates.sort(Comparator.comparingInt((NodeUse n) -> n.used).thenComparingInt(n -> n.used - n.revocableGpus).thenComparing(n -> n.name));
        List<JobStatus> victims = new ArrayList<>();
        int slots = 0;
        for (NodeUse n : candidates) {
            if (slots >= need) {
                break;
            }
            int free = Math.max(0, size - n.used);
            if ((free + n.revocableGpus) / perMember == 0) {
                continue;
            }
            n.revocable.sort(order);
            for (JobStatus v : n.revocable) {
                if (slots + free / perMember >= need) {
                    break;
                }
                if (!victims.contains(v)) {
                    victims.add(v);
                }
                for (MemberPlacement m : v.admission().placement().members()) {
                    if (m.node().equals(n.name)) {
                        free += m.gpus().size();
                    }
                }
            }
            slots += free / perMember;
        }
        return slots >= need ? victims : null;
    }

    /**
     * What revoking a running job now costs its app, and how long its GPUs would stay taken otherwise: {ρ after, rise
     * of ρ, seconds until its lease expires or it finishes, whichever is first}. After the revocation the job has
     * lost its work since its last checkpoint, pays its restore, and is assumed to wait a lease for GPUs (the app's
     * other jobs keep running).
     */
    static double[] revocationCost(PlanState r, JobStatus j) {
        AppView a = r.apps.get(j.spec().jobSet());
        JobView v = r.view(j);
        if (a == null || v == null) {
            return new double[] {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, 0};
        }
        List<JobView> jobs = new ArrayList<>();
        Map<String, Double> running = new HashMap<>();
        for (JobView o : a.jobs()) {
            if (o.id().equals(v.id())) {
                jobs.add(o.asRevocable());
            } else {
                jobs.add(o);
                if (o.holding()) {
                    running.put(o.id(), o.speed());
                }
            }
        }
        AppView without = new AppView(a.name(), jobs, a.elapsed(), a.demand(), a.fairRate(), a.idealSeconds(), a.sharedSeconds(), a.rho(),
                a.perJob());
        double restore = j.spec().checkpointing() == null ? 0 : j.spec().checkpointing().restoreCostSeconds();
        double after = a.perJob()
                ? FinishTimeEstimator.rhoWith(without, running, r.horizon) + restore / Math.min(a.idealSeconds(), v.idealSeconds())
                : (FinishTimeEstimator.sharedWith(without, running, r.horizon) + restore) / a.idealSeconds();
        double untilFree = Math.max(0, j.admission().leaseExpiresAtMillis() - r.now) / 1000.0;
        if (v.speed() > 0) {
            untilFree = Math.min(untilFree, v.remaining() / v.speed());
        }
        return new double[] {after, Math.max(0, after - a.rho()), untilFree};
    }
}
