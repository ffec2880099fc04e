package io.fairway.sim.multicluster;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Scheduler;
import io.fairway.sim.ClusterAction;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SimulationInput} with several clusters run the way the multi-cluster engine runs them: one scheduler for
 * the whole fleet, an {@link ExecutorHub} as its actuator, and one pull-based executor per cluster that polls (its
 * heartbeat), starts and stops what it is handed, acknowledges, and reports starts and finishes with the run's
 * epoch. The input's {@link ClusterAction.LoseCluster} silences a cluster's executor: it fences itself (stops its
 * runs) once out of contact for the hub's fencing time, and the hub declares the cluster lost after its grace
 * period, sending the jobs back to pending (from their last checkpoint where they have one).
 * {@link ClusterAction.JoinCluster} registers a new executor and adds the cluster's nodes; other actions are
 * applied to the scheduler as they are.
 *
 * <p>Time advances from event to event (arrivals, finishes, cluster changes, the lost executor's fencing and
 * grace deadlines), and every {@link SimulationOptions#roundIntervalSeconds()} while jobs wait when that is set. A
 * run's speed is (members placed ÷ members requested) × the placement's throughput factor, as in the
 * single-actuator simulator. Node pools are not supported here. Deterministic for a given input, policy and seed.
 *
 * <pre>{@code
 * MultiClusterRun.Result r = MultiClusterRun.run(input, "fair-share-over-time", SimulationOptions.DEFAULTS);
 * r.clusters(); r.queues(); r.completedMoreThanOnce();
 * }</pre>
 */
public final class MultiClusterRun {
    private static final Logger LOG = LoggerFactory.getLogger(MultiClusterRun.class);
    /** The hub's grace period before a silent cluster is declared lost. */
    public static final long GRACE_MILLIS = 5 * 60_000L;
    /** How many items an executor takes per poll (and may leave unacknowledged). */
    private static final int BATCH = 1_000;

    /**
     * One cluster's part in the run.
     *
     * @param name the cluster
     * @param nodes its nodes
     * @param gpus its GPUs
     * @param joinedAtSeconds when it joined, or NaN when present from the start
     * @param silentAtSeconds when its executor fell silent (the cluster was lost), or NaN
     * @param declaredLostAtSeconds when the hub declared it lost, or NaN
     * @param runsStarted runs its executor started
     * @param completions finishes its executor reported that the engine accepted
     * @param runsFenced runs its executor stopped when it fenced itself
     * @param gpuHours GPU-hours its runs used
     */
    public record ClusterResult(String name, int nodes, long gpus, double joinedAtSeconds, double silentAtSeconds, double declaredLostAtSeconds,
                                int runsStarted, int completions, int runsFenced, double gpuHours) {
    }

    /**
     * One ClusterQueue's part in the run.
     *
     * @param name the ClusterQueue
     * @param priorityFactor its priority factor
     * @param jobs jobs submitted to it
     * @param completed jobs that finished
     * @param avgJctSeconds mean completion time of the finished jobs (NaN when none)
     * @param avgWaitSeconds mean time from submission to first start (NaN when none started)
     * @param gpuHours GPU-hours its runs used
     * @param share its share of all GPU-hours used over the whole run
     * @param contendedShare its share of the GPU-hours used while every queue had jobs waiting (NaN when never): what
     *     a fair policy brings towards {@code targetShare}
     * @param contendedGpuHours GPU-hours (all queues) used while every queue had jobs waiting
     * @param targetShare the share its priority factor entitles it to among all queues with jobs (1/factor, normalised)
     */
    public record QueueResult(String name, double priorityFactor, int jobs, int completed, double avgJctSeconds, double avgWaitSeconds,
                              double gpuHours, double share, double contendedShare, double contendedGpuHours, double targetShare) {
    }

    /**
     * What happened.
     *
     * @param policy the policy
     * @param clusters per cluster, in name order
     * @param queues per ClusterQueue, in name order
     * @param jobs jobs simulated
     * @param completedOnce jobs whose finish the engine accepted exactly once
     * @param completedMoreThanOnce jobs whose finish was accepted more than once (0 when nothing ran twice)
     * @param unfinished jobs that never finished (horizon reached, or no cluster could ever hold them)
     * @param maxConcurrentRuns the most executors that ran one job at the same moment (1 when no job ran twice at once)
     * @param restartedAfterLoss jobs that were running in a lost cluster and started again elsewhere
     * @param lostClusters clusters the hub declared lost
     * @param endSeconds when the last job finished (or the run stopped)
     * @param rounds scheduling rounds run
     */
    public record Result(String policy, List<ClusterResult> clusters, List<QueueResult> queues, int jobs, int completedOnce,
                         int completedMoreThanOnce, int unfinished, int maxConcurrentRuns, int restartedAfterLoss, List<String> lostClusters,
                         double endSeconds, long rounds) {
        /** Copies. */
        public Result {
            clusters = List.copyOf(clusters);
            queues = List.copyOf(queues);
            lostClusters = List.copyOf(lostClusters);
        }
    }

    /** One run of a job on one executor. */
    private static final class Run {
        final long epoch;
        final long gpus;
        double done;
        long since;
        double speed;
        long endsAt;

        Run(long epoch, long gpus, double done, long since, double speed, double work) {
            this.epoch = epoch;
            this.gpus = gpus;
            this.done = done;
            this.since = since;
            this.speed = speed;
            this.endsAt = end(work);
        }

        double progressAt(long t) {
            return done + Math.max(0, t - since) * speed;
        }

        long end(double work) {
            return since + Math.max(0, (long) Math.ceil((work - done) / speed - 1e-9));
        }
    }

    private static final class Executor {
        final String cluster;
        final Map<String, Run> running = new TreeMap<>();
        long lastContact;
        long silentAt = Long.MAX_VALUE;
        boolean fenced;
        int nodes;
        long gpus;
        double joinedAt = Double.NaN;
        double declaredLostAt = Double.NaN;
        int runsStarted;
        int completions;
        int runsFenced;
        double gpuMillis;

        Executor(String cluster, long now) {
            this.cluster = cluster;
            this.lastContact = now;
        }

        /** Silent after {@code silentAt}: at that instant it still polls a last time. */
        boolean silent(long now) {
            return now > silentAt;
        }
    }

    private final SimulationInput input;
    private final String policy;
    private final SimulationOptions options;
    private final AtomicLong now = new AtomicLong();
    private final ExecutorHub hub;
    private final Scheduler scheduler;
    private final Map<String, Executor> executors = new TreeMap<>();
    private final Map<String, SimJob> jobs = new LinkedHashMap<>();
    private final Map<String, Double> kept = new HashMap<>();
    private final Map<String, Integer> requestedMembers = new HashMap<>();
    private final Map<String, Integer> accepted = new TreeMap<>();
    private final Map<String, Long> firstStart = new HashMap<>();
    private final Map<String, Long> finishedAt = new HashMap<>();
    private final Map<String, String> queueOf = new HashMap<>();
    private final Map<String, Double> queueGpuMillis = new TreeMap<>();
    private final Map<String, Double> contendedGpuMillis = new TreeMap<>();
    private final java.util.Set<String> queuesWithJobs = new java.util.TreeSet<>();
    private final java.util.Set<String> inLostCluster = new java.util.TreeSet<>();
    private final List<String> lost = new ArrayList<>();
    private int restartedAfterLoss;
    private int maxConcurrent;
    private long rounds;

    private MultiClusterRun(SimulationInput input, String policy, SimulationOptions options) {
        this.input = input;
        this.policy = policy;
        this.options = options;
        InvalidSpecException.check(input.cluster().nodePools().isEmpty(), "nodePools", input.cluster().nodePools().size(),
                "multi-cluster simulation: node pools are not supported (found %d)", input.cluster().nodePools().size());
        long step = options.roundIntervalSeconds() > 0 ? Math.round(options.roundIntervalSeconds() * 1000) : 60_000;
        hub = new ExecutorHub(now::get, 10 * step, BATCH, GRACE_MILLIS);
        Scheduler.Builder b = Scheduler.builder().policy(policy, options.policyParameters()).placement(options.placement()).clock(now::get)
                .seed(options.seed()).actuator(hub);
        input.configure(b);
        scheduler = b.build();
        hub.attach(scheduler);
        for (ClusterSpec c : input.cluster().clusters()) {
            hub.register(c.name());
            Executor e = new Executor(c.name(), 0);
            executors.put(c.name(), e);
        }
        for (Node n : input.cluster().nodes()) {
            Executor e = executors.get(n.cluster());
            if (e != null) {
                e.nodes++;
                e.gpus += n.gpus().size();
            }
        }
        Map<String, String> cqOfLocal = new HashMap<>();
        for (LocalQueue q : input.queues().localQueues()) {
            cqOfLocal.put(q.key(), q.clusterQueue());
        }
        for (SimJob j : input.jobs()) {
            InvalidSpecException.check(jobs.put(j.id(), j) == null, "job.id", j.id(), "job id %s appears twice in the input", j.id());
            int m = 0;
            for (PodSet p : j.spec().podSets()) {
                m += p.count();
            }
            requestedMembers.put(j.id(), m);
            queueOf.put(j.id(), cqOfLocal.getOrDefault(j.spec().localQueueKey(), j.spec().localQueueKey()));
            queuesWithJobs.add(queueOf.get(j.id()));
        }
    }

    /**
     * @param input clusters (two or more, or cluster changes), queues, jobs and timed actions
     * @param policy a policy name
     * @param options seed, round interval, policy parameters, placement, horizon
     * @return what happened
     * @throws InvalidSpecException on an unknown policy, node pools, or a job id used twice
     */
    public static Result run(SimulationInput input, String policy, SimulationOptions options) {
        InvalidSpecException.requireName("policy", policy);
        return new MultiClusterRun(input, policy, options).run();
    }

    private Result run() {
        TreeMap<Long, List<SimJob>> arrivals = new TreeMap<>();
        for (SimJob j : jobs.values()) {
            arrivals.computeIfAbsent(j.submitMillis(), k -> new ArrayList<>()).add(j);
        }
        List<ClusterAction> actions = new ArrayList<>(input.actions());
        actions.sort(Comparator.comparingLong(ClusterAction::atMillis));
        int nextAction = 0;
        long horizon = horizon(arrivals, actions);
        long interval = options.roundIntervalSeconds() > 0 ? Math.round(options.roundIntervalSeconds() * 1000) : 0;
        boolean again = false;
        while (true) {
            long t = now.get();
            // arrivals and cluster changes due now
            while (!arrivals.isEmpty() && arrivals.firstKey() <= t) {
                scheduler.submitAll(arrivals.pollFirstEntry().getValue().stream().map(SimJob::spec).toList());
            }
            while (nextAction < actions.size() && actions.get(nextAction).atMillis() <= t) {
                apply(actions.get(nextAction++));
            }
            finishes();
            scheduler.runRound();
            rounds++;
            pollAll();
            List<String> declared = hub.checkLiveness();
            for (String c : declared) {
                lost.add(c);
                Executor e = executors.get(c);
                if (e != null) {
                    e.declaredLostAt = t / 1000.0;
                }
            }
            again = !declared.isEmpty();
            measureConcurrency();
            boolean allDone = arrivals.isEmpty() && scheduler.jobs().all().stream().allMatch(j -> j.state().isTerminal());
            if (allDone) {
                break;
            }
            long next = Long.MAX_VALUE;
            if (again) {
                next = t; // jobs of a cluster just declared lost went back to pending: decide again now
            }
            if (!arrivals.isEmpty()) {
                next = Math.min(next, arrivals.firstKey());
            }
            if (nextAction < actions.size()) {
                next = Math.min(next, actions.get(nextAction).atMillis());
            }
            for (Executor e : executors.values()) {
                if (t >= e.silentAt) {
                    if (!e.fenced) {
                        next = Math.min(next, e.lastContact + hub.fenceAfterMillis() + 1);
                    }
                    if (Double.isNaN(e.declaredLostAt)) {
                        next = Math.min(next, e.lastContact + GRACE_MILLIS + 1);
                    }
                } else {
                    for (Run r : e.running.values()) {
                        next = Math.min(next, r.endsAt);
                    }
                }
            }
            if (interval > 0 && !scheduler.jobs().pending().isEmpty()) {
                next = Math.min(next, t + interval);
            }
            if (next == Long.MAX_VALUE || next > horizon) {
                LOG.warn("{} under {}: stopped at t={} s with {} job(s) unfinished", input.name(), policy, t / 1000,
                        jobs.size() - finishedAt.size() - cancelled());
                scheduler.jobs().all().stream().filter(j -> !j.state().isTerminal()).limit(5).forEach(j -> LOG.warn("  {} is {} ({})", j.id(),
                        j.state(), j.pendingReason()));
                break;
            }
            contended(t, Math.max(t, next));
            now.set(Math.max(t, next));
        }
        return result();
    }

    private long horizon(TreeMap<Long, List<SimJob>> arrivals, List<ClusterAction> actions) {
        if (options.maxSimulatedSeconds() > 0) {
            return (long) Math.min(Long.MAX_VALUE / 2, options.maxSimulatedSeconds() * 1000);
        }
        double work = 0;
        for (SimJob j : jobs.values()) {
            work += j.durationSeconds() * 1000.0;
        }
        long last = arrivals.isEmpty() ? 0 : arrivals.lastKey();
        for (ClusterAction a : actions) {
            last = Math.max(last, a.atMillis());
        }
        return (long) Math.min(Long.MAX_VALUE / 2, last + 10 * work + 86_400_000.0);
    }

    private void apply(ClusterAction a) {
        long t = now.get();
        if (a instanceof ClusterAction.LoseCluster l) {
            Executor e = executors.get(l.cluster());
            if (e == null) {
                LOG.warn("t={}s: lose cluster {}: no such cluster; ignored", t / 1000.0, l.cluster());
                return;
            }
            LOG.info("t={}s: the executor of cluster {} falls silent", t / 1000.0, l.cluster());
            e.silentAt = Math.min(e.silentAt, t);
        } else if (a instanceof ClusterAction.JoinCluster j) {
            String name = j.cluster().name();
            scheduler.clusters().addCluster(j.cluster());
            hub.register(name);
            Executor e = new Executor(name, t);
            e.joinedAt = t / 1000.0;
            for (Node n : j.nodes()) {
                scheduler.clusters().addNode(n);
                e.nodes++;
                e.gpus += n.gpus().size();
            }
            executors.put(name, e);
            LOG.info("t={}s: cluster {} joins with {} node(s)", t / 1000.0, name, j.nodes().size());
        } else {
            a.applyTo(scheduler);
        }
    }

    /** Live executors report the runs that ended by now. */
    private void finishes() {
        long t = now.get();
        for (Executor e : executors.values()) {
            if (e.silent(t)) {
                continue;
            }
            // keys, not entries: removing from a TreeMap may move another entry's key and value into a removed node
            for (String id : new ArrayList<>(e.running.keySet())) {
                Run r = e.running.get(id);
                if (r.endsAt <= t) {
                    stopRun(e, id, t);
                    if (scheduler.reportFinished(id, r.epoch)) {
                        accepted.merge(id, 1, Integer::sum);
                        e.completions++;
                        finishedAt.putIfAbsent(id, t);
                    }
                }
            }
        }
    }

    private Run stopRun(Executor e, String id, long t) {
        Run r = e.running.remove(id);
        if (r != null) {
            charge(e, id, r, t);
        }
        return r;
    }

    /** Counts a run's GPU time up to {@code t} for its cluster and its queue. */
    private void charge(Executor e, String id, Run r, long t) {
        double g = (double) r.gpus * Math.max(0, t - r.since);
        e.gpuMillis += g;
        queueGpuMillis.merge(queueOf.get(id), g, Double::sum);
    }

    /** Every executor polls: the live ones apply their work; silent ones fence once out of contact too long. */
    private void pollAll() {
        long t = now.get();
        for (Executor e : executors.values()) {
            if (e.silent(t)) {
                if (!e.fenced && t - e.lastContact > hub.fenceAfterMillis()) {
                    e.fenced = true;
                    for (String id : new ArrayList<>(e.running.keySet())) {
                        Run r = stopRun(e, id, t);
                        keep(id, r.progressAt(t));
                        e.runsFenced++;
                        inLostCluster.add(id);
                    }
                }
                continue;
            }
            e.lastContact = t;
            while (true) {
                ExecutorHub.Poll p = hub.poll(e.cluster, BATCH);
                if (p.items().isEmpty()) {
                    break;
                }
                for (ExecutorHub.WorkItem w : p.items()) {
                    apply(e, w);
                    hub.ack(e.cluster, w.id());
                }
            }
        }
    }

    private void apply(Executor e, ExecutorHub.WorkItem w) {
        long t = now.get();
        String id = w.jobId();
        if (w.decision() instanceof Admit a) {
            if (!e.running.containsKey(id) && scheduler.reportStarted(id, w.epoch())) {
                SimJob j = jobs.get(id);
                double speed = speed(id, a.placement());
                e.running.put(id, new Run(w.epoch(), a.placement().gpuCount(), kept.getOrDefault(id, 0.0), t, speed,
                        j.durationSeconds() * 1000.0));
                e.runsStarted++;
                firstStart.putIfAbsent(id, t);
                if (inLostCluster.remove(id)) {
                    restartedAfterLoss++;
                }
            }
        } else if (w.decision() instanceof Preempt) {
            Run r = e.running.get(id);
            if (r != null && r.epoch <= w.epoch()) {
                stopRun(e, id, t);
                keep(id, r.progressAt(t));
            }
        } else if (w.decision() instanceof Resize rs) {
            Run r = e.running.get(id);
            if (r != null && r.epoch == w.epoch()) {
                charge(e, id, r, t);
                Run n = new Run(r.epoch, rs.placement().gpuCount(), r.progressAt(t), t, speed(id, rs.placement()),
                        jobs.get(id).durationSeconds() * 1000.0);
                e.running.put(id, n);
            }
        }
    }

    private double speed(String id, Placement p) {
        double s = (double) p.members().size() / requestedMembers.get(id) * p.throughputFactor();
        return s > 0 ? s : 1e-6;
    }

    /** A run stopped: the job resumes from its last checkpoint, or from the start without checkpointing. */
    private void keep(String id, double progress) {
        Checkpointing c = jobs.get(id).spec().checkpointing();
        double k = 0;
        if (c != null) {
            double interval = c.intervalSeconds() * 1000.0;
            k = Math.max(kept.getOrDefault(id, 0.0), Math.floor(progress / interval) * interval);
        }
        kept.put(id, k);
    }

    /** While every queue has jobs waiting, counts each queue's GPU time from {@code t} to {@code next}. */
    private void contended(long t, long next) {
        if (next <= t) {
            return;
        }
        java.util.Set<String> waiting = new java.util.HashSet<>();
        for (JobStatus j : scheduler.jobs().pending()) {
            waiting.add(queueOf.get(j.id()));
        }
        if (!waiting.containsAll(queuesWithJobs)) {
            return;
        }
        for (Executor e : executors.values()) {
            for (Map.Entry<String, Run> r : e.running.entrySet()) {
                contendedGpuMillis.merge(queueOf.get(r.getKey()), (double) r.getValue().gpus * (next - t), Double::sum);
            }
        }
    }

    private void measureConcurrency() {
        Map<String, Integer> where = new HashMap<>();
        for (Executor e : executors.values()) {
            for (String id : e.running.keySet()) {
                maxConcurrent = Math.max(maxConcurrent, where.merge(id, 1, Integer::sum));
            }
        }
    }

    private Result result() {
        long end = now.get();
        for (Executor e : executors.values()) {
            for (Map.Entry<String, Run> r : e.running.entrySet()) {
                charge(e, r.getKey(), r.getValue(), end);
            }
        }
        List<ClusterResult> cs = new ArrayList<>();
        for (Executor e : executors.values()) {
            cs.add(new ClusterResult(e.cluster, e.nodes, e.gpus, e.joinedAt, e.silentAt == Long.MAX_VALUE ? Double.NaN : e.silentAt / 1000.0,
                    e.declaredLostAt, e.runsStarted, e.completions, e.runsFenced, e.gpuMillis / 3_600_000.0));
        }
        Map<String, Double> gpuMillisByQueue = queueGpuMillis;
        Map<String, ClusterQueue> cqs = new HashMap<>();
        for (ClusterQueue q : input.queues().clusterQueues()) {
            cqs.put(q.name(), q);
        }
        Map<String, List<String>> byQueue = new TreeMap<>();
        for (String id : jobs.keySet()) {
            byQueue.computeIfAbsent(queueOf.get(id), k -> new ArrayList<>()).add(id);
        }
        double inv = 0;
        double total = 0;
        double contendedTotal = 0;
        for (String q : byQueue.keySet()) {
            inv += 1 / factor(cqs, q);
            total += gpuMillisByQueue.getOrDefault(q, 0.0);
            contendedTotal += contendedGpuMillis.getOrDefault(q, 0.0);
        }
        List<QueueResult> qs = new ArrayList<>();
        for (Map.Entry<String, List<String>> q : byQueue.entrySet()) {
            double jct = 0;
            double wait = 0;
            int done = 0;
            int started = 0;
            for (String id : q.getValue()) {
                long submit = jobs.get(id).submitMillis();
                if (finishedAt.containsKey(id)) {
                    done++;
                    jct += finishedAt.get(id) - submit;
                }
                if (firstStart.containsKey(id)) {
                    started++;
                    wait += firstStart.get(id) - submit;
                }
            }
            double g = gpuMillisByQueue.getOrDefault(q.getKey(), 0.0);
            double f = factor(cqs, q.getKey());
            qs.add(new QueueResult(q.getKey(), f, q.getValue().size(), done, done == 0 ? Double.NaN : jct / done / 1000.0,
                    started == 0 ? Double.NaN : wait / started / 1000.0, g / 3_600_000.0, total > 0 ? g / total : 0,
                    contendedTotal > 0 ? contendedGpuMillis.getOrDefault(q.getKey(), 0.0) / contendedTotal : Double.NaN,
                    contendedTotal / 3_600_000.0, (1 / f) / inv));
        }
        int once = 0;
        int more = 0;
        for (int n : accepted.values()) {
            if (n == 1) {
                once++;
            } else {
                more++;
            }
        }
        long lastFinish = finishedAt.values().stream().mapToLong(Long::longValue).max().orElse(end);
        int unfinished = jobs.size() - finishedAt.size() - cancelled();
        return new Result(policy, cs, qs, jobs.size(), once, more, unfinished, maxConcurrent, restartedAfterLoss, lost,
                (unfinished == 0 ? lastFinish : end) / 1000.0, rounds);
    }

    private int cancelled() {
        int n = 0;
        for (JobStatus j : scheduler.jobs().all()) {
            if (j.state() == JobState.CANCELLED) {
                n++;
            }
        }
        return n;
    }

    private static double factor(Map<String, ClusterQueue> cqs, String q) {
        ClusterQueue c = cqs.get(q);
        return c == null ? 1.0 : c.priorityFactor();
    }
}
