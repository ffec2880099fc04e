package io.fairway.bench;

import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Armada's scale and shape (the Armada-scale targets of docs/performance.md). {@code jobs} queued one-GPU jobs
 * (default 1,000,000) in 100 queues (one
 * ClusterQueue each, fair share over time) over 5 clusters × 1,000 nodes × 8 GPUs (40,000 GPUs).
 *
 * <ul>
 *   <li>{@code firstRound}: {@code Rounds.run} on the engine's snapshot right after submission: 40,000 jobs
 *       admitted across the five clusters, every other job given its first pending reason.</li>
 *   <li>{@code steadyRound}: the same one round later, as the engine holds it (the clusters full, every queued
 *       job carrying its reason): the round a million-job queue costs while nothing changes.</li>
 *   <li>{@code submitJobSet}: {@code Scheduler.submitAll} of one job set of {@code jobSetSize} jobs (default
 *       100,000) into a scheduler of the same shape: validation, indexing, events.</li>
 * </ul>
 *
 * <p>The retained heap per queued job is measured by {@link EngineScale} ({@code --clusters 5}). Run:
 * {@code java -jar benchmarks/target/benchmarks.jar ArmadaScaleBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// AlwaysPreTouch: on this VM, the first touch of heap pages G1 moves into later makes long runs slower (see docs/performance.md)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+AlwaysPreTouch"})
public class ArmadaScaleBenchmark {
    static final int CLUSTERS = 5;
    static final int NODES_PER_CLUSTER = 1_000;
    static final int QUEUES = 100;

    /** The engine with {@code jobs} queued. */
    @State(Scope.Benchmark)
    public static class Queued {
        @Param({"1000000"})
        public int jobs;

        Snapshot first;
        Snapshot steady;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            policy = Policies.create("fair-share-over-time", Map.of());
            Workloads.ManualClock clock = new Workloads.ManualClock();
            Scheduler s = scheduler(clock);
            List<JobSpec> batch = new ArrayList<>(jobs);
            for (int i = 0; i < jobs; i++) {
                batch.add(job("j" + i, i));
            }
            s.submitAll(batch);
            first = s.snapshot();
            clock.now += 1_000;
            s.runRound();
            clock.now += 1_000;
            steady = s.snapshot();
            firstAdmitted = RoundBenchmark.admits(Rounds.run(first, policy));
            if (firstAdmitted != (long) CLUSTERS * NODES_PER_CLUSTER * 8) {
                throw new IllegalStateException("the first round admitted " + firstAdmitted + " jobs, expected one per GPU");
            }
            steadyAdmitted = RoundBenchmark.admits(Rounds.run(steady, policy));
        }

        long firstAdmitted;
        long steadyAdmitted;

        /** After the measurement: the rounds still admit what they admitted in setup. */
        @TearDown(Level.Trial)
        public void check() {
            long first2 = RoundBenchmark.admits(Rounds.run(first, policy));
            long steady2 = RoundBenchmark.admits(Rounds.run(steady, policy));
            if (first2 != firstAdmitted || steady2 != steadyAdmitted) {
                throw new IllegalStateException(String.format("after the measurement the rounds admitted %d and %d jobs, before %d and %d",
                        first2, steady2, firstAdmitted, steadyAdmitted));
            }
        }
    }

    /** A fresh scheduler per invocation and the job set to submit. */
    @State(Scope.Thread)
    public static class JobSet {
        @Param({"100000"})
        public int jobSetSize;

        List<JobSpec> specs;
        Scheduler scheduler;

        @Setup(Level.Trial)
        public void specs() {
            specs = new ArrayList<>(jobSetSize);
            for (int i = 0; i < jobSetSize; i++) {
                specs.add(JobSpec.builder("sweep-" + i).queue("lq-" + i % QUEUES).jobSet("sweep")
                        .members(1, Resources.builder().cpu(1).memoryGiB(8).gpus(1).build()).build());
            }
        }

        @Setup(Level.Invocation)
        public void fresh() {
            scheduler = scheduler(new Workloads.ManualClock());
        }

        /** After each submission: the whole job set is queued. */
        @TearDown(Level.Invocation)
        public void check() {
            if (scheduler.jobs().all().size() != jobSetSize) {
                throw new IllegalStateException("the job set was not queued whole: " + scheduler.jobs().all().size() + " of " + jobSetSize);
            }
        }
    }

    static JobSpec job(String id, int i) {
        return JobSpec.builder(id).queue("lq-" + i % QUEUES).jobSet("set-" + i / 10_000)
                .members(1, Resources.builder().cpu(1).memoryGiB(8).gpus(1).build()).build();
    }

    /** 5 clusters × 1,000 nodes × 8 GPUs; 100 ClusterQueues in one cohort, each an equal share. */
    static Scheduler scheduler(Workloads.ManualClock clock) {
        Scheduler.Builder b = Scheduler.builder().policy("fair-share-over-time").clock(clock).flavor(ResourceFlavor.of(Workloads.FLAVOR));
        long gpus = (long) CLUSTERS * NODES_PER_CLUSTER * 8;
        b.cohort(Cohort.of("all", null));
        for (int c = 0; c < CLUSTERS; c++) {
            String cluster = "cluster-" + c;
            b.cluster(new ClusterSpec(cluster, List.of(ClusterSpec.RACK_LABEL)));
            for (int n = 0; n < NODES_PER_CLUSTER; n++) {
                b.node(Node.builder(cluster + "-node-" + n).cluster(cluster)
                        .capacity(Resources.builder().cpu(128).memoryGiB(1024).build())
                        .gpus(GpuTopology.named("nvswitch-8", "H100"))
                        .label(ClusterSpec.RACK_LABEL, "r" + n / 16)
                        .build());
            }
        }
        long share = gpus / QUEUES;
        for (int q = 0; q < QUEUES; q++) {
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("all")
                    .quota(Workloads.FLAVOR, Resources.builder().cpu(share * 16).memoryGiB(share * 128).gpus(share).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        return b.build();
    }

    /**
     * @param s the engine's snapshot after submission
     * @return the round
     */
    @Benchmark
    public RoundResult firstRound(Queued s) {
        return Rounds.run(s.first, s.policy);
    }

    /**
     * @param s the engine's snapshot one round later
     * @return the round
     */
    @Benchmark
    public RoundResult steadyRound(Queued s) {
        return Rounds.run(s.steady, s.policy);
    }

    /**
     * @param j a fresh scheduler and the job set
     * @return the scheduler
     */
    @Benchmark
    @Measurement(iterations = 5, batchSize = 1)
    @Warmup(iterations = 3, batchSize = 1)
    @BenchmarkMode(Mode.SingleShotTime)
    public Scheduler submitJobSet(JobSet j) {
        j.scheduler.submitAll(j.specs);
        return j.scheduler;
    }
}
