package io.fairway.bench;

import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.Stages;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.fairway.api.job.JobStatus;
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
 * Quota admission at Kueue's large-scale shape (the Kueue-scale target of docs/performance.md): 1,000 ClusterQueues
 * in 10 cohorts, one-GPU jobs, on
 * 1,000 nodes of 8 GPUs (each queue's nominal quota 8 GPUs, borrowing within its cohort).
 *
 * <ul>
 *   <li>{@code round}: one whole round with 50,000 pending jobs (8,000 admitted). Target ≤ 100 ms.</li>
 *   <li>{@code roundNoFit}: the cluster already full, {@code jobs} pending: nothing fits; the round must not grow
 *       with the jobs that cannot fit.</li>
 *   <li>{@code admission}: admission alone — {@code PolicyContext.tryAdmit} (quota then placement) for every
 *       pending job in order on a fresh plan, without the policy, validation or reasons.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar KueueScaleBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// AlwaysPreTouch: on this VM, the first touch of heap pages G1 moves into later makes long runs slower (see docs/performance.md)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class KueueScaleBenchmark {

    /** 50,000 pending jobs, an empty cluster. */
    @State(Scope.Benchmark)
    public static class Kueue {
        @Param({"best-effort-fifo", "fair-sharing"})
        public String policyName;

        Snapshot snapshot;
        SchedulingPolicy policy;
        List<JobStatus> jobs;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(1_000, 1_000, 50_000, false);
            policy = Policies.create(policyName, Map.of());
            jobs = snapshot.pending();
            admitted = RoundBenchmark.admits(Rounds.run(snapshot, policy));
            if (admitted == 0) {
                throw new IllegalStateException("Kueue: the round admitted nothing");
            }
        }

        long admitted;

        /** After the measurement: the same round still admits the same jobs. */
        @TearDown(Level.Trial)
        public void check() {
            long again = RoundBenchmark.admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException("Kueue: after the measurement the round admitted " + again + " jobs, before " + admitted);
            }
        }
    }

    /** The cluster full, {@code jobs} pending. */
    @State(Scope.Benchmark)
    public static class Full {
        @Param({"50000", "200000"})
        public int jobs;

        Snapshot snapshot;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(1_000, 1_000, jobs, true);
            policy = Policies.create("best-effort-fifo", Map.of());
            check();
        }

        /** In setup and after the measurement: nothing fits the full cluster. */
        @TearDown(Level.Trial)
        public void check() {
            long admitted = RoundBenchmark.admits(Rounds.run(snapshot, policy));
            if (admitted != 0) {
                throw new IllegalStateException("Full: the round admitted " + admitted + " jobs on a full cluster");
            }
        }
    }

    /** A fresh plan per invocation. */
    @State(Scope.Thread)
    public static class FreshPlan {
        PolicyContext ctx;

        @Setup(Level.Invocation)
        public void setUp(Kueue s) {
            ctx = Stages.planContext(s.snapshot);
        }
    }

    @Benchmark
    public RoundResult round(Kueue s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public RoundResult roundNoFit(Full s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public int admission(Kueue s, FreshPlan plan) {
        return Admissions.tryAdmitAll(plan.ctx, s.jobs);
    }
}
