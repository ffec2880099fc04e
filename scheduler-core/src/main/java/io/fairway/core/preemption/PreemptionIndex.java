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

/**
 * The round's running jobs as the preemption search needs them, built once per round (on the first search)
 * instead of once per job that does not fit:
 * <ul>
 *   <li>per ClusterQueue, its jobs in admission order with the quota each one charges, and which of them make the
 *       queue borrow (recomputed for one queue only after a preemption, restore or resize touched it);</li>
 *   <li>per cohort tree, and per ClusterQueue, the jobs in the search's candidate order (lowest priority first,
 *       then most recently admitted), so candidates are listed by one filtered walk, without sorting.</li>
 * </ul>
 * What it answers is exactly what the search computed before from all running jobs on every call.
 */
final class PreemptionIndex {
    /** One running job with its place in the index. */
    static final class Held {
        final JobStatus job;
        final Queue queue;
        /** Position in {@link Queue#byAdmission}. */
        int admissionPos;
        /** Position among the snapshot's holding jobs: the last tie-breaker of the candidate order. */
        final int holdingPos;
        /** True while the job is neither preempted nor resized in the plan. */
        boolean inPlan;
        /** Position in its cohort tree's array, or -1. */
        int rootPos = -1;

        /** The candidate order's keys, read once. */
        final int priority;
        final long stateSince;
        final long sequence;
        /** False for a job of a non-preemptible priority class: never a candidate. */
        final boolean preemptible;

        Held(JobStatus job, Queue queue, int holdingPos) {
            this.job = job;
            this.queue = queue;
            this.holdingPos = holdingPos;
            this.priority = job.spec().priority();
            this.stateSince = job.stateSinceMillis();
            this.sequence = job.sequence();
            this.preemptible = job.spec().preemptible();
        }
    }

    /** The running jobs of one ClusterQueue. */
    static final class Queue {
        final String name;
        final List<Held> jobs = new ArrayList<>();
        /** In admission order: admission time, then admission order, then sequence. */
        Held[] byAdmission;
        /** In candidate order. */
        Held[] byCandidateOrder;
        /** Per job in admission order, its quota charges: (flavor, resource) index and amount, from {@code chargeStart[i]}. */
        int[] chargeStart;
        int[] chargeFr;
        long[] chargeAmount;
        long[] nominal;
        /** The (flavor, resource) keys of {@link #chargeFr}'s local ids. */
        Map<String, Integer> frIds;
        boolean[] borrowing;
        /** Bumped whenever one of its jobs is preempted, restored or resized in the plan. */
        int version;
        int computedVersion = -1;
        /** The plan's state number when {@link #borrowing} was computed: the same number is the same plan. */
        long computedState = -1;
        /** The root of its cohort tree, or null. */
        String root;

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

    private final SearchPlan ctx;
    private final Map<String, Queue> queues = new HashMap<>();
    private final Map<String, Held> byId = new HashMap<>();
    /** Per cohort tree root: the running jobs of its ClusterQueues, in candidate order. */
    private final Map<String, Held[]> byRoot = new HashMap<>();
    private final Map<String, String> rootOfQueue = new HashMap<>();
    /** Per cohort tree root: its borrowing jobs still in the plan, in candidate order, with the out-of-plan jobs they hold for. */
    private final Map<String, Borrowers> borrowersByRoot = new HashMap<>();

    /** Per cohort tree root: which of its jobs (by position in its array) are out of the plan (preempted or resized). */
    private final Map<String, long[]> outOfPlan = new HashMap<>();

    /**
     * A cohort tree's borrowing jobs, computed when the jobs marked in {@code out} were out of the plan: which jobs
     * borrow depends only on that, so the list holds as long as the same jobs are out.
     */
    private record Borrowers(long[] out, Held[] jobs) {
    }

    PreemptionIndex(SearchPlan ctx) {
        this.ctx = ctx;
        List<JobStatus> holding = ctx.snapshot().holding();
        Map<String, List<Held>> rootJobs = new HashMap<>();
        for (int i = 0; i < holding.size(); i++) {
            JobStatus h = holding.get(i);
            Admit a = h.admission();
            if (a == null) {
                continue;
            }
            Queue q = queues.computeIfAbsent(a.clusterQueue(), Queue::new);
            Held held = new Held(h, q, i);
            held.inPlan = !ctx.outOfPlan(h.id());
            q.jobs.add(held);
            byId.put(h.id(), held);
            ClusterQueue spec = ctx.snapshot().clusterQueues().get(a.clusterQueue());
            if (spec != null) {
                String root = root(spec.cohort());
                q.root = root;
                if (root != null) {
                    rootJobs.computeIfAbsent(root, k -> new ArrayList<>()).add(held);
                }
            }
        }
        Map<Queue, List<Held>> inOrder = new HashMap<>();
        for (Map.Entry<String, List<Held>> e : rootJobs.entrySet()) {
            Held[] a = e.getValue().toArray(new Held[0]);
            Arrays.sort(a, CANDIDATE_ORDER);
            byRoot.put(e.getKey(), a);
            long[] out = new long[(a.length + 63) / 64];
            for (int i = 0; i < a.length; i++) {
                a[i].rootPos = i;
                if (!a[i].inPlan) {
                    out[i >> 6] |= 1L << i;
                }
            }
            outOfPlan.put(e.getKey(), out);
            for (Held h : a) {
                inOrder.computeIfAbsent(h.queue, k -> new ArrayList<>()).add(h); // each queue's jobs, in the same order
            }
        }
        for (Queue q : queues.values()) {
            List<Held> sorted = inOrder.get(q);
            if (sorted != null && sorted.size() == q.jobs.size()) {
                q.byCandidateOrder = sorted.toArray(new Held[0]);
            } else {
                q.byCandidateOrder = q.jobs.toArray(new Held[0]);
                Arrays.sort(q.byCandidateOrder, CANDIDATE_ORDER);
            }
        }
    }

    /** Lists a queue's jobs in admission order with their quota charges: on the first question about its borrowers. */
    private void build(Queue q) {
        Held[] adm = q.jobs.toArray(new Held[0]);
        Arrays.sort(adm, Comparator.comparingLong((Held h) -> h.job.admission().admittedAtMillis())
                .thenComparingLong(h -> h.job.admission().admissionOrder()).thenComparingLong(h -> h.job.sequence()));
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
        q.borrowing = new boolean[adm.length];
    }

    /**
     * Called after a running job was preempted, restored or resized in the plan: reads whether it is still in the
     * plan, and marks its queue as changed (its borrowing jobs are recomputed when next asked).
     */
    void touched(JobStatus job) {
        Held h = byId.get(job.id());
        if (h != null) {
            h.inPlan = !ctx.outOfPlan(h.job.id());
            h.queue.version++;
            if (h.rootPos >= 0) {
                long[] out = outOfPlan.get(h.queue.root);
                if (h.inPlan) {
                    out[h.rootPos >> 6] &= ~(1L << h.rootPos);
                } else {
                    out[h.rootPos >> 6] |= 1L << h.rootPos;
                }
            }
        }
    }

    /** @return true when the job is still running in the plan (neither preempted nor resized) */
    boolean inPlan(Held h) {
        return h.inPlan;
    }

    /**
     * Whether a running job makes its ClusterQueue borrow: within each queue, jobs ranked by admission time (the
     * earliest admitted are entitled to the nominal quota first); a job is borrowing when, counting it and every
     * job still in the plan admitted before it, its queue is above nominal quota in a (flavor, resource) it uses.
     */
    boolean borrowing(Held h) {
        Queue q = h.queue;
        if (q.byAdmission == null) {
            build(q);
        }
        long state = ctx.state();
        if (q.computedVersion != q.version && q.computedState != state) {
            long[] cumulative = new long[q.nominal.length];
            for (int i = 0; i < q.byAdmission.length; i++) {
                boolean b = false;
                if (inPlan(q.byAdmission[i])) {
                    for (int k = q.chargeStart[i]; k < q.chargeStart[i + 1]; k++) {
                        int fr = q.chargeFr[k];
                        cumulative[fr] += q.chargeAmount[k];
                        if (cumulative[fr] > q.nominal[fr]) {
                            b = true;
                        }
                    }
                }
                q.borrowing[i] = b;
            }
            q.computedVersion = q.version;
            q.computedState = state;
        }
        return q.borrowing[h.admissionPos];
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
    boolean heldAboveNominal(String queue, java.util.Set<String> pairs) {
        Queue q = queue == null ? null : queues.get(queue);
        if (q == null) {
            return false;
        }
        if (q.byAdmission == null) {
            build(q);
        }
        long[] used = new long[q.nominal.length];
        for (int i = 0; i < q.byAdmission.length; i++) {
            if (inPlan(q.byAdmission[i])) {
                for (int k = q.chargeStart[i]; k < q.chargeStart[i + 1]; k++) {
                    used[q.chargeFr[k]] += q.chargeAmount[k];
                }
            }
        }
        for (String fr : pairs) {
            Integer id = q.frIds.get(fr);
            if (id != null && used[id] > q.nominal[id]) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param queue a ClusterQueue
     * @param pairs (flavor, resource) keys
     * @return true when its running jobs still in the plan use less than its nominal quota of one of the pairs it quotes
     */
    boolean heldBelowNominal(String queue, java.util.Set<String> pairs) {
        Queue q = queue == null ? null : queues.get(queue);
        if (q == null) {
            return false;
        }
        if (q.byAdmission == null) {
            build(q);
        }
        long[] used = new long[q.nominal.length];
        for (int i = 0; i < q.byAdmission.length; i++) {
            if (inPlan(q.byAdmission[i])) {
                for (int k = q.chargeStart[i]; k < q.chargeStart[i + 1]; k++) {
                    used[q.chargeFr[k]] += q.chargeAmount[k];
                }
            }
        }
        for (String fr : pairs) {
            Integer id = q.frIds.get(fr);
            if (id != null && used[id] < q.nominal[id]) {
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

    /** @return the running jobs of a ClusterQueue in candidate order (empty when it runs none) */
    Held[] ofQueue(String clusterQueue) {
        Queue q = queues.get(clusterQueue);
        return q == null ? new Held[0] : q.byCandidateOrder;
    }

    /** @return the running jobs of the ClusterQueues in a cohort tree, in candidate order (empty when none) */
    Held[] ofRoot(String root) {
        Held[] a = root == null ? null : byRoot.get(root);
        return a == null ? new Held[0] : a;
    }

    /**
     * @param root a cohort tree's root
     * @return the running jobs of its ClusterQueues that are in the plan and borrowing, in candidate order (kept
     *     while the same jobs of the tree are out of the plan)
     */
    Held[] borrowersOfRoot(String root) {
        if (root == null) {
            return new Held[0];
        }
        Borrowers b = borrowersByRoot.get(root);
        long[] out = outOfPlan.get(root);
        if (out == null) {
            return new Held[0];
        }
        if (b == null || !Arrays.equals(b.out(), out)) {
            List<Held> l = new ArrayList<>();
            for (Held h : ofRoot(root)) {
                if (h.inPlan && borrowing(h)) {
                    l.add(h);
                }
            }
            b = new Borrowers(out.clone(), l.toArray(new Held[0]));
            borrowersByRoot.put(root, b);
        }
        return b.jobs();
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
}
