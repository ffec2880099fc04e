package io.fairway.sim.multicluster;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several clusters driven through an {@link ExecutorHub}, one pull-based executor per cluster: each executor polls
 * (which is also its heartbeat), starts and stops what it is handed, acknowledges, and reports finishes with the
 * run's epoch. At {@link Config#lossAtMillis} one cluster's executor stops polling: it fences itself (stops its
 * runs) once it has been out of contact for the hub's fencing time, and the hub declares the cluster lost after the
 * grace period, sending its jobs back to pending to restart elsewhere. At {@link Config#joinAtMillis} a new cluster
 * registers and its nodes are added. Queues with different priority factors share the fleet under the configured
 * policy; the run records each queue's GPU share over time and every run of every job.
 */
public final class MultiClusterSimulation {
    private static final Logger LOG = LoggerFactory.getLogger(MultiClusterSimulation.class);

    /**
     * What to simulate.
     *
     * @param clusters clusters present at the start
     * @param nodesPerCluster 8-GPU NVSwitch nodes per cluster
     * @param priorityFactors queue name → priority factor (larger = smaller share)
     * @param jobsPerQueue jobs each queue submits at the start
     * @param policy the policy name
     * @param lostCluster the cluster whose executor stops polling
     * @param lossAtMillis when it stops
     * @param joiningCluster the cluster that joins later
     * @param joinAtMillis when it joins
     * @param stepMillis simulated time between two polls and rounds
     * @param graceMillis the hub's grace period before a silent cluster is declared lost
     * @param seed the seed (job sizes and durations, the scheduler's seed)
     * @param policyParameters the policy's parameters
     * @param arrivalMillis queue → when it submits its jobs (a queue not named submits at the start)
     * @param minMinutes the shortest job, in minutes
     * @param maxMinutes the longest job, in minutes
     */
    public record Config(List<String> clusters, int nodesPerCluster, Map<String, Double> priorityFactors, int jobsPerQueue, String policy,
                         String lostCluster, long lossAtMillis, String joiningCluster, long joinAtMillis, long stepMillis, long graceMillis,
                         long seed, Map<String, String> policyParameters, Map<String, Long> arrivalMillis, int minMinutes, int maxMinutes) {
        /** Validates the added fields, defaulting the maps to empty. */
        public Config {
            policyParameters = Map.copyOf(policyParameters == null ? Map.of() : policyParameters);
            arrivalMillis = Map.copyOf(arrivalMillis == null ? Map.of() : arrivalMillis);
            io.fairway.api.InvalidSpecException.check(minMinutes > 0 && maxMinutes >= minMinutes, "minMinutes", minMinutes,
                    "job durations must be 0 < minMinutes <= maxMinutes, were %d and %d", minMinutes, maxMinutes);
        }

        /**
         * Every queue at the start, jobs of 20 to 60 minutes, the policy without parameters.
         *
         * @param clusters clusters present at the start
         * @param nodesPerCluster nodes per cluster
         * @param priorityFactors queue → priority factor
         * @param jobsPerQueue jobs per queue
         * @param policy the policy
         * @param lostCluster the cluster lost
         * @param lossAtMillis when
         * @param joiningCluster the cluster joining
         * @param joinAtMillis when
         * @param stepMillis time between rounds
         * @param graceMillis the hub's grace period
         * @param seed the seed
         */
        public Config(List<String> clusters, int nodesPerCluster, Map<String, Double> priorityFactors, int jobsPerQueue, String policy,
                      String lostCluster, long lossAtMillis, String joiningCluster, long joinAtMillis, long stepMillis, long graceMillis, long seed) {
            this(clusters, nodesPerCluster, priorityFactors, jobsPerQueue, policy, lostCluster, lossAtMillis, joiningCluster, joinAtMillis,
                    stepMillis, graceMillis, seed, Map.of(), Map.of(), 20, 60);
        }

        /**
         * A queue that arrives late among long jobs: the same five clusters, c2 lost after 2 h and c5 joining after 4 h;
         * queues alpha and beta (priority factors 1 and 2) fill the clusters from the start with jobs of 8 to 16 hours,
         * gamma (factor 1) arrives after 3 h; fair share over time with preemption to fair share. Without preemption
         * gamma would wait for the hours-long jobs to end.
         *
         * @param preempt whether the policy preempts to fair share
         * @return the configuration
         */
        public static Config lateQueue(boolean preempt) {
            Map<String, Double> f = new LinkedHashMap<>();
            f.put("alpha", 1.0);
            f.put("beta", 2.0);
            f.put("gamma", 1.0);
            return new Config(List.of("c0", "c1", "c2", "c3", "c4"), 2, f, 60, "fair-share-over-time", "c2", 2 * 3_600_000L, "c5",
                    4 * 3_600_000L, 60_000, 5 * 60_000, 42, preempt ? Map.of("preemptToFairShare", "true") : Map.of(),
                    Map.of("gamma", 3 * 3_600_000L), 8 * 60, 16 * 60);
        }
        /** @return 5 clusters of 2 nodes, queues with priority factors 1, 2, 4, c2 lost after 2 h, c5 joining after 4 h */
        public static Config example() {
            Map<String, Double> f = new LinkedHashMap<>();
            f.put("alpha", 1.0);
            f.put("beta", 2.0);
            f.put("gamma", 4.0);
            return new Config(List.of("c0", "c1", "c2", "c3", "c4"), 2, f, 350, "fair-share-over-time", "c2", 2 * 3_600_000L, "c5",
                    4 * 3_600_000L, 60_000, 5 * 60_000, 42);
        }
    }

    /**
     * What happened.
     *
     * @param sampleHours the time of each sample (hours)
     * @param shares queue → its share of the GPUs in use at each sample
     * @param targets queue → the share its priority factor entitles it to (1/factor, normalised)
     * @param runs job → how many runs it started
     * @param completions job → how many finishes were accepted
     * @param maxConcurrentRuns the largest number of executors running one job at the same moment
     * @param finalStates job → its state at the end
     * @param lostClusters clusters the hub declared lost
     * @param jobsRestartedAfterLoss jobs that started again after their cluster was lost
     * @param endHours when the last job finished
     * @param gangRuns runs of multi-member gangs started
     * @param admissionsOutsideTheirCluster admissions handed to a cluster's executor naming a node of another cluster
     */
    public record Result(List<Double> sampleHours, Map<String, List<Double>> shares, Map<String, Double> targets, Map<String, Integer> runs,
                         Map<String, Integer> completions, int maxConcurrentRuns, Map<String, JobState> finalStates, List<String> lostClusters,
                         int jobsRestartedAfterLoss, double endHours, int gangRuns, int admissionsOutsideTheirCluster) {
    }

    private static final class Executor {
        final String cluster;
        final Map<String, long[]> running = new TreeMap<>(); // job -> {epoch, endsAt}
        long lastContact;

        Executor(String cluster, long now) {
            this.cluster = cluster;
            this.lastContact = now;
        }
    }

    private MultiClusterSimulation() {
    }

    private static List<Node> nodesOf(String cluster, int n) {
        List<Node> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(Node.builder(cluster + "-n" + i).cluster(cluster).label(ClusterSpec.RACK_LABEL, cluster + "-r0")
                    .capacity(Resources.builder().cpu(128).memoryGiB(1024).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return l;
    }

    /** What the executors saw, counted over the run. */
    private static final class Tally {
        final Map<String, Integer> runs = new TreeMap<>();
        final Map<String, Integer> completions = new TreeMap<>();
        /** Jobs running in the lost cluster when it fenced itself, until they start again elsewhere. */
        final java.util.Set<String> inLostCluster = new java.util.TreeSet<>();
        int restartedAfterLoss;
        int maxConcurrent;
        int gangRuns;
        int outside;
    }

    /** @param c the configuration @return what happened */
    public static Result run(Config c) {
        AtomicLong now = new AtomicLong();
        ExecutorHub hub = new ExecutorHub(now::get, 10 * c.stepMillis(), 64, c.graceMillis());
        Map<String, Double> targets = new LinkedHashMap<>();
        Scheduler s = scheduler(c, now, hub, targets);
        hub.attach(s);
        Map<String, Executor> executors = new TreeMap<>();
        for (String cl : c.clusters()) {
            hub.register(cl);
            executors.put(cl, new Executor(cl, 0));
        }
        Map<String, Long> duration = new TreeMap<>();
        Map<String, String> queueOf = new TreeMap<>();
        List<JobSpec> jobs = new ArrayList<>();
        Map<String, List<JobSpec>> late = new TreeMap<>();
        generateJobs(c, jobs, late, duration, queueOf);
        s.submitAll(jobs);

        Tally tally = new Tally();
        List<Double> hours = new ArrayList<>();
        Map<String, List<Double>> shares = new LinkedHashMap<>();
        c.priorityFactors().keySet().forEach(q -> shares.put(q, new ArrayList<>()));
        List<String> lost = new ArrayList<>();
        boolean joined = false;
        long limit = 48 * 3_600_000L;
        while (now.get() < limit && (!late.isEmpty() || s.jobs().all().stream().anyMatch(j -> !j.state().isTerminal()))) {
            now.addAndGet(c.stepMillis());
            for (java.util.Iterator<Map.Entry<String, List<JobSpec>>> it = late.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, List<JobSpec>> q = it.next();
                if (now.get() >= c.arrivalMillis().get(q.getKey())) {
                    s.submitAll(q.getValue());
                    it.remove();
                    LOG.info("queue {} submitted {} jobs at {} h", q.getKey(), q.getValue().size(), now.get() / 3_600_000.0);
                }
            }
            if (!joined && now.get() >= c.joinAtMillis()) {
                joined = true;
                s.clusters().addCluster(new ClusterSpec(c.joiningCluster(), List.of(ClusterSpec.RACK_LABEL)));
                hub.register(c.joiningCluster());
                nodesOf(c.joiningCluster(), c.nodesPerCluster()).forEach(s.clusters()::addNode);
                executors.put(c.joiningCluster(), new Executor(c.joiningCluster(), now.get()));
                LOG.info("cluster {} joined at {} h", c.joiningCluster(), now.get() / 3_600_000.0);
            }
            s.runRound();
            for (Executor e : executors.values()) {
                if (e.cluster.equals(c.lostCluster()) && now.get() >= c.lossAtMillis()) {
                    if (!e.running.isEmpty() && now.get() - e.lastContact > hub.fenceAfterMillis()) {
                        tally.inLostCluster.addAll(e.running.keySet());
                        e.running.clear(); // fencing: out of contact, so stop everything
                    }
                    continue;
                }
                serve(e, hub, s, now.get(), duration, tally);
            }
            lost.addAll(hub.checkLiveness());
            sample(s, now.get(), executors, queueOf, tally, hours, shares);
        }
        Map<String, JobState> finalStates = new TreeMap<>();
        for (JobStatus j : s.jobs().all()) {
            finalStates.put(j.id(), j.state());
        }
        LOG.info("multi-cluster run: {} jobs, lost {}, {} restarted after the loss, ended at {} h", finalStates.size(), lost, tally.restartedAfterLoss,
                now.get() / 3_600_000.0);
        return new Result(hours, shares, targets, tally.runs, tally.completions, tally.maxConcurrent, finalStates, lost, tally.restartedAfterLoss,
                now.get() / 3_600_000.0, tally.gangRuns, tally.outside);
    }

    /** The scheduler over the starting clusters, a ClusterQueue per queue; each queue's target share into {@code targets}. */
    private static Scheduler scheduler(Config c, AtomicLong now, ExecutorHub hub, Map<String, Double> targets) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).actuator(hub).seed(c.seed()).policy(c.policy(), c.policyParameters())
                .flavor(ResourceFlavor.of("default"));
        for (String cl : c.clusters()) {
            b.cluster(new ClusterSpec(cl, List.of(ClusterSpec.RACK_LABEL)));
            b.nodes(nodesOf(cl, c.nodesPerCluster()));
        }
        double inv = 0;
        for (double f : c.priorityFactors().values()) {
            inv += 1 / f;
        }
        for (Map.Entry<String, Double> q : c.priorityFactors().entrySet()) {
            b.clusterQueue(ClusterQueue.builder(q.getKey()).priorityFactor(q.getValue())
                    .quota("default", Resources.builder().gpus(10_000).cpu(100_000).memoryGiB(1_000_000).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, q.getKey(), q.getKey()));
            targets.put(q.getKey(), (1 / q.getValue()) / inv);
        }
        return b.build();
    }

    /**
     * The jobs, drawn from the seed: into {@code jobs} those of queues that submit at the start, into {@code late} (by
     * queue) the others; each job's duration and queue.
     */
    private static void generateJobs(Config c, List<JobSpec> jobs, Map<String, List<JobSpec>> late, Map<String, Long> duration,
                                     Map<String, String> queueOf) {
        Random rnd = new Random(c.seed());
        for (int i = 0; i < c.jobsPerQueue(); i++) {
            for (String q : c.priorityFactors().keySet()) {
                String id = q + "-" + i;
                int gpus = 1 + rnd.nextInt(2);
                // every tenth job is a gang of two 4-GPU members, which must land whole in one cluster
                int members = i % 10 == 9 ? 2 : 1;
                JobSpec job = JobSpec.builder(id).queue(q).members(members, Resources.builder().gpus(members == 2 ? 4 : gpus).cpu(4).memoryGiB(32).build())
                        .build();
                (c.arrivalMillis().getOrDefault(q, 0L) > 0 ? late.computeIfAbsent(q, k -> new ArrayList<>()) : jobs).add(job);
                duration.put(id, (c.minMinutes() + rnd.nextInt(c.maxMinutes() - c.minMinutes() + 1)) * 60_000L);
                queueOf.put(id, q);
            }
        }
    }

    /** One poll of a cluster's executor: starts and stops what it is handed, acknowledges, and reports the runs that ended. */
    private static void serve(Executor e, ExecutorHub hub, Scheduler s, long now, Map<String, Long> duration, Tally tally) {
        e.lastContact = now;
        ExecutorHub.Poll p = hub.poll(e.cluster, 64);
        for (ExecutorHub.WorkItem w : p.items()) {
            if (w.decision() instanceof Admit a) {
                for (String node : a.placement().nodes()) {
                    if (!node.startsWith(e.cluster + "-")) {
                        tally.outside++;
                    }
                }
                if (a.placement().members().size() > 1) {
                    tally.gangRuns++;
                }
            }
            if (w.decision() instanceof Admit && !e.running.containsKey(w.jobId()) && s.reportStarted(w.jobId(), w.epoch())) {
                e.running.put(w.jobId(), new long[] {w.epoch(), now + duration.get(w.jobId())});
                tally.runs.merge(w.jobId(), 1, Integer::sum);
                if (tally.inLostCluster.contains(w.jobId())) {
                    tally.restartedAfterLoss++;
                    tally.inLostCluster.remove(w.jobId());
                }
            } else if (w.decision() instanceof Preempt) {
                long[] r = e.running.get(w.jobId());
                if (r != null && r[0] <= w.epoch()) {
                    e.running.remove(w.jobId());
                }
            }
            hub.ack(e.cluster, w.id());
        }
        for (Map.Entry<String, long[]> r : new ArrayList<>(e.running.entrySet())) {
            if (now >= r.getValue()[1]) {
                if (s.reportFinished(r.getKey(), r.getValue()[0])) {
                    tally.completions.merge(r.getKey(), 1, Integer::sum);
                }
                e.running.remove(r.getKey());
            }
        }
    }

    /** Who runs what right now: the most executors running one job, and every ten minutes each queue's share of the GPUs in use. */
    private static void sample(Scheduler s, long now, Map<String, Executor> executors, Map<String, String> queueOf, Tally tally,
                               List<Double> hours, Map<String, List<Double>> shares) {
        Map<String, Integer> where = new TreeMap<>();
        Map<String, Long> gpusByQueue = new TreeMap<>();
        long total = 0;
        for (Executor e : executors.values()) {
            for (String j : e.running.keySet()) {
                where.merge(j, 1, Integer::sum);
                long g = s.status(j).orElseThrow().spec().totalGpus();
                gpusByQueue.merge(queueOf.get(j), g, Long::sum);
                total += g;
            }
        }
        for (int n : where.values()) {
            tally.maxConcurrent = Math.max(tally.maxConcurrent, n);
        }
        if (now % (10 * 60_000L) == 0 && total > 0) {
            hours.add(now / 3_600_000.0);
            for (String q : shares.keySet()) {
                shares.get(q).add(gpusByQueue.getOrDefault(q, 0L) / (double) total);
            }
        }
    }
}
