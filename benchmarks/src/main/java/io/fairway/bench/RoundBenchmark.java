package io.fairway.bench;

import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.snapshot.Snapshot;
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
 * One whole round ({@code Rounds.run}: admission, the policy's plan, validation, pending reasons) as a function
 * of one dimension at a time; one-GPU jobs, nodes of 8 GPUs, ClusterQueues in cohorts of 100 ({@link Workloads}).
 *
 * <ul>
 *   <li>{@code byNodes}: 100 → 10,000 nodes; 100,000 pending jobs in 100 ClusterQueues; best-effort-fifo.</li>
 *   <li>{@code byJobs}: 1,000 → 1,000,000 pending jobs in 1,000 ClusterQueues (10 cohorts) on 10,000 nodes
 *       (80,000 GPUs: the first 80,000 jobs are admitted); best-effort-fifo. The 1,000,000 point is the scale
 *       targets' headline (≤ 500 ms; docs/performance.md).</li>
 *   <li>{@code byQueues}: 10 → 1,000 ClusterQueues; 100,000 pending jobs on 1,000 nodes; best-effort-fifo.</li>
 *   <li>{@code byPolicy}: the FIFO family and fair sharing; 100,000 pending jobs in 100 ClusterQueues on 1,000
 *       nodes.</li>
 *   <li>{@code noFit}: every GPU already taken by running jobs, 1,000 → 1,000,000 pending jobs in 1,000
 *       ClusterQueues on 10,000 nodes: the round that admits nothing.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar RoundBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// AlwaysPreTouch: on this VM, the first touch of heap pages G1 moves into later makes long runs slower (see docs/performance.md)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch"})
public class RoundBenchmark {

    /**
     * A snapshot and a policy; what the round admits is recorded in setup and checked again after the measurement
     * (the snapshot and the policy must not have been changed by it).
     */
    abstract static class Round {
        Snapshot snapshot;
        SchedulingPolicy policy;
        long admitted;

        /** @param snap the snapshot @param policyName the policy @param full true when nothing may fit */
        void prepare(Snapshot snap, String policyName, boolean full) {
            snapshot = snap;
            policy = Policies.create(policyName, Map.of());
            admitted = admits(Rounds.run(snapshot, policy));
            if (full ? admitted != 0 : admitted == 0) {
                throw new IllegalStateException(getClass().getSimpleName() + ": the round admitted " + admitted + " jobs");
            }
        }

        @TearDown(Level.Trial)
        public void check() {
            long again = admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException(getClass().getSimpleName() + ": after the measurement the round admitted " + again
                        + " jobs, before " + admitted);
            }
        }
    }

    /** Nodes vary. */
    @State(Scope.Benchmark)
    public static class ByNodes extends Round {
        @Param({"100", "1000", "10000"})
        public int nodes;

        @Setup(Level.Trial)
        public void setUp() {
            prepare(Workloads.snapshot(nodes, 100, 100_000, false), "best-effort-fifo", false);
        }
    }

    /** Pending jobs vary. */
    @State(Scope.Benchmark)
    public static class ByJobs extends Round {
        @Param({"1000", "10000", "100000", "1000000"})
        public int jobs;

        @Setup(Level.Trial)
        public void setUp() {
            prepare(Workloads.snapshot(10_000, 1_000, jobs, false), "best-effort-fifo", false);
        }
    }

    /** ClusterQueues vary. */
    @State(Scope.Benchmark)
    public static class ByQueues extends Round {
        @Param({"10", "100", "1000"})
        public int queues;

        @Setup(Level.Trial)
        public void setUp() {
            prepare(Workloads.snapshot(1_000, queues, 100_000, false), "best-effort-fifo", false);
        }
    }

    /** The policy varies. */
    @State(Scope.Benchmark)
    public static class ByPolicy extends Round {
        @Param({"best-effort-fifo", "strict-fifo", "priority", "fair-sharing"})
        public String policyName;

        @Setup(Level.Trial)
        public void setUp() {
            prepare(Workloads.snapshot(1_000, 100, 100_000, false), policyName, false);
        }
    }

    /** A full cluster: nothing pending fits. */
    @State(Scope.Benchmark)
    public static class NoFit extends Round {
        @Param({"1000", "10000", "100000", "1000000"})
        public int jobs;

        @Setup(Level.Trial)
        public void setUp() {
            prepare(Workloads.snapshot(10_000, 1_000, jobs, true), "best-effort-fifo", true);
        }
    }

    @Benchmark
    public RoundResult byNodes(ByNodes s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public RoundResult byJobs(ByJobs s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public RoundResult byQueues(ByQueues s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public RoundResult byPolicy(ByPolicy s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public RoundResult noFit(NoFit s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    static long admits(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof io.fairway.api.decision.Admit).count();
    }
}
