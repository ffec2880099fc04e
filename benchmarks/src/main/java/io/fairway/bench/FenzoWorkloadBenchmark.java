package io.fairway.bench;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
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
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One whole scheduling round ({@link Rounds#run}) under {@code best-effort-fifo}: the workload of Fenzo's
 * published benchmark, 1,000 nodes of 8 NVSwitch GPUs and 10,000 pending one-GPU jobs (8,000 are admitted and
 * placed, 2,000 get a pending reason), and the same shape at other sizes.
 *
 * <p>The cluster and the jobs are built once per trial, as a scheduler keeps them from round to round; the
 * {@link Snapshot} is built anew before every invocation, as {@code Scheduler.runRound} does. The measured call is
 * {@code Rounds.run(snapshot, policy)} alone: admission, the policy, placement, validation and pending reasons.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar FenzoWorkloadBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FenzoWorkloadBenchmark {
    static final String RACK = ClusterSpec.RACK_LABEL;

    /** A cluster and its pending jobs, with a fresh snapshot per invocation. */
    public abstract static class Workload {
        List<Node> nodes;
        List<JobStatus> pending;
        SchedulingPolicy policy;
        Snapshot snapshot;

        void build(int nodeCount, int jobCount) {
            nodes = nodes(nodeCount);
            pending = oneGpuJobs(jobCount);
            policy = Policies.create("best-effort-fifo", Map.of());
        }

        /** Builds the round's snapshot, as the scheduler does before each round. */
        @Setup(Level.Invocation)
        public void snapshot() {
            snapshot = FenzoWorkloadBenchmark.snapshot(nodes, pending);
        }
    }

    /** Fenzo's workload: 1,000 nodes × 8 GPUs (nvswitch-8), 10,000 pending one-GPU jobs. */
    @State(Scope.Benchmark)
    public static class FenzoWorkload extends Workload {
        /** Builds the cluster and the jobs. */
        @Setup(Level.Trial)
        public void setUp() {
            build(1_000, 10_000);
        }
    }

    /** The same shape at other sizes: {@code nodes x jobs}. */
    @State(Scope.Benchmark)
    public static class Scaled extends Workload {
        /** Nodes (8 GPUs each) x pending one-GPU jobs. */
        @Param({"250x2500", "1000x10000", "4000x40000"})
        public String size;

        /** Builds the cluster and the jobs. */
        @Setup(Level.Trial)
        public void setUp() {
            String[] p = size.split("x");
            build(Integer.parseInt(p[0]), Integer.parseInt(p[1]));
        }
    }

    /**
     * @param w the workload
     * @return the round's result
     */
    @Benchmark
    public RoundResult fenzoWorkload(FenzoWorkload w) {
        return Rounds.run(w.snapshot, w.policy);
    }

    /**
     * @param w the workload
     * @return the round's result
     */
    @Benchmark
    public RoundResult scaled(Scaled w) {
        return Rounds.run(w.snapshot, w.policy);
    }

    // ---------------------------------------------------------------- the workload

    /** @return {@code count} nodes of 8 NVSwitch GPUs, 96 cores and 1 TiB, in racks of 16 */
    static List<Node> nodes(int count) {
        List<Node> nodes = new ArrayList<>(count);
        GpuTopology shape = GpuTopology.nvSwitch8("H100");
        for (int i = 0; i < count; i++) {
            nodes.add(Node.builder(String.format("node-%05d", i))
                    .capacity(Resources.builder().cpu(96).memoryGiB(1024).build())
                    .gpus(shape)
                    .label(RACK, "r" + i / 16)
                    .build());
        }
        return nodes;
    }

    /** @return {@code count} pending jobs of one member with one GPU, one core and 8 GiB, in submission order */
    static List<JobStatus> oneGpuJobs(int count) {
        List<JobStatus> jobs = new ArrayList<>(count);
        PendingReason fresh = PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "submitted");
        for (int i = 0; i < count; i++) {
            JobSpec spec = JobSpec.builder("job-" + i).queue("gpu")
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).memoryGiB(8).gpus(1).build()))
                    .build();
            jobs.add(new JobStatus(spec, JobState.PENDING, fresh, null, 0, 0, i, 0, 0, -1));
        }
        return jobs;
    }

    /** @return a snapshot of the nodes and pending jobs, one ClusterQueue with quota for all of them */
    static Snapshot snapshot(List<Node> nodes, List<JobStatus> pending) {
        ClusterQueue cq = ClusterQueue.builder("cq")
                .quota("default", Resources.builder().cpu(1_000_000).memoryGiB(1_000_000).gpus(1_000_000).build()).build(); // never binding: 40,000 jobs x 8 GiB
        LocalQueue lq = new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "gpu", "cq");
        return new Snapshot(1, 0, 1, Map.of(Node.DEFAULT_CLUSTER, ClusterSpec.withRacks(Node.DEFAULT_CLUSTER)), nodes,
                Map.of("default", ResourceFlavor.of("default")), Map.of("cq", cq), Map.of(), Map.of(lq.key(), lq), pending, List.of());
    }
}
