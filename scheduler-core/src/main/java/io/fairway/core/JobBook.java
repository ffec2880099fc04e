package io.fairway.core;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.LocalQueue;
import io.fairway.core.snapshot.PendingIndex;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The life cycle of every job, in one place (every method runs with the state lock held): the jobs by id, the
 * pending ones (by sequence, and grouped in the {@link PendingIndex}), the ones holding resources, and each change
 * of state as a {@link JobStatus} transition with the event it makes.
 */
final class JobBook {
    private final EngineState state;
    /**
     * Every job by id, with its current status. A job is pending exactly when the status {@code byId} holds for it is
     * in state {@code PENDING} (such a status is then in {@link #pendingIndex}), and holds resources exactly when that
     * status's state does (it is then in {@link #holding}): whether a status is a job's current one is one lookup here,
     * and a job's new pending reason costs this one write and a write in its group's slot.
     */
    final HashMap<String, JobStatus> byId = new HashMap<>();
    /** The pending jobs grouped by what they need, kept up to date so a snapshot costs only what changed. */
    final PendingIndex.Builder pendingIndex = new PendingIndex.Builder();
    final TreeMap<Long, JobStatus> holding = new TreeMap<>();
    /**
     * {@link #holding}'s statuses in order as of the last {@link #holdingArray} call, handed to every snapshot until
     * the holding jobs change (null: to be made again). A round finding the array of the round before knows that no
     * holding job changed, without reading them.
     */
    private io.fairway.core.snapshot.HeldJobs.Stored holdingArray;
    /**
     * The last array made (with its ids' hash codes, which a lookup by id scans first), and the holding changes since
     * (by sequence; null: no longer holding): the next is patched from both.
     */
    private io.fairway.core.snapshot.HeldJobs.Stored last;
    private final TreeMap<Long, JobStatus> holdingEdits = new TreeMap<>();
    long nextSequence;

    /*
     * Jobs submitted by a driver that parses each request carry their own copy of what many jobs share: pod sets,
     * node selectors, queue and owner names (most of a pending job's heap with realistic specs). The engine keeps one
     * copy of each: equal pod set lists and names are interned (weakly: a copy goes when no job holds it).
     */
    private final Interner<List<PodSet>> podSetLists = Interners.newWeakInterner();
    private final Interner<String> names = Interners.newWeakInterner();
    /**
     * Equal pending reasons, kept as one object (weakly): a group's jobs given equal reasons in different rounds then
     * share one, and comparing them (a freeze of the pending index compares a group's reasons) is an identity check
     * instead of comparing texts and details.
     */
    private final Interner<PendingReason> reasonCopies = Interners.newWeakInterner();

    JobBook(EngineState state) {
        this.state = state;
    }

    // ---------------------------------------------------------------- arrivals

    /** Accepts a batch: all of it, or (on a duplicate id) none. */
    List<JobStatus> submit(Collection<JobSpec> batch, List<SchedulerEvent> events) {
        Set<String> ids = new HashSet<>();
        for (JobSpec j : batch) {
            if (byId.containsKey(j.id()) || !ids.add(j.id())) {
                InvalidSpecException.check(false, "job.id", j.id(), "job id %s already exists", j.id());
            }
        }
        Map<String, JobSpec> resolved = new HashMap<>();
        for (JobSpec j : batch) { // every class resolves before any job is added
            JobSpec r = resolveClass(j);
            if (r != j) {
                resolved.put(j.id(), r);
            }
        }
        long now = state.clock.millis();
        List<JobStatus> added = new ArrayList<>(batch.size());
        PendingReason fresh = PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "submitted; waiting for the next round");
        Map<String, PendingReason> initialByQueue = new HashMap<>();
        for (JobSpec submitted : batch) {
            JobSpec given = resolved.getOrDefault(submitted.id(), submitted);
            // submitTimeMillis 0 means "at submission" (JobSpec): stamp the clock, so that ages and finish-time
            // estimates count from when the scheduler saw the job, not from the clock's epoch
            JobSpec j = shared(given, given.submitTimeMillis() == 0 ? now : given.submitTimeMillis());
            // a job whose queue resolves starts with the reason it keeps until a round reaches it
            String queueKey = j.localQueueKey();
            PendingReason initial = initialByQueue.computeIfAbsent(queueKey, key -> {
                LocalQueue lq = state.localQueues.get(key);
                return lq != null && state.clusterQueues.containsKey(lq.clusterQueue())
                        ? io.fairway.core.plan.PlanOutput.notReached(lq.clusterQueue()) : fresh;
            });
            JobStatus s = JobStatus.submitted(j, initial, now, nextSequence++);
            byId.put(j.id(), s);
            pendingIndex.add(s);
            added.add(s);
            events.add(new SchedulerEvent(now, j.id(), j.jobSet(), EventType.SUBMITTED, queueKey));
        }
        return added;
    }

    /**
     * A job names its priority class; what the class means is the operator's: the definition replaces whatever the
     * submitted job carried, so a job cannot make itself non-preemptible.
     *
     * @throws InvalidSpecException when the class is not defined
     */
    JobSpec resolveClass(JobSpec j) {
        io.fairway.api.model.PriorityClass named = j.priorityClass();
        if (named == null) {
            return j;
        }
        io.fairway.api.model.PriorityClass def = state.priorityClasses.get(named.name());
        InvalidSpecException.check(def != null, "job[" + j.id() + "].priorityClass", named.name(),
                "job %s: priority class %s is not defined (defined: %s)", j.id(), InvalidSpecException.quote(named.name()),
                state.priorityClasses.keySet());
        return def.equals(named) && j.priority() == def.value() ? j : j.withPriorityClass(def);
    }

    /**
     * The pod set list last given to {@link #shared} and its kept copy: a batch of jobs built from one template gives
     * equal lists one after another, and comparing with the last one costs less than hashing and looking it up.
     */
    private List<PodSet> lastPodSetsGiven;
    private List<PodSet> lastPodSetsShared;

    private List<PodSet> sharedPodSets(List<PodSet> given) {
        if (given != lastPodSetsGiven && !given.equals(lastPodSetsShared)) {
            lastPodSetsShared = podSetLists.intern(given);
        }
        lastPodSetsGiven = given;
        return lastPodSetsShared;
    }

    /**
     * @param j a submitted spec
     * @param submitTimeMillis its submission time (the clock's when it came without one)
     * @return the spec with that time and its pod sets and names shared with the engine's other jobs (one copy at most)
     */
    private JobSpec shared(JobSpec j, long submitTimeMillis) {
        List<PodSet> podSets = sharedPodSets(j.podSets());
        String namespace = names.intern(j.namespace());
        String queue = names.intern(j.queue());
        String owner = j.owner().isEmpty() ? j.owner() : names.intern(j.owner());
        String jobSet = j.jobSet().equals(j.id()) ? j.jobSet() : names.intern(j.jobSet()); // a job set per job stays the id
        if (podSets == j.podSets() && namespace == j.namespace() && queue == j.queue() && owner == j.owner() && jobSet == j.jobSet()
                && submitTimeMillis == j.submitTimeMillis()) {
            return j;
        }
        return new JobSpec(j.id(), namespace, queue, jobSet, owner, j.priority(), submitTimeMillis, podSets, j.estimatedSeconds(),
                j.sensitivity(), j.checkpointing(), j.priorityClass());
    }

    // ---------------------------------------------------------------- transitions

    /** The last reason {@link #waitFor} was given and its shared copy: a round gives one reason object to many jobs. */
    private PendingReason lastGiven;
    private PendingReason lastShared;

    /** A pending job's new reason (shared with equal ones); true when it changed. */
    boolean waitFor(JobStatus j, PendingReason reason) {
        PendingReason current = j.pendingReason();
        if (reason == current) {
            return false;
        }
        PendingReason shared;
        if (reason == lastGiven) {
            shared = lastShared;
        } else {
            shared = reasonCopies.intern(reason);
            lastGiven = reason;
            lastShared = shared;
        }
        if (shared == current || shared.equals(current)) { // equal to the given reason, so equal to it
            return false;
        }
        replace(j, j.waitingFor(shared));
        return true;
    }

    /** @return the one kept copy of reasons equal to {@code reason} (the object jobs given it carry) */
    PendingReason keptCopy(PendingReason reason) {
        return reasonCopies.intern(reason);
    }

    /**
     * A pending job's new reason, known by the caller to differ from the one it carries and already its kept copy
     * ({@link #keptCopy}): nothing is compared. One write by id (which also tells that {@code seen} is still the job's
     * status) and one in the job's slot of its pending group.
     *
     * @param seen a pending status of the job
     * @param keptCopy its new reason
     * @param group the position of the job's group in the index's last freeze (checked before use), or -1
     * @param slot where the job stood in that group (checked before use), or -1
     * @return false (and nothing written) when {@code seen} is no longer the job's current status
     */
    boolean waitAnew(JobStatus seen, PendingReason keptCopy, int group, int slot) {
        JobStatus now = seen.waitingFor(keptCopy);
        if (seen.state() != JobState.PENDING || !byId.replace(now.id(), seen, now)) {
            return false; // same place, same indexes: only the status object changes
        }
        pendingIndex.restate(seen, now, group, slot);
        state.modCount++;
        return true;
    }

    /** A round's admission: admitted, or quota reserved while admission checks run. */
    JobStatus admit(JobStatus j, Admit a, boolean quotaReserved, long now) {
        JobStatus n = j.admitted(a, quotaReserved, now);
        replace(j, n);
        return n;
    }

    /** The actuator reports the admitted job runs. */
    void start(JobStatus j, List<SchedulerEvent> events) {
        replace(j, j.started(state.clock.millis()));
        events.add(event(j, EventType.STARTED, ""));
    }

    /** Back to pending, keeping its place: preempted, its node lost, or evicted; its epoch grows. */
    void requeue(JobStatus j, PendingReason reason, EventType type, String why, List<SchedulerEvent> events) {
        long now = state.clock.millis();
        replace(j, j.asOf(now).requeued(reason, now, true));
        events.add(event(j, type, why));
    }

    /** Ends a job: succeeded, failed or cancelled. */
    void finish(JobStatus j, JobState end, String why, List<SchedulerEvent> events) {
        long now = state.clock.millis();
        replace(j, j.asOf(now).ended(end, now));
        events.add(event(j, end == JobState.SUCCEEDED ? EventType.SUCCEEDED : end == JobState.FAILED ? EventType.FAILED : EventType.CANCELLED, why));
    }

    /**
     * Moves a job from one status to the next in every index (the one place a job's status changes).
     *
     * @param old its current status
     * @param now its next status
     */
    void replace(JobStatus old, JobStatus now) {
        boolean wasCurrent = byId.put(now.id(), now) == old; // the indexes hold a job's current status only
        if (wasCurrent && old.state() == JobState.PENDING) {
            if (now.state() == JobState.PENDING && now.sequence() == old.sequence()) {
                pendingIndex.replace(old, now); // still pending (a new reason, say): same place
                state.modCount++;
                return;
            }
            pendingIndex.remove(old);
        }
        boolean wasHolding = wasCurrent && old.state().holdsResources();
        if (wasHolding) {
            // usage is charged up to the moment a job lets go of its resources, not only to the next round: a job
            // that ends between two rounds has used them until now (the decay step is a no-op when no time passed)
            state.decayUsage();
            holding.remove(old.sequence());
            holdingEdited(old.sequence(), null);
            if (!state.pools.nodePools.isEmpty()) {
                state.pools.released(old, state.clock.millis()); // the clock is read only where pool nodes are tracked
            }
        }
        boolean holdsNow = now.state().holdsResources();
        if (now.state() == JobState.PENDING) {
            pendingIndex.add(now);
        } else if (holdsNow) {
            holding.put(now.sequence(), now);
            holdingEdited(now.sequence(), now);
        }
        if (wasHolding != holdsNow || wasHolding && !sameUsage(old, now)) {
            state.holdingUsageVersion++;
        }
        if (wasHolding || holdsNow) {
            state.holdingChanged(wasHolding ? old : null, holdsNow ? now : null);
        }
        state.modCount++;
    }

    /** @return the holding jobs' statuses in submission order: the same object while none of them changed */
    io.fairway.core.snapshot.HeldJobs.Stored holdingArray() {
        io.fairway.core.snapshot.HeldJobs.Stored a = holdingArray;
        if (a == null) {
            int[] hashes = last == null ? null : new int[holding.size()];
            JobStatus[] jobs = last == null ? null : patched(last.jobs(), last.idHashes(), holdingEdits, holding.size(), hashes);
            // copied afresh, the array's hash codes are made when first read (a lookup, or the next patch)
            a = jobs != null ? new io.fairway.core.snapshot.HeldJobs.Stored(jobs, hashes)
                    : new io.fairway.core.snapshot.HeldJobs.Stored(holding.values().toArray(new JobStatus[0]));
            holdingEdits.clear();
            last = a;
            holdingArray = a;
        }
        return a;
    }

    /** Notes a change of the holding jobs: the next array is made again, from the last one when changes are few. */
    private void holdingEdited(long sequence, JobStatus now) {
        holdingArray = null;
        if (last != null) {
            holdingEdits.put(sequence, now);
            if (holdingEdits.size() > last.jobs().length / 4 + 16) { // copying every holding job is then as cheap
                last = null;
                holdingEdits.clear();
            }
        }
    }

    /**
     * An array of holding jobs with changes applied: the untouched runs copied as they are, each change found by its
     * sequence (a few reads per change instead of a walk over every holding job).
     *
     * @param old holding jobs in submission order
     * @param edits by sequence, the status now holding (null: none)
     * @param size how many jobs the result must hold
     * @return the new array, or null when the changes do not add up to {@code size} jobs
     */
    static JobStatus[] patched(JobStatus[] old, java.util.SortedMap<Long, JobStatus> edits, int size) {
        return patched(old, null, edits, size, null);
    }

    /**
     * As {@link #patched(JobStatus[], java.util.SortedMap, int)}, patching the jobs' id hash codes along with them
     * when {@code oldHashes} and {@code outHashes} are given.
     *
     * @param oldHashes {@code old}'s ids' hash codes, position by position, or null
     * @param outHashes filled with the result's ids' hash codes ({@code size} long), or null
     */
    static JobStatus[] patched(JobStatus[] old, int[] oldHashes, java.util.SortedMap<Long, JobStatus> edits, int size, int[] outHashes) {
        boolean withHashes = oldHashes != null && outHashes != null;
        JobStatus[] out = new JobStatus[size];
        int from = 0;
        int to = 0;
        for (Map.Entry<Long, JobStatus> e : edits.entrySet()) {
            long seq = e.getKey();
            int lo = io.fairway.core.snapshot.HeldJobs.firstAtOrAfter(old, from, seq);
            int run = lo - from;
            if (to + run + (e.getValue() != null ? 1 : 0) > size) {
                return null;
            }
            System.arraycopy(old, from, out, to, run);
            if (withHashes) {
                System.arraycopy(oldHashes, from, outHashes, to, run);
            }
            to += run;
            from = lo;
            if (from < old.length && old[from].sequence() == seq) {
                from++; // replaced or gone
            }
            if (e.getValue() != null) {
                if (withHashes) {
                    outHashes[to] = e.getValue().id().hashCode();
                }
                out[to++] = e.getValue();
            }
        }
        int rest = old.length - from;
        if (to + rest != size) {
            return null;
        }
        System.arraycopy(old, from, out, to, rest);
        if (withHashes) {
            System.arraycopy(oldHashes, from, outHashes, to, rest);
        }
        return out;
    }

    /** @return true when both statuses hold the same resources in the same ClusterQueue (a lease renewal, say) */
    private static boolean sameUsage(JobStatus a, JobStatus b) {
        return a.spec() == b.spec() && a.admission() != null && b.admission() != null
                && a.admission().clusterQueue().equals(b.admission().clusterQueue()) && a.admission().counts().equals(b.admission().counts());
    }

    /** Puts a restored job back in its indexes. */
    void restore(JobStatus j) {
        byId.put(j.id(), j);
        if (j.state() == JobState.PENDING) {
            pendingIndex.add(j);
        } else if (j.state().holdsResources()) {
            holding.put(j.sequence(), j);
            holdingEdited(j.sequence(), j);
            state.holdingUsageVersion++;
            state.holdingChanged(null, j);
            state.heldCharges.invalidate();
        }
    }

    /** @return the job's epoch (its preemption count; it grows each time the job goes back to pending), -1 when unknown */
    long epoch(String jobId) {
        JobStatus j = byId.get(jobId);
        return j == null ? -1L : j.preemptions();
    }

    SchedulerEvent event(JobStatus j, EventType type, String reason) {
        return new SchedulerEvent(state.clock.millis(), j.id(), j.spec().jobSet(), type, reason);
    }

    // ---------------------------------------------------------------- reads

    /** @return the pending jobs by sequence (submission order), as a new list */
    List<JobStatus> pendingInOrder() {
        return new ArrayList<>(pendingIndex.freeze().inSubmissionOrder());
    }

    /** @return true when no job is pending */
    boolean nonePending() {
        return pendingIndex.isEmpty();
    }

    /** @return every known job in submission order */
    List<JobStatus> all() {
        return bySequence(byId.values());
    }

    /** @return live (pending or holding) jobs that {@code filter} selects, in submission order */
    List<JobStatus> live(Predicate<JobStatus> filter) {
        List<JobStatus> l = new ArrayList<>();
        for (JobStatus j : pendingIndex.freeze().inSubmissionOrder()) {
            if (filter.test(j)) {
                l.add(j);
            }
        }
        for (JobStatus j : holding.values()) {
            if (filter.test(j)) {
                l.add(j);
            }
        }
        l.sort(io.fairway.api.job.JobOrder.SEQUENCE);
        return l;
    }

    private static List<JobStatus> bySequence(Collection<JobStatus> jobs) {
        List<JobStatus> l = new ArrayList<>(jobs);
        l.sort(io.fairway.api.job.JobOrder.SEQUENCE);
        return l;
    }

    /** @return index inconsistencies (each job in exactly one state and index, the pending index in step) */
    List<String> checkIndexes() {
        List<String> v = new ArrayList<>();
        PendingIndex idx = pendingIndex.freeze();
        List<JobStatus> inOrder = idx.inSubmissionOrder();
        Set<JobStatus> indexed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        indexed.addAll(inOrder);
        int pendingById = 0;
        for (JobStatus j : byId.values()) {
            boolean inPending = indexed.contains(j);
            boolean inHolding = holding.get(j.sequence()) == j;
            pendingById += j.state() == JobState.PENDING ? 1 : 0;
            boolean ok = switch (j.state()) {
                case PENDING -> inPending && !inHolding && j.pendingReason() != null && j.admission() == null;
                case QUOTA_RESERVED, ADMITTED, RUNNING -> inHolding && !inPending && j.admission() != null;
                default -> !inPending && !inHolding;
            };
            if (!ok) {
                v.add("job " + j.id() + " in state " + j.state() + " is inconsistent (pending index " + inPending + ", holding index " + inHolding
                        + ", reason " + j.pendingReason() + ")");
            }
        }
        if (idx.size() != pendingById || indexed.size() != inOrder.size() || !idx.equals(PendingIndex.of(bySequence(inOrder)))
                || !inOrder.equals(bySequence(inOrder))) {
            v.add("the pending index holds " + idx.size() + " jobs in its groups, " + pendingById + " jobs are pending");
        }
        io.fairway.core.snapshot.HeldJobs.Stored kept = holdingArray();
        JobStatus[] held = kept.jobs();
        if (!java.util.Arrays.asList(held).equals(new ArrayList<>(holding.values()))) {
            v.add("the holding jobs handed to rounds (" + held.length + ") are not the " + holding.size() + " holding, in order");
        }
        int[] hashes = kept.idHashes();
        for (int i = 0; i < held.length && i < hashes.length; i++) {
            if (hashes[i] != held[i].id().hashCode()) {
                v.add("the holding job " + held[i].id() + " is looked up under another id's hash code (" + hashes[i] + ")");
            }
        }
        if (idx.size() + holding.size() > byId.size()) {
            v.add("indexes hold " + (idx.size() + holding.size()) + " jobs, more than the " + byId.size() + " known");
        }
        return v;
    }
}
