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
 *       the bidders;</li>
 *   <li>each start is placed on free GPUs if it fits; else just enough expired leases that nobody kept are revoked
 *       (checkpointing jobs checkpoint), on the nodes where they make a whole place for the job's members; with
 *       {@link Config#renewUnlessWorse()} only leases of apps whose ρ without them would still be better than the
 *       starting app's; expired leases nobody needed are renewed;</li>
 *   <li>every GPU granted carries a lease of {@link Config#leaseMinutes()}, stretched (by at most one checkpoint
 *       interval) to end just after the job's next checkpoint, so that a revocation at expiry loses almost no work.</li>
 * </ol>
 * With {@link Config#reserve()} the worst app with a waiting job is not starved by gangs larger than what one auction
 * offers: once its ρ has reached {@link Config#reserveAboveRho()} (below that the auction alone decides, which serves
 * short jobs sooner) and its smallest job has waited a whole lease (or as long as it would take to run) and does not fit on the free GPUs, nodes are chosen where
 * better-off apps' leases can make a place for it; if their expired leases suffice, just enough are revoked and the job
 * starts; otherwise those nodes drain (their expired leases are neither renewed nor offered, and jobs placed there get
 * leases that expire at once) while the rest of the cluster is auctioned as usual.
 *
 * <p>With {@link Config#earlyRevoke()} a waiting job shorter than a lease that does not fit on the free GPUs need not
 * wait for leases to expire: leases of better-off apps' jobs are revoked before expiry when the ρ the waiting app
 * would gain (the wait saved ÷ its T_id) exceeds the ρ the holders lose (work since their last checkpoint, restore,
 * waiting again), and only holders that stay better off than the waiting app are touched.
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
     * @param revokeWithoutCheckpoint true: jobs that do not checkpoint are revocable like the others, their whole work
     *     counted as lost in the ρ their app would have without them (so they are revoked only for an app whose ρ is
     *     worse even then, or when early revocation's gain exceeds that loss); false: their leases are always renewed,
     *     so only checkpointing jobs are ever preempted (for users who forbid killing such jobs)
     * @param renewUnlessWorse true: an expired lease is revoked only for an app whose ρ is worse than the holder's ρ
     *     would be without it; false: for any app that won GPUs
     * @param earlyRevoke true: the starvation guard may revoke leases that have not expired yet when waiting for their
     *     expiry would raise the worst app's ρ more than the revocation raises the holders' (see the class comment)
     * @param reserveAboveRho the starvation guard acts only once the worst app's ρ has reached this (0: always)
     */
    public record Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean reserve, Method method,
                         boolean revokeWithoutCheckpoint, boolean renewUnlessWorse, boolean earlyRevoke, double reserveAboveRho) {
        /**
         * The defaults: f = 0 (every app with demand bids), 10-minute leases, hidden payments, progress estimates, reservation, AUTO, jobs without
         * checkpointing revocable at the price of their work (a revocation restarts them from zero, and that loss counts in the
         * holder's ρ, so it happens only for an app whose ρ is worse even then), leases renewed unless a worse-off app needs
         * them, early revocation for the worst app.
         */
        public static final Config DEFAULTS = new Config(0.0, 10, true, Estimate.PROGRESS, true, Method.AUTO, true, true, true, 3.0);

        /** The worst app's ρ from which the starvation guard acts, by default. */
        public static final double DEFAULT_RESERVE_ABOVE_RHO = 3.0;

        /**
         * With early revocation (true) and the guard from ρ = {@value #DEFAULT_RESERVE_ABOVE_RHO}.
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param reserve the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         * @param renewUnlessWorse renew expired leases unless a worse-off app needs them
         */
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean reserve, Method method,
                      boolean revokeWithoutCheckpoint, boolean renewUnlessWorse) {
            this(f, leaseMinutes, hiddenPayments, estimate, reserve, method, revokeWithoutCheckpoint, renewUnlessWorse, true,
                    DEFAULT_RESERVE_ABOVE_RHO);
        }

        /**
         * Without {@code renewUnlessWorse} (true).
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param reserve the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         */
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean reserve, Method method,
                      boolean revokeWithoutCheckpoint) {
            this(f, leaseMinutes, hiddenPayments, estimate, reserve, method, revokeWithoutCheckpoint, true, true, DEFAULT_RESERVE_ABOVE_RHO);
        }

        /** Validates. */
        public Config {
            InvalidSpecException.check(f >= 0 && f <= 1, "policy.themis.f", f, "policy themis: f must be in [0, 1], was %s", f);
            InvalidSpecException.check(leaseMinutes > 0, "policy.themis.leaseMinutes", leaseMinutes,
                    "policy themis: leaseMinutes must be > 0 (or infinite), was %s", leaseMinutes);
            InvalidSpecException.check(estimate != null, "policy.themis.estimate", null, "policy themis: estimate is required");
            InvalidSpecException.check(method != null, "policy.themis.method", null, "policy themis: method is required");
            InvalidSpecException.check(reserveAboveRho >= 0, "policy.themis.reserveAboveRho", reserveAboveRho,
                    "policy themis: reserveAboveRho must be >= 0, was %s", reserveAboveRho);
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
            return new Config(v, leaseMinutes, hiddenPayments, estimate, reserve, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke, reserveAboveRho);
        }

        /** @param v lease minutes @return a copy */
        public Config withLeaseMinutes(double v) {
            return new Config(f, v, hiddenPayments, estimate, reserve, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke, reserveAboveRho);
        }

        /** @param v hidden payments @return a copy */
        public Config withHiddenPayments(boolean v) {
            return new Config(f, leaseMinutes, v, estimate, reserve, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke, reserveAboveRho);
        }

        /** @param v reservation @return a copy */
        public Config withReserve(boolean v) {
            return new Config(f, leaseMinutes, hiddenPayments, estimate, v, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke, reserveAboveRho);
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
        /** Apps by name, in name order (a hash map over the estimator's sorted map: lookups are per job and app). */
        final Map<String, AppView> apps;
        /** Items by app, in name order (filled in app order by {@link #buildItems}; hashed for the lookups). */
        final Map<String, List<Item>> items;
        final Map<String, Integer> maxNodeGpus = new HashMap<>();
        /** Throughput factors by job shape ({@link #shapeKey}): jobs of one shape share a placement search. */
        final Map<ShapeKey, Double> findCache = new HashMap<>();
        final Set<String> kept = new HashSet<>();
        final Set<String> admitted = new HashSet<>();
        final Set<String> explained = new HashSet<>();
        final List<JobStatus> pendingGpuJobs = new ArrayList<>();
        final List<JobStatus> revocable = new ArrayList<>();
        final List<JobStatus> renewed = new ArrayList<>();
        /** Jobs preempted to make room for the worst app. */
        final Set<String> revoked = new HashSet<>();
        /** Jobs whose expired lease is neither renewed nor offered: their nodes are being gathered. */
        final Set<String> held = new HashSet<>();
        /** Nodes being gathered for the worst app: jobs started there get leases that expire at once. */
        final Set<String> heldNodes = new HashSet<>();
        final Map<String, Double> rhoIfRevoked = new HashMap<>();
        /** Placements admitted in this round. */
        final List<Placement> placed = new ArrayList<>();
        /** Jobs preempted in this round. */
        final Set<String> preempted = new HashSet<>();
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
            this.apps = FinishTimeEstimator.appsInOrder(live, now, ctx.capacity().totalGpus(), config.estimate(), ThemisPolicy.this::revocable);
            this.pool = ctx.capacity().freeGpus() + revocableGpus;
            this.items = new LinkedHashMap<>(apps.size() * 2);
        }

        /**
         * An app's ρ if it lost the GPUs of its expired leases now: what it would have as a waiting app. Its jobs may
         * only be revoked for an app whose ρ is worse than that, so that a job is not started for an app and
         * revoked again as soon as running has made that app's ρ look good.
         */
        double rhoIfRevoked(String app) {
            return rhoIfRevoked.computeIfAbsent(app, a -> {
                AppView v = apps.get(a);
                return v == null ? 0 : FinishTimeEstimator.sharedWith(v, fixedRunning(v), horizon) / v.idealSeconds();
            });
        }

        /**
         * What revoking a running job now costs its app, and how long its GPUs would stay taken otherwise: {ρ after, rise
         * of ρ, seconds until its lease expires or it finishes, whichever is first}. After the revocation the job has
         * lost its work since its last checkpoint, pays its restore, and is assumed to wait a lease for GPUs (the app's
         * other jobs keep running).
         */
        double[] revocationCost(JobStatus j) {
            AppView a = apps.get(j.spec().jobSet());
            JobView v = view(j);
            if (a == null || v == null) {
                return new double[] {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, 0};
            }
            List<JobView> jobs = new ArrayList<>();
            Map<String, Double> running = new HashMap<>();
            for (JobView o : a.jobs()) {
                if (o.id().equals(v.id())) {
                    jobs.add(new JobView(o.status(), o.gpus(), o.work(), o.remaining(), o.speed(), o.holding(), true, o.remainingIfRevoked()));
                } else {
                    jobs.add(o);
                    if (o.holding()) {
                        running.put(o.id(), o.speed());
                    }
                }
            }
            AppView without = new AppView(a.name(), jobs, a.elapsed(), a.demand(), a.fairRate(), a.idealSeconds(), a.sharedSeconds(), a.rho());
            double restore = j.spec().checkpointing() == null ? 0 : j.spec().checkpointing().restoreCostSeconds();
            double after = (FinishTimeEstimator.sharedWith(without, running, horizon) + restore) / a.idealSeconds();
            double untilFree = Math.max(0, j.admission().leaseExpiresAtMillis() - now) / 1000.0;
            if (v.speed() > 0) {
                untilFree = Math.min(untilFree, v.remaining() / v.speed());
            }
            return new double[] {after, Math.max(0, after - a.rho()), untilFree};
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

        /** Drops the items of jobs preempted, held or started by the reservation. */
        void dropItems() {
            for (List<Item> its : items.values()) {
                its.removeIf(it -> revoked.contains(it.job().id()) || held.contains(it.job().id()) || admitted.contains(it.job().id()));
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
                double tf = throughput(j.status(), null, cost);
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
        private double throughput(JobStatus job, Map<String, Integer> fewer, int gpus) {
            ShapeKey key = shapeKey(job.spec(), fewer);
            Double cached = findCache.get(key);
            if (cached != null) {
                return cached;
            }
            Map<String, Integer> counts = fewer == null ? fullCounts(job.spec()) : fewer;
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
            // the jobs that run in an allocation, as flags and speeds by position in app.jobs() (as fixedRunning's map):
            // an app values each prefix of its items, and a hash map per valuation cost more than the estimate
            List<JobView> jobs = app.jobs();
            boolean[] runs = new boolean[jobs.size()];
            double[] speeds = new double[jobs.size()];
            Map<String, Integer> index = jobs.size() > 8 ? new HashMap<>() : null;
            for (int x = 0; x < jobs.size(); x++) {
                JobView j = jobs.get(x);
                if (j.holding() && !j.revocable()) {
                    runs[x] = true;
                    speeds[x] = j.speed();
                }
                if (index != null) {
                    index.put(j.id(), x);
                }
            }
            double none = FinishTimeEstimator.sharedWith(app, runs, speeds, horizon);
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
                int x = position(jobs, index, it.job());
                for (int m = lo; m <= hi && prefix + it.cost(m) <= pool; m++) {
                    best = m;
                    runs[x] = true;
                    speeds[x] = it.keep() ? it.job().speed() : it.speed(m);
                    double v = none / FinishTimeEstimator.sharedWith(app, runs, speeds, horizon);
                    if (v > bestV + 1e-12) {
                        bestV = v;
                        List<Choice> cs = new ArrayList<>(chosen);
                        cs.add(new Choice(it, m));
                        out.add(new Option(prefix + it.cost(m), v, cs));
                    }
                }
                runs[x] = true;
                speeds[x] = it.keep() ? it.job().speed() : it.speed(best);
                chosen.add(new Choice(it, best));
                prefix += it.cost(best);
            }
            return out;
        }

        /** @return the position of a job of the app in its job list */
        private int position(List<JobView> jobs, Map<String, Integer> index, JobView job) {
            if (index != null) {
                return index.get(job.id());
            }
            for (int x = 0; x < jobs.size(); x++) {
                if (jobs.get(x).id().equals(job.id())) {
                    return x;
                }
            }
            throw new IllegalStateException("job " + job.id() + " is not a job of its app");
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
                placed.add(a.admission().placement());
                if (expiry != Admit.NO_LEASE) {
                    JobView v = c.item().job();
                    double speed = FinishTimeEstimator.sizeFraction(j.spec(), a.admission().counts()) * a.admission().placement().throughputFactor();
                    boolean onHeldNode = false;
                    for (String node : a.admission().placement().nodes()) {
                        onHeldNode |= heldNodes.contains(node);
                    }
                    ctx.setLease(j, expiry == now || onHeldNode ? now : alignedExpiry(j, v.work() - v.remaining(), speed, true));
                }
                return true;
            }
            return false;
        }

        void revoke(JobStatus j, String reason) {
            if (preempted.add(j.id())) {
                ctx.preempt(j, reason);
            }
        }

        /** @return true when the item's smallest size fits on the free GPUs as they are now */
        boolean fitsNow(Item it) {
            JobStatus j = it.job().status();
            Map<String, Integer> counts = it.elasticPodSet() == null ? fullCounts(j.spec()) : it.counts(it.minMembers());
            return it.minCost() <= ctx.capacity().freeGpus() && ctx.placement().find(j, counts, Map.of()).isPresent();
        }

        /** GPUs of the largest node seen (nodes are assumed alike). */
        int nodeSize() {
            return Math.max(ctx.capacity().largestFreeGpusOnOneNode(), maxNodeGpus.getOrDefault("max", 0));
        }

        /**
         * GPUs in use per node (running jobs not preempted in this round, plus this round's admissions), with the
         * candidates on each node.
         */
        Map<String, NodeUse> nodeUse(java.util.function.Predicate<JobStatus> candidate, java.util.function.Predicate<JobStatus> later) {
            Map<String, NodeUse> nodes = new TreeMap<>();
            for (JobStatus j : ctx.running()) {
                if (j.admission() == null || j.spec().totalGpus() == 0 || preempted.contains(j.id())) {
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
            for (Placement p : placed) {
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
        List<JobStatus> room(JobStatus job, Map<String, Integer> counts, java.util.function.Predicate<JobStatus> candidate,
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
            int size = nodeSize();
            if (members == 0 || perMember > size) {
                return null;
            }
            Map<String, NodeUse> nodes = nodeUse(candidate, j -> false);
            long freeSeen = 0;
            for (NodeUse n : nodes.values()) {
                freeSeen += Math.max(0, size - n.used);
            }
            long idleNodes = Math.max(0, ctx.capacity().freeGpus() - freeSeen) / size;
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

        /** Starts whatever still fits on free GPUs, apps by worst ρ, each app's items in order. */
        void fillFree(List<String> order, long expiry) {
            for (String app : order) {
                if (ctx.capacity().freeGpus() <= 0) {
                    return; // every item needs a GPU
                }
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
            Map<String, PendingReason> byApp = new HashMap<>(); // one reason per app: its jobs share it
            long total = ctx.capacity().totalGpus();
            for (JobStatus j : pendingGpuJobs) {
                if (explained.contains(j.id()) || admitted.contains(j.id())) {
                    continue;
                }
                if (j.spec().totalGpus() > total || neverFits(j)) {
                    ctx.tryAdmit(j); // the core's own reason (larger than any domain, no quota), refreshed
                } else {
                    String app = j.spec().jobSet();
                    PendingReason reason = byApp.get(app);
                    if (reason == null) {
                        String w = why.get(app);
                        AppView a = apps.get(app);
                        reason = PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, String.format(Locale.ROOT,
                                "Themis: app %s (rho %.2f) %s", app, a == null ? Double.NaN : a.rho(),
                                w == null ? "got no GPUs in this round's auction" : w));
                        byApp.put(app, reason);
                    }
                    ctx.leaveWaiting(j, reason);
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

    /** What a placement search depends on, per pod set: its member count and what each member asks for. */
    private record PodSetShape(int count, io.fairway.api.model.Resources resources, Map<String, String> nodeSelector,
                               List<io.fairway.api.model.Toleration> tolerations, io.fairway.api.job.TopologyRequest topology) {
    }

    /** A job's shape at some counts: equal shapes get the same placement (a record: no text built per job). */
    private record ShapeKey(String namespace, io.fairway.api.job.PlacementSensitivity sensitivity, List<PodSetShape> podSets) {
    }

    /** @param counts members per pod set, or null for every pod set at its full count */
    private static ShapeKey shapeKey(JobSpec spec, Map<String, Integer> counts) {
        List<PodSet> pss = spec.podSets();
        PodSetShape[] shapes = new PodSetShape[pss.size()];
        for (int i = 0; i < shapes.length; i++) {
            PodSet ps = pss.get(i);
            Integer c = counts == null ? Integer.valueOf(ps.count()) : counts.get(ps.name());
            shapes[i] = new PodSetShape(c == null ? -1 : c, ps.resources(), ps.nodeSelector(), ps.tolerations(), ps.topology());
        }
        return new ShapeKey(spec.namespace(), spec.sensitivity(), List.of(shapes));
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
        boolean guarantee = config.reserve() && !config.infiniteLeases() && worst != null
                && r.apps.get(worst).rho() >= config.reserveAboveRho() && reserve(r, worst, why);
        if (config.reserve() && !config.infiniteLeases() && worst != null && r.apps.get(worst).rho() < config.reserveAboveRho()
                && r.apps.get(worst).jobs().stream().noneMatch(JobView::holding)) {
            // An app that holds nothing sees its ρ grow by 1 ÷ T_id a second: ask for a round when it reaches the guard's
            // threshold. (An app that runs jobs may keep its ρ for hours; its next event brings the next round.)
            AppView w = r.apps.get(worst);
            r.ctx.wakeAt(r.now + Math.max(1_000, (long) Math.ceil((config.reserveAboveRho() - w.rho()) * w.idealSeconds() * 1000)));
        }
        if (config.reserve() && config.earlyRevoke() && !config.infiniteLeases()) {
            earlyForShortJobs(r, rank, worst, why);
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
            bids.add(new Bid(a, sizes, vals, guarantee && a.equals(worst)));
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
        List<Item> leftoverItems = new ArrayList<>();
        int nonBidders = leftoverOrder.size() - participants.size();
        for (int gi = 0; gi < 2; gi++) {
            List<Item> g = new ArrayList<>();
            for (String a : gi == 0 ? startOrder.subList(0, nonBidders) : startOrder.subList(nonBidders, startOrder.size())) {
                g.addAll(r.items.get(a));
            }
            leftoverItems.addAll(g);
        }
        {
            for (Item it : leftoverItems) {
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
        // Realise the starts: each on free GPUs if it fits, else on the GPUs of just enough expired leases that nobody
        // kept, on the nodes where they make a place for it (best-off apps' jobs first). Expired leases nobody needed
        // are renewed: revoking them would move work without helping anyone.
        long expiry = r.expiry();
        Set<String> unkept = new HashSet<>();
        for (JobStatus j : r.revocable) {
            if (!r.kept.contains(j.id())) {
                unkept.add(j.id());
            }
        }
        Comparator<JobStatus> bestOffFirst = Comparator.comparingDouble((JobStatus j) -> appOfJob.containsKey(j.id()) ? appOfJob.get(j.id()).rho() : 0)
                .thenComparingLong(JobStatus::sequence);
        for (Choice c : starts) {
            if (r.start(c, expiry) || r.admitted.contains(c.item().job().id())) {
                continue;
            }
            JobStatus j = c.item().job().status();
            Map<String, Integer> counts = c.item().elasticPodSet() == null ? fullCounts(j.spec()) : c.item().counts(c.members());
            double takerRho = r.apps.get(j.spec().jobSet()).rho();
            List<JobStatus> victims = r.room(j, counts, v -> unkept.contains(v.id())
                    && (!config.renewUnlessWorse() || r.rhoIfRevoked(v.spec().jobSet()) < takerRho), bestOffFirst);
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
        for (JobStatus j : r.revocable) {
            if (unkept.contains(j.id())) {
                r.keep(j);
            }
        }
        r.fillFree(startOrder, expiry);
        r.explainRest(why);
    }

    /** A node as the reservation sees it: its GPUs in use, and the jobs on it that better-off apps hold. */
    private static final class NodeUse {
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
     * Node-aware starvation guard for the worst app with a waiting job. When its smallest job cannot be placed on the
     * free GPUs, nodes are chosen that can host its members once the GPUs of better-off apps (lower ρ) on them are
     * freed: the nodes with the most free GPUs, then the most GPUs held under expired leases, then under running
     * leases. When the free GPUs and expired leases of those nodes suffice, just enough of those jobs are preempted
     * (they checkpoint at lease expiry) and the job is started at once. Otherwise the expired leases on those nodes are
     * neither renewed nor offered, and new jobs placed there get leases that expire at once, so the nodes drain within
     * one lease; every other node takes part in the auction as usual.
     *
     * @return true when the job fits on the free GPUs as they are: the auction then guarantees the app its smallest
     *     bundle
     */
    private boolean reserve(Round r, String worst, Map<String, String> why) {
        AppView app = r.apps.get(worst);
        Item item = null;
        for (Item it : r.items.get(worst)) {
            if (!it.keep() && (item == null || it.minCost() < item.minCost())) {
                item = it;
            }
        }
        if (item == null) {
            return false;
        }
        JobStatus job = item.job().status();
        Map<String, Integer> counts = item.elasticPodSet() == null ? fullCounts(job.spec()) : item.counts(item.minMembers());
        if (item.minCost() <= r.ctx.capacity().freeGpus() && r.ctx.placement().find(job, counts, Map.of()).isPresent()) {
            return true; // it fits now: the auction guarantees it its smallest bundle
        }
        long starvingAt = job.stateSinceMillis() + (long) Math.ceil(Math.min(r.leaseMillis, item.job().remaining() * 1000));
        if (r.now < starvingAt) {
            r.ctx.wakeAt(starvingAt); // the guard acts then, whether or not anything else happens
            return false; // not starving yet: it has waited neither a whole lease (every GPU offered again) nor its own length
        }
        Set<String> expired = new HashSet<>();
        for (JobStatus j : r.revocable) {
            expired.add(j.id());
        }
        java.util.function.Predicate<JobStatus> betterOff = j -> {
            AppView holder = r.apps.get(j.spec().jobSet());
            return holder != null && r.rhoIfRevoked(holder.name()) < app.rho() && !r.kept.contains(j.id());
        };
        Comparator<JobStatus> bestOffFirst = Comparator.comparingDouble((JobStatus j) -> r.apps.get(j.spec().jobSet()).rho())
                .thenComparingLong(JobStatus::sequence);
        List<JobStatus> victims = r.room(job, counts, j -> expired.contains(j.id()) && betterOff.test(j), bestOffFirst);
        if (victims != null) {
            for (JobStatus v : victims) {
                r.revoke(v, String.format(Locale.ROOT, "Themis: lease expired; its GPUs make room for app %s, which has the worst rho (%.2f)",
                        worst, app.rho()));
                r.revocable.remove(v);
            }
            if (r.start(new Choice(item, item.elasticPodSet() == null ? 0 : item.minMembers()), r.expiry())) {
                r.pool -= item.minCost();
                why.put(worst, "has the worst rho: its smallest job was started on GPUs of expired leases");
            }
            r.dropItems();
            return false;
        }
        // gather: nodes where better-off apps' leases (expired or not) will make room drain within one lease
        int perMember = 0;
        for (PodSet ps : job.spec().podSets()) {
            perMember = Math.max(perMember, (int) ps.resources().gpus());
        }
        int size = r.nodeSize();
        if (perMember == 0 || perMember > size) {
            return false;
        }
        Map<String, NodeUse> nodes = r.nodeUse(j -> expired.contains(j.id()) && betterOff.test(j),
                j -> j.admission().leaseExpiresAtMillis() != Admit.NO_LEASE && revocable(j) && betterOff.test(j));
        List<NodeUse> candidates = new ArrayList<>(nodes.values());
        candidates.sort(Comparator.comparingInt((NodeUse n) -> n.used).thenComparingInt(n -> n.used - n.revocableGpus)
                .thenComparingInt(n -> n.used - n.revocableGpus - n.leasedGpus).thenComparing(n -> n.name));
        int members = item.minCost() / perMember;
        int slots = 0;
        List<NodeUse> chosen = new ArrayList<>();
        for (NodeUse n : candidates) {
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
            return false; // better-off apps do not hold enough in one place: nothing to gather
        }
        for (NodeUse n : chosen) {
            r.heldNodes.add(n.name);
            for (JobStatus v : n.revocable) {
                if (r.revocable.remove(v)) {
                    r.held.add(v.id());
                    r.pool -= v.admission().placement().gpuCount();
                }
            }
        }
        r.dropItems();
        why.put(worst, String.format(Locale.ROOT, "has the worst rho; GPUs are being gathered for it on %s (needs %d GPUs)",
                r.heldNodes, item.minCost()));
        return false;
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
     * @return true when the job was started
     */
    private boolean earlyRevoke(Round r, AppView app, Item item, Map<String, Integer> counts, Map<String, String> why) {
        JobStatus job = item.job().status();
        Map<String, double[]> cost = new HashMap<>();
        java.util.function.Predicate<JobStatus> eligible = j -> {
            if (r.kept.contains(j.id()) || r.admitted.contains(j.id()) || j.spec().jobSet().equals(app.name()) || !revocable(j)
                    || j.admission().leaseExpiresAtMillis() == Admit.NO_LEASE) {
                return false;
            }
            double[] c = cost.computeIfAbsent(j.id(), id -> r.revocationCost(j));
            return c[0] < app.rho() + c[2] / app.idealSeconds();
        };
        Comparator<JobStatus> cheapestFirst = Comparator.comparingDouble((JobStatus j) -> cost.get(j.id())[1]).thenComparingLong(JobStatus::sequence);
        List<JobStatus> victims = r.room(job, counts, eligible, cheapestFirst);
        if (victims == null || victims.isEmpty()) {
            return false;
        }
        double waitSaved = 0;
        double lost = 0;
        for (JobStatus v : victims) {
            waitSaved = Math.max(waitSaved, cost.get(v.id())[2]);
            lost += cost.get(v.id())[1];
        }
        double gain = waitSaved / app.idealSeconds();
        if (gain <= lost) {
            return false;
        }
        for (JobStatus v : victims) {
            r.revoke(v, String.format(Locale.ROOT, "Themis: lease revoked early for app %s, which has the worst rho (%.2f; %.0f s more "
                    + "to wait for this lease)", app.name(), app.rho(), Math.max(0, v.admission().leaseExpiresAtMillis() - r.now) / 1000.0));
            if (!r.revocable.remove(v)) {
                r.pool += v.admission().placement().gpuCount(); // its GPUs were not offered: they are free now
            }
        }
        if (r.start(new Choice(item, item.elasticPodSet() == null ? 0 : item.minMembers()), r.expiry())) {
            r.pool -= item.minCost();
            why.put(app.name(), "has the worst rho: its smallest job was started on GPUs of leases revoked early");
            return true;
        }
        return false;
    }

    /**
     * Early revocation for short jobs: apps whose shortest waiting job is shorter than a lease and does not fit on
     * the free GPUs, by the ρ they would reach after waiting a lease (worst first), get the test of
     * {@link #earlyRevoke} at once, without first waiting as the starvation guard does: waiting for a lease to expire
     * would multiply such an app's ρ, while the holders of long jobs barely notice a revocation at their checkpoint.
     * Rounds run at events, so a short job that waited for the guard would often wait until the next event.
     */
    private void earlyForShortJobs(Round r, List<String> rank, String worst, Map<String, String> why) {
        List<Item> shortJobs = new ArrayList<>();
        for (String a : rank) {
            if (r.apps.get(a) == null) {
                continue;
            }
            for (Item it : r.items.get(a)) {
                if (!it.keep() && !r.admitted.contains(it.job().id())) {
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
        }).thenComparingLong(it -> it.job().status().sequence()));
        boolean started = false;
        for (Item it : shortJobs) {
            AppView a = r.apps.get(it.job().status().spec().jobSet());
            Map<String, Integer> counts = it.elasticPodSet() == null ? fullCounts(it.job().status().spec()) : it.counts(it.minMembers());
            started |= earlyRevoke(r, a, it, counts, why);
        }
        if (started) {
            r.dropItems();
        }
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
