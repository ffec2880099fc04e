package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A tiny discrete-event loop around a real {@link Scheduler} for tests: jobs run for their estimate ÷ speed (members
 * placed ÷ requested × throughput factor), preempted jobs lose their progress (or keep it to the last checkpoint),
 * rounds run at every event and every minute. Checks the scheduler's invariants after every round.
 */
final class MiniSim {
    final Scheduler scheduler;
    long now;
    final List<String> log = new ArrayList<>();
    /** Every round's lease renewals, in the order the round made them. */
    final List<String> leases = new ArrayList<>();
    final List<String> violations = new ArrayList<>();
    int preemptions;
    final Map<String, Long> finished = new TreeMap<>();
    final Map<String, JobSpec> specs = new HashMap<>();
    private final TreeMap<Long, List<JobSpec>> arrivals = new TreeMap<>();
    private final Map<String, double[]> run = new HashMap<>(); // {doneWorkSeconds at start, start, speed}
    private final Map<String, Double> kept = new HashMap<>();

    MiniSim(SchedulingPolicy policy, int racks, int nodesPerRack, GpuTopology shape, long seed) {
        Scheduler.Builder b = Scheduler.builder().clock(() -> now).seed(seed).policy(policy)
                .cluster(ClusterSpec.withRacks("default"))
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(100_000).cpu(100_000).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"));
        for (int r = 0; r < racks; r++) {
            for (int n = 0; n < nodesPerRack; n++) {
                b.node(Node.builder("r" + r + "-n" + n).label(ClusterSpec.RACK_LABEL, "r" + r).gpus(shape).build());
            }
        }
        scheduler = b.build();
    }

    void submitAt(long millis, JobSpec spec) {
        arrivals.computeIfAbsent(millis, k -> new ArrayList<>()).add(spec.withSubmitTime(millis));
    }

    static JobSpec job(String id, String app, int gpus, double seconds) {
        int members = gpus <= 4 ? 1 : gpus / 4;
        return JobSpec.builder(id).queue("lq").jobSet(app).members(members, Resources.builder().gpus(gpus / members).build()).estimatedSeconds(seconds)
                .sensitivity(PlacementSensitivity.forModel("vgg16")).build();
    }

    /** Random Themis-like workload: apps of several jobs. */
    static void randomWorkload(MiniSim sim, long seed, int apps, int maxJobs, long spanMillis) {
        randomWorkload(sim, seed, apps, maxJobs, spanMillis, 0);
    }

    /** Random Themis-like workload whose jobs checkpoint every {@code checkpointSeconds} (0: never). */
    static void randomWorkload(MiniSim sim, long seed, int apps, int maxJobs, long spanMillis, double checkpointSeconds) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] sizes = {1, 2, 4, 8};
        for (int a = 0; a < apps; a++) {
            long at = rnd.nextLong(spanMillis + 1);
            int jobs = 1 + rnd.nextInt(maxJobs);
            int g = sizes[rnd.nextInt(sizes.length)];
            double secs = 300 + rnd.nextInt(7200);
            for (int j = 0; j < jobs; j++) {
                JobSpec spec = job("a" + a + "-j" + j, "app" + a, g, secs * (0.5 + rnd.nextDouble()));
                if (checkpointSeconds > 0) {
                    spec = new JobSpec(spec.id(), spec.namespace(), spec.queue(), spec.jobSet(), spec.owner(), spec.priority(),
                            spec.submitTimeMillis(), spec.podSets(), spec.estimatedSeconds(), spec.sensitivity(),
                            new io.fairway.api.job.Checkpointing(checkpointSeconds, 0, 0));
                }
                sim.submitAt(at, spec);
            }
        }
    }

    /**
     * A random Themis-like history on 2 nodes of 2 GPUs (apps of up to 3 jobs arriving over {@code spanHours}), run
     * until every job finished or 400 hours, with the engine's invariants checked after every round.
     */
    static MiniSim randomHistory(SchedulingPolicy policy, long seed, int apps, long spanHours, double checkpointSeconds) {
        MiniSim sim = new MiniSim(policy, 2, 2, GpuTopology.pcie4("V100"), seed);
        randomWorkload(sim, seed, apps, 3, spanHours * 3_600_000, checkpointSeconds);
        sim.run(400L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        return sim;
    }

    /**
     * Two ways of running Themis decide alike on one random contended history: the same decisions, lease renewals and
     * finishes.
     *
     * @param policy makes each way's policy from the history's parameters (the per-job term on or off)
     * @param other makes the other way's
     */
    static void assertDecideAlike(Function<Map<String, String>, SchedulingPolicy> policy, Function<Map<String, String>, SchedulingPolicy> other,
                                  long seed, int apps, int spanHours, boolean checkpoints, boolean perJob) {
        Map<String, String> params = Map.of("perJob", Boolean.toString(perJob));
        double checkpointSeconds = checkpoints ? 120 : 0;
        MiniSim a = randomHistory(policy.apply(params), seed, apps, spanHours, checkpointSeconds);
        MiniSim b = randomHistory(other.apply(params), seed, apps, spanHours, checkpointSeconds);
        assertSameHistory(a, b);
    }

    /** Two runs decided alike: the same decisions, lease renewals and finishes, in the same order and at the same times. */
    static void assertSameHistory(MiniSim actual, MiniSim expected) {
        assertThat(actual.log).containsExactlyElementsOf(expected.log);
        assertThat(actual.leases).containsExactlyElementsOf(expected.leases);
        assertThat(actual.finished).isEqualTo(expected.finished);
    }

    /** Runs until every job finished or {@code limitMillis}. */
    void run(long limitMillis) {
        while (now <= limitMillis) {
            List<JobSpec> arr = arrivals.remove(now);
            if (arr != null) {
                scheduler.submitAll(arr);
                for (JobSpec s : arr) {
                    specs.put(s.id(), s);
                }
            }
            RoundResult r = scheduler.runRound();
            if (!r.leaseRenewals().isEmpty()) {
                leases.add(now + " " + r.round() + " " + r.leaseRenewals());
            }
            for (Decision d : r.decisions()) {
                log.add(now + " " + d);
                if (d instanceof Preempt p) {
                    stop(p.jobId(), p.checkpoint());
                    preemptions++;
                } else if (d instanceof Admit a) {
                    start(a);
                }
            }
            violations.addAll(scheduler.checkInvariants());
            if (arrivals.isEmpty() && run.isEmpty() && scheduler.jobs().pending().isEmpty()) {
                return;
            }
            long next = now + 60_000;
            if (!arrivals.isEmpty()) {
                next = Math.min(next, arrivals.firstKey());
            }
            for (Map.Entry<String, double[]> e : new TreeMap<>(run).entrySet()) {
                double[] st = e.getValue();
                double rem = specs.get(e.getKey()).estimatedSeconds() - st[0];
                next = Math.min(next, (long) Math.ceil(st[1] + rem / st[2] * 1000));
            }
            now = Math.max(next, now + 1);
            for (Map.Entry<String, double[]> e : new TreeMap<>(run).entrySet()) {
                double[] st = e.getValue();
                double done = st[0] + (now - st[1]) / 1000.0 * st[2];
                if (done >= specs.get(e.getKey()).estimatedSeconds() - 1e-6) {
                    run.remove(e.getKey());
                    scheduler.reportFinished(e.getKey());
                    finished.put(e.getKey(), now);
                }
            }
        }
    }

    private void start(Admit a) {
        JobSpec s = specs.get(a.jobId());
        double frac = (double) a.placement().gpuCount() / s.totalGpus();
        run.put(a.jobId(), new double[] {kept.getOrDefault(a.jobId(), 0.0), now, frac * a.placement().throughputFactor()});
        scheduler.reportStarted(a.jobId());
    }

    private void stop(String id, boolean checkpoint) {
        double[] st = run.remove(id);
        if (st == null) {
            return;
        }
        JobSpec s = specs.get(id);
        double done = st[0] + (now - st[1]) / 1000.0 * st[2];
        double keep = 0;
        if (checkpoint && s.checkpointing() != null) {
            double i = s.checkpointing().intervalSeconds();
            keep = Math.floor(done / i) * i;
        }
        kept.put(id, keep);
        scheduler.reportProgress(id, Math.min(1, keep / s.estimatedSeconds()));
    }
}
