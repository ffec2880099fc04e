package io.fairway.policies.fifo;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PendingGroup;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Fair sharing between ClusterQueues. Each step admits the next job (in Kueue order) of the ClusterQueue that
 * is furthest below its fair share, then re-ranks that queue; jobs that do not fit are skipped. Two measures:
 * <ul>
 *   <li>{@link Mode#DOMINANT_RESOURCE_SHARE} (Kueue's fair sharing): a queue's dominant resource share —
 *       its usage above nominal quota over what its cohort can lend — divided by its fair-sharing weight;
 *       ties broken by its current share of the cluster divided by its weight;</li>
 *   <li>{@link Mode#OVER_TIME} (HTCondor, Armada): the queue's recent usage decayed with the scheduler's
 *       half-life plus its current share of the cluster, times its priority factor.</li>
 * </ul>
 * A queue's current share of the cluster is its dominant share: the largest, over every resource it has quota for
 * (GPUs, CPUs, memory, any other), of what it uses over the cluster's total. Many jobs of one ClusterQueue may be
 * admitted per round.
 *
 * <p>{@link Options} add what Armada and Kueue do beyond that order: {@link Options#priorityFirst() priority first}
 * across queues (a job that a higher-priority job of another queue would preempt in the same round is not admitted),
 * and {@link Options#preemptToFairShare() preemption to fair share}: a job of a queue below its fair share that
 * does not fit may preempt jobs of queues above theirs, when that makes the shares fairer (Kueue's fair-sharing
 * strategies) and never below {@link Options#protectedFractionOfFairShare() a protected fraction} of the victim
 * queue's fair share (Armada).
 */
public final class FairSharePolicy implements SchedulingPolicy {
    /** Which share to equalise. */
    public enum Mode {
        /** Kueue fair sharing: dominant resource share within the cohort, by weight. */
        DOMINANT_RESOURCE_SHARE,
        /** HTCondor/Armada fair share over time: decayed usage times priority factor. */
        OVER_TIME
    }

    /** When preempting for fair share improves fairness (Kueue's {@code fairSharing.preemptionStrategies}). */
    public enum Strategy {
        /**
         * Kueue's {@code LessThanOrEqualToFinalShare}: preempt when the preemptor's queue, with the new job, has a
         * weighted share at most the victim queue's after the victim is gone.
         */
        LESS_THAN_OR_EQUAL_TO_FINAL_SHARE("LessThanOrEqualToFinalShare"),
        /**
         * Kueue's {@code LessThanInitialShare}: preempt when the preemptor's queue, with the new job, has a weighted
         * share strictly below the victim queue's before the preemption.
         */
        LESS_THAN_INITIAL_SHARE("LessThanInitialShare");

        private final String kueueName;

        Strategy(String kueueName) {
            this.kueueName = kueueName;
        }

        /** @return Kueue's spelling */
        public String kueueName() {
            return kueueName;
        }

        /**
         * @param name Kueue's spelling
         * @return the strategy, or null when there is none of that name
         */
        public static Strategy ofKueueName(String name) {
            for (Strategy s : values()) {
                if (s.kueueName.equalsIgnoreCase(name.trim())) {
                    return s;
                }
            }
            return null;
        }
    }

    /**
     * What the policy does beyond ordering admissions by share.
     *
     * @param rankWithNextJob compare queues by the share each would have with its next job admitted (Armada's and
     *     Kueue's order) rather than by its share now: of two queues as far below their shares, the one whose next job
     *     takes less of the cluster goes first (dominant-resource fairness by progressive filling)
     * @param priorityFirst admit higher-priority jobs first across every queue, by share only among equal priorities
     *     (Armada orders by priority class before fair share): a job that another queue's higher-priority job
     *     would preempt in the same round is not admitted in the first place
     * @param preemptToFairShare a job of a queue that does not fit may preempt jobs of queues above their fair share
     * @param strategies when a preemption improves fairness, tried in order (Kueue's default: both, in this order)
     * @param protectedFractionOfFairShare a queue using at most this fraction of its fair share loses nothing to
     *     preemption for fair share (Armada's setting; 1.0 by default: a queue within its fair share is safe)
     */
    public record Options(boolean rankWithNextJob, boolean priorityFirst, boolean preemptToFairShare, List<Strategy> strategies,
                          double protectedFractionOfFairShare) {
        /** Kueue's default strategies, in its order. */
        public static final List<Strategy> KUEUE_DEFAULT_STRATEGIES =
                List.of(Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, Strategy.LESS_THAN_INITIAL_SHARE);
        /** Ranked by the share now; no priority tiers, no preemption for fair share. */
        public static final Options NONE = new Options(false, false, false, KUEUE_DEFAULT_STRATEGIES, 1.0);

        /** Validates. */
        public Options {
            strategies = List.copyOf(strategies == null || strategies.isEmpty() ? KUEUE_DEFAULT_STRATEGIES : strategies);
            io.fairway.api.InvalidSpecException.check(protectedFractionOfFairShare >= 0 && Double.isFinite(protectedFractionOfFairShare),
                    "protectedFractionOfFairShare", protectedFractionOfFairShare,
                    "protectedFractionOfFairShare must be a finite number >= 0, was %s", protectedFractionOfFairShare);
        }
    }

    private final String name;
    private final Mode mode;
    private final Options options;

    /**
     * @param name the policy name
     * @param mode the share measure
     */
    public FairSharePolicy(String name, Mode mode) {
        this(name, mode, Options.NONE);
    }

    /**
     * @param name the policy name
     * @param mode the share measure
     * @param options priority tiers and preemption to fair share
     */
    public FairSharePolicy(String name, Mode mode, Options options) {
        this.name = name;
        this.mode = mode;
        this.options = options == null ? Options.NONE : options;
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the options */
    public Options options() {
        return options;
    }

    @Override
    public void plan(PolicyContext ctx) {
        // Preemption to fair share reads the plan's current shares (not the usage over time) and each round's active
        // queues: when nothing changed since a round that decided nothing, it would find no victim again either.
        if (ctx.previousAnswersStand()) {
            return; // a round that decided nothing, and nothing changed since: every job keeps its answer
        }
        Map<String, ClusterQueue> queues = new HashMap<>();
        for (ClusterQueue q : ctx.clusterQueues()) {
            queues.put(q.name(), q);
        }
        // Each queue's jobs in Kueue order: its groups (jobs of one shape and priority) merged by their cursors.
        Map<String, PriorityQueue<OrderedPolicy.Cursor>> heads = new HashMap<>();
        List<PendingGroup> groups = ctx.pendingGroups();
        // each group's shape hashed with its cursor (its first job just read), and counted: a group alone with its
        // shape skips the map of failed shapes, and its shape is never made
        ShapeCounts counts = new ShapeCounts(groups.size());
        String lastName = null; // groups come in runs of one ClusterQueue: its queue and heads are looked up once a run
        ClusterQueue runQueue = null;
        PriorityQueue<OrderedPolicy.Cursor> queueHeads = null;
        for (PendingGroup g : groups) {
            OrderedPolicy.Cursor c = new OrderedPolicy.Cursor(g, true);
            String name = g.clusterQueue();
            if (queueHeads == null || !java.util.Objects.equals(name, lastName)) {
                lastName = name;
                runQueue = queues.get(name);
                queueHeads = heads.computeIfAbsent(name, k -> new PriorityQueue<>(OrderedPolicy.Cursor.BY_KEYS));
            }
            if (runQueue != null) { // else not walked
                c.shapeIn(OrderedPolicy.preempts(runQueue) || options.preemptToFairShare());
                counts.add(c.shapeHash);
            }
            queueHeads.add(c); // Kueue order
        }
        Shares shares = new Shares(ctx, queues);
        Fairness fairness = options.preemptToFairShare() ? new Fairness(ctx, queues, shares, heads) : null;
        PriorityQueue<Ranked> order = new PriorityQueue<>();
        for (ClusterQueue q : ctx.clusterQueues()) {
            PriorityQueue<OrderedPolicy.Cursor> dq = heads.get(q.name());
            if (dq != null) {
                Lane lane = new Lane(q, dq, OrderedPolicy.preempts(q), counts.failedShapes());
                order.add(new Ranked(lane, key(ctx, q, shares, dq)));
            }
        }
        // each queue's jobs left waiting so far this round, in its order: the first of each priority is its oldest
        Map<String, List<JobStatus>> waitingEarlier = new HashMap<>();
        Ranked still = null; // the queue just walked, when its rank did not change: it is still the first
        while (still != null || !order.isEmpty()) {
            Ranked r = still != null ? still : order.poll();
            still = null;
            Lane lane = r.lane;
            OrderedPolicy.Cursor c = lane.jobs.poll();
            step(ctx, lane, c, fairness, waitingEarlier);
            if (!lane.jobs.isEmpty()) {
                double[] key = key(ctx, lane.queue, shares, lane.jobs);
                // unchanged by the step (a job that did not fit changes nothing): the queue is still ahead of all others
                if (Ranked.compareKeys(key, r.key) == 0) {
                    still = r;
                } else {
                    order.add(new Ranked(lane, key));
                }
            }
        }
        Elastic.growIntoIdleCapacity(ctx);
    }

    /** Tries the job at a queue's cursor (or gives it the failure of its shape), and moves the cursor on. */
    private void step(PolicyContext ctx, Lane lane, OrderedPolicy.Cursor c, Fairness fairness, Map<String, List<JobStatus>> waitingEarlier) {
        ShapeCounts.FailedShapes failedShapes = lane.failedShapes;
        JobStatus j = c.job();
        boolean preempting = lane.preempting;
        PendingReason failed = failedShapes.get(c);
        if (failed == null && fairness == null && c.index == 0) {
            // without preemption to fair share, a failure is the two attempts' answer: the engine may give it
            failed = OrderedPolicy.standing(ctx, c.group, preempting);
            if (failed != null) {
                failedShapes.put(c, failed);
                return; // the group keeps the reasons it carries
            }
        }
        if (failed == null) {
            Attempt a = OrderedPolicy.admit(ctx, j, preempting);
            if (!a.admitted() && fairness != null) {
                a = fairness.admit(j, lane.queue, a, waitingEarlier.getOrDefault(lane.queue.name(), List.of()));
            }
            if (a.admitted()) {
                if (c.advance()) {
                    lane.jobs.add(c);
                }
                return;
            }
            // within a round the job's queue only gains and the others only lose: no later job of this shape
            // fits, nor finds victims, either
            failed = a.reason();
            failedShapes.put(c, failed);
        }
        if (fairness != null) {
            waitingEarlier.computeIfAbsent(lane.queue.name(), k -> new ArrayList<>()).add(j);
        }
        ctx.leaveWaiting(c.group, c.index, failed); // the rest of the group cannot fit either
    }

    private double[] key(PolicyContext ctx, ClusterQueue q, Shares shares, PriorityQueue<OrderedPolicy.Cursor> dq) {
        // with rankWithNextJob, the share the queue would have with its next job admitted, as Armada and Kueue compare
        // queues: of two queues as far below their shares, the one whose next job takes less of the cluster goes first
        double current = options.rankWithNextJob() ? shares.with(q, dq.peek().job().spec().totalResources()) : shares.current(q);
        double first;
        double second;
        if (mode == Mode.DOMINANT_RESOURCE_SHARE) {
            first = ctx.quota().dominantShare(q.name());
            second = current / q.fairSharingWeight();
        } else {
            first = (ctx.quota().decayedUsage(q.name()) + current) * q.priorityFactor();
            second = 0;
        }
        if (options.priorityFirst()) {
            return new double[] {-(double) dq.peek().job().spec().priority(), first, second};
        }
        return new double[] {first, second};
    }

    /** @return the weight a queue's share is divided by: its fair-sharing weight, or 1 / its priority factor */
    private double weight(ClusterQueue q) {
        return mode == Mode.DOMINANT_RESOURCE_SHARE ? q.fairSharingWeight() : 1.0 / q.priorityFactor();
    }

    /**
     * Current dominant shares of the cluster: for each queue, over every resource it has quota for (GPUs and CPUs
     * when it names none), what it uses in the plan over the cluster's total.
     */
    static final class Shares {
        private final PolicyContext ctx;
        private final Map<String, List<String>> resources = new HashMap<>();
        private final Map<String, Long> totals = new HashMap<>();

        Shares(PolicyContext ctx, Map<String, ClusterQueue> queues) {
            this.ctx = ctx;
            for (ClusterQueue q : queues.values()) {
                Set<String> rs = new LinkedHashSet<>();
                for (ResourceGroup g : q.resourceGroups()) {
                    rs.addAll(g.coveredResources());
                }
                if (rs.isEmpty()) {
                    rs.add(Resources.GPU);
                    rs.add(Resources.CPU);
                }
                List<String> counted = new ArrayList<>();
                for (String r : rs) {
                    long t = totals.computeIfAbsent(r, ctx.capacity()::total);
                    if (t > 0) {
                        counted.add(r);
                    }
                }
                resources.put(q.name(), counted);
            }
        }

        /** @return the queue's dominant share of the cluster in the plan now */
        double current(ClusterQueue q) {
            double s = 0;
            for (String r : resources.get(q.name())) {
                s = Math.max(s, (double) ctx.quota().usage(q.name(), r) / totals.get(r));
            }
            return s;
        }

        /**
         * @param q a queue
         * @param more resources it would use in addition
         * @return its dominant share of the cluster with them
         */
        double with(ClusterQueue q, Resources more) {
            double s = 0;
            for (String r : resources.get(q.name())) {
                s = Math.max(s, (double) (ctx.quota().usage(q.name(), r) + more.get(r)) / totals.get(r));
            }
            return s;
        }

        /**
         * @param q a queue
         * @param usage what it uses, by resource
         * @return that usage's dominant share of the cluster
         */
        double of(ClusterQueue q, Map<String, Long> usage) {
            double s = 0;
            for (String r : resources.get(q.name())) {
                s = Math.max(s, (double) usage.getOrDefault(r, 0L) / totals.get(r));
            }
            return s;
        }

        /** @return the resources a queue's share is measured over */
        List<String> resources(ClusterQueue q) {
            return resources.get(q.name());
        }
    }

    /** Preemption to fair share, for one round. */
    private final class Fairness {
        private final PolicyContext ctx;
        private final Map<String, ClusterQueue> queues;
        private final Shares shares;
        /**
         * Each active queue's fair share of the cluster, water-filled by weight: none above what it asks for (what it
         * holds and waits for), what one does not ask for shared by the others (Armada's demand-capped adjusted share).
         */
        private final Map<String, Double> fairShare = new HashMap<>();
        private final Map<String, Map<String, Long>> nominals = new HashMap<>();
        /** What each active queue is entitled to: the larger of its two fair shares (Armada's). */
        private final Map<String, Double> entitled = new HashMap<>();
        /** What each active queue keeps, whatever others ask: its protected fraction of its fair share. */
        private final Map<String, Double> protectedShare = new HashMap<>();
        /** Jobs holding resources, by queue, in the order they would be preempted (lowest priority, newest first). */
        private final Map<String, List<JobStatus>> holdingByQueue = new HashMap<>();

        Fairness(PolicyContext ctx, Map<String, ClusterQueue> queues, Shares shares, Map<String, PriorityQueue<OrderedPolicy.Cursor>> heads) {
            this.ctx = ctx;
            this.queues = queues;
            this.shares = shares;
            for (JobStatus j : ctx.holding()) {
                if (j.admission() != null && queues.containsKey(j.admission().clusterQueue())) {
                    holdingByQueue.computeIfAbsent(j.admission().clusterQueue(), k -> new ArrayList<>()).add(j);
                }
            }
            Comparator<JobStatus> victimOrder = Comparator.comparingInt((JobStatus j) -> j.spec().priority())
                    .thenComparing(Comparator.comparingLong((JobStatus j) -> j.admission().admissionOrder()).reversed())
                    .thenComparing(Comparator.comparingLong(JobStatus::sequence).reversed());
            holdingByQueue.values().forEach(l -> l.sort(victimOrder));
            // Demand: what each active queue holds plus what it waits for (a whole group costs one multiplication).
            Map<String, Map<String, Long>> demand = new HashMap<>();
            for (Map.Entry<String, List<JobStatus>> e : holdingByQueue.entrySet()) {
                for (JobStatus j : e.getValue()) {
                    add(demand.computeIfAbsent(e.getKey(), k -> new HashMap<>()), held(j), 1);
                }
            }
            for (Map.Entry<String, PriorityQueue<OrderedPolicy.Cursor>> e : heads.entrySet()) {
                if (!queues.containsKey(e.getKey())) {
                    continue;
                }
                for (OrderedPolicy.Cursor c : e.getValue()) {
                    add(demand.computeIfAbsent(e.getKey(), k -> new HashMap<>()), c.job().spec().totalResources(), c.group.jobs().size());
                }
            }
            Map<String, Double> asks = new HashMap<>();
            demand.forEach((cq, d) -> asks.put(cq, Math.min(1.0, shares.of(queues.get(cq), d))));
            waterFill(asks);
            // Protected is a fraction of the larger of the two fair shares Armada keeps: the weight's part of the
            // cluster among the active queues, and that part with what others do not ask for shared out (above)
            double weights = 0;
            for (String cq : asks.keySet()) {
                weights += weight(queues.get(cq));
            }
            for (String cq : asks.keySet()) {
                double share = Math.max(fairShare.get(cq), weight(queues.get(cq)) / weights);
                entitled.put(cq, share);
                protectedShare.put(cq, options.protectedFractionOfFairShare() * share);
            }
        }

        /** Fair shares of the active queues: by weight, none above what it asks for, the rest shared by the others. */
        private void waterFill(Map<String, Double> asks) {
            Map<String, Double> open = new HashMap<>(asks);
            double left = 1.0;
            while (!open.isEmpty()) {
                double weights = 0;
                for (String cq : open.keySet()) {
                    weights += weight(queues.get(cq));
                }
                boolean capped = false;
                for (String cq : List.copyOf(open.keySet())) {
                    double share = left * weight(queues.get(cq)) / weights;
                    if (open.get(cq) <= share) {
                        fairShare.put(cq, open.get(cq));
                        left -= open.remove(cq);
                        capped = true;
                    }
                }
                if (!capped) {
                    for (String cq : open.keySet()) {
                        fairShare.put(cq, left * weight(queues.get(cq)) / weights);
                    }
                    return;
                }
            }
        }

        /**
         * Tries to admit a job that did not fit by preempting jobs of queues above their fair share.
         *
         * @param j the job
         * @param q its queue
         * @param notFitting why it did not fit
         * @param waitingEarlier the jobs of its queue left waiting earlier in this round (before it in the queue's order)
         * @return the admission, or the reason
         */
        Attempt admit(JobStatus j, ClusterQueue q, Attempt notFitting, List<JobStatus> waitingEarlier) {
            if (q == null || !fairShare.containsKey(q.name())) {
                return notFitting;
            }
            for (JobStatus w : waitingEarlier) {
                if (displaces(q, w, j)) {
                    // The room would not stay with this job: the earlier job of its own queue preempts it there by
                    // withinClusterQueue, and its queue ends with a share the fairness check never saw (larger than the
                    // victim queue's), so that queue would preempt back and the two would trade jobs for ever.
                    return explained(notFitting, "; job " + w.id() + ", before it in ClusterQueue " + q.name() + ", waits and could preempt"
                            + " it within the ClusterQueue: no preemption for fair share");
                }
            }
            for (JobStatus w : holdingByQueue.getOrDefault(q.name(), List.of())) {
                if (!ctx.holdsInPlan(w) && displaces(q, w, j)) {
                    // The same for a job of its queue preempted earlier in this round: it waits from the next round on
                    // and takes this job's room back within the ClusterQueue.
                    return explained(notFitting, "; job " + w.id() + " of ClusterQueue " + q.name() + ", preempted in this round, will wait and"
                            + " could preempt it within the ClusterQueue: no preemption for fair share");
                }
            }
            Map<String, Long> mine = usage(q);
            add(mine, j.spec().totalResources(), 1);
            if (shares.of(q, mine) > entitled.get(q.name()) + 1e-12) {
                // Only a queue that stays within its fair share with the job preempts for it (Armada schedules new jobs
                // of queues below their share): two queues near their shares do not trade jobs back and forth.
                return explained(notFitting, "; with it, ClusterQueue " + q.name() + " would be above its fair share: no preemption for fair share");
            }
            if (above(q, mine)) {
                // Preemption for fair share takes capacity, never quota: a job that would borrow above its queue's
                // nominal quota does not preempt for it (the victims' queues could reclaim their quota at once, and
                // the two would preempt each other in turn; within a cohort, reclaimWithinCohort and
                // borrowWithinCohort say who takes quota from whom).
                return explained(notFitting, "; with it, ClusterQueue " + q.name() + " would borrow above its nominal quota: preemption for"
                        + " fair share takes no quota");
            }
            for (Strategy s : options.strategies()) {
                List<JobStatus> candidates = candidates(j, q, s);
                if (candidates.isEmpty()) {
                    continue;
                }
                Attempt a = ctx.tryAdmitPreemptingAmong(j, candidates, String.format(Locale.ROOT,
                        "preempted for fair share: its ClusterQueue is above its fair share, and job %s of ClusterQueue %s, below"
                                + " its own, needs the room (%s)", j.id(), q.name(), s.kueueName()));
                if (a.admitted()) {
                    return a;
                }
            }
            return explained(notFitting, "; no preemption for fair share makes room and leaves the shares fairer");
        }

        /**
         * @return true when the waiting job may preempt the other, admitted, by its queue's {@code withinClusterQueue}
         *     (a lower priority, or under LowerOrNewerEqualPriority an equal priority submitted later)
         */
        private boolean displaces(ClusterQueue q, JobStatus waiting, JobStatus admitted) {
            PreemptionPolicy.WithinClusterQueue within = q.preemption().withinClusterQueue();
            if (within == PreemptionPolicy.WithinClusterQueue.NEVER || !admitted.spec().preemptible()) {
                return false;
            }
            int wp = waiting.spec().priority();
            int ap = admitted.spec().priority();
            if (wp != ap || within != PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY) {
                return wp > ap;
            }
            long wt = waiting.spec().submitTimeMillis();
            long at = admitted.spec().submitTimeMillis();
            return at > wt || (at == wt && admitted.sequence() > waiting.sequence());
        }

        private Attempt explained(Attempt notFitting, String why) {
            PendingReason r = notFitting.reason();
            return Attempt.failure(new PendingReason(r.code(), r.message() + why, r.details()));
        }

        /**
         * The jobs the job may preempt, in order: each from the queue furthest above its share at that point, lowest
         * priority and most recently admitted first, for as long as taking it keeps the strategy's condition and
         * leaves its queue above its protected fraction of fair share.
         */
        private List<JobStatus> candidates(JobStatus j, ClusterQueue q, Strategy strategy) {
            Map<String, Long> mine = usage(q);
            add(mine, j.spec().totalResources(), 1);
            double after = shares.of(q, mine) / weight(q);
            Map<String, Map<String, Long>> usage = new HashMap<>();
            Map<String, Integer> next = new HashMap<>();
            PriorityQueue<String> above = new PriorityQueue<>(Comparator.comparingDouble((String cq) -> -weighted(cq, usage))
                    .thenComparing(Comparator.naturalOrder()));
            for (Map.Entry<String, List<JobStatus>> e : holdingByQueue.entrySet()) {
                String cq = e.getKey();
                if (!cq.equals(q.name()) && fairShare.containsKey(cq)) {
                    usage.put(cq, usage(queues.get(cq)));
                    next.put(cq, 0);
                    above.add(cq);
                }
            }
            List<JobStatus> out = new ArrayList<>();
            while (!above.isEmpty()) {
                String cq = above.poll();
                ClusterQueue v = queues.get(cq);
                double before = shares.of(v, usage.get(cq));
                if (before <= protectedShare.get(cq) + 1e-12) {
                    continue; // protected: within its fraction of its fair share
                }
                List<JobStatus> held = holdingByQueue.get(cq);
                int i = next.get(cq);
                while (i < held.size() && (!ctx.holdsInPlan(held.get(i)) || !held.get(i).spec().preemptible())) {
                    i++; // preempted already in this round (its usage is gone from the queue's), or never preempted (its class)
                }
                if (i >= held.size() || held.get(i).spec().priority() > j.spec().priority()) {
                    continue; // never a job of higher priority than the preemptor (the list is by priority: none follow)
                }
                JobStatus victim = held.get(i);
                Map<String, Long> less = new HashMap<>(usage.get(cq));
                add(less, held(victim), -1);
                double victimAfter = shares.of(v, less) / weight(v);
                // The victim must lower its queue's share (a job off its dominant resource may not), and the
                // preemptor's share with the new job must then stay at most the victim queue's (Kueue's strategies):
                // the larger of the two shares falls, so the shares of all queues, largest first, fall in
                // lexicographic order with every preemption, and none can be undone by preempting back.
                double victimBefore = before / weight(v);
                boolean fairer = victimAfter < victimBefore - 1e-12 && (strategy == Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE
                        ? after <= victimAfter + 1e-12
                        : after < victimBefore - 1e-12);
                if (!fairer) {
                    continue; // taking from this queue would not make the shares fairer; it is done
                }
                out.add(victim);
                usage.put(cq, less);
                next.put(cq, i + 1);
                above.add(cq);
            }
            return out;
        }

        /** @return true when the usage is above the queue's nominal quota (over all its flavors) in any resource */
        private boolean above(ClusterQueue q, Map<String, Long> usage) {
            Map<String, Long> nominal = nominal(q);
            for (Map.Entry<String, Long> e : usage.entrySet()) {
                if (e.getValue() > nominal.getOrDefault(e.getKey(), 0L)) {
                    return true;
                }
            }
            return false;
        }

        private Map<String, Long> nominal(ClusterQueue q) {
            return nominals.computeIfAbsent(q.name(), k -> {
                Map<String, Long> m = new HashMap<>();
                for (ResourceGroup g : q.resourceGroups()) {
                    for (io.fairway.api.model.FlavorQuotas f : g.flavors()) {
                        for (io.fairway.api.model.ResourceQuota rq : f.resources()) {
                            m.merge(rq.resource(), rq.nominal(), Long::sum);
                        }
                    }
                }
                return m;
            });
        }

        private double weighted(String cq, Map<String, Map<String, Long>> usage) {
            ClusterQueue q = queues.get(cq);
            return shares.of(q, usage.get(cq)) / weight(q);
        }

        /** @return a queue's usage in the plan now, over the resources its share counts */
        private Map<String, Long> usage(ClusterQueue q) {
            Map<String, Long> u = new HashMap<>();
            for (String r : shares.resources(q)) {
                u.put(r, ctx.quota().usage(q.name(), r));
            }
            return u;
        }
    }

    /** @return what a job holds: its pod sets at their admitted sizes */
    private static Resources held(JobStatus j) {
        Resources r = Resources.NONE;
        for (PodSet ps : j.spec().podSets()) {
            r = r.plus(ps.total(j.admission().counts().getOrDefault(ps.name(), ps.count())));
        }
        return r;
    }

    private static void add(Map<String, Long> into, Resources r, long times) {
        for (int i = 0; i < r.size(); i++) {
            into.merge(r.name(i), r.amount(i) * times, Long::sum);
        }
    }

    /**
     * A ClusterQueue in the walk: its definition, its groups' cursors in Kueue order, whether it preempts, and the
     * shapes of its jobs that did not fit this round (a shape names its ClusterQueue, so the queues' maps are disjoint;
     * one map per queue stays small enough to be read from cache while the walk stays in that queue).
     */
    private record Lane(ClusterQueue queue, PriorityQueue<OrderedPolicy.Cursor> jobs, boolean preempting,
                        ShapeCounts.FailedShapes failedShapes) {
    }

    private record Ranked(Lane lane, double[] key) implements Comparable<Ranked> {
        @Override
        public int compareTo(Ranked o) {
            int c = compareKeys(key, o.key);
            return c != 0 ? c : lane.queue.name().compareTo(o.lane.queue.name());
        }

        static int compareKeys(double[] a, double[] b) {
            for (int i = 0; i < a.length; i++) {
                int c = Double.compare(a[i], b[i]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        }
    }
}
