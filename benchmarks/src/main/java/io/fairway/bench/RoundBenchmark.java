package io.fairway.bench;

import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.Snapshot;
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
 *       (80,000 GPUs: the first 80,000 jobs are admitted); best-effort-fifo. The 1,000,000 point is issue #7's
 *       headline target (≤ 500 ms).</li>
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

    /** Nodes vary. */
    @State(Scope.Benchmark)
    public static class ByNodes {
        @Param({"100", "1000", "10000"})
        public int nodes;

        Snapshot snapshot;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(nodes, 100, 100_000, false);
            policy = Policies.create("best-effort-fifo", Map.of());
            admitted = admits(Rounds.run(snapshot, policy));
            if (!(admitted > 0)) {
                throw new IllegalStateException("ByNodes: the round admitted " + admitted + " jobs");
            }
        }

        long admitted;

        /** After the measurement: the same round still admits the same jobs (the snapshot and the policy were not changed by it). */
        @TearDown(Level.Trial)
        public void check() {
            long again = admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException("ByNodes: after the measurement the round admitted " + again + " jobs, before " + admitted);
            }
        }
    }

    /** Pending jobs vary. */
    @State(Scope.Benchmark)
    public static class ByJobs {
        @Param({"1000", "10000", "100000", "1000000"})
        public int jobs;

        Snapshot snapshot;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(10_000, 1_000, jobs, false);
            policy = Policies.create("best-effort-fifo", Map.of());
            admitted = admits(Rounds.run(snapshot, policy));
            if (!(admitted > 0)) {
                throw new IllegalStateException("ByJobs: the round admitted " + admitted + " jobs");
            }
        }

        long admitted;

        /** After the measurement: the same round still admits the same jobs (the snapshot and the policy were not changed by it). */
        @TearDown(Level.Trial)
        public void check() {
            long again = admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException("ByJobs: after the measurement the round admitted " + again + " jobs, before " + admitted);
            }
        }
    }

    /** ClusterQueues vary. */
    @State(Scope.Benchmark)
    public static class ByQueues {
        @Param({"10", "100", "1000"})
        public int queues;

        Snapshot snapshot;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(1_000, queues, 100_000, false);
            policy = Policies.create("best-effort-fifo", Map.of());
            admitted = admits(Rounds.run(snapshot, policy));
            if (!(admitted > 0)) {
                throw new IllegalStateException("ByQueues: the round admitted " + admitted + " jobs");
            }
        }

        long admitted;

        /** After the measurement: the same round still admits the same jobs (the snapshot and the policy were not changed by it). */
        @TearDown(Level.Trial)
        public void check() {
            long again = admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException("ByQueues: after the measurement the round admitted " + again + " jobs, before " + admitted);
            }
        }
    }

    /** The policy varies. */
    @State(Scope.Benchmark)
    public static class ByPolicy {
        @Param({"best-effort-fifo", "strict-fifo", "priority", "fair-sharing"})
        public String policyName;

        Snapshot snapshot;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(1_000, 100, 100_000, false);
            policy = Policies.create(policyName, Map.of());
            admitted = admits(Rounds.run(snapshot, policy));
            if (!(admitted > 0)) {
                throw new IllegalStateException("ByPolicy: the round admitted " + admitted + " jobs");
            }
        }

        long admitted;

        /** After the measurement: the same round still admits the same jobs (the snapshot and the policy were not changed by it). */
        @TearDown(Level.Trial)
        public void check() {
            long again = admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException("ByPolicy: after the measurement the round admitted " + again + " jobs, before " + admitted);
            }
        }
    }

    /** A full cluster: nothing pending fits. */
    @State(Scope.Benchmark)
    public static class NoFit {
        @Param({"1000", "10000", "100000", "1000000"})
        public int jobs;

        Snapshot snapshot;
        SchedulingPolicy policy;

        @Setup(Level.Trial)
        public void setUp() {
            snapshot = Workloads.snapshot(10_000, 1_000, jobs, true);
            policy = Policies.create("best-effort-fifo", Map.of());
            admitted = admits(Rounds.run(snapshot, policy));
            if (!(admitted == 0)) {
                throw new IllegalStateException("NoFit: the round admitted " + admitted + " jobs");
            }
        }

        long admitted;

        /** After the measurement: the same round still admits the same jobs (the snapshot and the policy were not changed by it). */
        @TearDown(Level.Trial)
        public void check() {
            long again = admits(Rounds.run(snapshot, policy));
            if (again != admitted) {
                throw new IllegalStateException("NoFit: after the measurement the round admitted " + again + " jobs, before " + admitted);
            }
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
