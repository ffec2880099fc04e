package io.fairway.policies.themis;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.policies.themis.Bids.Choice;
import io.fairway.policies.themis.Bids.Item;
import io.fairway.policies.themis.FinishTimeEstimator.AppView;
import io.fairway.policies.themis.FinishTimeEstimator.JobView;
import io.fairway.policies.themis.ThemisPolicy.Config;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The state of one Themis plan ({@link ThemisPolicy#plan}), in three parts:
 * <ul>
 *   <li>its inputs, fixed once built: the context, the time, the lease, the apps with their ρ, the waiting jobs that use
 *       GPUs, the expired leases that are renewed outright, the overdue jobs;</li>
 *   <li>the market: the items each app bids with ({@link Bids#items}, set once and then only trimmed of jobs already
 *       decided), and the {@link Offer} — the GPUs on offer and the expired leases that make them up; the steps before
 *       the auction (overdue starts, the starvation guard, the keeps of apps worse off than the worst with demand)
 *       return what they take from it ({@link Offer.Taken}) and the plan applies it, so the offer changes in one
 *       place;</li>
 *   <li>the decisions so far, written only through its actions ({@link #keep}, {@link #start}, {@link #revoke},
 *       {@link #gather}) and read through {@link #kept}, {@link #admitted}, {@link #preempted}: keep a lease, start a
 *       job with a lease aligned to its checkpoints, revoke a lease, gather nodes for a job.</li>
 * </ul>
 * Each step takes the state and its own inputs and returns what it decides for the steps after it (what it took from
 * the offer, the guard whether the auction guarantees the worst app a bundle, the auction the starts and their order);
 * see {@link ThemisPolicy}.
 */
final class PlanState {
    /** Leases aligned with checkpoints end this long after the checkpoint, against rounding of estimates. */
    static final double CHECKPOINT_MARGIN_SECONDS = 2;

    /** Horizon over which bids value a lease, when leases never expire. */
    private static final double INFINITE_LEASE_HORIZON_SECONDS = 24 * 3600;

    // the inputs, fixed once built
    final Config config;
    final PolicyContext ctx;
    final long now;
    final long leaseMillis;
    final double horizon;
    /** Apps by name, in name order (a hash map over the estimator's sorted map: lookups are per job and app). */
    final Map<String, AppView> apps;
    /** The waiting jobs that use GPUs, in the order of {@link PolicyContext#pending()}. */
    final List<JobStatus> pendingGpuJobs;
    /** Expired leases of jobs that may not be revoked: renewed outright. */
    final List<JobStatus> renewed;
    /** Overdue waiting jobs ({@link Config#overdueFactor()}), oldest first: they start first when they fit on free GPUs. */
    final List<JobView> overdue;

    // the market: the apps' items, and the offer (expired leases that may be revoked, and the GPUs on offer: free plus theirs)
    /** Items by app, in name order (from {@link Bids#items}, in app order; hashed for the lookups); empty until offered. */
    Map<String, List<Item>> items = Map.of();
    /** The GPUs on offer and the expired leases that make them up: steps read it, the plan alone applies their takes. */
    final Offer offer;

    // the decisions so far: written only by keep, start, revoke and gather
    /** Jobs whose expired lease was renewed in this plan. */
    private final Set<String> kept = new HashSet<>();
    /** Jobs started in this plan. */
    private final Set<String> admitted = new HashSet<>();
    /** Jobs the core was asked to admit in this plan (admitted or given the core's reason): not explained again. */
    private final Tried explained = new Tried();
    /** Jobs whose expired lease is neither renewed nor offered: their nodes are being gathered. */
    private final Set<String> gathering = new HashSet<>();
    /** Nodes being gathered for the worst app: jobs started there get leases that expire at once. */
    private final Set<String> gatheringNodes = new HashSet<>();
    /** Placements admitted in this plan. */
    private final List<Placement> placed = new ArrayList<>();
    /** Jobs preempted in this plan. */
    private final Set<String> preempted = new HashSet<>();
    /** Cache of {@link #rhoIfRevoked}: a function of the inputs alone. */
    private final Map<String, Double> rhoIfRevoked = new HashMap<>();
    /** GPUs of the largest node seen under a running job (the highest GPU index used + 1); -1 until first asked for. */
    private int maxNodeGpus = -1;

    /** A round in which no job that uses GPUs waits: it only renews expired leases ({@link #renewAllExpired}). */
    private PlanState(long now, Config config) {
        this.config = config;
        this.ctx = null;
        this.now = now;
        this.leaseMillis = config.leaseMillis();
        this.horizon = config.infiniteLeases() ? INFINITE_LEASE_HORIZON_SECONDS : leaseMillis / 1000.0;
        this.apps = Map.of();
        this.pendingGpuJobs = List.of();
        this.renewed = List.of();
        this.overdue = List.of();
        this.offer = new Offer(0, List.of());
    }

    /**
     * The whole round when no job that uses GPUs waits: every expired lease is renewed ({@link #renewalsOfExpired}).
     *
     * @param ctx the round's context
     * @param config the configuration
     */
    static void renewAllExpired(PolicyContext ctx, Config config) {
        Map<String, JobStatus> byId = new HashMap<>();
        for (JobStatus j : ctx.holding()) {
            byId.put(j.id(), j);
        }
        renewalsOfExpired(ctx.now(), config, ctx.holding()).forEach((id, expiry) -> ctx.setLease(byId.get(id), expiry));
    }

    /**
     * The renewals of a round in which no job that uses GPUs waits: every expired lease is renewed (those that may not
     * be revoked first, then the revocable ones, each in the order given), with the lease a full round would give.
     * Only the jobs whose leases expired are estimated: a lease's end depends on the job's own work, progress and
     * speed, not on the other jobs, so the estimates of the others (and the apps' ρ) are not needed. The engine asks
     * for the same answer without a round when nothing waits at all ({@link ThemisPolicy#renewWhenNothingWaits}).
     *
     * @param now the round's time
     * @param config the configuration
     * @param holding jobs holding resources, as of {@code now}, in the order of {@link PolicyContext#holding()}
     *     (any that hold no GPU or whose lease has not expired are passed over)
     * @return each renewed job's new lease expiry, in the order they are renewed
     */
    static Map<String, Long> renewalsOfExpired(long now, Config config, List<JobStatus> holding) {
        PlanState r = new PlanState(now, config);
        Map<String, Long> out = new LinkedHashMap<>();
        List<JobStatus> revocableExpired = new ArrayList<>();
        for (JobStatus j : holding) {
            if (j.admission() == null || j.spec().totalGpus() == 0 || !j.admission().leaseExpired(now)) {
                continue;
            }
            if (r.revocable(j)) {
                revocableExpired.add(j);
            } else {
                out.putIfAbsent(j.id(), r.estimatedExpiry(j));
            }
        }
        for (JobStatus j : revocableExpired) {
            out.putIfAbsent(j.id(), r.estimatedExpiry(j));
        }
        return out;
    }

    /** The lease end {@link #keep} gives, from the job's own estimate (it does not depend on the jobs around it). */
    private long estimatedExpiry(JobStatus j) {
        JobView v = FinishTimeEstimator.view(j, now, config.estimate(), this::revocable);
        return alignedExpiry(j, v.work() - v.remaining(), v.speed(), false);
    }

    /**
     * @param ctx the round's context
     * @param config the configuration
     * @param pendingGpu the pending jobs that use GPUs, in the order of {@link PolicyContext#pending()}
     */
    PlanState(PolicyContext ctx, Config config, List<JobStatus> pendingGpu) {
        this(ctx, config, pendingGpu, null);
    }

    /**
     * @param ctx the round's context
     * @param config the configuration
     * @param pendingGpu the pending jobs that use GPUs, in the order of {@link PolicyContext#pending()}
     * @param kept what the estimates of earlier rounds left that cannot have changed (null: compute all afresh)
     */
    PlanState(PolicyContext ctx, Config config, List<JobStatus> pendingGpu, FinishTimeEstimator.Kept kept) {
        this.config = config;
        this.ctx = ctx;
        this.now = ctx.now();
        this.leaseMillis = config.leaseMillis();
        this.horizon = config.infiniteLeases() ? INFINITE_LEASE_HORIZON_SECONDS : leaseMillis / 1000.0;
        List<JobStatus> live = new ArrayList<>();
        List<JobStatus> renewedNow = new ArrayList<>();
        List<JobStatus> offered = new ArrayList<>();
        for (JobStatus j : ctx.holding()) {
            if (j.admission() == null || j.spec().totalGpus() == 0) {
                continue;
            }
            live.add(j);
            if (j.admission().leaseExpired(now)) {
                if (revocable(j)) {
                    offered.add(j);
                } else {
                    renewedNow.add(j);
                }
            }
        }
        int holdingLive = live.size();
        live.addAll(pendingGpu);
        this.pendingGpuJobs = List.copyOf(pendingGpu);
        this.renewed = List.copyOf(renewedNow);
        List<JobView> views = new ArrayList<>(live.size());
        this.apps = FinishTimeEstimator.appsInOrder(live, now, ctx.capacity().totalGpus(), config.estimate(), this::revocable,
                config.perJob(), views, kept);
        if (kept != null) {
            maxNodeGpus = kept.heldHighestGpuPlusOne; // what nodeSize would scan the holding jobs for, read as the estimates were made
        }
        this.offer = new Offer(ctx.capacity().freeGpus(), offered);
        this.overdue = findOverdue(views, holdingLive);
    }

    /**
     * Puts the apps' items on the market (once, after {@link Bids#items}); the plan owns the map from then on and trims
     * it of jobs decided before the auction.
     *
     * @param byApp items by app, in app order (a map the caller no longer uses)
     */
    void offerItems(Map<String, List<Item>> byApp) {
        items = byApp;
    }

    /**
     * The live jobs in submission order: the holding jobs (the first {@code holdingLive} views) and the pending ones
     * each come in that order from the engine, so the two runs are merged; a context that lists them otherwise is
     * sorted as a whole. Either way the order is the one {@link io.fairway.api.job.JobOrder#SUBMISSION} gives (a total
     * order: jobs are told apart by their sequence).
     */
    static List<JobView> inSubmissionOrder(List<JobView> views, int holdingLive) {
        // JobOrder.SUBMISSION's keys (submit time, then sequence), read once per job rather than at every comparison
        int n = views.size();
        long[] submit = new long[n];
        long[] sequence = new long[n];
        for (int i = 0; i < n; i++) {
            JobStatus s = views.get(i).status();
            submit[i] = s.spec().submitTimeMillis();
            sequence[i] = s.sequence();
        }
        if (!sorted(submit, sequence, 0, holdingLive) || !sorted(submit, sequence, holdingLive, n)) {
            int[] idx = submissionPositions(submit, sequence);
            List<JobView> all = new ArrayList<>(n);
            for (int i : idx) {
                all.add(views.get(i));
            }
            return all;
        }
        List<JobView> all = new ArrayList<>(n);
        int a = 0;
        int b = holdingLive;
        while (a < holdingLive || b < n) {
            if (b >= n || (a < holdingLive && compareKeys(submit, sequence, a, b) <= 0)) {
                all.add(views.get(a++));
            } else {
                all.add(views.get(b++));
            }
        }
        return all;
    }

    /**
     * The positions in the order of the keys (submit time, then sequence), ties in position order (a stable sort).
     * When the keys' ranges and the positions fit one long together, each position is packed under its keys and the
     * longs sorted as primitives (the same order: keys first, then position); otherwise positions are merge-sorted.
     */
    static int[] submissionPositions(long[] submit, long[] sequence) {
        int n = submit.length;
        int[] idx = new int[n];
        if (n == 0) {
            return idx;
        }
        long minSubmit = Long.MAX_VALUE;
        long maxSubmit = Long.MIN_VALUE;
        long minSequence = Long.MAX_VALUE;
        long maxSequence = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            minSubmit = Math.min(minSubmit, submit[i]);
            maxSubmit = Math.max(maxSubmit, submit[i]);
            minSequence = Math.min(minSequence, sequence[i]);
            maxSequence = Math.max(maxSequence, sequence[i]);
        }
        long submitRange = maxSubmit - minSubmit; // negative when the difference overflows
        long sequenceRange = maxSequence - minSequence;
        int positionBits = 64 - Long.numberOfLeadingZeros(n - 1);
        int sequenceBits = 64 - Long.numberOfLeadingZeros(sequenceRange);
        int submitBits = 64 - Long.numberOfLeadingZeros(submitRange);
        if (submitRange < 0 || sequenceRange < 0 || submitBits + sequenceBits + positionBits > 63) {
            for (int i = 0; i < n; i++) {
                idx[i] = i;
            }
            sortPositions(idx, new int[n], 0, n, (x, y) -> compareKeys(submit, sequence, x, y));
            return idx;
        }
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
            packed[i] = (submit[i] - minSubmit) << (sequenceBits + positionBits) | (sequence[i] - minSequence) << positionBits | i;
        }
        java.util.Arrays.sort(packed);
        long mask = (1L << positionBits) - 1;
        for (int i = 0; i < n; i++) {
            idx[i] = (int) (packed[i] & mask);
        }
        return idx;
    }

    /**
     * Merge-sorts positions {@code [from, to)} of {@code idx} by {@code order} over positions (on primitives: no boxed
     * index per comparison; the orders used are total, so any correct sort gives this order).
     */
    private static void sortPositions(int[] idx, int[] tmp, int from, int to, java.util.function.IntBinaryOperator order) {
        if (to - from < 2) {
            return;
        }
        int mid = (from + to) >>> 1;
        sortPositions(idx, tmp, from, mid, order);
        sortPositions(idx, tmp, mid, to, order);
        if (order.applyAsInt(idx[mid - 1], idx[mid]) <= 0) {
            return; // already in order
        }
        System.arraycopy(idx, from, tmp, from, to - from);
        int a = from;
        int b = mid;
        for (int k = from; k < to; k++) {
            if (b >= to || (a < mid && order.applyAsInt(tmp[a], tmp[b]) <= 0)) {
                idx[k] = tmp[a++];
            } else {
                idx[k] = tmp[b++];
            }
        }
    }

    /** {@link io.fairway.api.job.JobOrder#SUBMISSION} on keys read once: submit time, then sequence. */
    private static int compareKeys(long[] submit, long[] sequence, int x, int y) {
        int c = Long.compare(submit[x], submit[y]);
        return c != 0 ? c : Long.compare(sequence[x], sequence[y]);
    }

    private static boolean sorted(long[] submit, long[] sequence, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (compareKeys(submit, sequence, i - 1, i) > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Finds the overdue waiting jobs: a job is overdue once it has waited (since it last became pending) longer than
     * {@link Config#overdueFactor()} × the seconds the whole cluster needs for the remaining work of the live jobs
     * submitted before it, plus its own remaining run when it announces one. Asks for a round when the next one would
     * become overdue.
     */
    private List<JobView> findOverdue(List<JobView> views, int holdingLive) {
        double factor = config.overdueFactor();
        if (Double.isInfinite(factor) || pendingGpuJobs.isEmpty()) {
            return List.of();
        }
        List<JobView> overdue = new ArrayList<>();
        List<JobView> all = inSubmissionOrder(views, holdingLive);
        double gpus = Math.max(1, ctx.capacity().totalGpus());
        double ahead = 0; // GPU-seconds of the live jobs submitted before the current one
        long next = Long.MAX_VALUE;
        for (JobView j : all) {
            if (!j.holding() && !Bids.neverFits(j.status())) {
                // its own run counts when it is known: a long job is not overdue before it has waited about as long
                double own = j.status().spec().estimatedSeconds() > 0 ? config.overdueOwnRun() * j.remaining() : 0;
                double allowed = factor * ahead / gpus + own;
                long at = j.status().stateSinceMillis() + (long) Math.ceil(allowed * 1000);
                if (now > at) {
                    overdue.add(j);
                } else {
                    next = Math.min(next, at + 1);
                }
            }
            ahead += j.remainingGpuWork();
        }
        if (next != Long.MAX_VALUE) {
            ctx.wakeAt(next);
        }
        return List.copyOf(overdue);
    }

    /**
     * Starts the overdue jobs that fit on the free GPUs as they are, oldest first, before the auction: a job may be
     * overtaken by jobs that arrived after it, but not for ever. Each takes its smallest cost from what the offer has
     * left after the starts before it.
     *
     * @return the items started, for the plan to take from the offer
     */
    Offer.Taken startOverdue() {
        List<Item> started = new ArrayList<>();
        long left = offer.pool();
        for (JobView j : overdue) {
            for (Item it : items.getOrDefault(j.status().spec().jobSet(), List.of())) {
                if (!it.keep() && it.job().id().equals(j.id()) && !admitted.contains(j.id()) && it.minCost() <= left && fitsNow(it)
                        && start(new Choice(it, it.elasticPodSet() == null ? 0 : it.minMembers()), expiry())) {
                    left -= it.minCost();
                    started.add(it);
                }
            }
        }
        if (!started.isEmpty()) {
            dropItems();
            items.values().removeIf(List::isEmpty);
        }
        return Offer.Taken.items(started);
    }

    /**
     * @param j a job holding GPUs
     * @return true when an expired lease makes it revocable: it checkpoints, or revoking without one is configured
     */
    boolean revocable(JobStatus j) {
        return j.spec().preemptible() && (config.revokeWithoutCheckpoint() || j.spec().checkpointing() != null);
    }

    /**
     * An app's ρ if it lost the GPUs of its expired leases now: what it would have as a waiting app. Its jobs may
     * only be revoked for an app whose ρ is worse than that, so that a job is not started for an app and
     * revoked again as soon as running has made that app's ρ look good.
     */
    double rhoIfRevoked(String app) {
        return rhoIfRevoked.computeIfAbsent(app, a -> {
            AppView v = apps.get(a);
            return v == null ? 0 : FinishTimeEstimator.rhoWith(v, Bids.fixedRunning(v), horizon);
        });
    }

    /**
     * Sorts names by a key ascending, then by name: the order of
     * {@code Comparator.comparingDouble(key).thenComparing(name)}, with the key computed once per name and the names
     * sorted as positions on primitive keys (no record per name, no comparator call per comparison: a round sorts its
     * ten thousand apps twice).
     */
    static void sortByKey(List<String> names, java.util.function.ToDoubleFunction<String> key) {
        int n = names.size();
        double[] keys = new double[n];
        String[] byPos = names.toArray(new String[0]);
        for (int i = 0; i < n; i++) {
            keys[i] = key.applyAsDouble(byPos[i]);
        }
        int[] idx = sortedByKey(byPos, keys);
        for (int i = 0; i < n; i++) {
            names.set(i, byPos[idx[i]]);
        }
    }

    /**
     * @param names names by position
     * @param keys each name's key, by position
     * @return the positions in the order of {@code Comparator.comparingDouble(key).thenComparing(name)}
     */
    static int[] sortedByKey(String[] names, double[] keys) {
        int n = names.length;
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        sortPositions(idx, new int[n], 0, n, (x, y) -> compareKeyThenName(keys, names, x, y));
        return idx;
    }

    /** {@code Comparator.comparingDouble(key).thenComparing(name)} on keys read once. */
    private static int compareKeyThenName(double[] keys, String[] names, int x, int y) {
        int c = Double.compare(keys[x], keys[y]);
        return c != 0 ? c : names[x].compareTo(names[y]);
    }

    long expiry() {
        return leaseMillis == Admit.NO_LEASE ? Admit.NO_LEASE : now + leaseMillis;
    }

    /** Drops the items of jobs on nodes being gathered or started (by the starvation guard or as overdue). */
    void dropItems() {
        for (List<Item> its : items.values()) {
            its.removeIf(it -> gathering.contains(it.job().id()) || admitted.contains(it.job().id()));
        }
    }

    /** @param id a job @return true when its lease was kept (renewed) in this plan */
    boolean kept(String id) {
        return kept.contains(id);
    }

    /** @param id a job @return true when it was started in this plan */
    boolean admitted(String id) {
        return admitted.contains(id);
    }

    /** @return true when no job was started in this plan yet */
    boolean noneAdmitted() {
        return admitted.isEmpty();
    }

    /** @param id a job @return true when it was preempted in this plan */
    boolean preempted(String id) {
        return preempted.contains(id);
    }

    /** @return the placements admitted in this plan, in order */
    List<Placement> placed() {
        return java.util.Collections.unmodifiableList(placed);
    }

    /**
     * Gathers nodes for a job: the expired leases on them are neither renewed nor offered (the step that gathers takes
     * them off the offer, {@link Offer.Taken#gathered}), and jobs started there get leases that expire at once.
     *
     * @param nodes the nodes gathered
     * @param leases the jobs on them whose expired leases are on offer
     * @return the nodes being gathered so far (for people to read)
     */
    Set<String> gather(List<String> nodes, List<JobStatus> leases) {
        gatheringNodes.addAll(nodes);
        for (JobStatus v : leases) {
            gathering.add(v.id());
        }
        return gatheringNodes;
    }

    /** Keeps a job's lease (once): renewed to its next checkpoint past a lease. */
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
        explained.add(j);
        if (a.admitted()) {
            admitted.add(j.id());
            placed.add(a.admission().placement());
            if (expiry != Admit.NO_LEASE) {
                JobView v = c.item().job();
                double speed = FinishTimeEstimator.sizeFraction(j.spec(), a.admission().counts()) * a.admission().placement().throughputFactor();
                boolean onGatheringNode = false;
                for (String node : a.admission().placement().nodes()) {
                    onGatheringNode |= gatheringNodes.contains(node);
                }
                ctx.setLease(j, expiry == now || onGatheringNode ? now : alignedExpiry(j, v.work() - v.remaining(), speed, true));
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
        Map<String, Integer> counts = it.elasticPodSet() == null ? Bids.fullCounts(j.spec()) : it.counts(it.minMembers());
        return it.minCost() <= ctx.capacity().freeGpus() && ctx.placement().find(j, counts, Map.of()).isPresent();
    }

    /** GPUs of the largest node seen (nodes are assumed alike). */
    int nodeSize() {
        if (maxNodeGpus < 0) {
            int max = 0;
            for (JobStatus j : ctx.holding()) {
                if (j.admission() == null || j.spec().totalGpus() == 0) {
                    continue;
                }
                max = Math.max(max, FinishTimeEstimator.Kept.highestGpuPlusOne(j.admission().placement()));
            }
            maxNodeGpus = max;
        }
        return Math.max(ctx.capacity().largestFreeGpusOnOneNode(), maxNodeGpus);
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

    /**
     * {@code String.format(Locale.ROOT, "%.2f", x)} without parsing a format per call (a round explains every waiting
     * app): the formatter rounds the shortest decimal that tells the double apart ({@link Double#toString}) half up,
     * and so does this.
     */
    static String twoDecimals(double x) {
        if (x > 0 && x < 1e9) {
            // Far from a tie of the hundredths, x and the decimal Double.toString writes for it (within half an ulp)
            // round to the same hundredths, so the digits need not be written first. Near a tie: the digits decide.
            double y = x * 100;
            double below = Math.floor(y);
            double f = y - below;
            if (Math.abs(f - 0.5) > 8 * Math.ulp(y)) {
                long h = (long) below + (f > 0.5 ? 1 : 0);
                long fraction = h % 100;
                return (h / 100) + (fraction < 10 ? ".0" : ".") + fraction;
            }
        }
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return String.format(Locale.ROOT, "%.2f", x);
        }
        String s = halfUpTwoDecimals(Double.toString(Math.abs(x)));
        return x < 0 || (x == 0 && 1 / x < 0) ? "-" + s : s;
    }

    /**
     * What {@code new BigDecimal(decimal).setScale(2, HALF_UP).toPlainString()} gives for a non-negative
     * {@link Double#toString} ({@code 123.456}, {@code 1.0E7}, {@code 1.0E-5}), on the digits themselves rather than
     * through a BigDecimal per app and round.
     */
    static String halfUpTwoDecimals(String decimal) {
        int e = decimal.indexOf('E');
        String mantissa = e < 0 ? decimal : decimal.substring(0, e);
        int exponent = e < 0 ? 0 : Integer.parseInt(decimal.substring(e + 1));
        int dot = mantissa.indexOf('.');
        String digits = dot < 0 ? mantissa : mantissa.substring(0, dot) + mantissa.substring(dot + 1);
        int point = (dot < 0 ? mantissa.length() : dot) + exponent; // digits before the decimal point
        // the digits of value × 100, rounded half up: keep point + 2 digits, round on the next one
        int keep = point + 2;
        StringBuilder kept = new StringBuilder();
        for (int i = 0; i < keep; i++) {
            kept.append(i >= 0 && i < digits.length() ? digits.charAt(i) : '0');
        }
        boolean up = keep >= 0 && keep < digits.length() && digits.charAt(keep) >= '5';
        if (keep < 0) {
            up = false; // below 0.001: rounds to zero
        }
        if (up) {
            int i = kept.length() - 1;
            while (i >= 0 && kept.charAt(i) == '9') {
                kept.setCharAt(i--, '0');
            }
            if (i >= 0) {
                kept.setCharAt(i, (char) (kept.charAt(i) + 1));
            } else {
                kept.insert(0, '1');
            }
        }
        String hundredths = kept.toString();
        while (hundredths.length() < 3) {
            hundredths = "0" + hundredths;
        }
        int intDigits = hundredths.length() - 2;
        int lead = 0;
        while (lead < intDigits - 1 && hundredths.charAt(lead) == '0') {
            lead++;
        }
        return hundredths.substring(lead, intDigits) + "." + hundredths.substring(intDigits);
    }

    void explainRest(Map<String, String> why) {
        Map<String, PendingReason> byApp = new HashMap<>(); // one reason per app: its jobs share it
        String lastApp = null;
        PendingReason lastReason = null;
        long total = ctx.capacity().totalGpus();
        for (JobStatus j : pendingGpuJobs) {
            if (explained.contains(j)) { // every job start() admitted is in explained too
                continue;
            }
            if (j.spec().totalGpus() > total || Bids.neverFits(j)) {
                ctx.tryAdmit(j); // the core's own reason (larger than any domain, no quota), refreshed
            } else {
                String app = j.spec().jobSet();
                // the engine lists an app's waiting jobs mostly together: the previous job's reason first
                PendingReason reason = lastApp != null && (app == lastApp || app.equals(lastApp)) ? lastReason : byApp.get(app);
                if (reason == null) {
                    String w = why.get(app);
                    AppView a = apps.get(app);
                    reason = PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "Themis: app " + app + " (rho "
                            + twoDecimals(a == null ? Double.NaN : a.rho()) + ") "
                            + (w == null ? "got no GPUs in this round's auction" : w));
                    byApp.put(app, reason);
                }
                lastApp = app;
                lastReason = reason;
                ctx.leaveWaiting(j, reason);
            }
        }
    }

    /**
     * A set of jobs (by id) that also knows their apps: a job of an app with none in the set is not looked up by id,
     * and the answer for the app of the job asked about last is remembered (a round asks about every waiting job, an
     * app's jobs mostly one after another, and few apps have a job in the set).
     */
    static final class Tried {
        private final Set<String> ids = new HashSet<>();
        private final Set<String> apps = new HashSet<>();
        /** Whether {@link #lastApp} and {@link #lastAppHas} hold the answer for the app asked about last. */
        private boolean remembered;
        private String lastApp;
        private boolean lastAppHas;

        /** @param j a job to add */
        void add(JobStatus j) {
            ids.add(j.id());
            apps.add(j.spec().jobSet());
            remembered = false;
        }

        /** @param j a job @return true when a job with its id was added */
        boolean contains(JobStatus j) {
            String app = j.spec().jobSet();
            if (!remembered || !java.util.Objects.equals(app, lastApp)) {
                remembered = true;
                lastApp = app;
                lastAppHas = apps.contains(app);
            }
            return lastAppHas && ids.contains(j.id());
        }
    }
}
