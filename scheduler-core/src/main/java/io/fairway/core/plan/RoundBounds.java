package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.core.preemption.PreemptionSearch;
import java.util.HashMap;
import java.util.Map;

/**
 * Failures that answer later attempts of the same round while nothing they read has changed, however much the plan
 * changed elsewhere: kept by the {@link PlanContext} and asked through its attempts, so every policy that calls
 * {@code tryAdmit} or {@code tryAdmitPreempting} gets them without a change. Each failure is stamped with what it read
 * — the plan's state number, its cohort tree's version and the version of changes placed in no tree — and stands while
 * the stamp does. (The round's memo, {@link AttemptMemo}, answers only on the plan of the same state number.)
 *
 * <p><b>Versions.</b> Every change the context makes is noted against the cohort tree it touches ({@link #touched}):
 * an admission in its queue's tree; a preemption search that succeeds in its queue's tree (its victims are of that
 * tree); a preemption in the victim's. A change it cannot place in one tree (a resize, a preemption among victims the
 * policy names) and any change not noted (the plan's state number moved without a note) take a new "all" version,
 * which ends every failure stamped before. Capacity kept for a lender is noted against its tree whatever the state
 * number ({@link #kept}): it changes the tree's quota without a new one.
 *
 * <p><b>Quota failures</b> read the configuration, the cohort tree's quota usage and what is kept in it for a
 * lender, nothing else: one stands, with its very reason, while its tree and the "all" version are as they were.
 *
 * <p><b>Preemption searches: a lower priority fails too.</b> Under the policies {@link #appliesToSearch} admits, a
 * job's priority changes nothing in its search but how far down its own queue's candidates it may go: its demand,
 * the quota it is short of, the attempts (with or without borrowing) and the other queues' candidates follow from
 * its ClusterQueue, its pod sets and the plan ({@code reclaimWithinCohort: Any} takes other queues' jobs whatever
 * their priority, and {@code borrowWithinCohort: Never} leaves no variant by priority); its own queue's candidates
 * are those of lower priority, in candidate order (lowest priority first), so a lower-priority job's list is a prefix
 * of a higher one's. The search takes candidates in order and checks after each whether the job fits: on the same
 * plan, each step of the shorter list leaves the plan exactly as the same step of the longer one did, so it finds
 * room only at a step where the other found it, and then does what the other did, which failed. A search that used
 * an admission number (admitted and took the admission back) is not a bound. The failure's reason is the admission
 * attempt's with the search's sentence added ({@link PreemptionSearch#noVictimSet}): it is built from the job's own
 * attempt. A failed search bounds on the plan of the same state number; after the plan changed, only when it never
 * read the capacity (no placement tried, no free GPUs counted: every fit failed for quota, or no candidate was
 * listed) and its tree and the "all" version are as they were — nothing it read has changed. A larger shape is not
 * bounded: its shortfall, hence its candidates, may differ.
 */
final class RoundBounds {
    /** Whether failures answer later attempts across plan changes; off only to compare decisions in tests. */
    static boolean enabled = true;

    private final TentativePlan plan;
    private final Map<AttemptMemo.AttemptKey, Bound> searches = new HashMap<>();
    private final Map<AttemptMemo.AttemptKey, QuotaFailure> quotaFailures = new HashMap<>();
    /** The version of each cohort tree: a new one whenever the plan changes something in it. */
    private final Map<Object, Long> treeVersions = new HashMap<>();
    private long clock;
    /** A new number whenever the plan changed in a way not placed in one tree. */
    private long allVersion;
    /** The plan's state number whose changes are all noted in the versions. */
    private long accountedState;
    /** True while a preemption search runs: its changes are undone, or noted once it succeeds. */
    private boolean searching;
    /** How many times the capacity was read (a placement tried, free GPUs counted). */
    private long capacityReads;
    private int searchesAnswered;
    private int quotaAnswered;

    /** What a failure read: the plan's state number, the "all" version, its cohort tree and the tree's version. */
    private record Stamp(long state, long allVersion, Object tree, long treeVersion) {
    }

    /**
     * A failed search of a job of priority {@code priority}, after the job's admission attempt failed with
     * {@code notFitting}; {@code capacityFree}: it read no capacity.
     */
    private record Bound(Stamp stamp, boolean capacityFree, int priority, PendingReason notFitting, PendingReason reason) {
    }

    /** A failed admission attempt that failed for quota. */
    private record QuotaFailure(Stamp stamp, PendingReason reason) {
    }

    RoundBounds(TentativePlan plan) {
        this.plan = plan;
        this.accountedState = plan.state();
    }

    /**
     * Whether a job's failed search bounds lower-priority searches of its key, and may be bounded: Kueue's or
     * Fairway's rules with {@code withinClusterQueue} LowerPriority or Never (under LowerOrNewerEqualPriority the
     * submission counts too), other queues' jobs taken whatever their priority ({@code reclaimWithinCohort} Any, or a
     * queue without a cohort), {@code borrowWithinCohort} Never, and not an elastic job (its smaller sizes read more).
     */
    static boolean appliesToSearch(JobStatus job, ClusterQueue cq) {
        return appliesToSearch(job.spec().isElastic(), cq);
    }

    /** {@link #appliesToSearch(JobStatus, ClusterQueue)} for a job known to be elastic or not. */
    static boolean appliesToSearch(boolean elastic, ClusterQueue cq) {
        PreemptionPolicy p = cq.preemption();
        return enabled && !elastic && !p.isNever()
                && p.withinClusterQueue() != PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY
                && (p.reclaimWithinCohort() == PreemptionPolicy.ReclaimWithinCohort.ANY || cq.cohort() == null)
                && p.borrowWithinCohort() == PreemptionPolicy.BorrowWithinCohort.NEVER;
    }

    /** @return the failure a bound gives this job's search, or null when the search must be made */
    PendingReason search(AttemptMemo.AttemptKey key, JobStatus job, String cq, PendingReason notFitting) {
        PendingReason r = peekSearch(key, job.spec().priority(), cq, notFitting);
        if (r != null) {
            searchesAnswered++;
        }
        return r;
    }

    /**
     * The failure a bound gives the search of a job of this key and priority, without counting it as answered (a
     * standing answer counts it once it is given: {@link #searchAnswered}).
     *
     * @return that failure, or null when the search must be made
     */
    PendingReason peekSearch(AttemptMemo.AttemptKey key, int priority, String cq, PendingReason notFitting) {
        Bound b = searches.get(key);
        if (b == null || priority > b.priority() || !stands(b.stamp(), b.capacityFree())) {
            return null;
        }
        return notFitting == b.notFitting() ? b.reason() : PreemptionSearch.noVictimSet(notFitting, cq);
    }

    /** Counts a search answered by a bound outside {@link #search}. */
    void searchAnswered() {
        searchesAnswered++;
    }

    /**
     * Notes a failed search as the bound of its key, unless it used admission numbers or a standing bound of a
     * priority as high is kept.
     *
     * @param readsBefore {@link #capacityReads()} when the search began, or -1 when it is not known what it read
     */
    void searchFailed(AttemptMemo.AttemptKey key, JobStatus job, String cq, PendingReason notFitting, PendingReason reason,
                      long admissions, long readsBefore) {
        if (admissions != 0) {
            return;
        }
        Bound old = searches.get(key);
        int priority = job.spec().priority();
        if (old != null && old.priority() >= priority && stands(old.stamp(), old.capacityFree())) {
            return;
        }
        searches.put(AttemptMemo.canonical(key), new Bound(stamp(cq), readsBefore == capacityReads, priority, notFitting, reason));
    }

    /** @return the quota failure of this key that still stands, or null */
    PendingReason quotaFailure(AttemptMemo.AttemptKey key) {
        QuotaFailure f = enabled && !searching ? quotaFailures.get(key) : null; // inside a search the plan is transient
        if (f == null || !stands(f.stamp(), true)) {
            return null;
        }
        quotaAnswered++;
        return f.reason();
    }

    /** Notes an admission attempt that failed for quota on the plan as it is now. */
    void quotaFailed(AttemptMemo.AttemptKey key, String cq, PendingReason reason) {
        if (!searching) {
            quotaFailures.put(key, new QuotaFailure(stamp(cq), reason));
        }
    }

    private Stamp stamp(String cq) {
        sync();
        Object tree = plan.quota.treeOf(cq);
        return new Stamp(plan.state(), allVersion, tree, version(tree));
    }

    private boolean stands(Stamp s, boolean beyondItsState) {
        if (version(s.tree()) != s.treeVersion()) {
            return false; // capacity kept for a lender changes the tree's quota without a new state number
        }
        if (s.state() == plan.state()) {
            return true;
        }
        sync();
        return beyondItsState && s.allVersion() == allVersion;
    }

    /**
     * Notes what a change of the context touched: called after each public change with the plan's state number
     * before it. A change inside a preemption search is left to the search's end; changes made before this one and
     * not noted end every failure stamped before them.
     *
     * @param cq the ClusterQueue whose cohort tree the change touched alone, or null when it may have touched any
     * @param before the plan's state number before the change
     */
    void touched(String cq, long before) {
        long now = plan.state();
        if (searching || now == before || now == accountedState) {
            return;
        }
        if (accountedState != before) {
            allVersion++;
        }
        if (cq == null) {
            allVersion++;
        } else {
            treeVersions.put(plan.quota.treeOf(cq), ++clock);
        }
        accountedState = now;
    }

    /** Notes capacity kept (or no longer kept) for a lender of this ClusterQueue: its tree's quota changes. */
    void kept(String cq) {
        treeVersions.put(plan.quota.treeOf(cq), ++clock);
    }

    /** Marks the plan as the policy finds it: changes made before (jobs holding a node reservation placed) are noted. */
    void start() {
        accountedState = plan.state();
    }

    /** @param on true while a preemption search runs */
    void searching(boolean on) {
        searching = on;
    }

    /** Counts a read of the capacity. */
    void capacityRead() {
        capacityReads++;
    }

    /** @return how many times the capacity was read so far */
    long capacityReads() {
        return capacityReads;
    }

    /** @return how many preemption searches a bound answered */
    int searchesAnswered() {
        return searchesAnswered;
    }

    /** @return how many admission attempts a standing quota failure answered */
    int quotaAnswered() {
        return quotaAnswered;
    }

    private void sync() {
        if (accountedState != plan.state()) { // a change nobody placed: nothing stamped before outlives it
            allVersion++;
            accountedState = plan.state();
        }
    }

    private long version(Object tree) {
        Long v = treeVersions.get(tree);
        return v == null ? 0 : v;
    }
}
