package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The shape of Armada's {@code BenchmarkPreemptingQueueScheduler} ("1000 nodes, 10 queues, 320000 jobs", read from
 * its repository): 1,000 nodes of 32 CPUs; 10 queues of equal weight, each with 32,000 queued jobs of 1 CPU and
 * 4 GiB; a first scheduling cycle fills the cluster (32,000 jobs run), then the measured cycle runs in that steady
 * state, where nothing is scheduled or preempted. Here the queues are 10 ClusterQueues in one cohort, each with a
 * nominal tenth of the cluster and preemption enabled ({@code withinClusterQueue: LowerPriority},
 * {@code reclaimWithinCohort: Any}), under {@code fair-sharing}; the cycle is the whole engine,
 * {@code scheduler.runRound()} with a listener registered.
 *
 * <p>Not the same work on both sides: Armada's cycle evicts every queue's jobs above its fair share and schedules
 * them again to decide preemptions; Fairway's round considers each queue's waiting jobs (identical jobs: one group
 * per queue) and searches for preemption candidates only where some could exist (here none: every queue is at its
 * nominal quota and all jobs have one priority). Setup checks the first round filled the cluster; tear-down checks,
 * after the measurement, that the steady rounds admitted and preempted nothing and the invariants hold.
 *
 * <p>{@link #preemptingCycle} is the same shape with real preemption work: see {@link Preempting}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ArmadaShapeBenchmark -f 1 -prof gc} (both), or
 * {@code ArmadaShapeBenchmark.preemptingCycle -f 1 -wi 3 -i 5} for the preempting cycle alone.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class ArmadaShapeBenchmark {
    static final int NODES = 1_000;
    static final int CPUS_PER_NODE = 32;
    static final int QUEUES = 10;
    static final String FLAVOR = "default";

    /** A scheduler in Armada's steady state: the cluster full, 288,000 jobs waiting. */
    @State(Scope.Benchmark)
    public static class Steady {
        /** Jobs per queue (Armada's benchmark: 32,000). */
        @Param({"32000"})
        public int jobsPerQueue;

        Scheduler scheduler;
        final Workloads.ManualClock clock = new Workloads.ManualClock();
        long heard;
        long changes;

        @Setup(Level.Trial)
        public void setUp() {
            scheduler = scheduler(clock);
            scheduler.addListener(e -> heard++);
            List<JobSpec> batch = new ArrayList<>(jobsPerQueue * QUEUES);
            for (int q = 0; q < QUEUES; q++) {
                for (int i = 0; i < jobsPerQueue; i++) {
                    batch.add(JobSpec.builder("q" + q + "-job-" + i).queue("lq-" + q)
                            .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).memoryGiB(4).build())).build());
                }
            }
            scheduler.submitAll(batch);
            RoundResult first = scheduler.runRound();
            long admitted = first.decisions().stream().filter(d -> d instanceof Admit).count();
            if (admitted != (long) NODES * CPUS_PER_NODE) {
                throw new IllegalStateException("the first round admitted " + admitted + " jobs, expected " + NODES * CPUS_PER_NODE);
            }
            clock.now += 1_000;
        }

        @TearDown(Level.Trial)
        public void check() {
            List<String> broken = scheduler.checkInvariants();
            if (!broken.isEmpty()) {
                throw new IllegalStateException("invariants broken after the measurement: " + broken.subList(0, Math.min(5, broken.size())));
            }
            if (changes != 0) {
                throw new IllegalStateException("steady rounds admitted or preempted " + changes + " jobs: not Armada's steady state");
            }
            long holding = scheduler.jobs().all().stream().filter(j -> j.state() == JobState.ADMITTED || j.state() == JobState.RUNNING).count();
            if (holding != (long) NODES * CPUS_PER_NODE) {
                throw new IllegalStateException("after the measurement " + holding + " jobs hold resources, expected " + NODES * CPUS_PER_NODE);
            }
        }
    }

    /** One steady cycle: {@code runRound()} on a full cluster with 288,000 jobs waiting. */
    @Benchmark
    public RoundResult steadyCycle(Steady s) {
        RoundResult r = s.scheduler.runRound();
        for (var d : r.decisions()) {
            if (d instanceof Admit || d instanceof Preempt) {
                s.changes++;
            }
        }
        return r;
    }

    /**
     * Armada's shape with real preemption work: nine queues have filled the cluster (each above its nominal tenth),
     * then the tenth queue's 32,000 jobs arrive; the measured round reclaims the tenth queue's share, evicting
     * 3,200 jobs of the nine and admitting 3,200 of the newcomer's (checked after every round). Before each
     * measured round (outside it) the newcomer's jobs are cancelled and forgotten, one round lets the nine refill the
     * freed CPUs, and 32,000 new jobs of the newcomer arrive: every measured round starts from the same state,
     * with 320,000 jobs in the scheduler.
     */
    @State(Scope.Benchmark)
    public static class Preempting {
        Scheduler scheduler;
        final Workloads.ManualClock clock = new Workloads.ManualClock();
        final java.util.List<String> newcomer = new ArrayList<>(32_000);
        int generation;
        long heard;
        long preempted;
        long admitted;
        long rounds;
        long allocatedBytes;
        /** The thread's CPU time of each measured {@code runRound()}, in ms (on a shared machine, the figure to compare). */
        final List<Double> cpuMillis = new ArrayList<>();
        final long[] lastRound = new long[2];

        @Setup(Level.Trial)
        public void setUp() {
            scheduler = scheduler(clock);
            scheduler.addListener(e -> heard++);
            List<JobSpec> batch = new ArrayList<>(32_000 * (QUEUES - 1));
            for (int q = 0; q < QUEUES - 1; q++) {
                for (int i = 0; i < 32_000; i++) {
                    batch.add(job("q" + q + "-job-" + i, q));
                }
            }
            scheduler.submitAll(batch);
            scheduler.runRound();
        }

        /** The newcomer's previous jobs leave, the nine refill the cluster, 32,000 new newcomer jobs arrive. */
        @Setup(Level.Invocation)
        public void newcomerArrives() {
            for (String id : newcomer) {
                scheduler.cancel(id);
                scheduler.jobs().forget(id);
            }
            newcomer.clear();
            clock.now += 1_000;
            scheduler.runRound();
            clock.now += 1_000;
            generation++;
            List<JobSpec> batch = new ArrayList<>(32_000);
            for (int i = 0; i < 32_000; i++) {
                String id = "q" + (QUEUES - 1) + "-g" + generation + "-job-" + i;
                newcomer.add(id);
                batch.add(job(id, QUEUES - 1));
            }
            scheduler.submitAll(batch);
        }

        JobSpec job(String id, int q) {
            return JobSpec.builder(id).queue("lq-" + q).submitTimeMillis(clock.now)
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).memoryGiB(4).build())).build();
        }

        @TearDown(Level.Trial)
        public void check() {
            List<String> broken = scheduler.checkInvariants();
            if (!broken.isEmpty()) {
                throw new IllegalStateException("invariants broken after the measurement: " + broken.subList(0, Math.min(5, broken.size())));
            }
            long share = (long) NODES * CPUS_PER_NODE / QUEUES;
            if (rounds == 0 || preempted != share * rounds || admitted != share * rounds) {
                throw new IllegalStateException("expected " + share + " preemptions and admissions per round, got " + preempted
                        + " and " + admitted + " over " + rounds + " rounds");
            }
            System.out.printf("%n%d preempting rounds: %d preempted and %d admitted per round; %.1f MiB allocated per round"
                    + " by runRound() on its thread (setup excluded)%n", rounds, preempted / rounds, admitted / rounds,
                    allocatedBytes / (double) rounds / (1 << 20));
            List<Double> cpu = new ArrayList<>(cpuMillis);
            java.util.Collections.sort(cpu);
            System.out.printf("thread CPU of runRound() per round (warm-up included): median %.1f ms (%.1f-%.1f), in order %s%n",
                    cpu.get(cpu.size() / 2), cpu.get(0), cpu.get(cpu.size() - 1), cpuMillis);
        }
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * One preempting cycle in Armada's shape: the newcomer queue reclaims its share from nine queues above theirs.
     * Single-shot (each round needs its own setup); allocation of the round alone is printed after the run, as
     * JMH's {@code -prof gc} counts the per-invocation setup too.
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 3, batchSize = 1)
    @Measurement(iterations = 5, batchSize = 1)
    public RoundResult preemptingCycle(Preempting p) {
        long a0 = THREADS.getCurrentThreadAllocatedBytes();
        long c0 = THREADS.getCurrentThreadCpuTime();
        RoundResult r = p.scheduler.runRound();
        p.cpuMillis.add((THREADS.getCurrentThreadCpuTime() - c0) / 1e6);
        p.allocatedBytes += THREADS.getCurrentThreadAllocatedBytes() - a0;
        p.rounds++;
        for (var d : r.decisions()) {
            if (d instanceof Admit) {
                p.admitted++;
            } else if (d instanceof Preempt) {
                p.preempted++;
            }
        }
        return r;
    }

    static Scheduler scheduler(Workloads.ManualClock clock) {
        List<Node> nodes = new ArrayList<>(NODES);
        for (int i = 0; i < NODES; i++) {
            nodes.add(Node.builder("node-" + i).capacity(Resources.builder().cpu(CPUS_PER_NODE).memoryGiB(256).build())
                    .label(ClusterSpec.RACK_LABEL, "r" + i / 16).build());
        }
        Scheduler.Builder b = Scheduler.builder().policy("fair-sharing").clock(clock).seed(1)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of(FLAVOR)).nodes(nodes).cohort(Cohort.of("all", null));
        PreemptionPolicy preemption = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        long cpus = (long) NODES * CPUS_PER_NODE / QUEUES;
        for (int q = 0; q < QUEUES; q++) {
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("all").preemption(preemption)
                    .quota(FLAVOR, Resources.builder().cpu(cpus).memoryGiB(cpus * 8).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        return b.build();
    }
}
