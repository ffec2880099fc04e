package io.fairway.policies.themis;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.policies.themis.FinishTimeEstimator.AppView;
import io.fairway.policies.themis.FinishTimeEstimator.JobView;
import io.fairway.policies.themis.PartialAllocationAuction.Bid;
import io.fairway.policies.themis.PartialAllocationAuction.Method;
import io.fairway.policies.themis.PartialAllocationAuction.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Themis (Mahajan et al., NSDI 2020): finish-time-fair GPU scheduling with leases and partial allocation auctions.
 *
 * <p>Each round:
 * <ol>
 *   <li>every app (job set) gets an estimate of its finish-time fairness ρ = T_shared ÷ T_id
 *       ({@link FinishTimeEstimator});</li>
 *   <li>the GPUs offered are the free ones plus those of jobs whose lease expired;</li>
 *   <li>the (1 − f) fraction of the apps with demand that have the <em>worst</em> ρ (at least one) bid: for each
 *       bundle size they can use, the speed-up of their ρ, with the placement the engine's search would give each
 *       job ({@link io.fairway.api.spi.PlacementSearch}) and the job's placement sensitivity;</li>
 *   <li>the arbiter computes the proportional-fair allocation and each winner keeps the fraction c_i of its bundle
 *       ({@link PartialAllocationAuction}); a fractional bundle is rounded between the two nearest bundle sizes at
 *       random ({@link PolicyContext#random()}) so that the expected size is c_i × k_i;</li>
 *   <li>the withheld GPUs and any left over go to the apps outside the auction (work conservation): first to keep
 *       their running jobs, worst ρ first, then to start new jobs, the apps nearest to finishing first; only then to
 *       the bidders; jobs whose expired lease was not won back are preempted (checkpointing ones checkpoint);</li>
 *   <li>every GPU granted carries a lease of {@link Config#leaseMinutes()}, stretched (by at most one checkpoint
 *       interval) to end just after the job's next checkpoint, so that a revocation at expiry loses almost no work.</li>
 * </ol>
 * With {@link Config#reserve()} the worst app is never starved by gangs larger than what one auction offers: while
 * the GPUs offered are fewer than its smallest job needs, expired leases are neither renewed nor revoked and new
 * jobs of other apps get leases that expire at once, so that the offer grows within one lease; then the app is
 * guaranteed its smallest bundle.
 *
 * <pre>{@code
 * SchedulingPolicy themis = Policies.create("themis", Map.of("f", "0.8", "leaseMinutes", "10"));
 * }</pre>
 */
public final class ThemisPolicy implements SchedulingPolicy {
    /** How a job's progress is estimated. */
    public enum Estimate {
        /** The engine's reported progress (taken as the start of the current run), else elapsed time. */
        PROGRESS,
        /** Executed time × current speed, ignoring reported progress. */
        ELAPSED
    }

    /**
     * Themis' configuration.
     *
     * @param f the fairness knob in [0, 1]: the (1 − f) fraction of apps with the worst ρ bid (at least one)
     * @param leaseMinutes lease length in minutes of the scheduler clock ({@code +∞}: leases never expire)
     * @param hiddenPayments true: winners keep only the fraction c_i of their bundle
     * @param estimate how progress is estimated
     * @param reserve true: the worst app's gang is not starved (see the class comment)
     * @param method how the winners are determined
     * @param revokeWithoutCheckpoint true: jobs that do not checkpoint are revoked at lease expiry like the others
     *     (losing all their work); false: their leases are renewed, so only checkpointing jobs are ever preempted
     */
    public record Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean reserve, Method method,
                         boolean revokeWithoutCheckpoint) {
        /**
         * The defaults: f = 0.8, 10-minute leases, hidden payments, progress estimates, reservation, AUTO, jobs without
         * checkpointing not revoked.
         */
        public static final Config DEFAULTS = new Config(0.8, 10, true, Estimate.PROGRESS, true, Method.AUTO, false);

        /** Validates. */
        public Config {
            InvalidSpecException.check(f >= 0 && f <= 1, "policy.themis.f", f, "policy themis: f must be in [0, 1], was %s", f);
            InvalidSpecException.check(leaseMinutes > 0, "policy.themis.leaseMinutes", leaseMinutes,
                    "policy themis: leaseMinutes must be > 0 (or infinite), was %s", leaseMinutes);
            InvalidSpecException.check(estimate != null, "policy.themis.estimate", null, "policy themis: estimate is required");
            InvalidSpecException.check(method != null, "policy.themis.method", null, "policy themis: method is required");
        }

        /** @return true when leases never expire */
        public boolean infiniteLeases() {
            return Double.isInfinite(leaseMinutes) || leaseMinutes * 60_000 >= Long.MAX_VALUE / 4.0;
        }

        /** @return the lease length in milliseconds ({@link Admit#NO_LEASE} when infinite) */
        public long leaseMillis() {
            return infiniteLeases() ? Admit.NO_LEASE : Math.max(1, Math.round(leaseMinutes * 60_000));
        }

        /** @param v f @return a copy */
        public Config withF(double v) {
            return new Config(v, leaseMinutes, hiddenPayments, estimate, reserve, method, revokeWithoutCheckpoint);
        }

        /** @param v lease minutes @return a copy */
        public Config withLeaseMinutes(double v) {
            return new Config(f, v, hiddenPayments, estimate, reserve, method, revokeWithoutCheckpoint);
        }

        /** @param v hidden payments @return a copy */
        public Config withHiddenPayments(boolean v) {
            return new Config(f, leaseMinutes, v, estimate, reserve, method, revokeWithoutCheckpoint);
        }

        /** @param v reservation @return a copy */
        public Config withReserve(boolean v) {
            return new Config(f, leaseMinutes, hiddenPayments, estimate, v, method, revokeWithoutCheckpoint);
        }
    }

    /** Leases aligned with checkpoints end this long after the checkpoint, against rounding of estimates. */
    static final double CHECKPOINT_MARGIN_SECONDS = 2;

    /** Horizon over which bids value a lease, when leases never expire. */
    private static final double INFINITE_LEASE_HORIZON_SECONDS = 24 * 3600;

    private final String name;
    private final Config config;

    /**
     * @param name the policy name
     * @param config its configuration
     */
    public ThemisPolicy(String name, Config config) {
        this.name = name;
        this.config = config;
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the configuration */
    public Config config() {
        return config;
    }

    // ---------------------------------------------------------------- items and bids

    /** Something an app can do with offered GPUs: keep a revocable job, or start a pending one at some size. */
    record Item(JobView job, boolean keep, String elasticPodSet, int minMembers, int maxMembers, int gpusPerMember, int fixedGpus,
                double tfMin, double tfMax) {
        int cost(int members) {
            return fixedGpus + gpusPerMember * members;
        }

        int minCost() {
            return cost(minMembers);
        }

        int maxCost() {
            return cost(maxMembers);
        }

        double speed(int members) {
            double tf = members == maxMembers ? tfMax : tfMin;
            return job.gpus() == 0 ? 0 : (double) cost(members) / job.gpus() * tf;
        }

        Map<String, Integer> counts(int members) {
            Map<String, Integer> m = new LinkedHashMap<>();
            for (PodSet ps : job.status().spec().podSets()) {
                m.put(ps.name(), ps.name().equals(elasticPodSet) ? members : ps.count());
            }
            return m;
        }
    }

    /** One choice: an item at a member count. */
    record Choice(Item item, int members) {
        int cost() {
            return item.cost(members);
        }
    }

    /** A bundle size an app values, with the choices that realise it. */
    record Option(int cost, double valuation, List<Choice> choices) {
    }

    /** The state of a round, shared by the steps of {@link #plan}. */
    private final class Round {
        final PolicyContext ctx;
        final long now;
        final long leaseMillis;
        final double horizon;
        final TreeMap<String, AppView> apps;
        final Map<String, List<Item>> items = new TreeMap<>();
        final Map<String, Integer> maxNodeGpus = new HashMap<>();
        final Map<String, Double> findCache = new HashMap<>();
        final Set<String> kept = new HashSet<>();
        final Set<String> admitted = new HashSet<>();
        final Set<String> explained = new HashSet<>();
        final List<JobStatus> pendingGpuJobs = new ArrayList<>();
        final List<JobStatus> revocable = new ArrayList<>();
        final List<JobStatus> renewed = new ArrayList<>();
        long pool;

        Round(PolicyContext ctx) {
            this.ctx = ctx;
            this.now = ctx.now();
            this.leaseMillis = config.leaseMillis();
            this.horizon = config.infiniteLeases() ? INFINITE_LEASE_HORIZON_SECONDS : leaseMillis / 1000.0;
            List<JobStatus> live = new ArrayList<>();
            long revocableGpus = 0;
            for (JobStatus j : ctx.running()) {
                if (j.admission() == null || j.spec().totalGpus() == 0) {
                    continue;
                }
                live.add(j);
                for (MemberPlacement m : j.admission().placement().members()) {
                    int top = 0;
                    for (int g : m.gpus()) {
                        top = Math.max(top, g + 1);
                    }
                    maxNodeGpus.merge("max", top, Math::max);
                }
                if (j.admission().leaseExpired(now)) {
                    if (revocable(j)) {
                        revocable.add(j);
                        revocableGpus += j.admission().placement().gpuCount();
                    } else {
                        renewed.add(j);
                    }
                }
            }
            for (JobStatus j : ctx.pending()) {
                if (j.spec().totalGpus() > 0) {
                    live.add(j);
                    pendingGpuJobs.add(j);
                }
            }
            this.apps = FinishTimeEstimator.apps(live, now, ctx.capacity().totalGpus(), config.estimate(), ThemisPolicy.this::revocable);
            this.pool = ctx.capacity().freeGpus() + revocableGpus;
        }

        /** Apps by the time they need to finish at their current speeds (T_sh − elapsed), then by name. */
        Comparator<String> shortestRemainingFirst() {
            return Comparator.comparingDouble((String a) -> apps.get(a).sharedSeconds() - apps.get(a).elapsed()).thenComparing(a -> a);
        }

        long expiry() {
            return leaseMillis == Admit.NO_LEASE ? Admit.NO_LEASE : now + leaseMillis;
        }

        /** Items of every app: revocable jobs to keep (by sequence), then pending jobs, shortest remaining first. */
        void buildItems() {
            for (AppView app : apps.values()) {
                List<Item> keep = new ArrayList<>();
                List<Item> start = new ArrayList<>();
                for (JobView j : app.jobs()) {
                    if (j.revocable()) {
                        int held = j.status().admission().placement().gpuCount();
                        keep.add(new Item(j, true, null, 0, 0, 0, held, 1, 1));
                    } else if (!j.holding() && !neverFits(j.status())) {
                        Item it = pendingItem(j);
                        if (it != null) {
                            start.add(it);
                        }
                    }
                }
                keep.sort(Comparator.comparingLong(i -> i.job().status().sequence()));
                start.sort(Comparator.comparingDouble((Item i) -> i.job().remaining()).thenComparingLong(i -> i.job().status().sequence()));
                List<Item> all = new ArrayList<>(keep);
                all.addAll(start);
                if (!all.isEmpty()) {
                    items.put(app.name(), all);
                }
            }
        }

        private Item pendingItem(JobView j) {
            JobSpec spec = j.status().spec();
            PodSet elastic = null;
            int fixed = 0;
            for (PodSet ps : spec.podSets()) {
                if (elastic == null && ps.isElastic() && ps.resources().gpus() > 0) {
                    elastic = ps;
                } else {
                    fixed += (int) (ps.resources().gpus() * ps.count());
                }
            }
            if (elastic == null) {
                int cost = (int) spec.totalGpus();
                if (cost > ctx.capacity().totalGpus()) {
                    return null;
                }
                double tf = throughput(j.status(), fullCounts(spec), cost);
                return new Item(j, false, null, 0, 0, 0, cost, tf, tf);
            }
            int gpm = (int) elastic.resources().gpus();
            Item probe = new Item(j, false, elastic.name(), elastic.minCount(), elastic.count(), gpm, fixed, 1, 1);
            if (probe.minCost() > ctx.capacity().totalGpus()) {
                return null;
            }
            int max = elastic.count();
            while (max > elastic.minCount() && probe.cost(max) > ctx.capacity().totalGpus()) {
                max--;
            }
            double tfMin = throughput(j.status(), probe.counts(elastic.minCount()), probe.minCost());
            double tfMax = throughput(j.status(), probe.counts(max), probe.cost(max));
            return new Item(j, false, elastic.name(), elastic.minCount(), max, gpm, fixed, tfMin, tfMax);
        }

        /**
         * The throughput factor a job would get at these counts: the engine's placement search on the plan's free
         * capacity when it finds a place; else, from the job's sensitivity, one node's factor when the gang fits
         * the largest node seen, one rack's otherwise.
         */
        private double throughput(JobStatus job, Map<String, Integer> counts, int gpus) {
            String key = shapeKey(job.spec(), counts);
            Double cached = findCache.get(key);
            if (cached != null) {
                return cached;
            }
            double tf;
            Optional<Placement> p = gpus <= ctx.capacity().freeGpus() ? ctx.placement().find(job, counts, Map.of()) : Optional.empty();
            if (p.isPresent()) {
                tf = p.get().throughputFactor();
            } else if (gpus <= 1) {
                tf = 1.0;
            } else {
                int node = Math.max(ctx.capacity().largestFreeGpusOnOneNode(), maxNodeGpus.getOrDefault("max", 0));
                tf = job.spec().sensitivity().factor(gpus <= node ? Locality.NODE : Locality.RACK);
            }
            findCache.put(key, tf);
            return tf;
        }

        /** The bundle sizes an app values, Pareto-filtered, costing at most the pool. */
        List<Option> options(AppView app, List<Item> its) {
            Map<String, Double> running = fixedRunning(app);
            double none = FinishTimeEstimator.sharedWith(app, running, horizon);
            List<Option> out = new ArrayList<>();
            out.add(new Option(0, 1.0, List.of()));
            int prefix = 0;
            List<Choice> chosen = new ArrayList<>();
            double bestV = 1.0;
            for (Item it : its) {
                if (prefix + it.minCost() > pool) {
                    continue;
                }
                int lo = it.keep() ? 0 : it.minMembers();
                int hi = it.keep() ? 0 : it.maxMembers();
                int best = lo;
                for (int m = lo; m <= hi && prefix + it.cost(m) <= pool; m++) {
                    best = m;
                    running.put(it.job().id(), it.keep() ? it.job().speed() : it.speed(m));
                    double v = none / FinishTimeEstimator.sharedWith(app, running, horizon);
                    if (v > bestV + 1e-12) {
                        bestV = v;
                        List<Choice> cs = new ArrayList<>(chosen);
                        cs.add(new Choice(it, m));
                        out.add(new Option(prefix + it.cost(m), v, cs));
                    }
                }
                running.put(it.job().id(), it.keep() ? it.job().speed() : it.speed(best));
                chosen.add(new Choice(it, best));
                prefix += it.cost(best);
            }
            return out;
        }

        Map<String, Double> fixedRunning(AppView app) {
            Map<String, Double> running = new HashMap<>();
            for (JobView j : app.jobs()) {
                if (j.holding() && !j.revocable()) {
                    running.put(j.id(), j.speed());
                }
            }
            return running;
        }

        // ------------------------------------------------------------ actions

        void keep(JobStatus j) {
            if (kept.add(j.id())) {
                JobView v = view(j);
                ctx.setLease(j, v == null ? expiry() : alignedExpiry(j, v.work() - v.remaining(), v.speed(), false));
            }
        }

        JobView view(JobStatus j) {
            AppView a = apps.get(j.spec().jobSet());
            if (a != null) {
                for (JobView v : a.jobs()) {
                    if (v.id().equals(j.id())) {
                        return v;
                    }
                }
            }
            return null;
        }

        /**
         * A lease that ends just after the job's next checkpoint past the nominal expiry, so that revoking it at expiry
         * loses (almost) no work: the job is at {@code doneSeconds} of its work and runs at {@code speed}; a job
         * that starts now first restores ({@code restoring}).
         */
        long alignedExpiry(JobStatus j, double doneSeconds, double speed, boolean restoring) {
            long nominal = expiry();
            io.fairway.api.job.Checkpointing c = j.spec().checkpointing();
            if (nominal == Admit.NO_LEASE || c == null || speed <= 0) {
                return nominal;
            }
            double lease = leaseMillis / 1000.0;
            double restore = restoring && doneSeconds > 0 ? c.restoreCostSeconds() : 0;
            double atExpiry = doneSeconds + Math.max(0, lease - restore) * speed;
            double next = Math.ceil(atExpiry / c.intervalSeconds() - 1e-9) * c.intervalSeconds();
            double seconds = restore + (next - doneSeconds) / speed + CHECKPOINT_MARGIN_SECONDS;
            seconds = Math.max(lease, Math.min(seconds, lease + c.intervalSeconds() / speed + restore + CHECKPOINT_MARGIN_SECONDS));
            return now + Math.round(seconds * 1000);
        }

        boolean start(Choice c, long expiry) {
            JobStatus j = c.item().job().status();
            if (admitted.contains(j.id())) {
                return false;
            }
            Attempt a = c.item().elasticPodSet() == null ? ctx.tryAdmit(j) : ctx.tryAdmit(j, c.item().counts(c.members()));
            explained.add(j.id());
            if (a.admitted()) {
                admitted.add(j.id());
                if (expiry != Admit.NO_LEASE) {
                    JobView v = c.item().job();
                    double speed = FinishTimeEstimator.sizeFraction(j.spec(), a.admission().counts()) * a.admission().placement().throughputFactor();
                    ctx.setLease(j, expiry == now ? now : alignedExpiry(j, v.work() - v.remaining(), speed, true));
                }
                return true;
            }
            return false;
        }

        void revokeUnkept(Map<String, AppView> byJobApp) {
            for (JobStatus j : revocable) {
                if (!kept.contains(j.id())) {
                    AppView app = byJobApp.get(j.id());
                    ctx.preempt(j, String.format(Locale.ROOT, "Themis: lease expired and app %s (rho %.2f) did not win its GPUs back",
                            j.spec().jobSet(), app == null ? Double.NaN : app.rho()));
                }
            }
        }

        /** Starts whatever still fits on free GPUs, apps by worst ρ, each app's items in order. */
        void fillFree(List<String> order, long expiry) {
            for (String app : order) {
                for (Item it : items.getOrDefault(app, List.of())) {
                    if (it.keep() || admitted.contains(it.job().id())) {
                        continue;
                    }
                    long free = ctx.capacity().freeGpus();
                    if (free < it.minCost()) {
                        continue;
                    }
                    if (it.elasticPodSet() == null) {
                        start(new Choice(it, 0), expiry);
                    } else {
                        for (int m = it.maxMembers(); m >= it.minMembers(); m--) {
                            if (it.cost(m) <= free && start(new Choice(it, m), expiry)) {
                                break;
                            }
                        }
                    }
                }
            }
        }

        void explainRest(Map<String, String> why) {
            for (JobStatus j : pendingGpuJobs) {
                if (!explained.contains(j.id()) && !admitted.contains(j.id())
                        && (j.spec().totalGpus() > ctx.capacity().totalGpus() || neverFits(j))) {
                    ctx.tryAdmit(j); // the core's own reason (larger than any domain, no quota), refreshed
                } else if (!explained.contains(j.id()) && !admitted.contains(j.id())) {
                    String w = why.get(j.spec().jobSet());
                    AppView a = apps.get(j.spec().jobSet());
                    ctx.leaveWaiting(j, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, String.format(Locale.ROOT,
                            "Themis: app %s (rho %.2f) %s", j.spec().jobSet(), a == null ? Double.NaN : a.rho(),
                            w == null ? "got no GPUs in this round's auction" : w)));
                }
            }
        }
    }

    /**
     * @param j a job holding GPUs
     * @return true when an expired lease makes it revocable: it checkpoints, or revoking without one is configured
     */
    boolean revocable(JobStatus j) {
        return config.revokeWithoutCheckpoint() || j.spec().checkpointing() != null;
    }

    /** A job the core found can never be placed or admitted as it is takes no part in auctions. */
    static boolean neverFits(JobStatus j) {
        PendingReason r = j.pendingReason();
        return r != null && (r.code() == PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN || r.code() == PendingReason.Code.RESOURCE_NOT_IN_QUOTA);
    }

    static Map<String, Integer> fullCounts(JobSpec spec) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (PodSet ps : spec.podSets()) {
            m.put(ps.name(), ps.count());
        }
        return m;
    }

    private static String shapeKey(JobSpec spec, Map<String, Integer> counts) {
        StringBuilder sb = new StringBuilder(spec.namespace()).append('|').append(spec.sensitivity()).append('|');
        for (PodSet ps : spec.podSets()) {
            sb.append(counts.get(ps.name())).append('x').append(ps.resources()).append(ps.nodeSelector()).append(ps.tolerations())
                    .append(ps.topology()).append(';');
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- the round

    @Override
    public void plan(PolicyContext ctx) {
        // Jobs without GPUs take no part in GPU auctions: they start in submission order.
        for (JobStatus j : ctx.pending()) {
            if (j.spec().totalGpus() == 0) {
                ctx.tryAdmit(j);
            }
        }
        Round r = new Round(ctx);
        for (JobStatus j : r.renewed) {
            r.keep(j); // revoking it would lose all its work: it does not checkpoint
        }
        Map<String, AppView> appOfJob = new HashMap<>();
        for (AppView a : r.apps.values()) {
            for (JobView j : a.jobs()) {
                appOfJob.put(j.id(), a);
            }
        }
        if (r.pendingGpuJobs.isEmpty()) {
            // nobody waits: every expired lease is renewed
            for (JobStatus j : r.revocable) {
                r.keep(j);
            }
            return;
        }
        r.buildItems();
        // apps with demand, worst ρ first
        List<String> rank = new ArrayList<>(r.items.keySet());
        rank.sort(Comparator.comparingDouble((String a) -> -r.apps.get(a).rho()).thenComparing(a -> a));
        Map<String, String> why = new HashMap<>();
        String worst = null;
        int worstNeed = 0;
        for (String a : rank) {
            int need = Integer.MAX_VALUE;
            for (Item it : r.items.get(a)) {
                if (!it.keep()) {
                    need = Math.min(need, it.minCost());
                }
            }
            if (need != Integer.MAX_VALUE) {
                worst = a;
                worstNeed = need;
                break;
            }
        }
        // Apps worse off than the worst app with pending demand only hold jobs: they keep them, outside the auction
        // (the worst must not be robbed for a better-off app's gang).
        for (String a : rank) {
            if (a.equals(worst)) {
                break;
            }
            for (Item it : r.items.get(a)) {
                if (it.keep()) {
                    r.keep(it.job().status());
                    r.pool -= it.minCost();
                }
            }
        }
        if (worst != null) {
            rank = new ArrayList<>(rank.subList(rank.indexOf(worst), rank.size()));
        }
        boolean reserving = config.reserve() && !config.infiniteLeases() && worst != null && worstNeed > r.pool
                && worstNeed <= r.pool + leasedGpus(ctx, r.now);
        if (reserving) {
            reserve(r, rank, worst, worstNeed, why);
            r.explainRest(why);
            return;
        }
        if (r.pool == 0) {
            r.explainRest(Map.of());
            return;
        }
        // the auction: the (1 − f) worst apps with demand
        int n = rank.size();
        int bidders = Math.max(1, (int) Math.ceil((1 - config.f()) * n - 1e-9));
        List<String> participants = new ArrayList<>(rank.subList(0, Math.min(n, bidders)));
        if (config.reserve() && worst != null && !participants.contains(worst)) {
            participants.add(worst);
        }
        List<Bid> bids = new ArrayList<>();
        List<List<Option>> options = new ArrayList<>();
        for (String a : participants) {
            List<Option> os = r.options(r.apps.get(a), r.items.get(a));
            int[] sizes = new int[os.size()];
            double[] vals = new double[os.size()];
            for (int i = 0; i < os.size(); i++) {
                sizes[i] = os.get(i).cost();
                vals[i] = os.get(i).valuation();
            }
            options.add(os);
            bids.add(new Bid(a, sizes, vals, config.reserve() && a.equals(worst)));
        }
        Outcome o = PartialAllocationAuction.solve(bids, (int) Math.min(Integer.MAX_VALUE, r.pool), config.method());
        long left = r.pool;
        Set<String> inAuction = new HashSet<>(participants);
        List<Choice> starts = new ArrayList<>();
        for (int i = 0; i < bids.size(); i++) {
            if (o.allocation()[i] == 0) {
                why.put(participants.get(i), "bid in the auction but won no GPUs");
                continue;
            }
            Option won = realise(r.ctx, bids.get(i), options.get(i), o.allocation()[i], o.fraction()[i]);
            for (Choice c : won.choices()) {
                if (c.item().keep()) {
                    r.keep(c.item().job().status());
                } else {
                    starts.add(c);
                }
            }
            left -= won.cost();
            if (won.cost() < o.allocation()[i]) {
                why.put(participants.get(i), String.format(Locale.ROOT, "won %d GPUs and kept %d (hidden payment c=%.2f)",
                        o.allocation()[i], won.cost(), o.fraction()[i]));
            }
        }
        // withheld and unallocated GPUs: apps outside the auction first, worst ρ first, then the bidders
        List<String> leftoverOrder = new ArrayList<>();
        for (String a : rank) {
            if (!inAuction.contains(a)) {
                leftoverOrder.add(a);
            }
        }
        for (String a : rank) {
            if (inAuction.contains(a)) {
                leftoverOrder.add(a);
            }
        }
        Set<String> startIds = new HashSet<>();
        for (Choice c : starts) {
            startIds.add(c.item().job().id());
        }
        for (String a : leftoverOrder) {
            // jobs already running first: revoking them loses the work since their last checkpoint
            for (Item it : r.items.get(a)) {
                if (it.keep() && !r.kept.contains(it.job().id()) && it.minCost() <= left) {
                    r.keep(it.job().status());
                    left -= it.minCost();
                }
            }
        }
        // new jobs on what is left: the apps outside the auction nearest to finishing first (work conservation with
        // the shortest-remaining order, good for completion times; fairness was the auction's business), then the bidders
        List<String> startOrder = new ArrayList<>();
        for (List<String> group : List.of(leftoverOrder.subList(0, leftoverOrder.size() - participants.size()),
                leftoverOrder.subList(leftoverOrder.size() - participants.size(), leftoverOrder.size()))) {
            List<String> g = new ArrayList<>(group);
            g.sort(r.shortestRemainingFirst());
            startOrder.addAll(g);
        }
        for (String a : startOrder) {
            for (Item it : r.items.get(a)) {
                if (left <= 0) {
                    break;
                }
                String id = it.job().id();
                if (it.keep() || startIds.contains(id)) {
                    continue;
                }
                if (it.minCost() <= left) {
                    int m = it.maxMembers();
                    while (m > it.minMembers() && it.cost(m) > left) {
                        m--;
                    }
                    starts.add(new Choice(it, m));
                    startIds.add(id);
                    left -= it.cost(m);
                }
            }
        }
        r.revokeUnkept(appOfJob);
        long expiry = r.expiry();
        for (Choice c : starts) {
            r.start(c, expiry);
        }
        r.fillFree(startOrder, expiry);
        r.explainRest(why);
    }

    /** GPUs held under a lease (expired or not): what a reservation can eventually gather, with the free ones. */
    private static long leasedGpus(PolicyContext ctx, long now) {
        long g = 0;
        for (JobStatus j : ctx.running()) {
            if (j.admission() != null && j.admission().leaseExpiresAtMillis() != Admit.NO_LEASE && !j.admission().leaseExpired(now)) {
                g += j.admission().placement().gpuCount();
            }
        }
        return g;
    }

    /**
     * The worst app needs more GPUs than are offered: its own expired leases are renewed, others' stay expired
     * (revocable, offered again next round), and free GPUs go to other apps under leases that expire at once.
     */
    private void reserve(Round r, List<String> rank, String worst, int need, Map<String, String> why) {
        for (JobStatus j : r.revocable) {
            if (j.spec().jobSet().equals(worst)) {
                r.keep(j);
            }
        }
        List<String> others = new ArrayList<>();
        for (String a : rank) {
            if (!a.equals(worst)) {
                others.add(a);
            }
        }
        r.fillFree(others, r.now);
        why.put(worst, String.format(Locale.ROOT, "has the worst rho; GPUs are being gathered for it: needs %d, %d offered now",
                need, r.pool));
    }

    /**
     * The bundle a winner keeps: c × k GPUs, rounded at random between the two nearest bundle sizes it bid on (the
     * expected size is c × k); a guaranteed bid keeps at least its smallest bundle.
     */
    private Option realise(PolicyContext ctx, Bid bid, List<Option> os, int won, double c) {
        double x = config.hiddenPayments() ? c * won : won;
        if (bid.guaranteed() && bid.sizes().length > 1) {
            x = Math.max(x, bid.sizes()[1]);
        }
        // the jobs it already runs (its expired leases) are never withheld: revoking them would destroy work
        for (Option op : os) {
            if (op.cost() <= won && !op.choices().isEmpty() && op.choices().stream().allMatch(ch -> ch.item().keep())) {
                x = Math.max(x, op.cost());
            }
        }
        x = Math.min(x, won);
        Option lo = os.get(0);
        Option hi = null;
        for (Option op : os) {
            if (op.cost() <= x + 1e-9) {
                lo = op;
            } else if (op.cost() <= won) {
                hi = op;
                break;
            }
        }
        if (hi == null || lo.cost() == hi.cost()) {
            return lo;
        }
        double p = (x - lo.cost()) / (hi.cost() - lo.cost());
        return ctx.random().nextDouble() < p ? hi : lo;
    }
}
