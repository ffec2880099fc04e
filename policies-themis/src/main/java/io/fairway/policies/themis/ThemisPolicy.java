package io.fairway.policies.themis;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.FairnessInsight;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.policies.themis.Bids.Item;
import io.fairway.policies.themis.PartialAllocationAuction.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;


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
 * With {@link Config#starvationGuard()} the worst app with a waiting job is not starved by gangs larger than what one auction
 * offers: once its ρ has reached {@link Config#guardAboveRho()} (below that the auction alone decides, which serves
 * short jobs sooner) and its smallest job has waited a whole lease (or as long as it would take to run) and does not fit on the free GPUs, nodes are chosen where
 * better-off apps' leases can make a place for it; if their expired leases suffice, just enough are revoked and the job
 * starts; otherwise those nodes drain (their expired leases are neither renewed nor offered, and jobs placed there get
 * leases that expire at once) while the rest of the cluster is auctioned as usual.
 *
 * <p>A waiting job overtaken for long is <em>overdue</em> ({@link Config#overdueFactor()}): overdue jobs start before the
 * auction, oldest first, when they fit on the free GPUs; with {@link Config#guardOverdue()} the oldest one that does
 * not fit gets room as the worst app does (just enough expired leases revoked, else nodes gathered for it).
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
public final class ThemisPolicy implements SchedulingPolicy, FairnessInsight {
    /** How a job's progress is estimated. */
    public enum Estimate {
        /** The engine's reported progress (taken as the start of the current run), else elapsed time. */
        PROGRESS,
        /** Executed time × current speed, ignoring reported progress. */
        ELAPSED
    }

    /**
     * Themis' configuration. Build one with {@link #builder()} (from {@link #DEFAULTS}) or {@link #toBuilder()}; the
     * canonical constructor stays for binding.
     *
     * @param f the fairness knob in [0, 1]: the (1 − f) fraction of apps with the worst ρ bid (at least one)
     * @param leaseMinutes lease length in minutes of the scheduler clock ({@code +∞}: leases never expire)
     * @param hiddenPayments true: winners keep only the fraction c_i of their bundle
     * @param estimate how progress is estimated
     * @param starvationGuard true: the worst app's gang is not starved (see the class comment); configuration key
     *     {@code starvationGuard}, formerly {@code reserve}
     * @param method how the winners are determined
     * @param revokeWithoutCheckpoint true: jobs that do not checkpoint are revocable like the others, their whole work
     *     counted as lost in the ρ their app would have without them (so they are revoked only for an app whose ρ is
     *     worse even then, or when early revocation's gain exceeds that loss); false: their leases are always renewed,
     *     so only checkpointing jobs are ever preempted (for users who forbid killing such jobs)
     * @param renewUnlessWorse true: an expired lease is revoked only for an app whose ρ is worse than the holder's ρ
     *     would be without it; false: for any app that won GPUs
     * @param earlyRevoke true: the starvation guard may revoke leases that have not expired yet when waiting for their
     *     expiry would raise the worst app's ρ more than the revocation raises the holders' (see the class comment)
     * @param guardAboveRho the starvation guard acts only once the worst app's ρ has reached this (0: always);
     *     configuration key {@code guardAboveRho}, formerly {@code reserveAboveRho}
     * @param perJob true: an app's ρ is at least the worst ρ of its jobs, each measured on its own (its time since
     *     submission and to its end over its work on a share of cluster GPUs ÷ live jobs), in rankings, bids and
     *     revocations alike; false: the app's ρ alone (the paper's)
     * @param overdueFactor a waiting job is overdue once it has waited longer than this many times the time the whole
     *     cluster needs for the remaining work of the live jobs submitted before it, plus its own run when it
     *     announces one; the apps of overdue
     *     jobs start before the auction, oldest first, when they fit on the free GPUs ({@code +∞}: never)
     * @param worstJobFirst true: an app hands the GPUs it bids for to its jobs worst-off first (each job's own ρ if it
     *     waits another lease), kept and waiting jobs alike, so it may give its own expired lease to a worse-off job of
     *     its own; false: it keeps its running jobs first, then starts its waiting jobs shortest first
     * @param worstJobAboveRho with {@code worstJobFirst}, only the jobs whose own ρ (if they wait another lease) has
     *     reached this come first, worst first; the app's other jobs follow in the order without it (kept jobs, then
     *     waiting ones shortest first). 0: every job by its ρ
     * @param overdueOwnRun how much of its own remaining run a job that announces one may wait on top of the overdue
     *     bound's share of the work ahead of it (1: all of it, 0: none)
     * @param guardOverdue true: when the oldest overdue job does not fit on the free GPUs, the starvation guard makes
     *     room for it as it does for the worst app (just enough expired leases revoked, else nodes gathered); false:
     *     overdue jobs only start first when they fit; configuration key {@code guardOverdue}, formerly
     *     {@code overdueReserve}
     */
    public record Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean starvationGuard, Method method,
                         boolean revokeWithoutCheckpoint, boolean renewUnlessWorse, boolean earlyRevoke, double guardAboveRho,
                         boolean perJob, double overdueFactor, boolean worstJobFirst, double worstJobAboveRho, double overdueOwnRun,
                         boolean guardOverdue) {
        /** The ρ from which an app's jobs come first, worst first, by default. */
        public static final double DEFAULT_WORST_JOB_ABOVE_RHO = 0.0;

        /** How much of its own run a job may wait on top of the overdue bound, by default. */
        public static final double DEFAULT_OVERDUE_OWN_RUN = 1.0;

        /** Whether the guard makes room for the oldest overdue job, by default. */
        public static final boolean DEFAULT_GUARD_OVERDUE = true;

        /**
         * Whether the guard makes room for the oldest overdue job, by default.
         *
         * @deprecated use {@link #DEFAULT_GUARD_OVERDUE}
         */
        @Deprecated
        public static final boolean DEFAULT_OVERDUE_RESERVE = DEFAULT_GUARD_OVERDUE;

        /** Whether an app hands the GPUs it wins to its worst-off jobs first, by default. */
        public static final boolean DEFAULT_WORST_JOB_FIRST = true;

        /** The worst app's ρ from which the starvation guard acts, by default. */
        public static final double DEFAULT_GUARD_ABOVE_RHO = 2.0;

        /**
         * The worst app's ρ from which the starvation guard acts, by default.
         *
         * @deprecated use {@link #DEFAULT_GUARD_ABOVE_RHO}
         */
        @Deprecated
        public static final double DEFAULT_RESERVE_ABOVE_RHO = DEFAULT_GUARD_ABOVE_RHO;

        /** Whether the per-job term is on by default. */
        public static final boolean DEFAULTS_PER_JOB = true;

        /** The overdue factor by default (the same as in {@link #DEFAULTS}). */
        public static final double DEFAULT_OVERDUE_FACTOR = 1.5;

        /**
         * The defaults: f = 0 (every app with demand bids), 15-minute leases, hidden payments, progress estimates, the
         * starvation guard, AUTO, jobs without checkpointing revocable at the price of their work (a revocation restarts
         * them from zero, and that loss counts in the holder's ρ, so it happens only for an app whose ρ is worse even
         * then), leases renewed unless a worse-off app needs them, early revocation for the worst app, a job overdue
         * once it has waited 1.5 × the cluster time of the work submitted before it plus its own run, and room made for
         * the oldest overdue job.
         */
        public static final Config DEFAULTS = new Config(0.0, 15, true, Estimate.PROGRESS, true, Method.AUTO, true, true, true,
                DEFAULT_GUARD_ABOVE_RHO, DEFAULTS_PER_JOB, DEFAULT_OVERDUE_FACTOR, DEFAULT_WORST_JOB_FIRST, DEFAULT_WORST_JOB_ABOVE_RHO,
                DEFAULT_OVERDUE_OWN_RUN, DEFAULT_GUARD_OVERDUE);

        /**
         * With the default {@code worstJobAboveRho}, {@code overdueOwnRun} and {@code guardOverdue}.
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param starvationGuard the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         * @param renewUnlessWorse renew expired leases unless a worse-off app needs them
         * @param earlyRevoke early revocation for short jobs
         * @param guardAboveRho the worst app's ρ from which the guard acts
         * @param perJob the per-job term
         * @param overdueFactor the overdue bound
         * @param worstJobFirst an app's worst-off jobs first
         * @deprecated use {@link #builder()}
         */
        @Deprecated
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean starvationGuard, Method method,
                      boolean revokeWithoutCheckpoint, boolean renewUnlessWorse, boolean earlyRevoke, double guardAboveRho,
                      boolean perJob, double overdueFactor, boolean worstJobFirst) {
            this(f, leaseMinutes, hiddenPayments, estimate, starvationGuard, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke,
                    guardAboveRho, perJob, overdueFactor, worstJobFirst, DEFAULT_WORST_JOB_ABOVE_RHO, DEFAULT_OVERDUE_OWN_RUN,
                    DEFAULT_GUARD_OVERDUE);
        }

        /**
         * With the default order of an app's jobs ({@link #DEFAULT_WORST_JOB_FIRST}).
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param starvationGuard the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         * @param renewUnlessWorse renew expired leases unless a worse-off app needs them
         * @param earlyRevoke early revocation for short jobs
         * @param guardAboveRho the worst app's ρ from which the guard acts
         * @param perJob the per-job term
         * @param overdueFactor the overdue bound
         * @deprecated use {@link #builder()}
         */
        @Deprecated
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean starvationGuard, Method method,
                      boolean revokeWithoutCheckpoint, boolean renewUnlessWorse, boolean earlyRevoke, double guardAboveRho,
                      boolean perJob, double overdueFactor) {
            this(f, leaseMinutes, hiddenPayments, estimate, starvationGuard, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke,
                    guardAboveRho, perJob, overdueFactor, DEFAULT_WORST_JOB_FIRST);
        }

        /**
         * With the default per-job term and overdue factor.
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param starvationGuard the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         * @param renewUnlessWorse renew expired leases unless a worse-off app needs them
         * @param earlyRevoke early revocation for short jobs
         * @param guardAboveRho the worst app's ρ from which the guard acts
         * @deprecated use {@link #builder()}
         */
        @Deprecated
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean starvationGuard, Method method,
                      boolean revokeWithoutCheckpoint, boolean renewUnlessWorse, boolean earlyRevoke, double guardAboveRho) {
            this(f, leaseMinutes, hiddenPayments, estimate, starvationGuard, method, revokeWithoutCheckpoint, renewUnlessWorse, earlyRevoke,
                    guardAboveRho, DEFAULTS_PER_JOB, DEFAULT_OVERDUE_FACTOR);
        }

        /**
         * With early revocation (true) and the guard from ρ = {@value #DEFAULT_GUARD_ABOVE_RHO}.
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param starvationGuard the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         * @param renewUnlessWorse renew expired leases unless a worse-off app needs them
         * @deprecated use {@link #builder()}
         */
        @Deprecated
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean starvationGuard, Method method,
                      boolean revokeWithoutCheckpoint, boolean renewUnlessWorse) {
            this(f, leaseMinutes, hiddenPayments, estimate, starvationGuard, method, revokeWithoutCheckpoint, renewUnlessWorse, true,
                    DEFAULT_GUARD_ABOVE_RHO, DEFAULTS_PER_JOB, DEFAULT_OVERDUE_FACTOR);
        }

        /**
         * Without {@code renewUnlessWorse} (true).
         *
         * @param f the fairness knob
         * @param leaseMinutes lease length in minutes
         * @param hiddenPayments hidden payments
         * @param estimate the estimate
         * @param starvationGuard the starvation guard
         * @param method winner determination
         * @param revokeWithoutCheckpoint revoke jobs that do not checkpoint
         * @deprecated use {@link #builder()}
         */
        @Deprecated
        public Config(double f, double leaseMinutes, boolean hiddenPayments, Estimate estimate, boolean starvationGuard, Method method,
                      boolean revokeWithoutCheckpoint) {
            this(f, leaseMinutes, hiddenPayments, estimate, starvationGuard, method, revokeWithoutCheckpoint, true, true,
                    DEFAULT_GUARD_ABOVE_RHO, DEFAULTS_PER_JOB, DEFAULT_OVERDUE_FACTOR);
        }

        /** Validates. */
        public Config {
            InvalidSpecException.check(f >= 0 && f <= 1, "policy.themis.f", f, "policy themis: f must be in [0, 1], was %s", f);
            InvalidSpecException.check(leaseMinutes > 0, "policy.themis.leaseMinutes", leaseMinutes,
                    "policy themis: leaseMinutes must be > 0 (or infinite), was %s", leaseMinutes);
            InvalidSpecException.check(estimate != null, "policy.themis.estimate", null, "policy themis: estimate is required");
            InvalidSpecException.check(method != null, "policy.themis.method", null, "policy themis: method is required");
            InvalidSpecException.check(guardAboveRho >= 0, "policy.themis.guardAboveRho", guardAboveRho,
                    "policy themis: guardAboveRho must be >= 0, was %s", guardAboveRho);
            InvalidSpecException.check(overdueFactor >= 0, "policy.themis.overdueFactor", overdueFactor,
                    "policy themis: overdueFactor must be >= 0 (or infinite), was %s", overdueFactor);
            InvalidSpecException.check(worstJobAboveRho >= 0 && !Double.isNaN(worstJobAboveRho), "policy.themis.worstJobAboveRho", worstJobAboveRho,
                    "policy themis: worstJobAboveRho must be >= 0, was %s", worstJobAboveRho);
            InvalidSpecException.check(overdueOwnRun >= 0 && !Double.isInfinite(overdueOwnRun), "policy.themis.overdueOwnRun", overdueOwnRun,
                    "policy themis: overdueOwnRun must be a finite number >= 0, was %s", overdueOwnRun);
        }

        /** @return a builder from {@link #DEFAULTS} */
        public static Builder builder() {
            return DEFAULTS.toBuilder();
        }

        /** @return a builder from this configuration */
        public Builder toBuilder() {
            return new Builder(this);
        }

        /** @return true when leases never expire */
        public boolean infiniteLeases() {
            return Double.isInfinite(leaseMinutes) || leaseMinutes * 60_000 >= Long.MAX_VALUE / 4.0;
        }

        /** @return the lease length in milliseconds ({@link Admit#NO_LEASE} when infinite) */
        public long leaseMillis() {
            return infiniteLeases() ? Admit.NO_LEASE : Math.max(1, Math.round(leaseMinutes * 60_000));
        }

        /**
         * @return {@link #starvationGuard()}
         * @deprecated renamed {@link #starvationGuard()}
         */
        @Deprecated
        public boolean reserve() {
            return starvationGuard;
        }

        /**
         * @return {@link #guardAboveRho()}
         * @deprecated renamed {@link #guardAboveRho()}
         */
        @Deprecated
        public double reserveAboveRho() {
            return guardAboveRho;
        }

        /**
         * @return {@link #guardOverdue()}
         * @deprecated renamed {@link #guardOverdue()}
         */
        @Deprecated
        public boolean overdueReserve() {
            return guardOverdue;
        }

        /** @param v f @return a copy */
        public Config withF(double v) {
            return toBuilder().f(v).build();
        }

        /** @param v lease minutes @return a copy */
        public Config withLeaseMinutes(double v) {
            return toBuilder().leaseMinutes(v).build();
        }

        /** @param v hidden payments @return a copy */
        public Config withHiddenPayments(boolean v) {
            return toBuilder().hiddenPayments(v).build();
        }

        /**
         * @param v the starvation guard
         * @return a copy
         * @deprecated use {@code toBuilder().starvationGuard(v).build()}
         */
        @Deprecated
        public Config withReserve(boolean v) {
            return toBuilder().starvationGuard(v).build();
        }

        /** Builds a {@link Config} by name, field by field; {@link #build()} validates as the constructor does. */
        public static final class Builder {
            private double f;
            private double leaseMinutes;
            private boolean hiddenPayments;
            private Estimate estimate;
            private boolean starvationGuard;
            private Method method;
            private boolean revokeWithoutCheckpoint;
            private boolean renewUnlessWorse;
            private boolean earlyRevoke;
            private double guardAboveRho;
            private boolean perJob;
            private double overdueFactor;
            private boolean worstJobFirst;
            private double worstJobAboveRho;
            private double overdueOwnRun;
            private boolean guardOverdue;

            private Builder(Config c) {
                f = c.f;
                leaseMinutes = c.leaseMinutes;
                hiddenPayments = c.hiddenPayments;
                estimate = c.estimate;
                starvationGuard = c.starvationGuard;
                method = c.method;
                revokeWithoutCheckpoint = c.revokeWithoutCheckpoint;
                renewUnlessWorse = c.renewUnlessWorse;
                earlyRevoke = c.earlyRevoke;
                guardAboveRho = c.guardAboveRho;
                perJob = c.perJob;
                overdueFactor = c.overdueFactor;
                worstJobFirst = c.worstJobFirst;
                worstJobAboveRho = c.worstJobAboveRho;
                overdueOwnRun = c.overdueOwnRun;
                guardOverdue = c.guardOverdue;
            }

            /** @param v {@link Config#f()} @return this */
            public Builder f(double v) {
                f = v;
                return this;
            }

            /** @param v {@link Config#leaseMinutes()} @return this */
            public Builder leaseMinutes(double v) {
                leaseMinutes = v;
                return this;
            }

            /** @param v {@link Config#hiddenPayments()} @return this */
            public Builder hiddenPayments(boolean v) {
                hiddenPayments = v;
                return this;
            }

            /** @param v {@link Config#estimate()} @return this */
            public Builder estimate(Estimate v) {
                estimate = v;
                return this;
            }

            /** @param v {@link Config#starvationGuard()} @return this */
            public Builder starvationGuard(boolean v) {
                starvationGuard = v;
                return this;
            }

            /** @param v {@link Config#method()} @return this */
            public Builder method(Method v) {
                method = v;
                return this;
            }

            /** @param v {@link Config#revokeWithoutCheckpoint()} @return this */
            public Builder revokeWithoutCheckpoint(boolean v) {
                revokeWithoutCheckpoint = v;
                return this;
            }

            /** @param v {@link Config#renewUnlessWorse()} @return this */
            public Builder renewUnlessWorse(boolean v) {
                renewUnlessWorse = v;
                return this;
            }

            /** @param v {@link Config#earlyRevoke()} @return this */
            public Builder earlyRevoke(boolean v) {
                earlyRevoke = v;
                return this;
            }

            /** @param v {@link Config#guardAboveRho()} @return this */
            public Builder guardAboveRho(double v) {
                guardAboveRho = v;
                return this;
            }

            /** @param v {@link Config#perJob()} @return this */
            public Builder perJob(boolean v) {
                perJob = v;
                return this;
            }

            /** @param v {@link Config#overdueFactor()} @return this */
            public Builder overdueFactor(double v) {
                overdueFactor = v;
                return this;
            }

            /** @param v {@link Config#worstJobFirst()} @return this */
            public Builder worstJobFirst(boolean v) {
                worstJobFirst = v;
                return this;
            }

            /** @param v {@link Config#worstJobAboveRho()} @return this */
            public Builder worstJobAboveRho(double v) {
                worstJobAboveRho = v;
                return this;
            }

            /** @param v {@link Config#overdueOwnRun()} @return this */
            public Builder overdueOwnRun(double v) {
                overdueOwnRun = v;
                return this;
            }

            /** @param v {@link Config#guardOverdue()} @return this */
            public Builder guardOverdue(boolean v) {
                guardOverdue = v;
                return this;
            }

            /**
             * @return the configuration
             * @throws InvalidSpecException naming the first invalid field and its value
             */
            public Config build() {
                return new Config(f, leaseMinutes, hiddenPayments, estimate, starvationGuard, method, revokeWithoutCheckpoint,
                        renewUnlessWorse, earlyRevoke, guardAboveRho, perJob, overdueFactor, worstJobFirst, worstJobAboveRho,
                        overdueOwnRun, guardOverdue);
            }
        }
    }

    private final String name;
    private final Config config;
    /** The last planned round's apps and bids, turned into a {@link FairnessInsight.Report} only when someone asks. */
    private volatile Seen lastRound;
    /** Whether rounds keep what cannot have changed between them. */
    private final boolean keepAcrossRounds;
    /**
     * What the last round's estimates left for the next ({@link FinishTimeEstimator.Kept}); a round takes it and puts
     * it back, so a round that runs while another holds it (one policy shared by two schedulers) starts afresh.
     */
    private final AtomicReference<FinishTimeEstimator.Kept> kept = new AtomicReference<>();

    /** What a report needs of a round, without holding on to the round's context. */
    private record Seen(long now, double horizon, Map<String, FinishTimeEstimator.AppView> apps, Map<String, long[]> bidSizes) {
    }

    /**
     * @param name the policy name
     * @param config its configuration
     */
    public ThemisPolicy(String name, Config config) {
        this(name, config, true);
    }

    /**
     * @param name the policy name
     * @param config its configuration
     * @param keepAcrossRounds true: what a job's estimate needs that cannot have changed since the last round is kept
     *     ({@link FinishTimeEstimator.Kept}); false: everything is computed afresh at every round (the same decisions)
     */
    ThemisPolicy(String name, Config config, boolean keepAcrossRounds) {
        this.name = name;
        this.config = config;
        this.keepAcrossRounds = keepAcrossRounds;
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the configuration */
    public Config config() {
        return config;
    }

    // ---------------------------------------------------------------- the round

    @Override
    public void plan(PolicyContext ctx) {
        List<JobStatus> pendingGpuJobs = startJobsWithoutGpus(ctx);
        if (pendingGpuJobs.isEmpty()) {
            PlanState.renewAllExpired(ctx, config); // nobody waits: every expired lease is renewed (the last report stands; it says when it was made)
            return;
        }
        FinishTimeEstimator.Kept k = null;
        if (keepAcrossRounds) {
            k = kept.getAndSet(null);
            if (k == null) {
                k = new FinishTimeEstimator.Kept();
            }
        }
        PlanState r;
        try {
            r = new PlanState(ctx, config, pendingGpuJobs, k);
        } finally {
            if (k != null) {
                kept.set(k);
            }
        }
        Map<String, long[]> bidSizes = Map.of();
        try {
            bidSizes = plan(r);
        } finally {
            lastRound = new Seen(r.now, r.horizon, r.apps, bidSizes);
        }
    }

    /**
     * A round in which no job waits: {@link #plan} only renews every expired lease (those that may not be revoked
     * first), each from the job's own estimate, so the answer needs only the expired jobs. A simulator with a lease
     * expiring every few minutes on each running job spends most of its rounds here.
     */
    @Override
    public Map<String, Long> renewWhenNothingWaits(long nowMillis, List<JobStatus> expired) {
        return PlanState.renewalsOfExpired(nowMillis, config, expired);
    }

    /**
     * The apps and jobs of the last planned round with their ρ and bids. ρ of a job is its own finish-time fairness
     * if it keeps its current speed (a job that holds nothing: after the lease horizon), as the auction prices it.
     */
    @Override
    public FairnessInsight.Report lastReport() {
        Seen r = lastRound;
        if (r == null) {
            return null;
        }
        List<FairnessInsight.App> apps = new ArrayList<>();
        for (FinishTimeEstimator.AppView a : r.apps().values()) {
            List<FairnessInsight.Job> jobs = new ArrayList<>();
            for (FinishTimeEstimator.JobView j : a.jobs()) {
                double until = j.holding() && j.speed() > 0 ? j.remaining() / j.speed() : r.horizon() + j.remaining();
                jobs.add(new FairnessInsight.Job(j.id(), FinishTimeEstimator.jobRho(j, until), j.gpus(), j.holding(), j.remaining()));
            }
            long[] bid = r.bidSizes().get(a.name());
            apps.add(new FairnessInsight.App(a.name(), a.rho(), a.sharedSeconds(), a.idealSeconds(), bid != null, bid == null ? 0 : bid[0],
                    bid == null ? 0 : bid[1], jobs));
        }
        apps.sort(Comparator.comparingDouble((FairnessInsight.App a) -> -a.rho()).thenComparing(FairnessInsight.App::name));
        return new FairnessInsight.Report(name, r.now(), apps);
    }

    /**
     * The steps of a plan, in order; each reads the plan's inputs and the market, and returns what the next steps need.
     * The steps before the auction return what they take from the offer ({@link Offer.Taken}); it is applied here, and
     * only here, before the next step reads the offer.
     *
     * @return the bidders' bundle sizes (empty when the auction did not run), for {@link #lastReport}
     */
    private static Map<String, long[]> plan(PlanState r) {
        Offer offer = r.offer;
        Leases.renew(r, r.renewed); // revoking them would lose all their work: they do not checkpoint
        r.offerItems(Bids.items(r));
        offer.apply(r.startOverdue());
        Map<String, String> why = new HashMap<>();
        offer.apply(StarvationGuard.protectOverdue(r, why));
        List<String> rank = worstFirst(r);
        String worst = worstWithDemand(r, rank);
        offer.apply(keepForAppsWorseThan(r, rank, worst));
        if (worst != null) {
            rank = new ArrayList<>(rank.subList(rank.indexOf(worst), rank.size()));
        }
        StarvationGuard.Protection guard = StarvationGuard.protect(r, worst, why);
        offer.apply(guard.taken());
        offer.apply(StarvationGuard.revokeEarlyForShortJobs(r, rank, why));
        if (offer.pool() <= 0) { // nothing left to offer (the guard's starts may have taken more than the estimate of what was free)
            r.explainRest(Map.of());
            return Map.of();
        }
        LeaseAuction auction = new LeaseAuction(r, rank, offer.pool()).run(worst, guard.guarantee(), why);
        long expiry = r.expiry();
        Leases.startRevokingExpired(r, offer.leases(), auction.starts(), expiry);
        r.fillFree(auction.startOrder(), expiry);
        r.explainRest(why);
        return auction.bidSizes();
    }

    /**
     * Jobs without GPUs take no part in GPU auctions: they start in submission order.
     *
     * @return the pending jobs that use GPUs, in the order of {@link PolicyContext#pending()}
     */
    private static List<JobStatus> startJobsWithoutGpus(PolicyContext ctx) {
        List<JobStatus> gpuJobs = new ArrayList<>();
        for (JobStatus j : ctx.pending()) {
            if (j.spec().totalGpus() == 0) {
                ctx.tryAdmit(j);
            } else {
                gpuJobs.add(j);
            }
        }
        return gpuJobs;
    }

    /** @return the apps with demand, worst ρ first (then by name) */
    private static List<String> worstFirst(PlanState r) {
        List<String> rank = new ArrayList<>(r.items.keySet());
        PlanState.sortByKey(rank, a -> -r.apps.get(a).rho());
        return rank;
    }

    /** @return the worst app with a job to start (rather than only jobs to keep), or null */
    private static String worstWithDemand(PlanState r, List<String> rank) {
        for (String a : rank) {
            for (Item it : r.items.get(a)) {
                if (!it.keep()) {
                    return a;
                }
            }
        }
        return null;
    }

    /**
     * Apps worse off than the worst app with pending demand only hold jobs: they keep them, outside the auction (the
     * worst must not be robbed for a better-off app's gang). Without such a worst app, every app keeps its jobs.
     *
     * @return the items kept, for the plan to take their GPUs from the offer
     */
    private static Offer.Taken keepForAppsWorseThan(PlanState r, List<String> rank, String worst) {
        List<Item> kept = new ArrayList<>();
        for (String a : rank) {
            if (a.equals(worst)) {
                break;
            }
            for (Item it : r.items.get(a)) {
                if (it.keep()) {
                    r.keep(it.job().status());
                    kept.add(it);
                }
            }
        }
        return Offer.Taken.items(kept);
    }
}
