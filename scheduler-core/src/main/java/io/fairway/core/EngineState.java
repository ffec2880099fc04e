package io.fairway.core;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.AdmissionCheck;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.snapshot.PendingIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.snapshot.PlacementStrategy;

/**
 * Everything a {@link Scheduler} knows, behind one lock: the configuration (clusters, nodes, flavors, cohorts,
 * ClusterQueues, LocalQueues, admission checks), the jobs ({@link JobBook}), node pools and requests
 * ({@link PoolBook}), usage history for fair share over time, and the counters a round and a snapshot need.
 * The facade and its views ({@link Queues}, {@link Clusters}, {@link Jobs}) read and change it under
 * {@link #lock}; every change bumps {@link #modCount}, which tells a round whether the state moved while it ran.
 */
final class EngineState {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Scheduler.class);
    final ReentrantLock lock = new ReentrantLock();
    final SchedulingPolicy policy;
    final Clock clock;
    final long seed;
    final PlacementStrategy placement;
    final long usageHalfLifeMillis;

    final Map<String, ClusterSpec> clusters = new TreeMap<>();
    final LinkedHashMap<String, Node> nodes = new LinkedHashMap<>();
    final Map<String, ResourceFlavor> flavors = new TreeMap<>();
    /** The operator's priority classes by name: a job names one, and takes its value and its preemptibility from here. */
    final Map<String, io.fairway.api.model.PriorityClass> priorityClasses = new TreeMap<>();
    final Map<String, ClusterQueue> clusterQueues = new TreeMap<>();
    final Map<String, Cohort> cohorts = new TreeMap<>();
    final Map<String, LocalQueue> localQueues = new TreeMap<>();
    final Map<String, AdmissionCheck> admissionChecks = new TreeMap<>();

    final JobBook jobs;
    final PoolBook pools = new PoolBook();
    final Outbox outbox;

    long round;
    long modCount;
    final Map<String, Double> decayedUsage = new TreeMap<>();
    long usageUpdatedAt = Long.MIN_VALUE;
    /**
     * Grows whenever a job starts or stops holding resources or changes its size or ClusterQueue while holding them
     * ({@link JobBook}): the shares {@link #decayUsage} last computed hold while it stays.
     */
    long holdingUsageVersion;
    private long usageSharesVersion = -1;
    /**
     * What the holding jobs use per ClusterQueue and resource (members × per-member amounts), and how many jobs hold
     * in each, kept by the changes {@link #holdingChanged} notes: the shares are derived from these sums instead of
     * from every holding job.
     */
    private final Map<String, Map<String, Long>> usedByQueue = new HashMap<>();
    private final Map<String, Integer> holdersByQueue = new HashMap<>();
    /** The holding changes since the usage sums were last brought up to date, as (before, after) pairs. */
    private final List<JobStatus> usageLog = new ArrayList<>();
    /** False until the sums are first needed, and after they were dropped: they are summed from every holding job. */
    private boolean usageSumsKept;
    /** Holding jobs with a lease, and holding jobs whose quota is reserved: {@link #nextWakeupMillis} looks at them. */
    private int leasedHolders;
    private int quotaReservedHolders;
    private Map<String, Double> usageShares;
    private List<Resources> usageSharesCapacities;
    /** {@link #usageSharesCapacities} summed by resource (null: to be summed again). */
    private Map<String, Long> usageTotal;
    /**
     * What the last round found, for the next to answer repeated attempts from ({@link io.fairway.core.plan.RoundMemory}):
     * checked against each round's snapshot, dropped on a restore.
     */
    io.fairway.core.plan.RoundMemory memory;
    /**
     * What the holding jobs charge (capacity and quota), kept across rounds and changed by {@link JobBook} as each
     * job starts or stops holding resources or changes what it holds; rebuilt when it cannot follow (a restore).
     */
    final io.fairway.core.plan.HeldCharges heldCharges = new io.fairway.core.plan.HeldCharges();
    /** When the last round's policy asked for its next round ({@link RoundResult#NO_WAKE}: it did not). */
    long policyWakeAt = RoundResult.NO_WAKE;
    /**
     * Quota usage allowed above a limit, by {@link io.fairway.core.admission.QuotaBook.OverUse#key}: what was running
     * when a configuration change (or a restore) left a ClusterQueue or cohort above its quota. Lowered to the usage
     * at the start of every round, dropped once the usage is back within the limit; empty almost always.
     */
    Map<String, Long> quotaAllowance = Map.of();

    EngineState(SchedulingPolicy policy, io.fairway.api.spi.Actuator actuator, Clock clock, long seed, PlacementStrategy placement,
                long usageHalfLifeMillis) {
        this.policy = policy;
        this.clock = clock;
        this.seed = seed;
        this.placement = placement;
        this.usageHalfLifeMillis = usageHalfLifeMillis;
        this.outbox = new Outbox(lock, actuator);
        this.jobs = new JobBook(this);
    }

    void withLock(Runnable r) {
        lock.lock();
        try {
            r.run();
            modCount++;
        } finally {
            lock.unlock();
        }
    }

    <T> T withLock(Supplier<T> s) {
        lock.lock();
        try {
            T t = s.get();
            modCount++;
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** A report about a job: accepted when the job is in a state it applies to (a warning otherwise). */
    boolean report(String jobId, String what, java.util.function.Predicate<JobStatus> applies,
                   java.util.function.BiConsumer<JobStatus, List<io.fairway.api.event.SchedulerEvent>> transition) {
        List<io.fairway.api.event.SchedulerEvent> events = outbox.eventList();
        boolean ok = withLock(() -> {
            JobStatus j = jobs.byId.get(jobId);
            if (j == null || !applies.test(j)) {
                LOG.warn("{}({}): job is {}", what, jobId, j == null ? "unknown" : j.state());
                return false;
            }
            transition.accept(j, events);
            outbox.publish(events, List.of());
            return true;
        });
        outbox.deliver(null);
        return ok;
    }

    /** Runs a report atomically with the check that it is about the job's current run (its epoch). */
    boolean ifCurrent(String jobId, long epoch, java.util.function.BooleanSupplier report) {
        boolean ok;
        lock.lock();
        try {
            ok = epoch == jobs.epoch(jobId) && report.getAsBoolean();
        } finally {
            lock.unlock();
        }
        outbox.deliver(null); // the report published under this lock; delivered once it is released
        return ok;
    }

    /** Reads under the lock without counting a change. */
    <T> T read(Supplier<T> s) {
        lock.lock();
        try {
            return s.get();
        } finally {
            lock.unlock();
        }
    }

    /** @return the whole state, for {@link Scheduler#exportState()} (lock held) */
    SchedulerState export() {
        return new SchedulerState(seed, placement, usageHalfLifeMillis, round, jobs.nextSequence, usageUpdatedAt, new ArrayList<>(clusters.values()),
                new ArrayList<>(flavors.values()), new ArrayList<>(cohorts.values()), new ArrayList<>(clusterQueues.values()),
                new ArrayList<>(localQueues.values()), new ArrayList<>(nodes.values()), new ArrayList<>(pools.nodePools.values()), jobs.all(),
                decayedUsage, pools.export());
    }

    /**
     * Takes the jobs, counters, usage and provisioning of a saved state (its configuration was built already; lock
     * held). Usage history of a ClusterQueue the state does not have is dropped (the engine drops it when it removes
     * a ClusterQueue); work running above a quota limit is allowed as it is, as after the change that lowered it.
     */
    void restore(SchedulerState saved) {
        memory = null;
        heldCharges.invalidate();
        usageSumsKept = false;
        usageLog.clear();
        saved.jobs().forEach(jobs::restore);
        round = saved.round();
        jobs.nextSequence = saved.nextSequence();
        usageUpdatedAt = saved.usageUpdatedAt();
        saved.decayedUsage().forEach((cq, u) -> {
            if (clusterQueues.containsKey(cq)) {
                decayedUsage.put(cq, u);
            } else {
                LOG.warn("restore: usage history of ClusterQueue {} dropped: the state has no such ClusterQueue", cq);
            }
        });
        pools.restore(saved.provisioning());
        allowOverUse();
    }

    /** @return the quota the jobs holding resources and the reservations use now (lock held) */
    io.fairway.core.admission.QuotaBook quotaInUse() {
        return io.fairway.core.validation.Invariants.charged(clusterQueues, cohorts, jobs.holding.values(), pools.reservations.values(),
                jobs.byId::get);
    }

    /**
     * After a change of quota (a ClusterQueue or cohort added, replaced or removed) or a restore: whatever runs above
     * a limit now is allowed to keep running there (lock held).
     */
    void allowOverUse() {
        Map<String, Long> m = new TreeMap<>();
        for (io.fairway.core.admission.QuotaBook.OverUse o : quotaInUse().overLimits()) {
            m.put(o.key(), o.used());
        }
        if (!m.isEmpty() || !quotaAllowance.isEmpty()) {
            if (!m.isEmpty()) {
                LOG.info("quota now below what runs: {}; it keeps running, nothing new is admitted there", m);
            }
            quotaAllowance = m.isEmpty() ? Map.of() : m;
        }
    }

    /**
     * At the start of a round: the allowance falls to what is still used above each limit (work that ended does not
     * leave room for new work above a limit), and goes where the usage is back within it (lock held).
     */
    void lowerAllowance() {
        if (quotaAllowance.isEmpty()) {
            return;
        }
        Map<String, Long> m = new TreeMap<>();
        for (io.fairway.core.admission.QuotaBook.OverUse o : quotaInUse().overLimits()) {
            Long allowed = quotaAllowance.get(o.key());
            if (allowed != null) {
                m.put(o.key(), Math.min(allowed, o.used()));
            }
        }
        quotaAllowance = m.isEmpty() ? Map.of() : m;
    }

    /** @return the whole state as the round sees it (lock held); running jobs with service up to now */
    Snapshot snapshotLocked() {
        long now = clock.millis();
        // each running job's service is brought up to now when the round first reads it
        List<JobStatus> held = new io.fairway.core.snapshot.HeldJobs(jobs.holdingArray(), now);
        PendingIndex idx = jobs.pendingIndex.freeze();
        return new Snapshot(round, now, seed, clusters, new ArrayList<>(nodes.values()), flavors, clusterQueues, cohorts, localQueues,
                idx.inSubmissionOrder(), held, decayedUsage, placement, pools.provisioning(), idx);
    }

    /**
     * A job started holding resources, stopped, or holds them differently (lock held; {@link JobBook} calls it at every
     * such change): the kept charges, usage sums and counts follow.
     *
     * @param before what it held before, or null when it held nothing
     * @param after what it holds now, or null when it holds nothing
     */
    void holdingChanged(JobStatus before, JobStatus after) {
        heldCharges.changed(before, after);
        if (before != null) {
            countHolder(before, -1);
        }
        if (after != null) {
            countHolder(after, +1);
        }
        if (usageSumsKept) {
            usageLog.add(before);
            usageLog.add(after);
            if (usageLog.size() > 2 * (jobs.holding.size() + 1024L)) {
                usageSumsKept = false; // summed again from the holding jobs when next needed
                usageLog.clear();
            }
        }
    }

    /** @return true when some holding job has reserved quota and waits for its admission checks (lock held) */
    boolean anyQuotaReserved() {
        return quotaReservedHolders > 0;
    }

    private void countHolder(JobStatus j, int sign) {
        Admit a = j.admission();
        if (a != null && a.leaseExpiresAtMillis() != Admit.NO_LEASE) {
            leasedHolders += sign;
        }
        if (j.state() == JobState.QUOTA_RESERVED) {
            quotaReservedHolders += sign;
        }
    }

    /**
     * Brings the usage sums up to date: the changes noted since they were last needed, one by one, or — when they
     * outnumber the holding jobs, or the sums were dropped — every holding job summed again.
     */
    private void followUsage() {
        if (!usageSumsKept || usageLog.size() / 2 > jobs.holding.size()) {
            usedByQueue.clear();
            holdersByQueue.clear();
            for (JobStatus j : jobs.holding.values()) {
                addUsage(j, +1);
            }
            usageSumsKept = true;
        } else {
            for (int i = 0; i < usageLog.size(); i += 2) {
                if (usageLog.get(i) != null) {
                    addUsage(usageLog.get(i), -1);
                }
                if (usageLog.get(i + 1) != null) {
                    addUsage(usageLog.get(i + 1), +1);
                }
            }
        }
        usageLog.clear();
    }

    private void addUsage(JobStatus j, int sign) {
        Admit a = j.admission();
        if (a == null) {
            return;
        }
        String cq = a.clusterQueue();
        Map<String, Long> inQueue = usedByQueue.computeIfAbsent(cq, k -> new HashMap<>());
        for (var ps : j.spec().podSets()) {
            Integer m = a.counts().get(ps.name());
            add(inQueue, ps.resources(), sign * (long) (m == null ? ps.count() : m));
        }
        int holders = holdersByQueue.merge(cq, sign, Integer::sum);
        if (holders == 0) {
            holdersByQueue.remove(cq);
            usedByQueue.remove(cq);
        }
    }

    /**
     * @return the capacity and quota every holding job charges now, as copies a round starts from (lock held), or
     *     null when the round must charge them itself
     */
    io.fairway.core.plan.HeldCharges.Charged chargedForRound() {
        return heldCharges.forRound(new ArrayList<>(nodes.values()), clusters, clusterQueues, cohorts, jobs.holding.values());
    }

    /**
     * Fair share over time: each ClusterQueue's usage (its dominant share of the cluster) decays with the
     * half-life, as HTCondor's RUP(t) = β·RUP(t−δt) + (1−β)·usage, β = 0.5^(δt / half-life). Lock held.
     *
     * <p>Runs at the start of every round and whenever a job stops holding resources (it ends, is evicted, loses its
     * node, is preempted), just before it is removed: usage is piecewise constant between those moments, so each
     * interval is charged to the jobs that held resources during it, and a job that ends between two rounds is
     * charged up to its end.
     */
    void decayUsage() {
        long now = clock.millis();
        if (usageUpdatedAt == Long.MIN_VALUE) {
            usageUpdatedAt = now;
            return;
        }
        long dt = now - usageUpdatedAt;
        if (dt <= 0) {
            return;
        }
        Map<String, Double> shares = usageShares();
        double beta = Math.pow(0.5, (double) dt / usageHalfLifeMillis);
        Set<String> names = new HashSet<>(clusterQueues.keySet());
        names.addAll(decayedUsage.keySet());
        for (String cq : names) {
            decayedUsage.put(cq, beta * decayedUsage.getOrDefault(cq, 0.0) + (1 - beta) * shares.getOrDefault(cq, 0.0));
        }
        usageUpdatedAt = now;
    }

    /**
     * Each ClusterQueue's dominant share of the cluster held now (ClusterQueues holding nothing are absent). Kept from
     * one call to the next while the jobs holding resources keep their sizes and queues ({@link #holdingUsageVersion})
     * and the nodes their capacities: usage decays at every round, and most rounds change neither. When one of them
     * changed, the shares are derived from the usage sums kept per ClusterQueue ({@link #holdingChanged}), not from
     * every holding job. Lock held.
     */
    private Map<String, Double> usageShares() {
        List<Resources> capacities = new ArrayList<>(nodes.size());
        for (Node n : nodes.values()) {
            capacities.add(n.capacity());
        }
        boolean sameNodes = sameElements(capacities, usageSharesCapacities);
        if (usageShares != null && usageSharesVersion == holdingUsageVersion && sameNodes) {
            return usageShares;
        }
        followUsage();
        if (!sameNodes || usageTotal == null) {
            usageTotal = total(capacities); // the nodes change far less often than the jobs on them
        }
        Map<String, Double> shares = shares(usageTotal, usedByQueue);
        usageShares = shares;
        usageSharesVersion = holdingUsageVersion;
        usageSharesCapacities = capacities;
        return shares;
    }

    /** @return the shares {@link #decayUsage} would use now: kept ones when they still hold (lock held; for tests) */
    Map<String, Double> usageSharesNow() {
        return usageShares();
    }

    /** @return each ClusterQueue's dominant share computed from the nodes and the holding jobs (lock held) */
    Map<String, Double> usageSharesFromScratch() {
        List<Resources> capacities = new ArrayList<>(nodes.size());
        for (Node n : nodes.values()) {
            capacities.add(n.capacity());
        }
        return usageSharesFromScratch(capacities);
    }

    private Map<String, Double> usageSharesFromScratch(List<Resources> capacities) {
        // every holding job summed again (the reference the kept sums are checked against)
        Map<String, Map<String, Long>> used = new HashMap<>();
        String lastQueue = null;
        Map<String, Long> inQueue = null;
        for (JobStatus j : jobs.holding.values()) {
            Admit a = j.admission();
            if (!a.clusterQueue().equals(lastQueue)) {
                lastQueue = a.clusterQueue();
                inQueue = used.computeIfAbsent(lastQueue, k -> new HashMap<>());
            }
            for (var ps : j.spec().podSets()) {
                Integer m = a.counts().get(ps.name());
                add(inQueue, ps.resources(), m == null ? ps.count() : m);
            }
        }
        return shares(total(capacities), used);
    }

    /** @return the nodes' capacities summed, by resource */
    private static Map<String, Long> total(List<Resources> capacities) {
        Map<String, Long> total = new HashMap<>();
        for (Resources c : capacities) {
            add(total, c, 1);
        }
        return total;
    }

    /** @return each ClusterQueue's dominant share of the nodes' summed capacities, from what its holding jobs use */
    private static Map<String, Double> shares(Map<String, Long> total, Map<String, Map<String, Long>> used) {
        Map<String, Double> shares = new HashMap<>();
        used.forEach((cq, byResource) -> {
            double share = 0;
            for (Map.Entry<String, Long> e : byResource.entrySet()) {
                long t = total.getOrDefault(e.getKey(), 0L);
                if (t > 0) {
                    share = Math.max(share, (double) e.getValue() / t);
                }
            }
            shares.put(cq, share);
        });
        return shares;
    }

    /** @return true when both lists hold the very same objects in the same order */
    private static boolean sameElements(List<?> a, List<?> b) {
        if (b == null || a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** Adds {@code factor} times each amount of {@code r} to {@code sums}, by resource name. */
    private static void add(Map<String, Long> sums, io.fairway.api.model.Resources r, long factor) {
        for (int i = 0, n = r.size(); i < n; i++) {
            sums.merge(r.name(i), r.amount(i) * factor, Long::sum);
        }
    }

    /** @see Scheduler#nextWakeupMillis */
    OptionalLong nextWakeupMillis(long checkRetryMillis) {
        return read(() -> {
            long now = clock.millis();
            long best = policyWakeAt > now ? policyWakeAt : Long.MAX_VALUE;
            for (JobStatus j : leasedHolders > 0 || quotaReservedHolders > 0 ? jobs.holding.values() : List.<JobStatus>of()) {
                Admit a = j.admission();
                if (a != null && a.leaseExpiresAtMillis() != Admit.NO_LEASE && a.leaseExpiresAtMillis() > now) {
                    best = Math.min(best, a.leaseExpiresAtMillis());
                }
                if (j.state() == JobState.QUOTA_RESERVED) {
                    best = Math.min(best, now + checkRetryMillis);
                }
            }
            best = Math.min(best, pools.nextConsolidation(nodes, now));
            return best == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(best);
        });
    }
}
