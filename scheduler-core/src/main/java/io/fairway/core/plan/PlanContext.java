package io.fairway.core.plan;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.CapacityView;
import io.fairway.api.spi.PendingGroup;
import io.fairway.api.spi.PlacementSearch;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.QuotaView;
import io.fairway.core.admission.QueueResolver;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.Assignment;
import io.fairway.core.placement.PlacementCheck;
import io.fairway.core.placement.Placer;
import io.fairway.core.preemption.PreemptionSearch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import io.fairway.core.snapshot.PendingIndex;

/**
 * The {@link PolicyContext} of one round: what a policy sees and does. It answers from the round's parts — the
 * queues ({@link QueueResolver}), the pending jobs ({@link PendingView}), the tentative plan ({@link TentativePlan}), the
 * quota, capacity and placement views the SPI names ({@link PlanQuota}, {@link PlanCapacity}, {@link PlanSearch}),
 * the preemption search ({@link PreemptionSearch}, which reads the plan through {@link PlanForSearch}) — and
 * remembers failed attempts ({@link AttemptMemo}).
 */
public final class PlanContext implements PolicyContext {
    private final Snapshot snapshot;
    private final QueueResolver queues;
    private final PendingView pending;
    private final TentativePlan plan;
    /** The policy's read-only view of the plan's elastic jobs that hold resources, made once. */
    private List<JobStatus> holdingElasticView;
    /** The last failure handed out, given again for the same reason object. */
    private Attempt lastFailure;
    /** The last single pod set list counted, and its counts. */
    private List<io.fairway.api.job.PodSet> lastCountedPodSets;
    private Map<String, Integer> lastCounts;
    private final AttemptMemo memo = new AttemptMemo();
    /** Failures (for quota, of preemption searches) that answer later attempts of the round ({@link RoundBounds}). */
    private final RoundBounds bounds;
    private final RandomGenerator random;
    private final QuotaView quotaView;
    private final CapacityView capacityView;
    private final PlacementSearch placementSearch;
    /** Jobs admitted under quota and waiting for nodes: placed by {@link #placeNodeReservations()}, not by the policy. */
    private final List<JobStatus> jobsWithNodeReservation = new ArrayList<>();
    /** True once the policy admitted a job on a placement of its own (rather than one the engine searched). */
    private boolean policyPlacements;
    /** True once the policy preempted a job itself (rather than through the engine's preemption search). */
    private boolean policyPreemptions;
    /** What the engine remembers from earlier rounds (null: decide everything from scratch). */
    private final RoundMemory.Round memory;
    /** The plan's state number when the policy started; -1 before, or when the memory may not answer. */
    private long startState = -1;
    /** True once {@link #previousAnswersStand()} said yes: jobs the policy does not look at keep their reasons. */
    private boolean answersStood;
    /** Whether the last failed {@link #admitWith} failed for quota (before reading the capacity). */
    private boolean lastFailedForQuota;

    /**
     * Capacity kept for a lender that cannot reclaim (Kueue's reservation for an unreclaimable preemption): per
     * ClusterQueue whose reclaimWithinCohort is not Any, what its first job that waits for quota this round asks of its
     * target flavors, when that fits its nominal quota. While the round lasts, other queues' attempts see that much of
     * its unused nominal quota (at most what the cohort could lend now) as used: they do not borrow it.
     */
    private final Map<String, Kept> keptFor = new java.util.LinkedHashMap<>();

    /** What a ClusterQueue's waiting job asks of its target flavors, kept from other queues while the round lasts. */
    private record Kept(String jobId, Map<String, Long> demand) {
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
        this(snapshot, indexPending, null);
    }

    /**
     * A round's context that may answer repeated attempts from what earlier rounds found.
     *
     * @param snapshot the round's input
     * @param memory the round's view of the engine's memory, or null to decide everything from scratch
     */
    public PlanContext(Snapshot snapshot, RoundMemory.Round memory) {
        this(snapshot, true, memory, null);
    }

    /**
     * A round's context that starts from the charges the engine keeps.
     *
     * @param snapshot the round's input
     * @param memory the round's view of the engine's memory, or null
     * @param charged what every holding job of the snapshot charges ({@link HeldCharges#forRound}: the round's own
     *     copies), or null to charge them one by one
     */
    public PlanContext(Snapshot snapshot, RoundMemory.Round memory, HeldCharges.Charged charged) {
        this(snapshot, true, memory, charged);
    }

    private PlanContext(Snapshot snapshot, boolean indexPending, RoundMemory.Round memory) {
        this(snapshot, indexPending, memory, null);
    }

    private PlanContext(Snapshot snapshot, boolean indexPending, RoundMemory.Round memory, HeldCharges.Charged charged) {
        this.memory = memory;
        this.snapshot = snapshot;
        this.queues = new QueueResolver(snapshot);
        this.pending = new PendingView(snapshot, queues, memory == null ? null : memory.configuration());
        Function<TentativePlan, PreemptionSearch> preemption = p -> new PreemptionSearch(new PlanForSearch(this, p));
        this.plan = new TentativePlan(snapshot, preemption, charged);
        this.bounds = new RoundBounds(plan);
        this.random = new SplittableRandom(snapshot.seed() * 0x9E3779B97F4A7C15L + snapshot.round());
        this.quotaView = new PlanQuota(plan, queues);
        this.capacityView = new PlanCapacity(plan.cap);
        this.placementSearch = new PlanSearch(plan);
        if (indexPending && !snapshot.provisioning().reservations().isEmpty()) {
            for (JobStatus j : snapshot.pending()) {
                if (queues.hasNodeReservation(j)) {
                    jobsWithNodeReservation.add(j);
                }
            }
        }
    }

    /** @return the round's tentative plan */
    public TentativePlan plan() {
        return plan;
    }

    /**
     * Places the jobs holding a node reservation (quota held while their nodes come up), before the policy runs:
     * they were admitted under quota already. A job that still has no room keeps its node reservation.
     */
    public void placeNodeReservations() {
        plan.placeNodeReservations(jobsWithNodeReservation);
    }

    /**
     * Marks the plan as the policy finds it: attempts made on it (before anything changes) may be answered from,
     * and recorded in, the memory. A round with jobs waiting for nodes under reserved quota does not use the memory.
     */
    public void policyStarts() {
        bounds.start();
        if (memory != null && snapshot.provisioning().reservations().isEmpty()) {
            startState = plan.state();
            plan.quota.resetTreeChanges();
            memory.startingCapacity(plan.cap);
        }
    }

    /**
     * True when the quota a job of this ClusterQueue's cohort tree sees is still the starting plan's: the memory is in
     * use, the plan changed no usage in the tree, and no capacity is kept in it for another queue's waiting job. A quota
     * failure reads nothing else, so one remembered from an equal starting plan stands, however much the plan
     * changed in other trees.
     */
    private boolean treeAsAtStart(String clusterQueue) {
        if (startState < 0 || clusterQueue == null || plan.quota.treeChanges(clusterQueue) != 0) {
            return false;
        }
        for (String kept : keptFor.keySet()) { // capacity kept for the job's own queue is not charged to its attempts
            if (!kept.equals(clusterQueue) && memory.sameTree(kept, clusterQueue)) {
                return false;
            }
        }
        return true;
    }

    /** @return true when attempts now may be answered from the memory: the plan is the round's starting plan */
    private boolean onStartingPlan() {
        return startState >= 0 && plan.state() == startState;
    }

    @Override
    public boolean previousAnswersStand() {
        if (onStartingPlan() && memory.previousAnswersStand()) {
            answersStood = true;
            return true;
        }
        return false;
    }

    /** @return true when the policy was told the previous answers stand: jobs it left alone keep their reasons */
    boolean answersStood() {
        return answersStood;
    }

    /**
     * @return true when a job whose answer is the same as the one it carries, with moved numbers, keeps its reason:
     *     the engine remembers rounds and the configuration is the previous round's
     */
    boolean keepsReasons() {
        return memory != null && memory.configKept();
    }

    /** @return true when the policy gave no reason to a job or a group */
    boolean noReasonsGiven() {
        return plan.reasons.isEmpty() && pending.noBulk();
    }

    /** @return the snapshot's pending index, as {@link #pendingGroups()} groups it */
    PendingIndex pendingIndex() {
        return pending.index();
    }

    /**
     * @param at a group's position in the index ({@link #pendingIndex()})
     * @param g the group there
     * @return its ClusterQueue, or null when its queues are missing or stopped
     */
    String clusterQueueAt(int at, PendingIndex.Group g) {
        return pending.clusterQueueAt(at, g);
    }

    /** @return the reason a pending job waits for a missing or stopped queue, or null when its queue resolves */
    PendingReason unresolvedReasonOf(JobStatus j) {
        return queues.unresolvedReasonOf(j);
    }

    /**
     * @param at a group's position in the index ({@link #pendingIndex()})
     * @return the reason the policy gave that group from some position on, or null
     */
    PendingView.Bulk bulkAt(int at) {
        return pending.bulkAt(at);
    }

    @Override
    public List<PendingGroup> pendingGroups() {
        return pending.groups();
    }

    @Override
    public void leaveWaiting(PendingGroup group, int fromIndex, PendingReason reason) {
        if (!pending.leaveWaiting(group, fromIndex, reason)) {
            PolicyContext.super.leaveWaiting(group, fromIndex, reason);
        }
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
        return Collections.unmodifiableList(pending.admissible());
    }

    @Override
    public List<JobStatus> pending(String clusterQueue) {
        return Collections.unmodifiableList(pending.byClusterQueue().getOrDefault(clusterQueue, List.of()));
    }

    @Override
    public String clusterQueueOf(JobStatus job) {
        if (job.admission() != null && plan.holding(job.id()) != null) {
            return job.admission().clusterQueue();
        }
        return queues.resolve(job);
    }

    @Override
    public List<JobStatus> holding() {
        return snapshot.holding();
    }

    @Override
    public List<JobStatus> holdingElastic() {
        if (holdingElasticView == null) {
            holdingElasticView = Collections.unmodifiableList(plan.holdingElastic());
        }
        return holdingElasticView;
    }

    @Override
    public Attempt tryAdmit(JobStatus job) {
        long before = plan.state();
        Attempt a = admitFullSize(job);
        if (plan.state() != before) {
            bounds.touched(queues.resolve(job), before); // an admission, or capacity kept for its queue as a lender
        }
        return a;
    }

    private Attempt admitFullSize(JobStatus job) {
        AttemptMemo.AttemptKey key = null;
        // Not for elastic jobs: the placement search keeps a per-round cache of "never fits" reasons by pod set, not by
        // member count, which their smaller attempts then read; skipping the full-size attempt would change what they read.
        boolean remembered = onStartingPlan() && !job.spec().isElastic();
        // after the plan changed, a quota failure still stands in a cohort tree the plan left as it was
        boolean quotaOnly = !remembered && startState >= 0 && !job.spec().isElastic();
        String cqName = null;
        if (precheck(job, fullCounts(job)) == null) {
            cqName = queues.resolve(job);
            key = memo.attemptKey(cqName, job);
            AttemptMemo.Failed f = memo.failedAdmission(key, plan.state());
            if (f != null) {
                keepForLender(job, f.reason());
                return fail(job, f.reason()); // the same attempt on the same plan: the same failure
            }
            PendingReason before = remembered ? memory.admission(key)
                    : quotaOnly && treeAsAtStart(cqName) ? memory.quotaAdmission(key) : null;
            if (before != null) { // the same attempt on an equal plan (or, for quota, an equal tree) in an earlier round
                memo.admissionFailed(key, plan.state(), before);
                keepForLender(job, before);
                return fail(job, before);
            }
            if (remembered && placementStillFails(job, cqName, key) != null) {
                return fail(job, memo.failedAdmission(key, plan.state()).reason());
            }
            PendingReason quota = job.spec().isElastic() ? null : bounds.quotaFailure(key);
            if (quota != null) { // a quota failure of this round in a cohort tree nothing changed since (see RoundBounds)
                lastFailedForQuota = true;
                noteFailure(key, quota, remembered, quotaOnly, cqName);
                keepForLender(job, quota);
                return fail(job, quota);
            }
        }
        Attempt a = tryAdmit(job, fullCounts(job));
        if (key != null && !a.admitted() && a.reason() != null) {
            noteFailure(key, a.reason(), remembered, quotaOnly, cqName);
            if (lastFailedForQuota && !job.spec().isElastic()) {
                bounds.quotaFailed(key, cqName, a.reason());
            }
        }
        if (!a.admitted()) {
            keepForLender(job, a.reason());
        }
        return a;
    }

    /** Records a failed full-size admission in the round's memo and, where it may answer later rounds, the memory. */
    private void noteFailure(AttemptMemo.AttemptKey key, PendingReason reason, boolean remembered, boolean quotaOnly, String cqName) {
        memo.admissionFailed(key, plan.state(), reason);
        if (remembered) {
            memory.admissionFailed(key, reason, lastFailedForQuota);
        } else if (quotaOnly && lastFailedForQuota && treeAsAtStart(cqName)) {
            memory.admissionFailed(key, reason, true);
        }
    }

    /**
     * The answer a group's first job would get from {@link #tryAdmit(JobStatus)} and, where {@code preempting},
     * {@link #tryAdmitPreempting(JobStatus)}, when the engine can tell without making either attempt that it is a
     * failure that changes nothing in the plan and that the group's jobs keep the reason they carry. Then the group
     * is left with its reasons ({@link PendingView#markStood}) and the answer is recorded as the attempts would
     * record it (the round's memo, the count of answered attempts). See {@link PolicyContext#standingAnswer}.
     *
     * <p>What stands, exactly as the attempts would answer: on the round's starting plan, a failed admission (and
     * search) the memory holds for the job's key with every epoch it depended on unchanged, and, for an admission
     * only, a failure already made on the plan as it is now (the round's memo) or a remembered quota failure in a
     * cohort tree the plan has not changed; once the plan has changed, with preemption, a failure made on the plan as
     * it is now and a bound of the round on the search ({@link #boundedAnswer}). Never: an elastic job, a search that
     * used admission numbers, a quota failure that would keep capacity for a lender, a job whose answer differs from
     * the one it carries.
     */
    @Override
    public PendingReason standingAnswer(PendingGroup group, boolean preempting) {
        if (startState < 0 || !keepsReasons() || PendingView.sizeOf(group) == 0) {
            return null;
        }
        if (preempting && !onStartingPlan()) {
            return boundedAnswer(group); // a search is answered from the memory on the starting plan only; later, by a bound
        }
        JobStatus job = group.jobs().get(0);
        PendingReason carried = job.pendingReason();
        if (carried == null || job.spec().isElastic() || !pending.carriesOne(group, carried)
                || precheck(job, fullCounts(job)) != null) {
            return null;
        }
        String cqName = queues.resolve(job);
        ClusterQueue cq = clusterQueue(cqName);
        if (!cqName.equals(group.clusterQueue())) {
            return null;
        }
        AttemptMemo.AttemptKey key = memo.attemptKey(cqName, job);
        int answered = 0;
        AttemptMemo.Failed made = memo.failedAdmission(key, plan.state());
        PendingReason admission;
        if (made != null) {
            admission = made.reason();
        } else {
            RoundMemory.Answer a = onStartingPlan() || (startState >= 0 && treeAsAtStart(cqName)) ? memory.peek(key) : null;
            if (a == null || !onStartingPlan() && a.capacity() != null) {
                return null; // after the plan changed only a quota failure stands, in a tree the plan left as it was
            }
            admission = a.reason();
            answered++;
        }
        if (mayKeepForLender(admission, cq)) {
            return null; // the failure might keep capacity for this lender: a change to the plan
        }
        PendingReason answer = admission;
        if (preempting && !cq.preemption().isNever()) {
            boolean newer = cq.preemption().withinClusterQueue() == io.fairway.api.model.PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY;
            RoundMemory.SearchKey sk = new RoundMemory.SearchKey(key, job.spec().priority(),
                    newer ? job.spec().submitTimeMillis() : 0, newer ? job.sequence() : 0);
            RoundMemory.Answer s = memory.peek(sk);
            if (s == null || s.admissions() != 0) {
                return null; // not remembered, or its replay would use admission numbers
            }
            answer = s.reason();
            answered++;
        }
        if (answer != carried && !answer.sameAnswer(carried) || !pending.markStood(group, carried)) {
            return null;
        }
        if (made == null) {
            memo.admissionFailed(key, plan.state(), admission);
        }
        memory.countAnswered(answered);
        standing++;
        return answer;
    }

    /**
     * The standing answer once the plan has changed, for a group whose ClusterQueue may preempt: its first job's
     * admission attempt failed on the plan as it is now (an attempt of the same key since the last change: the round's
     * memo) and a failed search of the same key at a priority as high bounds its search ({@link RoundBounds}), which is
     * what {@link #tryAdmitPreempting} would answer, with nothing changed in the plan; given only when it is the answer
     * every job of the group carries. What a deep queue's round gives most of its groups, read from the group (its
     * ClusterQueue, whether it is elastic, its priority and common reason, its first job's key kept across rounds)
     * rather than through the attempts, which read each waiting job's own fields.
     */
    private PendingReason boundedAnswer(PendingGroup group) {
        io.fairway.core.snapshot.PendingIndex.Group g = pending.sourceOf(group);
        PendingReason carried = g == null ? null : g.commonReason();
        String cqName = group.clusterQueue();
        ClusterQueue cq = carried == null || cqName == null ? null : clusterQueue(cqName);
        if (cq == null || !RoundBounds.appliesToSearch(g.elastic(), cq)) {
            return null;
        }
        AttemptMemo.AttemptKey key = AttemptMemo.attemptKey(cqName, g);
        AttemptMemo.Failed made = memo.failedAdmission(key, plan.state());
        if (made == null || mayKeepForLender(made.reason(), cq)) {
            return null;
        }
        PendingReason answer = bounds.peekSearch(key, g.priority(), cqName, made.reason());
        if (answer == null || !givesTheAnswerOf(carried, answer) || !pending.markStood(group, carried)) {
            return null;
        }
        bounds.searchAnswered();
        standing++;
        return answer;
    }

    /** The last ClusterQueue {@link #clusterQueue} looked up, and its name: a walk asks for one queue's groups in a row. */
    private String lastCqName;
    private ClusterQueue lastCq;

    /** @return the snapshot's ClusterQueue of this name, or null */
    private ClusterQueue clusterQueue(String name) {
        if (name != lastCqName) {
            lastCq = snapshot.clusterQueues().get(name);
            lastCqName = name;
        }
        return lastCq;
    }

    /**
     * Per reason a group carries, the last answer found to give the same ({@link PendingReason#sameAnswer}): groups share
     * both objects (one carried reason for many groups, one bound's answer per key), so a deep queue compares each
     * pair's sentences once rather than once per group.
     */
    private final Map<PendingReason, PendingReason> sameAnswerAs = new java.util.IdentityHashMap<>();

    /** @return true when {@code carried} is {@code answer} or gives the same answer */
    private boolean givesTheAnswerOf(PendingReason carried, PendingReason answer) {
        if (carried == answer || sameAnswerAs.get(carried) == answer) {
            return true;
        }
        if (!answer.sameAnswer(carried)) {
            return false;
        }
        sameAnswerAs.put(carried, answer);
        return true;
    }

    /**
     * @return true when a job of this ClusterQueue failing with {@code admission} might have capacity kept for it as a
     *     lender ({@link #keepForLender}): a change to the plan, which a standing answer must not skip
     */
    private boolean mayKeepForLender(PendingReason admission, ClusterQueue cq) {
        return admission.code() == PendingReason.Code.QUOTA && cq.cohort() != null
                && cq.preemption().reclaimWithinCohort() != io.fairway.api.model.PreemptionPolicy.ReclaimWithinCohort.ANY
                && cq.preemption().cohortRules() != io.fairway.api.model.PreemptionPolicy.CohortRules.FAIRWAY_STRICT
                && !keptFor.containsKey(cq.name());
    }

    /** How many groups {@link #standingAnswer} answered in this round. */
    private int standing;

    /**
     * @return how many pending groups the policy left alone on a standing answer in this round
     *     ({@link #standingAnswer}), for tests and diagnostics
     */
    public int standingAnswers() {
        return standing;
    }

    /**
     * A remembered failure to place that still stands on the starting plan although capacity or quota changed: the
     * job's quota fits as it did, and the room it needs is still not free anywhere it could go
     * ({@link RoundMemory.Round#placementStillFails}). Records the answer in the round's memo.
     *
     * @return the remembered reason, or null when the attempt must be made
     */
    private PendingReason placementStillFails(JobStatus job, String cqName, AttemptMemo.AttemptKey key) {
        PendingReason r = memory.placementStillFails(key);
        if (r == null) {
            return null;
        }
        ClusterQueue cq = clusterQueue(cqName);
        Map<String, Integer> counts = fullCounts(job);
        Assignment.Result ar = assignKeeping(cqName, () -> Assignment.assign(cq, snapshot.flavors(), plan.quota, job.spec(), counts));
        if (ar.reason() != null) {
            return null; // its quota no longer fits: the answer is a quota failure, made afresh
        }
        memory.answeredAfterCheck();
        memo.admissionFailed(key, plan.state(), r);
        return r;
    }

    /**
     * Kueue keeps a lender's unused nominal quota from other queues while its job waits for it and it could not
     * reclaim a loan ({@code reclaimWithinCohort} not Any): records the job's target demand for its queue, once per
     * queue and round, when the job waits for quota and its demand fits the queue's nominal quota.
     */
    private void keepForLender(JobStatus job, PendingReason reason) {
        if (reason == null || reason.code() != PendingReason.Code.QUOTA) {
            return;
        }
        String cqName = queues.resolve(job);
        ClusterQueue cq = cqName == null ? null : snapshot.clusterQueues().get(cqName);
        if (cq == null || cq.cohort() == null || keptFor.containsKey(cqName)
                || cq.preemption().reclaimWithinCohort() == io.fairway.api.model.PreemptionPolicy.ReclaimWithinCohort.ANY
                || cq.preemption().cohortRules() == io.fairway.api.model.PreemptionPolicy.CohortRules.FAIRWAY_STRICT) {
            return;
        }
        Map<String, Long> demand = Assignment.targetDemand(cq, snapshot.flavors(), plan.quota, job.spec());
        if (demand.isEmpty()) {
            return;
        }
        for (Map.Entry<String, Long> e : demand.entrySet()) {
            if (e.getValue() > plan.quota.nominal(cqName, e.getKey())) {
                return; // it would have to borrow: nothing of its own to keep
            }
        }
        keptFor.put(cqName, new Kept(job.id(), demand));
        plan.changed();
        bounds.kept(cqName);
    }

    /**
     * Runs a flavor assignment for a job of {@code cqName} with the capacity kept for other queues' waiting jobs
     * charged to them, then gives it back.
     */
    private Assignment.Result assignKeeping(String cqName, java.util.function.Supplier<Assignment.Result> assign) {
        if (keptFor.isEmpty() || (keptFor.size() == 1 && keptFor.containsKey(cqName))) {
            return assign.get();
        }
        List<Object[]> charged = new java.util.ArrayList<>();
        for (Map.Entry<String, Kept> q : keptFor.entrySet()) {
            if (q.getKey().equals(cqName)) {
                continue;
            }
            for (Map.Entry<String, Long> e : q.getValue().demand().entrySet()) {
                String fr = e.getKey();
                long keep = Math.min(e.getValue(), Math.min(plan.quota.nominal(q.getKey(), fr) - plan.quota.used(q.getKey(), fr),
                        plan.quota.available(q.getKey(), fr)));
                if (keep > 0) {
                    plan.quota.add(q.getKey(), fr, keep);
                    charged.add(new Object[] {q.getKey(), fr, keep});
                }
            }
        }
        try {
            return assign.get();
        } finally {
            for (int i = charged.size() - 1; i >= 0; i--) {
                Object[] c = charged.get(i);
                plan.quota.add((String) c[0], (String) c[1], -(Long) c[2]);
            }
        }
    }

    private PendingReason precheck(JobStatus job, Map<String, Integer> counts) {
        if (plan.admitted.containsKey(job.id())) {
            return PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "already admitted in this round");
        }
        if (plan.holding(job.id()) != null) {
            return PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "job " + job.id() + " already holds resources");
        }
        String cq = queues.resolve(job);
        if (cq == null) {
            return queues.unresolvedReason(job);
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
            Placer.Outcome o = plan.placer.place(job.spec(), counts, plan.flavorSpecs(c.flavors()));
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
            PlacementCheck.Result r = PlacementCheck.takeIfValid(plan.cap, job.spec(), placement, plan.flavorSpecs(c.flavors()));
            return r.error() == null ? new Placed(r.placement(), r.taken(), null)
                    : new Placed(null, null, PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "placement refused: " + r.error()));
        });
    }

    /** A placement found (or checked) for one flavor choice, with what it takes, or why there is none. */
    private record Placed(Placement placement, List<Placer.Taken> taken, PendingReason reason) {
    }

    /**
     * Admission shared by both {@code tryAdmit}s: checks, flavor assignment under quota, then for each candidate
     * flavor choice the given placement step; the first that places is charged and recorded.
     */
    private Attempt admitWith(JobStatus job, Map<String, Integer> counts, boolean policySupplied, Function<Assignment.Choice, Placed> place) {
        PendingReason pre = precheck(job, counts);
        if (pre != null) {
            return fail(job, pre);
        }
        String cqName = queues.resolve(job);
        ClusterQueue cq = clusterQueue(cqName);
        Assignment.Result ar = assignKeeping(cqName, () -> Assignment.assign(cq, snapshot.flavors(), plan.quota, job.spec(), counts));
        lastFailedForQuota = ar.reason() != null;
        if (ar.reason() != null) {
            return fail(job, ar.reason());
        }
        bounds.capacityRead();
        long before = plan.state();
        PendingReason last = null;
        for (Assignment.Choice c : ar.choices()) {
            Placed p = place.apply(c);
            if (p.placement() != null) {
                policyPlacements |= policySupplied;
                c.charge(plan.quota, cqName, 1);
                Admit a = new Admit(job.id(), cqName, c.flavors(), counts, p.placement(), snapshot.nowMillis(), Admit.NO_LEASE,
                        plan.nextAdmissionOrder());
                plan.admit(job, a, p.taken());
                Kept kept = keptFor.get(cqName);
                if (kept != null && kept.jobId().equals(job.id())) {
                    keptFor.remove(cqName); // admitted after all (by preemption): nothing to keep for it
                    bounds.kept(cqName);
                }
                bounds.touched(cqName, before);
                return Attempt.success(a);
            }
            last = p.reason();
        }
        return fail(job, last);
    }

    /**
     * Whether the whole plan came from the engine's own services: every admission's flavors and placement were
     * searched by {@link #tryAdmit(JobStatus, Map)} (or are jobs holding a node reservation, placed by {@link #placeNodeReservations()}) on
     * this context's capacity and quota, with no resize, no placement supplied by the policy, and no preemption but
     * those the engine's own preemption search chose ({@link #tryAdmitPreempting}: its victims only free capacity
     * and quota, and the admission they make room for is searched on what they free). Such a plan holds every
     * invariant by construction; a plan with anything policy-supplied is re-validated.
     *
     * @return true when nothing in the plan was supplied by the policy
     */
    public boolean plannedByEngineOnly() {
        return !policyPlacements && !policyPreemptions && plan.resized.isEmpty();
    }

    /** @return the first quota invariant the plan breaks, or null */
    public String quotaViolation() {
        return plan.quota.violation();
    }

    private Attempt fail(JobStatus job, PendingReason reason) {
        if (!plan.admitted.containsKey(job.id()) && queues.resolve(job) != null) {
            plan.reasons.put(job.id(), reason);
        }
        return failure(reason);
    }

    /**
     * @return the job's full counts; for a single pod set (immutable) the last map made again while the job's pod sets
     *     are the same list (the engine keeps one copy of equal lists, so a deep queue asks for a handful of them)
     */
    private Map<String, Integer> fullCounts(JobStatus job) {
        List<io.fairway.api.job.PodSet> podSets = job.spec().podSets();
        if (podSets != lastCountedPodSets || podSets.size() != 1) {
            lastCounts = Assignment.fullCounts(job.spec());
            lastCountedPodSets = podSets.size() == 1 ? podSets : null;
        }
        return lastCounts;
    }

    /** @return a failure with this reason: the last one made again when the reason is the same object (answers repeat) */
    private Attempt failure(PendingReason reason) {
        if (lastFailure == null || lastFailure.reason() != reason) {
            lastFailure = Attempt.failure(reason);
        }
        return lastFailure;
    }

    @Override
    public boolean preempt(JobStatus job, String reason) {
        if (!job.spec().preemptible()) {
            return false; // its priority class is not preemptible: no policy may take it
        }
        long before = plan.state();
        boolean done = plan.preempt(job, reason);
        policyPreemptions |= done;
        bounds.touched(job.admission() == null ? null : job.admission().clusterQueue(), before);
        return done;
    }

    @Override
    public Attempt resize(JobStatus job, String podSet, int targetCount) {
        long before = plan.state();
        Attempt a = Resizer.resize(plan, job, podSet, targetCount);
        bounds.touched(null, before); // what it frees and takes is not placed in one tree here
        return a;
    }

    @Override
    public boolean setLease(JobStatus job, long expiresAtMillis) {
        Admit a = plan.admitted.get(job.id());
        if (a != null) {
            plan.admitted.put(job.id(), a.withLease(expiresAtMillis));
            return true;
        }
        if (plan.holding(job.id()) != null && !plan.preempted.containsKey(job.id())) {
            plan.leaseRenewals.put(job.id(), expiresAtMillis);
            return true;
        }
        return false;
    }

    @Override
    public void wakeAt(long atMillis) {
        if (atMillis > now()) {
            plan.wakeAt = Math.min(plan.wakeAt, atMillis);
        }
    }

    @Override
    public void leaveWaiting(JobStatus job, PendingReason reason) {
        if (!plan.admitted.containsKey(job.id()) && queues.resolve(job) != null) {
            plan.reasons.put(job.id(), reason);
        }
    }

    @Override
    public QuotaView quota() {
        return quotaView;
    }

    @Override
    public PlacementSearch placement() {
        return placementSearch;
    }

    @Override
    public CapacityView capacity() {
        return capacityView;
    }

    @Override
    public Attempt tryAdmitPreempting(JobStatus job) {
        Attempt first = tryAdmit(job);
        if (first.admitted()) {
            return first;
        }
        String cqName = queues.resolve(job);
        if (cqName == null) {
            return first;
        }
        ClusterQueue cq = clusterQueue(cqName);
        RoundMemory.SearchKey remembered = null;
        if (onStartingPlan() && !job.spec().isElastic() && !cq.preemption().isNever()) {
            // the candidates depend on the job's priority, and under LowerOrNewerEqualPriority on its submission too
            boolean newer = cq.preemption().withinClusterQueue() == io.fairway.api.model.PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY;
            remembered = new RoundMemory.SearchKey(memo.attemptKey(cq.name(), job), job.spec().priority(),
                    newer ? job.spec().submitTimeMillis() : 0, newer ? job.sequence() : 0);
            RoundMemory.Answer f = memory.search(remembered);
            if (f != null) { // the same search on an equal plan in an earlier round: replayed as the memo below does
                return replayedSearch(job, f.reason(), f.admissions());
            }
        }
        AttemptMemo.AttemptKey boundKey = RoundBounds.appliesToSearch(job, cq) ? memo.attemptKey(cq.name(), job) : null;
        PendingReason bounded = boundKey == null ? null : bounds.search(boundKey, job, cqName, first.reason());
        if (bounded != null) { // a failed search of this key at a priority as high answers it (see RoundBounds)
            if (remembered != null) {
                memory.searchFailed(remembered, bounded, 0); // the search's own answer, for this priority in the next rounds
            }
            plan.reasons.put(job.id(), bounded);
            return failure(bounded);
        }
        PreemptionSearch.Rank rank = plan.preemption.rank(job, cq);
        AttemptMemo.SearchKey key = rank == null ? null : new AttemptMemo.SearchKey(memo.attemptKey(cq.name(), job), rank);
        if (key != null) {
            AttemptMemo.Failed f = memo.failedSearch(key, plan.state());
            if (f != null && remembered != null) {
                memory.searchFailed(remembered, f.reason(), f.admissions()); // for this job's priority, in the next rounds
            }
            if (f != null) {
                // the same search on the same plan, over the same candidates: it would fail the same way, and leave the
                // plan as it found it but for the admission numbers it used
                if (boundKey != null) {
                    bounds.searchFailed(boundKey, job, cqName, first.reason(), f.reason(), f.admissions(), -1);
                }
                return replayedSearch(job, f.reason(), f.admissions());
            }
        }
        return search(job, cq, first.reason(), key, remembered, boundKey);
    }

    /** A failed search answered without being made: the admission numbers it used are skipped, its reason given. */
    private Attempt replayedSearch(JobStatus job, PendingReason reason, long admissions) {
        plan.skipAdmissions(admissions);
        if (admissions > 0) {
            plan.reasons.remove(job.id());
        }
        plan.reasons.put(job.id(), reason);
        return failure(reason);
    }

    /** Makes a preemption search and notes a failure in the round's memo, the memory and the search bounds. */
    private Attempt search(JobStatus job, ClusterQueue cq, PendingReason notFitting, AttemptMemo.SearchKey key,
                           RoundMemory.SearchKey remembered, AttemptMemo.AttemptKey boundKey) {
        long before = plan.state();
        long admissionsBefore = plan.admissions();
        long readsBefore = bounds.capacityReads();
        bounds.searching(true);
        Attempt a;
        try {
            a = plan.preemption.run(job, cq, notFitting);
        } finally {
            bounds.searching(false);
        }
        if (a.admitted()) {
            bounds.touched(cq.name(), before); // the victims are of its cohort tree
            return a;
        }
        plan.restoreState(before); // a failed search undid all it tried
        long used = plan.admissions() - admissionsBefore;
        if (key != null) {
            memo.searchFailed(key, new AttemptMemo.Failed(plan.state(), a.reason(), used));
        }
        if (remembered != null) {
            memory.searchFailed(remembered, a.reason(), used);
        }
        if (boundKey != null) {
            bounds.searchFailed(boundKey, job, cq.name(), notFitting, a.reason(), used, readsBefore);
        }
        plan.reasons.put(job.id(), a.reason());
        return a;
    }

    @Override
    public boolean holdsInPlan(JobStatus job) {
        return plan.holding(job.id()) != null && !plan.preempted.containsKey(job.id());
    }

    @Override
    public Attempt tryAdmitPreemptingAmong(JobStatus job, List<JobStatus> candidates, String reason) {
        Attempt first = tryAdmit(job);
        if (first.admitted() || candidates.isEmpty() || queues.resolve(job) == null) {
            return first;
        }
        long before = plan.state();
        List<JobStatus> victims = new java.util.ArrayList<>();
        boolean fits = false;
        for (JobStatus c : candidates) {
            if (c.spec().preemptible() && plan.preempt(c, reason)) {
                victims.add(c);
                if (fits(job)) {
                    fits = true;
                    break;
                }
            }
        }
        if (fits) { // keep only the victims that are needed, the last removed put back first
            for (int i = victims.size() - 1; i >= 0; i--) {
                JobStatus v = victims.get(i);
                plan.restore(v.id());
                if (fits(job)) {
                    victims.remove(i);
                } else {
                    plan.preempt(v, reason);
                }
            }
        }
        Attempt a = fits ? tryAdmit(job) : first;
        if (!a.admitted()) {
            for (JobStatus v : victims) {
                plan.restore(v.id());
            }
            plan.restoreState(before); // nothing preempted: the plan is as it was
            plan.reasons.put(job.id(), first.reason());
            return first;
        }
        policyPreemptions |= !victims.isEmpty();
        bounds.touched(null, before); // the victims the policy named may be of any tree
        return a;
    }

    /** Counts a read of the plan's capacity by the preemption search ({@link RoundBounds}). */
    void capacityRead() {
        bounds.capacityRead();
    }

    /** @return how many preemption searches a failed search's bound answered in this round, for tests and diagnostics */
    public int boundedSearches() {
        return bounds.searchesAnswered();
    }

    /** @return how many admission attempts a quota failure of the round answered after the plan changed elsewhere */
    public int standingQuotaFailures() {
        return bounds.quotaAnswered();
    }

    /** @return true when the job would be admitted now (nothing is changed) */
    boolean fits(JobStatus job) {
        String cqName = queues.resolve(job);
        Map<String, Integer> counts = fullCounts(job);
        Assignment.Result ar = assignKeeping(cqName, () -> Assignment.assign(snapshot.clusterQueues().get(cqName), snapshot.flavors(), plan.quota,
                job.spec(), counts));
        if (ar.reason() != null) {
            return false;
        }
        bounds.capacityRead();
        for (Assignment.Choice c : ar.choices()) {
            Placer.Result r = plan.placer.placeIfPossible(job.spec(), counts, plan.flavorSpecs(c.flavors()));
            if (r != null) {
                plan.give(r.taken());
                return true;
            }
        }
        return false;
    }
}
