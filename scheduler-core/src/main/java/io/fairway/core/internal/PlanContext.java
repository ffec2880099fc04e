package io.fairway.core.internal;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.CapacityView;
import io.fairway.api.spi.PendingGroup;
import io.fairway.api.spi.PlacementSearch;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.QuotaView;
import io.fairway.core.Snapshot;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * The {@link PolicyContext} of one round: views of the snapshot and a tentative plan (capacity and quota
 * as the plan leaves them).
 */
public final class PlanContext implements PolicyContext, QuotaView, PlacementSearch, CapacityView {
    /** Kueue order inside a ClusterQueue: priority (highest first), then submission time, then sequence. */
    public static final Comparator<JobStatus> KUEUE_ORDER = Comparator
            .comparingInt((JobStatus j) -> -j.spec().priority())
            .thenComparingLong(j -> j.spec().submitTimeMillis())
            .thenComparingLong(JobStatus::sequence);

    final Snapshot snapshot;
    final ResourceIndex resources = new ResourceIndex();
    final CapacityPlan cap;
    final QuotaBook quota;
    final Placer placer;
    private final RandomGenerator random;

    private final Map<String, String> cqOfJob = new HashMap<>();
    /** The admissible pending jobs in submission order, listed on first use (a policy that walks groups never asks). */
    private List<JobStatus> admissible;
    /** The policy's view of the pending groups, built on first use. */
    private List<PendingGroup> groupViews;
    /** Per group of the snapshot's index: the reason given to its jobs from some position on. */
    final java.util.IdentityHashMap<io.fairway.core.PendingIndex.Group, Bulk> bulk = new java.util.IdentityHashMap<>();
    /** Jobs admitted in this plan, by id. */
    private final Map<String, JobStatus> admittedJobs;
    private final List<JobStatus> reserved = new ArrayList<>();
    private final Map<String, List<JobStatus>> pendingByCq = new TreeMap<>();
    private final Map<String, JobStatus> holdingById = new HashMap<>();
    private final Map<String, List<Placer.Taken>> heldCapacity;
    final Map<String, PendingReason> reasons = new LinkedHashMap<>();
    final LinkedHashMap<String, Admit> admitted;
    final LinkedHashMap<String, Preempt> preempted = new LinkedHashMap<>();
    final LinkedHashMap<String, Long> leaseRenewals = new LinkedHashMap<>();
    /** The earliest round the policy asked for ({@link #wakeAt}), {@code Long.MAX_VALUE} for none. */
    long wakeAt = Long.MAX_VALUE;
    final LinkedHashMap<String, Admit> resized = new LinkedHashMap<>();
    /** True once the policy admitted a job on a placement of its own (rather than one the engine searched). */
    private boolean policyPlacements;

    /** @return a hash table capacity that holds {@code entries} without resizing */
    private static int tableFor(int entries) {
        return (int) Math.min(1 << 30, entries / 0.75 + 1);
    }

    /**
     * Builds the plan's starting point from a snapshot.
     *
     * @param snapshot the round's input
     */
    public PlanContext(Snapshot snapshot) {
        this(snapshot, true);
    }

    /**
     * @param snapshot the round's input
     * @param indexPending false for a context that only checks given admissions (the validator): pending jobs
     *     are then resolved on demand instead of being listed for a policy
     */
    public PlanContext(Snapshot snapshot, boolean indexPending) {
        this.snapshot = snapshot;
        this.cap = new CapacityPlan(snapshot.nodes(), snapshot.clusters(), resources);
        this.quota = new QuotaBook(snapshot.clusterQueues(), snapshot.cohorts());
        this.placer = new Placer(cap, snapshot.placement());
        // Sized for as many admissions as there are free GPUs (a round at scale admits tens of thousands: growing
        // the tables step by step cost more than the puts)
        int expected = (int) Math.min(1 << 20, cap.freeGpus) + 16;
        this.admittedJobs = new HashMap<>(tableFor(expected));
        this.admitted = new LinkedHashMap<>(tableFor(expected));
        this.heldCapacity = new HashMap<>(tableFor(expected + snapshot.holding().size()));
        this.random = new SplittableRandom(snapshot.seed() * 0x9E3779B97F4A7C15L + snapshot.round());
        for (LocalQueue lq : snapshot.localQueues().values()) {
            localQueueIndex.computeIfAbsent(lq.namespace(), k -> new HashMap<>()).put(lq.name(), lq);
        }
        for (JobStatus j : snapshot.holding()) {
            holdingById.put(j.id(), j);
            heldCapacity.put(j.id(), charge(j.spec(), j.admission()));
            if (j.spec().isElastic()) {
                runningElastic.add(j);
            }
        }
        Map<String, io.fairway.core.Provisioning.Reservation> reservations = snapshot.provisioning().reservations();
        for (io.fairway.core.Provisioning.Reservation r : reservations.values()) {
            if (quota.hasQueue(r.clusterQueue())) {
                reservationUsage(r).forEach((fr, v) -> quota.add(r.clusterQueue(), fr, v));
            }
            if (snapshot.clusterQueues().containsKey(r.clusterQueue())) {
                cqOfJob.put(r.jobId(), r.clusterQueue());
            }
        }
        if (!indexPending) {
            return;
        }
        if (!reservations.isEmpty()) {
            for (JobStatus j : snapshot.pending()) {
                if (cqOfJob.containsKey(j.id())) {
                    reserved.add(j); // admitted under quota, waiting for nodes: placed by placeReserved(), not by the policy
                }
            }
        }
    }

    /** The reason given to the jobs of a group from position {@code from} on. */
    record Bulk(int from, PendingReason reason) {
    }

    /** @return the admissible pending jobs in submission order */
    private List<JobStatus> admissible() {
        if (admissible == null) {
            List<JobStatus> l = new ArrayList<>();
            boolean anyReserved = !snapshot.provisioning().reservations().isEmpty();
            for (JobStatus j : snapshot.pending()) {
                if (anyReserved && snapshot.provisioning().reservations().containsKey(j.id())) {
                    continue;
                }
                if (resolveQueue(j) != null) {
                    l.add(j);
                }
            }
            admissible = l;
        }
        return admissible;
    }

    /** @return the ClusterQueue of a group of the index, or null when its queues are missing or stopped */
    String clusterQueueOf(io.fairway.core.PendingIndex.Group g) {
        return resolveQueue(g.head());
    }

    /** @return the reason a pending job waits for a missing or stopped queue, or null when its queue resolves */
    PendingReason unresolvedReasonOf(JobStatus j) {
        return resolveQueue(j) != null ? null : unresolvedReason(j);
    }

    @Override
    public List<PendingGroup> pendingGroups() {
        if (groupViews == null) {
            Map<String, io.fairway.core.Provisioning.Reservation> reservations = snapshot.provisioning().reservations();
            List<PendingGroup> views = new ArrayList<>();
            for (io.fairway.core.PendingIndex.Group g : snapshot.pendingIndex().groups()) {
                String cq = clusterQueueOf(g);
                if (cq == null) {
                    continue;
                }
                List<JobStatus> jobs = g.jobs();
                boolean filtered = false;
                if (!reservations.isEmpty()) {
                    List<JobStatus> kept = new ArrayList<>();
                    for (JobStatus j : jobs) {
                        if (!reservations.containsKey(j.id())) {
                            kept.add(j);
                        }
                    }
                    filtered = kept.size() != jobs.size();
                    jobs = List.copyOf(kept);
                }
                if (!jobs.isEmpty()) {
                    views.add(new GroupView(filtered ? null : g, cq, jobs));
                }
            }
            groupViews = Collections.unmodifiableList(views);
        }
        return groupViews;
    }

    /** A group as the policy sees it; {@code source} is null when jobs waiting for nodes were left out of it. */
    private record GroupView(io.fairway.core.PendingIndex.Group source, String clusterQueue, List<JobStatus> jobs) implements PendingGroup {
    }

    @Override
    public void leaveWaiting(PendingGroup group, int fromIndex, PendingReason reason) {
        if (group instanceof GroupView v && v.source() != null && groupViews != null && fromIndex >= 0) {
            if (fromIndex < v.jobs().size()) {
                bulk.put(v.source(), new Bulk(fromIndex, reason));
            }
            return;
        }
        PolicyContext.super.leaveWaiting(group, fromIndex, reason);
    }

    /** LocalQueues by namespace, then name: resolving a job's queue allocates nothing. */
    private final Map<String, Map<String, LocalQueue>> localQueueIndex = new HashMap<>();

    /** @return the ClusterQueue a pending job is admitted through now, or null when its queues are missing or stopped */
    private String resolveQueue(JobStatus j) {
        String reservedIn = cqOfJob.get(j.id());
        if (reservedIn != null) {
            return reservedIn;
        }
        Map<String, LocalQueue> ns = localQueueIndex.get(j.spec().namespace());
        LocalQueue lq = ns == null ? null : ns.get(j.spec().queue());
        if (lq == null) {
            return null;
        }
        ClusterQueue cq = snapshot.clusterQueues().get(lq.clusterQueue());
        return cq == null || cq.stopped() ? null : cq.name();
    }

    private PendingReason unresolvedReason(JobStatus j) {
        Map<String, LocalQueue> ns = localQueueIndex.get(j.spec().namespace());
        LocalQueue lq = ns == null ? null : ns.get(j.spec().queue());
        if (lq == null) {
            return PendingReason.of(PendingReason.Code.QUEUE_NOT_FOUND,
                    "LocalQueue " + j.spec().queue() + " not found in namespace " + j.spec().namespace());
        }
        ClusterQueue cq = snapshot.clusterQueues().get(lq.clusterQueue());
        if (cq == null) {
            return PendingReason.of(PendingReason.Code.CLUSTER_QUEUE_NOT_FOUND,
                    "LocalQueue " + lq.key() + " points to ClusterQueue " + lq.clusterQueue() + ", which does not exist");
        }
        return PendingReason.of(PendingReason.Code.QUEUE_STOPPED, "ClusterQueue " + cq.name() + " is stopped: it admits nothing new");
    }

    private Map<String, Long> reservationUsage(io.fairway.core.Provisioning.Reservation r) {
        Map<String, Long> usage = new LinkedHashMap<>();
        JobStatus j = null;
        for (JobStatus p : snapshot.pending()) {
            if (p.id().equals(r.jobId())) {
                j = p;
                break;
            }
        }
        if (j == null) {
            return usage;
        }
        for (PodSet ps : j.spec().podSets()) {
            String flavor = r.flavors().get(ps.name());
            int m = r.counts().getOrDefault(ps.name(), ps.count());
            if (flavor != null) {
                ps.total(m).asMap().forEach((res, v) -> usage.merge(QuotaBook.fr(flavor, res), v, Long::sum));
            }
        }
        return usage;
    }

    /**
     * Gives back the quota a job holds while it waits for nodes (before it is charged for its admission).
     *
     * @param jobId a job
     */
    void releaseReservationQuota(String jobId) {
        io.fairway.core.Provisioning.Reservation r = snapshot.provisioning().reservations().get(jobId);
        if (r != null && releasedReservations.add(jobId) && quota.hasQueue(r.clusterQueue())) {
            changed();
            reservationUsage(r).forEach((fr, v) -> quota.add(r.clusterQueue(), fr, -v));
        }
    }

    private final java.util.Set<String> releasedReservations = new java.util.HashSet<>();

    /**
     * Places the jobs whose quota is reserved while nodes come up, before the policy runs: they were admitted
     * under quota already. A job that still has no room keeps its reservation.
     */
    public void placeReserved() {
        changed();
        Map<String, io.fairway.core.Provisioning.Reservation> reservations = snapshot.provisioning().reservations();
        for (JobStatus j : reserved) {
            io.fairway.core.Provisioning.Reservation r = reservations.get(j.id());
            Map<String, Long> usage = reservationUsage(r);
            usage.forEach((fr, v) -> quota.add(r.clusterQueue(), fr, -v));
            Placer.Outcome o = placer.place(j.spec(), r.counts(), flavorSpecs(r.flavors()));
            if (o.result() != null) {
                usage.forEach((fr, v) -> quota.add(r.clusterQueue(), fr, v));
                admitted.put(j.id(), new Admit(j.id(), r.clusterQueue(), r.flavors(), r.counts(), o.result().placement(), snapshot.nowMillis(),
                        Admit.NO_LEASE, nextAdmissionOrder()));
                heldCapacity.put(j.id(), o.result().taken());
            } else {
                usage.forEach((fr, v) -> quota.add(r.clusterQueue(), fr, v));
            }
        }
    }
    private List<Placer.Taken> charge(JobSpec spec, Admit a) {
        List<Placer.Taken> taken = new ArrayList<>();
        if (a == null) {
            return taken;
        }
        Map<String, PodSet> podSets = new HashMap<>();
        for (PodSet ps : spec.podSets()) {
            podSets.put(ps.name(), ps);
        }
        for (MemberPlacement mp : a.placement().members()) {
            Integer n = cap.nodeIndex.get(mp.node());
            PodSet ps = podSets.get(mp.podSet());
            if (n == null || ps == null) {
                continue; // node gone: the engine requeues such jobs
            }
            long[] req = resources.vector(ps.resources());
            long mask = 0;
            GpuShape shape = cap.shapes[n];
            for (int gi : mp.gpus()) {
                int pos = shape.positionOf(gi);
                if (pos >= 0) {
                    mask |= 1L << pos;
                }
            }
            cap.take(n, req, mask);
            taken.add(new Placer.Taken(n, req, mask));
        }
        if (a.clusterQueue() != null && quota.hasQueue(a.clusterQueue())) {
            for (PodSet ps : spec.podSets()) {
                String flavor = a.flavors().get(ps.name());
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                if (flavor != null) {
                    ps.total(m).asMap().forEach((r, v) -> quota.add(a.clusterQueue(), QuotaBook.fr(flavor, r), v));
                }
            }
        }
        return taken;
    }

    @Override
    public long now() {
        return snapshot.nowMillis();
    }

    @Override
    public RandomGenerator random() {
        return random;
    }

    @Override
    public List<ClusterQueue> clusterQueues() {
        return List.copyOf(snapshot.clusterQueues().values());
    }

    @Override
    public List<JobStatus> pending() {
        return Collections.unmodifiableList(admissible());
    }

    @Override
    public List<JobStatus> pending(String clusterQueue) {
        return Collections.unmodifiableList(pendingByClusterQueue().getOrDefault(clusterQueue, List.of()));
    }

    @Override
    public String clusterQueueOf(JobStatus job) {
        if (job.admission() != null && holdingById.containsKey(job.id())) {
            return job.admission().clusterQueue();
        }
        return resolveQueue(job);
    }

    @Override
    public List<JobStatus> running() {
        return snapshot.holding();
    }

    /** Listed while the context is built (it walks the running jobs anyway, to charge their capacity). */
    private final List<JobStatus> runningElastic = new ArrayList<>();

    @Override
    public List<JobStatus> runningElastic() {
        return Collections.unmodifiableList(runningElastic);
    }

    @Override
    public Attempt tryAdmit(JobStatus job) {
        AttemptKey key = null;
        if (precheckPasses(job)) {
            key = attemptKey(resolveQueue(job), job);
            Failed f = failedAdmissions.get(key);
            if (f != null && f.state() == state) {
                return fail(job, f.reason()); // the same attempt on the same plan: the same failure
            }
        }
        Attempt a = tryAdmit(job, fullCounts(job.spec()));
        if (key != null && !a.admitted() && a.reason() != null) {
            failedAdmissions.put(key, new Failed(state, a.reason(), 0));
        }
        return a;
    }

    /*
     * Memos of failed attempts within the round. An attempt (admission at full size, or the preemption search) reads
     * only the plan — capacity, quota, what is admitted, preempted and resized — and the job's ClusterQueue and
     * shape (and, for the search, its candidates); it fails the same way for every job with the same key while
     * the plan is the same. The plan is named by a state number: every change takes a new one, never reused; a
     * preemption search that fails has undone every change it made, and gives the plan its number back.
     */

    /** The plan's current state number. */
    private long state;
    /** The last state number taken. */
    private long lastState;
    private final Map<AttemptKey, Failed> failedAdmissions = new HashMap<>();
    private final Map<SearchKey, Failed> failedSearches = new HashMap<>();

    /** @return what a running job holds on its nodes in the plan (empty when nothing) */
    List<Placer.Taken> held(String jobId) {
        return heldCapacity.getOrDefault(jobId, List.of());
    }

    /** @return the plan's state number: equal numbers, equal plans */
    long state() {
        return state;
    }

    /** Gives the plan back an earlier state number, once every change made since has been undone. */
    void restoreState(long earlier) {
        state = earlier;
    }

    /** Records that the plan changed. */
    private void changed() {
        state = ++lastState;
    }

    /** What an attempt reads of a job, besides the plan; hashed once (the pod sets are most of it). */
    static final class AttemptKey {
        private final String clusterQueue;
        private final String namespace;
        private final List<PodSet> podSets;
        private final Object sensitivity;
        private final int hash;

        AttemptKey(String clusterQueue, JobStatus job) {
            this.clusterQueue = clusterQueue;
            this.namespace = job.spec().namespace();
            this.podSets = job.spec().podSets();
            this.sensitivity = job.spec().sensitivity();
            this.hash = java.util.Objects.hash(clusterQueue, namespace, podSets, sensitivity);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AttemptKey k && hash == k.hash && clusterQueue.equals(k.clusterQueue)
                    && java.util.Objects.equals(namespace, k.namespace) && podSets.equals(k.podSets)
                    && java.util.Objects.equals(sensitivity, k.sensitivity);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** The last job keyed, and its key: a job's attempts and its search ask for the same key in a row. */
    private JobStatus keyedJob;
    private AttemptKey lastKey;

    private AttemptKey attemptKey(String clusterQueue, JobStatus job) {
        if (job != keyedJob || !clusterQueue.equals(lastKey.clusterQueue)) {
            lastKey = new AttemptKey(clusterQueue, job);
            keyedJob = job;
        }
        return lastKey;
    }

    /** A preemption search's key: the attempt's, and how many of the ClusterQueue's and the cohort's jobs rank below the job. */
    record SearchKey(AttemptKey attempt, int ownBelow, int cohortBelow) {
    }

    /**
     * A failure on the plan of state number {@code state}; {@code admissions}: how many admission numbers the
     * attempt used (a search may admit and take the admission back).
     */
    record Failed(long state, PendingReason reason, long admissions) {
    }

    /** @return true when {@link #precheck} accepts the job at full size (a pending job of a queue that admits) */
    private boolean precheckPasses(JobStatus job) {
        return precheck(job, fullCounts(job.spec())) == null;
    }

    static Map<String, Integer> fullCounts(JobSpec spec) {
        if (spec.podSets().size() == 1) {
            PodSet ps = spec.podSets().get(0);
            return Map.of(ps.name(), ps.count());
        }
        Map<String, Integer> m = new LinkedHashMap<>();
        for (PodSet ps : spec.podSets()) {
            m.put(ps.name(), ps.count());
        }
        return m;
    }

    private PendingReason precheck(JobStatus job, Map<String, Integer> counts) {
        if (admitted.containsKey(job.id())) {
            return PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "already admitted in this round");
        }
        if (holdingById.containsKey(job.id())) {
            return PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "job " + job.id() + " already holds resources");
        }
        String cq = resolveQueue(job);
        if (cq == null) {
            return unresolvedReason(job);
        }
        for (PodSet ps : job.spec().podSets()) {
            Integer m = counts.get(ps.name());
            if (m == null || m < ps.minCount() || m > ps.count()) {
                return PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "pod set \"" + ps.name() + "\": size " + m
                        + " outside minCount..count " + ps.minCount() + ".." + ps.count());
            }
        }
        return null;
    }

    @Override
    public Attempt tryAdmit(JobStatus job, Map<String, Integer> counts) {
        return admitWith(job, counts, false, c -> {
            Placer.Outcome o = placer.place(job.spec(), counts, flavorSpecs(c.flavors()));
            return o.result() != null ? new Placed(o.result().placement(), o.result().taken(), null) : new Placed(null, null, o.reason());
        });
    }

    @Override
    public Attempt tryAdmit(JobStatus job, Placement placement) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (PodSet ps : job.spec().podSets()) {
            counts.put(ps.name(), placement.count(ps.name()));
        }
        return admitWith(job, counts, true, c -> {
            PlacementCheck.Result r = PlacementCheck.takeIfValid(cap, resources, job.spec(), placement, flavorSpecs(c.flavors()));
            return r.error() == null ? new Placed(r.placement(), r.taken(), null)
                    : new Placed(null, null, PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "placement refused: " + r.error()));
        });
    }

    private long admissions;

    /** @return the next admission's order: the round in the high bits, the admission within the round in the low bits */
    private long nextAdmissionOrder() {
        return (snapshot.round() << 24) + ++admissions;
    }

    /** A placement found (or checked) for one flavor choice, with what it takes, or why there is none. */
    private record Placed(Placement placement, List<Placer.Taken> taken, PendingReason reason) {
    }

    /**
     * Admission shared by both {@code tryAdmit}s: checks, flavor assignment under quota, then for each candidate
     * flavor choice the given placement step; the first that places is charged and recorded.
     */
    private Attempt admitWith(JobStatus job, Map<String, Integer> counts, boolean policySupplied,
                              java.util.function.Function<Assignment.Choice, Placed> place) {
        PendingReason pre = precheck(job, counts);
        if (pre != null) {
            return fail(job, pre);
        }
        String cqName = resolveQueue(job);
        ClusterQueue cq = snapshot.clusterQueues().get(cqName);
        Assignment.Result ar = Assignment.assign(cq, snapshot.flavors(), quota, job.spec(), counts);
        if (ar.reason() != null) {
            return fail(job, ar.reason());
        }
        PendingReason last = null;
        for (Assignment.Choice c : ar.choices()) {
            Placed p = place.apply(c);
            if (p.placement() != null) {
                policyPlacements |= policySupplied;
                c.charge(quota, cqName, 1);
                Admit a = new Admit(job.id(), cqName, c.flavors(), counts, p.placement(), snapshot.nowMillis(), Admit.NO_LEASE,
                        nextAdmissionOrder());
                changed();
                admitted.put(job.id(), a);
                admittedJobs.put(job.id(), job);
                heldCapacity.put(job.id(), p.taken());
                reasons.remove(job.id());
                return Attempt.success(a);
            }
            last = p.reason();
        }
        return fail(job, last);
    }

    /**
     * Whether the whole plan came from the engine's own services: every admission's flavors and placement were
     * searched by {@link #tryAdmit(JobStatus, Map)} (or are reserved jobs placed by {@link #placeReserved()}) on
     * this context's capacity and quota, with no resize, no placement supplied by the policy, and no preemption but
     * those the engine's own preemption search chose ({@link #tryAdmitPreempting}: its victims only free capacity
     * and quota, and the admission they make room for is searched on what they free). Such a plan holds every
     * invariant by construction; a plan with anything policy-supplied is re-validated.
     *
     * @return true when nothing in the plan was supplied by the policy
     */
    public boolean plannedByEngineOnly() {
        return !policyPlacements && !policyPreemptions && resized.isEmpty();
    }

    /** @return the first quota invariant the plan breaks, or null */
    public String quotaViolation() {
        return quota.violation();
    }

    private Attempt fail(JobStatus job, PendingReason reason) {
        if (!admitted.containsKey(job.id()) && resolveQueue(job) != null) {
            reasons.put(job.id(), reason);
        }
        return Attempt.failure(reason);
    }

    Map<String, ResourceFlavor> flavorSpecs(Map<String, String> flavorByPodSet) {
        if (flavorByPodSet.size() == 1) {
            Map.Entry<String, String> e = flavorByPodSet.entrySet().iterator().next();
            return java.util.Collections.singletonMap(e.getKey(), snapshot.flavors().get(e.getValue()));
        }
        Map<String, ResourceFlavor> m = new HashMap<>();
        flavorByPodSet.forEach((ps, f) -> m.put(ps, snapshot.flavors().get(f)));
        return m;
    }

    /** True once the policy preempted a job itself (rather than through the engine's preemption search). */
    private boolean policyPreemptions;

    @Override
    public boolean preempt(JobStatus job, String reason) {
        boolean done = preemptForSearch(job, reason);
        policyPreemptions |= done;
        return done;
    }

    /** {@link #preempt} on behalf of the engine's preemption search. */
    boolean preemptForSearch(JobStatus job, String reason) {
        JobStatus held = holdingById.get(job.id());
        if (held == null || preempted.containsKey(job.id())) {
            return false;
        }
        changed();
        for (Placer.Taken t : heldCapacity.getOrDefault(job.id(), List.of())) {
            cap.give(t.node(), t.req(), t.gpuMask());
        }
        Admit current = resized.remove(job.id());
        chargeQuota(current == null ? held : new JobStatus(held.spec(), held.state(), held.pendingReason(), current, held.stateSinceMillis(),
                held.preemptions(), held.sequence(), held.attainedGpuMillis(), held.runningMillis(), held.progress()), -1);
        preempted.put(job.id(), new Preempt(job.id(), reason, held.spec().checkpointing() != null, false));
        touched(held);
        return true;
    }

    @Override
    public Attempt resize(JobStatus job, String podSetName, int target) {
        JobStatus held = holdingById.get(job.id());
        if (held == null || preempted.containsKey(job.id()) || held.admission() == null) {
            return Attempt.failure(PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "job " + job.id() + " holds no resources to resize"));
        }
        changed();
        Admit cur = resized.getOrDefault(job.id(), held.admission());
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
        String flavor = cur.flavors().get(ps.name());
        String cqName = cur.clusterQueue();
        List<MemberPlacement> members = new ArrayList<>(cur.placement().members());
        if (target < now) {
            // release the members with the highest indexes
            List<MemberPlacement> keep = new ArrayList<>();
            for (MemberPlacement m : members) {
                if (m.podSet().equals(ps.name()) && m.index() >= target) {
                    Placer.Taken t = takenBy(m, ps);
                    if (t != null) {
                        cap.give(t.node(), t.req(), t.gpuMask());
                    }
                } else {
                    keep.add(m);
                }
            }
            ps.total(now - target).asMap().forEach((r, v) -> quota.add(cqName, QuotaBook.fr(flavor, r), -v));
            members = keep;
        } else {
            int delta = target - now;
            Map<String, Long> extra = new LinkedHashMap<>();
            ps.total(delta).asMap().forEach((r, v) -> extra.put(QuotaBook.fr(flavor, r), v));
            for (Map.Entry<String, Long> e : extra.entrySet()) {
                long avail = quota.available(cqName, e.getKey());
                if (e.getValue() > avail) {
                    return Attempt.failure(PendingReason.of(PendingReason.Code.QUOTA, "growing " + job.id() + " by " + delta + " needs "
                            + e.getValue() + " " + e.getKey().substring(e.getKey().indexOf('\u0000') + 1) + "; ClusterQueue " + cqName
                            + " may use " + avail + " more"));
                }
            }
            PodSet more = new PodSet(ps.name(), delta, delta, ps.resources(), ps.nodeSelector(), ps.tolerations(),
                    io.fairway.api.job.TopologyRequest.NONE);
            JobSpec probe = new JobSpec(job.id(), held.spec().namespace(), held.spec().queue(), held.spec().jobSet(), held.spec().owner(),
                    held.spec().priority(), held.spec().submitTimeMillis(), List.of(more), 0, held.spec().sensitivity(), null);
            Placer.Outcome o = placer.place(probe, Map.of(ps.name(), delta), Map.of(ps.name(), snapshot.flavors().get(flavor)));
            if (o.result() == null) {
                return Attempt.failure(o.reason());
            }
            List<MemberPlacement> grown = new ArrayList<>(members);
            int idx = now;
            for (MemberPlacement m : o.result().placement().members()) {
                grown.add(new MemberPlacement(m.podSet(), idx++, m.node(), m.gpus()));
            }
            // the new members were searched alone: the whole gang must still be in one cluster and keep its topology
            String broken = PlacementCheck.constraintError(cap, resources, held.spec(), placer.describePublic(held.spec(), grown),
                    flavorSpecs(cur.flavors()), new java.util.HashSet<>(members));
            if (broken != null) {
                for (Placer.Taken t : o.result().taken()) {
                    cap.give(t.node(), t.req(), t.gpuMask());
                }
                return Attempt.failure(PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "growing " + job.id() + " to " + target
                        + " members: the free room found breaks its placement (" + broken + ")"));
            }
            extra.forEach((fr, v) -> quota.add(cqName, fr, v));
            members = grown;
        }
        List<Placer.Taken> taken = new ArrayList<>();
        for (MemberPlacement m : members) {
            for (PodSet p : held.spec().podSets()) {
                if (p.name().equals(m.podSet())) {
                    Placer.Taken t = takenBy(m, p);
                    if (t != null) {
                        taken.add(t);
                    }
                }
            }
        }
        Map<String, Integer> counts = new LinkedHashMap<>(cur.counts());
        counts.put(ps.name(), target);
        Placement p = placer.describePublic(held.spec(), members);
        Admit next = new Admit(job.id(), cqName, cur.flavors(), counts, p, cur.admittedAtMillis(), cur.leaseExpiresAtMillis(), cur.admissionOrder());
        resized.put(job.id(), next);
        touched(held);
        heldCapacity.put(job.id(), taken);
        return Attempt.success(next);
    }

    /** What one member holds on its node. */
    private Placer.Taken takenBy(MemberPlacement m, PodSet ps) {
        Integer n = cap.nodeIndex.get(m.node());
        if (n == null) {
            return null;
        }
        long mask = 0;
        for (int gi : m.gpus()) {
            int pos = cap.shapes[n].positionOf(gi);
            if (pos >= 0) {
                mask |= 1L << pos;
            }
        }
        return new Placer.Taken(n, resources.vector(ps.resources()), mask);
    }

    @Override
    public boolean setLease(JobStatus job, long expiresAtMillis) {
        Admit a = admitted.get(job.id());
        if (a != null) {
            admitted.put(job.id(), a.withLease(expiresAtMillis));
            return true;
        }
        if (holdingById.containsKey(job.id()) && !preempted.containsKey(job.id())) {
            leaseRenewals.put(job.id(), expiresAtMillis);
            return true;
        }
        return false;
    }

    @Override
    public void wakeAt(long atMillis) {
        if (atMillis > now()) {
            wakeAt = Math.min(wakeAt, atMillis);
        }
    }

    @Override
    public void leaveWaiting(JobStatus job, PendingReason reason) {
        if (!admitted.containsKey(job.id()) && resolveQueue(job) != null) {
            reasons.put(job.id(), reason);
        }
    }

    @Override
    public QuotaView quota() {
        return this;
    }

    @Override
    public PlacementSearch placement() {
        return this;
    }

    @Override
    public CapacityView capacity() {
        return this;
    }

    // QuotaView

    @Override
    public Optional<PendingReason> check(JobStatus job, Map<String, Integer> counts) {
        String cqName = resolveQueue(job);
        if (cqName == null) {
            return Optional.of(unresolvedReason(job));
        }
        Assignment.Result ar = Assignment.assign(snapshot.clusterQueues().get(cqName), snapshot.flavors(), quota, job.spec(), counts);
        return Optional.ofNullable(ar.reason());
    }

    @Override
    public long usage(String clusterQueue, String resource) {
        return quota.usedResource(clusterQueue, resource);
    }

    @Override
    public double dominantShare(String clusterQueue) {
        return quota.dominantShare(clusterQueue, snapshot.clusterQueues().get(clusterQueue));
    }

    // PlacementSearch

    @Override
    public Optional<Placement> find(JobStatus job, Map<String, Integer> counts, Map<String, String> flavors) {
        cap.begin();
        Placer.Outcome o = placer.place(job.spec(), counts, flavorSpecs(flavors));
        if (o.result() != null) {
            // a search only looks: give the capacity back
            for (Placer.Taken t : o.result().taken()) {
                cap.give(t.node(), t.req(), t.gpuMask());
            }
            return Optional.of(o.result().placement());
        }
        return Optional.empty();
    }

    // CapacityView

    @Override
    public long totalGpus() {
        return cap.totalGpus;
    }

    @Override
    public long freeGpus() {
        return cap.freeGpus;
    }

    @Override
    public int largestFreeGpusOnOneNode() {
        return cap.largestFree();
    }

    @Override
    public int schedulableNodes() {
        return cap.schedulableCount();
    }

    @Override
    public long total(String resource) {
        long t = 0;
        for (int i = 0; i < cap.nodes.length; i++) {
            if (cap.schedulable[i]) {
                t += cap.nodes[i].capacity().get(resource);
            }
        }
        return t;
    }

    @Override
    public double decayedUsage(String clusterQueue) {
        return snapshot.decayedUsage().getOrDefault(clusterQueue, 0.0);
    }

    // Preemption

    @Override
    public Attempt tryAdmitPreempting(JobStatus job) {
        Attempt first = tryAdmit(job);
        if (first.admitted()) {
            return first;
        }
        String cqName = resolveQueue(job);
        if (cqName == null) {
            return first;
        }
        ClusterQueue cq = snapshot.clusterQueues().get(cqName);
        SearchKey key = searchKey(job, cq);
        if (key != null) {
            Failed f = failedSearches.get(key);
            if (f != null && f.state() == state) {
                // the same search on the same plan, over the same candidates: it would fail the same way, and leave the
                // plan as it found it but for the admission numbers it used
                admissions += f.admissions();
                if (f.admissions() > 0) {
                    reasons.remove(job.id());
                }
                reasons.put(job.id(), f.reason());
                return Attempt.failure(f.reason());
            }
        }
        long before = state;
        long admissionsBefore = admissions;
        Attempt a = Preemptor.search(this, job, cq, first.reason());
        if (!a.admitted()) {
            state = before; // a failed search undid all it tried
            if (key != null) {
                failedSearches.put(key, new Failed(state, a.reason(), admissions - admissionsBefore));
            }
            reasons.put(job.id(), a.reason());
        }
        return a;
    }

    /**
     * @return the key of the job's preemption search: its attempt key and where its priority ranks among the
     *     candidates it may take (the candidates are the same for two jobs with the same key), or null when the
     *     search depends on more of the job (equal priorities ranked by submission; elastic jobs)
     */
    private SearchKey searchKey(JobStatus job, ClusterQueue cq) {
        io.fairway.api.model.PreemptionPolicy p = cq.preemption();
        if (p.withinClusterQueue() == io.fairway.api.model.PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY
                || job.spec().isElastic() || p.equals(io.fairway.api.model.PreemptionPolicy.NEVER)) {
            return null;
        }
        PreemptionIndex index = preemptionIndex();
        int prio = job.spec().priority();
        int own = p.withinClusterQueue() == io.fairway.api.model.PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY
                ? PreemptionIndex.countBelow(index.ofQueue(cq.name()), prio) : 0;
        boolean cohortByPriority = p.reclaimWithinCohort() == io.fairway.api.model.PreemptionPolicy.ReclaimWithinCohort.LOWER_PRIORITY
                || p.borrowWithinCohort() == io.fairway.api.model.PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY;
        int cohort = cohortByPriority ? PreemptionIndex.countBelow(index.ofRoot(index.rootOf(cq)), prio) : 0;
        return new SearchKey(attemptKey(cq.name(), job), own, cohort);
    }

    /** @return true when the job would be admitted now (nothing is changed) */
    boolean fits(JobStatus job) {
        String cqName = resolveQueue(job);
        Map<String, Integer> counts = fullCounts(job.spec());
        Assignment.Result ar = Assignment.assign(snapshot.clusterQueues().get(cqName), snapshot.flavors(), quota, job.spec(), counts);
        if (ar.reason() != null) {
            return false;
        }
        for (Assignment.Choice c : ar.choices()) {
            Placer.Outcome o = placer.place(job.spec(), counts, flavorSpecs(c.flavors()));
            if (o.result() != null) {
                for (Placer.Taken t : o.result().taken()) {
                    cap.give(t.node(), t.req(), t.gpuMask());
                }
                return true;
            }
        }
        return false;
    }

    /** The running jobs indexed for the preemption search, built on the first search of the round. */
    private PreemptionIndex preemptionIndex;

    /** @return the round's preemption index, built on first use */
    PreemptionIndex preemptionIndex() {
        if (preemptionIndex == null) {
            preemptionIndex = new PreemptionIndex(this);
        }
        return preemptionIndex;
    }

    /** Tells the preemption index (once built) that a running job was preempted, restored or resized in the plan. */
    private void touched(JobStatus job) {
        if (preemptionIndex != null) {
            preemptionIndex.touched(job);
        }
    }

    /** Replaces the reason of a preemption already in the plan. */
    void explainPreemption(String jobId, String reason) {
        Preempt p = preempted.get(jobId);
        if (p != null) {
            preempted.put(jobId, new Preempt(jobId, reason, p.checkpoint(), p.migration()));
        }
    }

    /** Undoes an admission made in this plan: its capacity and quota are free again. */
    void unadmit(String jobId) {
        Admit a = admitted.remove(jobId);
        if (a == null) {
            return;
        }
        changed();
        for (Placer.Taken t : heldCapacity.getOrDefault(jobId, List.of())) {
            cap.give(t.node(), t.req(), t.gpuMask());
        }
        heldCapacity.remove(jobId);
        JobStatus j = admittedJobs.remove(jobId);
        if (j != null) {
            for (PodSet ps : j.spec().podSets()) {
                String flavor = a.flavors().get(ps.name());
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                ps.total(m).asMap().forEach((r, v) -> quota.add(a.clusterQueue(), QuotaBook.fr(flavor, r), -v));
            }
        }
    }

    /** Undoes a preemption made in this plan: the job holds its capacity and quota again. */
    void restore(String jobId) {
        if (preempted.remove(jobId) == null) {
            return;
        }
        changed();
        JobStatus held = holdingById.get(jobId);
        for (Placer.Taken t : heldCapacity.getOrDefault(jobId, List.of())) {
            cap.take(t.node(), t.req(), t.gpuMask());
        }
        chargeQuota(held, +1);
        touched(held);
    }

    private void chargeQuota(JobStatus held, int sign) {
        Admit a = held.admission();
        if (a != null && quota.hasQueue(a.clusterQueue())) {
            for (PodSet ps : held.spec().podSets()) {
                String flavor = a.flavors().get(ps.name());
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                if (flavor != null) {
                    ps.total(m).asMap().forEach((r, v) -> quota.add(a.clusterQueue(), QuotaBook.fr(flavor, r), sign * v));
                }
            }
        }
    }

    /** @return the admissible pending jobs of each ClusterQueue in Kueue order, built on first use */
    Map<String, List<JobStatus>> pendingByClusterQueue() {
        if (pendingByCq.isEmpty() && !admissible().isEmpty()) {
            for (JobStatus j : admissible()) {
                pendingByCq.computeIfAbsent(resolveQueue(j), k -> new ArrayList<>()).add(j);
            }
            for (List<JobStatus> l : pendingByCq.values()) {
                if (!sorted(l)) {
                    l.sort(KUEUE_ORDER);
                }
            }
        }
        return pendingByCq;
    }

    private static boolean sorted(List<JobStatus> l) {
        for (int i = 1; i < l.size(); i++) {
            if (KUEUE_ORDER.compare(l.get(i - 1), l.get(i)) > 0) {
                return false;
            }
        }
        return true;
    }
}
