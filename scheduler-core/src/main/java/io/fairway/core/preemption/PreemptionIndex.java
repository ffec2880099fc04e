package io.fairway.core.preemption;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.core.admission.QuotaBook;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The round's running jobs as the preemption search needs them, built once per round (on the first search) and then
 * kept up to date by change, per ClusterQueue:
 * <ul>
 *   <li>its jobs in the search's candidate order (lowest priority first, then most recently admitted), so candidates
 *       are listed by merging the queues' orders lazily — a search reads only the candidates it needs, not the
 *       cohort tree's running jobs;</li>
 *   <li>its jobs in admission order with the quota each one charges, what its jobs still in the plan use per
 *       (flavor, resource) — updated by the charges of the one job that leaves or re-enters the plan — and which of
 *       them make the queue borrow (re-derived for that queue only, after a job of it left or re-entered the plan).</li>
 * </ul>
 * What it answers is exactly what the search computed before from all running jobs on every call
 * ({@code PreemptionIndexProperties} compares the two over random histories).
 */
final class PreemptionIndex {
    /** One running job with its place in the index. */
    static final class Held {
        final JobStatus job;
        final Queue queue;
        /** Position in {@link Queue#byAdmission}. */
        int admissionPos;
        /** Position in {@link Queue#byCandidateOrder}. */
        int queuePos;
        /** Position among the snapshot's holding jobs: the last tie-breaker of the candidate order. */
        final int holdingPos;
        /** True while the job is neither preempted nor resized in the plan. */
        boolean inPlan;

        /** The candidate order's keys, read once. */
        final int priority;
        final long stateSince;
        final long sequence;
        /** The admission order's keys, read once. */
        final long admittedAt;
        final long admissionOrder;
        /** False for a job of a non-preemptible priority class: never a candidate. */
        final boolean preemptible;
        /** The (flavor, resource) pairs its pod sets name, read on first use. */
        private String[] pairs;

        Held(JobStatus job, Queue queue, int holdingPos) {
            this.job = job;
            this.queue = queue;
            this.holdingPos = holdingPos;
            this.priority = job.spec().priority();
            this.stateSince = job.stateSinceMillis();
            this.sequence = job.sequence();
            this.preemptible = job.spec().preemptible();
            Admit a = job.admission();
            this.admittedAt = a.admittedAtMillis();
            this.admissionOrder = a.admissionOrder();
        }

        /** @return true when the job is charged for one of the (flavor, resource) pairs */
        boolean usesAny(Set<String> wanted) {
            String[] p = pairs;
            if (p == null) {
                List<String> l = new ArrayList<>(4);
                Admit a = job.admission();
                for (PodSet ps : job.spec().podSets()) {
                    for (String r : ps.resources().names()) {
                        l.add(QuotaBook.fr(a.flavorOf(ps.name(), r), r));
                    }
                }
                p = l.toArray(new String[0]);
                pairs = p;
            }
            for (String fr : p) {
                if (wanted.contains(fr)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The running jobs of one ClusterQueue. */
    static final class Queue {
        final String name;
        final List<Held> jobs = new ArrayList<>();
        /** In admission order: admission time, then admission order, then sequence (built on first use). */
        Held[] byAdmission;
        /** In candidate order. */
        Held[] byCandidateOrder;
        /** Per job in admission order, its quota charges: (flavor, resource) index and amount, from {@code chargeStart[i]}. */
        int[] chargeStart;
        int[] chargeFr;
        long[] chargeAmount;
        long[] nominal;
        /** What its jobs still in the plan use, per (flavor, resource) of {@link #frIds}. */
        long[] used;
        /** The (flavor, resource) keys of {@link #chargeFr}'s local ids. */
        Map<String, Integer> frIds;
        /** Per job in admission order: it makes the queue borrow (as of {@link #computedVersion}); replaced, never changed. */
        boolean[] borrowing;
        /** Its borrowing jobs still in the plan, in candidate order (as of {@link #computedVersion}); replaced, never changed. */
        Held[] borrowers;
        /** Bumped whenever one of its jobs leaves or re-enters the plan. */
        int version;
        int computedVersion = -1;
        /** No job before this position in {@link #byCandidateOrder} is in the plan. */
        int firstInPlan;
        /** The root of its cohort tree, or null. */
        String root;
        /** Whether the plan's quota book bounds its usage ({@link #quotaBoundsUsage}): 0 until read, 1 yes, -1 no. */
        int quotaBounds;
        /** The last {@link #heldAboveNominal} answer: for which pairs (the very set), at which {@link #version}. */
        Set<String> aboveFor;
        int aboveVersion;
        boolean above;

        Queue(String name) {
            this.name = name;
        }
    }

    /** Candidate order, without the own-queue-last key: priority, then latest state change first, then sequence. */
    static final Comparator<Held> CANDIDATE_ORDER = (a, b) -> {
        int c = Integer.compare(a.priority, b.priority);
        if (c == 0) {
            c = Long.compare(b.stateSince, a.stateSince);
        }
        if (c == 0) {
            c = Long.compare(b.sequence, a.sequence);
        }
        return c != 0 ? c : Integer.compare(a.holdingPos, b.holdingPos);
    };

    /** Admission order: admission time, then admission order, then sequence. */
    static final Comparator<Held> ADMISSION_ORDER = (a, b) -> {
        int c = Long.compare(a.admittedAt, b.admittedAt);
        if (c == 0) {
            c = Long.compare(a.admissionOrder, b.admissionOrder);
        }
        return c != 0 ? c : Long.compare(a.sequence, b.sequence);
    };

    private static final Held[] NONE = new Held[0];

    private final SearchPlan ctx;
    private final Map<String, Queue> queues = new HashMap<>();
    private final Map<String, Held> byId = new HashMap<>();
    /** Per cohort tree root: its ClusterQueues that hold jobs. */
    private final Map<String, List<Queue>> queuesByRoot = new HashMap<>();
    private final Map<String, String> rootOfQueue = new HashMap<>();
    /** One set per content of the pairs searches need, so answers kept per set ({@link #heldAboveNominal}) serve later searches. */
    private final Map<Set<String>, Set<String>> sharedPairs = new HashMap<>();

    PreemptionIndex(SearchPlan ctx) {
        this.ctx = ctx;
        List<JobStatus> holding = ctx.snapshot().holding();
        for (int i = 0; i < holding.size(); i++) {
            JobStatus h = holding.get(i);
            Admit a = h.admission();
            if (a == null) {
                continue;
            }
            Queue q = queues.get(a.clusterQueue());
            if (q == null) {
                q = new Queue(a.clusterQueue());
                queues.put(q.name, q);
                ClusterQueue spec = ctx.snapshot().clusterQueues().get(q.name);
                if (spec != null) {
                    q.root = root(spec.cohort());
                    if (q.root != null) {
                        queuesByRoot.computeIfAbsent(q.root, k -> new ArrayList<>()).add(q);
                    }
                }
            }
            Held held = new Held(h, q, i);
            held.inPlan = !ctx.outOfPlan(h.id());
            q.jobs.add(held);
            byId.put(h.id(), held);
        }
        for (Queue q : queues.values()) {
            Held[] a = q.jobs.toArray(NONE);
            Arrays.sort(a, CANDIDATE_ORDER);
            for (int i = 0; i < a.length; i++) {
                a[i].queuePos = i;
            }
            q.byCandidateOrder = a;
        }
    }

    /** Lists a queue's jobs in admission order with their quota charges: on the first question about its usage. */
    private void build(Queue q) {
        Held[] adm = q.jobs.toArray(NONE);
        Arrays.sort(adm, ADMISSION_ORDER);
        q.byAdmission = adm;
        Map<String, Integer> frIds = new HashMap<>();
        List<Long> nominal = new ArrayList<>();
        int[] start = new int[adm.length + 1];
        int[] fr = new int[adm.length * 3];
        long[] amount = new long[adm.length * 3];
        int n = 0;
        for (int i = 0; i < adm.length; i++) {
            adm[i].admissionPos = i;
            start[i] = n;
            JobStatus h = adm[i].job;
            if (i > 0 && sameCharges(adm[i - 1].job, h)) { // a queue of one shape: its charges are read once
                int from = start[i - 1];
                int len = n - from;
                if (n + len > fr.length) {
                    fr = Arrays.copyOf(fr, (n + len) * 2 + 4);
                    amount = Arrays.copyOf(amount, (n + len) * 2 + 4);
                }
                System.arraycopy(fr, from, fr, n, len);
                System.arraycopy(amount, from, amount, n, len);
                n += len;
                continue;
            }
            for (PodSet ps : h.spec().podSets()) {
                int m = h.admission().counts().getOrDefault(ps.name(), ps.count());
                for (Map.Entry<String, Long> r : ps.total(m).asMap().entrySet()) {
                    String key = QuotaBook.fr(h.admission().flavorOf(ps.name(), r.getKey()), r.getKey());
                    Integer id = frIds.get(key);
                    if (id == null) {
                        id = frIds.size();
                        frIds.put(key, id);
                        nominal.add(ctx.quota().nominal(q.name, key));
                    }
                    if (n == fr.length) {
                        fr = Arrays.copyOf(fr, n * 2 + 4);
                        amount = Arrays.copyOf(amount, n * 2 + 4);
                    }
                    fr[n] = id;
                    amount[n] = r.getValue();
                    n++;
                }
            }
        }
        start[adm.length] = n;
        q.chargeStart = start;
        q.chargeFr = fr;
        q.chargeAmount = amount;
        q.frIds = frIds;
        q.nominal = new long[nominal.size()];
        for (int i = 0; i < q.nominal.length; i++) {
            q.nominal[i] = nominal.get(i);
        }
        long[] used = new long[q.nominal.length];
        for (int i = 0; i < adm.length; i++) {
            if (adm[i].inPlan) {
                for (int k = start[i]; k < start[i + 1]; k++) {
                    used[fr[k]] += amount[k];
                }
            }
        }
        q.used = used;
    }

    /**
     * @return true when both jobs charge their queue the same (flavor, resource) amounts in the same order: pod sets
     *     of the same names and requests, admitted with the same counts and flavors
     */
    private static boolean sameCharges(JobStatus a, JobStatus b) {
        List<PodSet> pa = a.spec().podSets();
        List<PodSet> pb = b.spec().podSets();
        Admit aa = a.admission();
        Admit ab = b.admission();
        if (pa.size() != pb.size() || !aa.flavors().equals(ab.flavors())) {
            return false;
        }
        for (int k = 0; k < pa.size(); k++) {
            PodSet x = pa.get(k);
            PodSet y = pb.get(k);
            if (!x.name().equals(y.name()) || !x.resources().equals(y.resources())
                    || aa.counts().getOrDefault(x.name(), x.count()).intValue() != ab.counts().getOrDefault(y.name(), y.count()).intValue()) {
                return false;
            }
        }
        return true;
    }

    private Queue built(String queue) {
        Queue q = queue == null ? null : queues.get(queue);
        if (q != null && q.byAdmission == null) {
            build(q);
        }
        return q;
    }

    /**
     * Called after a running job was preempted, restored or resized in the plan: reads whether it is still in the
     * plan and, when that changed, moves its charges in or out of its queue's usage and marks the queue as changed
     * (its borrowing jobs are re-derived when next asked; no other queue is touched).
     */
    void touched(JobStatus job) {
        Held h = byId.get(job.id());
        if (h == null) {
            return;
        }
        boolean now = !ctx.outOfPlan(h.job.id());
        if (now == h.inPlan) {
            return;
        }
        h.inPlan = now;
        Queue q = h.queue;
        q.version++;
        if (q.used != null) {
            long sign = now ? 1 : -1;
            for (int k = q.chargeStart[h.admissionPos]; k < q.chargeStart[h.admissionPos + 1]; k++) {
                q.used[q.chargeFr[k]] += sign * q.chargeAmount[k];
            }
        }
        if (now && h.queuePos < q.firstInPlan) {
            q.firstInPlan = h.queuePos;
        }
    }

    /** @return true when the job is still running in the plan (neither preempted nor resized) */
    boolean inPlan(Held h) {
        return h.inPlan;
    }

    /**
     * Which of a queue's running jobs make it borrow: within each queue, jobs ranked by admission time (the earliest
     * admitted are entitled to the nominal quota first); a job is borrowing when, counting it and every job still in
     * the plan admitted before it, its queue is above nominal quota in a (flavor, resource) it uses. Re-derived only
     * when one of the queue's jobs left or re-entered the plan since; the arrays returned are never changed
     * afterwards, so a search may keep them as the plan was when it began.
     *
     * @return per job in admission order ({@link Held#admissionPos}), whether it borrows
     */
    boolean[] borrowingFlags(Queue q) {
        if (q.byAdmission == null) {
            build(q);
        }
        if (q.computedVersion != q.version) {
            boolean[] flags = new boolean[q.byAdmission.length];
            long[] cumulative = new long[q.nominal.length];
            for (int i = 0; i < q.byAdmission.length; i++) {
                boolean b = false;
                if (q.byAdmission[i].inPlan) {
                    for (int k = q.chargeStart[i]; k < q.chargeStart[i + 1]; k++) {
                        int fr = q.chargeFr[k];
                        cumulative[fr] += q.chargeAmount[k];
                        if (cumulative[fr] > q.nominal[fr]) {
                            b = true;
                        }
                    }
                }
                flags[i] = b;
            }
            List<Held> borrowers = new ArrayList<>();
            for (Held h : q.byCandidateOrder) {
                if (h.inPlan && flags[h.admissionPos]) {
                    borrowers.add(h);
                }
            }
            q.borrowing = flags;
            q.borrowers = borrowers.toArray(NONE);
            q.computedVersion = q.version;
        }
        return q.borrowing;
    }

    /** @return whether a running job makes its ClusterQueue borrow now (see {@link #borrowingFlags}) */
    boolean borrowing(Held h) {
        return borrowingFlags(h.queue)[h.admissionPos];
    }

    /**
     * @param q a ClusterQueue holding jobs
     * @return its borrowing jobs still in the plan, in candidate order (an array never changed afterwards)
     */
    Held[] borrowers(Queue q) {
        borrowingFlags(q);
        return q.borrowers;
    }

    /**
     * @param pairs (flavor, resource) keys a search needs, not changed afterwards
     * @return the set of the same keys this index gave out first (the same object for every equal set of the round)
     */
    Set<String> shared(Set<String> pairs) {
        return sharedPairs.computeIfAbsent(pairs, k -> Set.copyOf(k));
    }

    /**
     * Whether a ClusterQueue's running jobs still in the plan use more than its nominal quota of one of the pairs: the
     * queue borrows in them by what it held when the round began, less what the plan preempted or resized — jobs the
     * plan admitted are not counted, as Kueue picks candidates on the cycle's starting snapshot (they are no candidates
     * either).
     *
     * @param queue a ClusterQueue
     * @param pairs (flavor, resource) keys
     * @return true when it borrows in one of them
     */
    boolean heldAboveNominal(String queue, Set<String> pairs) {
        Queue q = queue == null ? null : queues.get(queue);
        if (q == null) {
            return false;
        }
        if (q.byAdmission == null) {
            if (quotaBoundsUsage(q) && !ctx.quota().usedAboveNominal(q.name, pairs)) {
                return false; // what the plan charges the queue bounds what its running jobs use: not above, and not built
            }
            build(q);
        }
        // asked once per candidate of a search, with the search's own set: answered again only after the queue changed
        if (q.aboveFor != pairs || q.aboveVersion != q.version) {
            q.above = anyAgainstNominal(q, pairs, 1);
            q.aboveFor = pairs;
            q.aboveVersion = q.version;
        }
        return q.above;
    }

    /**
     * Whether the plan's quota book charges the queue for each of its running jobs at least what this index counts
     * for it, so that the book's usage bounds the index's from above (the book also charges the round's admissions:
     * a queue the book does not put above nominal is not above it by its running jobs either). The book charges a
     * job's pod set only when the admission names a flavor for the pod set itself, and only in a ClusterQueue it
     * knows; the index charges every pod set. Read once per queue and round, over its jobs' admissions alone (no
     * charges summed).
     */
    private boolean quotaBoundsUsage(Queue q) {
        if (q.quotaBounds == 0) {
            boolean bounds = ctx.quota().hasQueue(q.name);
            for (int i = 0; bounds && i < q.jobs.size(); i++) {
                JobStatus j = q.jobs.get(i).job;
                Map<String, String> flavors = j.admission().flavors();
                for (PodSet ps : j.spec().podSets()) {
                    if (flavors.get(ps.name()) == null) {
                        bounds = false;
                        break;
                    }
                }
            }
            q.quotaBounds = bounds ? 1 : -1;
        }
        return q.quotaBounds > 0;
    }

    /**
     * @param queue a ClusterQueue
     * @param pairs (flavor, resource) keys
     * @return true when its running jobs still in the plan use less than its nominal quota of one of the pairs it quotes
     */
    boolean heldBelowNominal(String queue, Set<String> pairs) {
        Queue q = built(queue);
        return q != null && anyAgainstNominal(q, pairs, -1);
    }

    /** @return true when the queue's use of one of the pairs it quotes compares with its nominal quota as {@code sign} (1: above, -1: below) */
    private static boolean anyAgainstNominal(Queue q, Set<String> pairs, int sign) {
        for (String fr : pairs) {
            Integer id = q.frIds.get(fr);
            if (id != null && Long.compare(q.used[id], q.nominal[id]) == sign) {
                return true;
            }
        }
        return false;
    }

    /** @return how many of the jobs (in candidate order: by priority first) have a priority below {@code priority} */
    static int countBelow(Held[] jobs, int priority) {
        int lo = 0;
        int hi = jobs.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (jobs[mid].priority < priority) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** @return the ClusterQueue's running jobs, or null when it runs none */
    Queue queue(String clusterQueue) {
        return queues.get(clusterQueue);
    }

    /** @return the running jobs of a ClusterQueue in candidate order (empty when it runs none) */
    Held[] ofQueue(String clusterQueue) {
        Queue q = queues.get(clusterQueue);
        return q == null ? NONE : q.byCandidateOrder;
    }

    /** @return the ClusterQueues of a cohort tree that hold jobs (empty when none) */
    List<Queue> queuesOfRoot(String root) {
        List<Queue> l = root == null ? null : queuesByRoot.get(root);
        return l == null ? List.of() : l;
    }

    /** @return how many running jobs of the ClusterQueues in a cohort tree have a priority below {@code priority} */
    int countBelowInRoot(String root, int priority) {
        int n = 0;
        for (Queue q : queuesOfRoot(root)) {
            n += countBelow(q.byCandidateOrder, priority);
        }
        return n;
    }

    /**
     * @return the first position of a queue's candidate order that may hold a job still in the plan (every job
     *     before it is out of the plan)
     */
    int firstInPlan(Queue q) {
        int i = q.firstInPlan;
        Held[] a = q.byCandidateOrder;
        while (i < a.length && !a[i].inPlan) {
            i++;
        }
        q.firstInPlan = i;
        return i;
    }

    /** @return the root of a ClusterQueue's cohort tree, or null when it is in no cohort */
    String rootOf(ClusterQueue cq) {
        return rootOfQueue.computeIfAbsent(cq.name(), k -> root(cq.cohort()));
    }

    private String root(String cohort) {
        String c = cohort;
        int guard = 0;
        while (c != null && guard++ < 1000) {
            Cohort spec = ctx.snapshot().cohorts().get(c);
            if (spec == null || spec.parent() == null) {
                return c;
            }
            c = spec.parent();
        }
        return c;
    }

    /** Decides whether a job at the head of a source is listed; a source stops at its first job that {@link #stop}s it. */
    interface Filter {
        /** @return true when no later job of the same source (in candidate order) can be listed either */
        boolean stop(Held h);

        /** @return true when the job is listed */
        boolean accept(Held h);
    }

    /**
     * Candidates listed lazily: first the jobs of several sources (parts of queues' candidate orders) merged into one
     * candidate order, then the jobs of one more source in its own order. Jobs are read only as far as asked for
     * ({@link #has(int)}), and what was read is kept, so the list may be read again from its start. A job the search
     * has not reached yet is in the state the search found it in (a search changes only the jobs it has reached), so
     * listing lazily lists what listing everything first would.
     */
    static final class Listing {
        private final Held[][] merged;
        private final int[] pos;
        private final int[] end;
        private final Filter mergedFilter;
        private final Held[] last;
        private int lastPos;
        private final int lastEnd;
        private final Filter lastFilter;
        private final List<Held> read = new ArrayList<>();
        private int mergedCount = -1;
        /** The merged sources with a job left, as a binary heap by that job (built on the first read). */
        private int[] heap;
        private int heapSize = -1;

        /**
         * @param merged the sources merged in candidate order, each from {@code starts[i]}
         * @param mergedFilter what of them is listed
         * @param last the source listed after them (null for none), from {@code lastStart}
         * @param lastFilter what of it is listed
         */
        Listing(List<Held[]> merged, int[] starts, Filter mergedFilter, Held[] last, int lastStart, Filter lastFilter) {
            this.merged = merged.toArray(new Held[0][]);
            this.pos = starts.clone();
            this.end = new int[this.merged.length];
            for (int i = 0; i < this.merged.length; i++) {
                end[i] = this.merged[i].length;
            }
            this.mergedFilter = mergedFilter;
            this.last = last == null ? NONE : last;
            this.lastPos = lastStart;
            this.lastEnd = this.last.length;
            this.lastFilter = lastFilter;
        }

        /** @return true when the list has an i-th job (reading further as needed) */
        boolean has(int i) {
            while (read.size() <= i) {
                Held h = next();
                if (h == null) {
                    return false;
                }
                read.add(h);
            }
            return true;
        }

        /** @return the i-th job ({@link #has(int)} said it exists) */
        Held get(int i) {
            return read.get(i);
        }

        /** @return true when the i-th job came from the merged sources (not from the last one) */
        boolean fromMerged(int i) {
            return mergedCount < 0 || i < mergedCount;
        }

        private Held next() {
            if (mergedCount < 0) {
                Held h = nextMerged();
                if (h != null) {
                    return h;
                }
                mergedCount = read.size();
            }
            while (lastPos < lastEnd) {
                Held h = last[lastPos++];
                if (lastFilter.stop(h)) {
                    lastPos = lastEnd;
                    break;
                }
                if (lastFilter.accept(h)) {
                    return h;
                }
            }
            return null;
        }

        /**
         * The next job of the merged sources in candidate order: the sources sit in a heap by their first job still
         * listed, so a job costs O(log sources), not a look at every source (a cohort tree of many queues). A source's
         * first job is checked again when it comes up, so the order is exactly that of a look at every source.
         */
        private Held nextMerged() {
            if (heapSize < 0) {
                heap = new int[merged.length];
                heapSize = 0;
                for (int s = 0; s < merged.length; s++) {
                    if (advance(s)) {
                        heap[heapSize] = s;
                        siftUp(heapSize++);
                    }
                }
            }
            while (heapSize > 0) {
                int s = heap[0];
                int p = pos[s];
                if (!advance(s)) {
                    heap[0] = heap[--heapSize];
                    siftDown(0);
                } else if (pos[s] != p) {
                    siftDown(0); // its first job is no longer listed: it takes its place by the next one
                } else {
                    Held h = merged[s][pos[s]++];
                    if (advance(s)) {
                        siftDown(0);
                    } else {
                        heap[0] = heap[--heapSize];
                        siftDown(0);
                    }
                    return h;
                }
            }
            return null;
        }

        /** Moves source {@code s} to its first job still listed. @return false when it has none left */
        private boolean advance(int s) {
            Held[] a = merged[s];
            int p = pos[s];
            while (p < end[s]) {
                Held h = a[p];
                if (mergedFilter.stop(h)) {
                    p = end[s];
                    break;
                }
                if (mergedFilter.accept(h)) {
                    break;
                }
                p++;
            }
            pos[s] = p;
            return p < end[s];
        }

        private boolean before(int a, int b) {
            return CANDIDATE_ORDER.compare(merged[a][pos[a]], merged[b][pos[b]]) < 0;
        }

        private void siftUp(int i) {
            int s = heap[i];
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!before(s, heap[parent])) {
                    break;
                }
                heap[i] = heap[parent];
                i = parent;
            }
            heap[i] = s;
        }

        private void siftDown(int i) {
            if (heapSize == 0) {
                return;
            }
            int s = heap[i];
            while (true) {
                int child = 2 * i + 1;
                if (child >= heapSize) {
                    break;
                }
                if (child + 1 < heapSize && before(heap[child + 1], heap[child])) {
                    child++;
                }
                if (!before(heap[child], s)) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            heap[i] = s;
        }
    }
}
