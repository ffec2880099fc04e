package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.snapshot.PlacementStrategy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.Stages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
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
 * The placement search at scale.
 *
 * <ul>
 *   <li><b>gang512</b>: one gang of 512 one-GPU members, rack preferred, on 10,000 nodes of 8 NVSwitch GPUs in
 *       blocks of 25 racks of 16 nodes, empty or with half the GPUs already taken at random. {@code find} is
 *       the search alone on a plan built once ({@code PolicyContext.placement().find}, which takes and gives
 *       back); {@code round} is a whole {@code Rounds.run} (building the plan's indexes for 10,000 nodes,
 *       placing, and re-validating the admission against the snapshot).</li>
 *   <li><b>singles</b>: 10,000 one-GPU jobs on 1,000 nodes (Fenzo's published benchmark: 1,000 hosts × 8
 *       GPUs; with 8 GPUs per node 8,000 are placed and 2,000 refused, with 16 all are placed).
 *       {@code place} is placement alone ({@code Stages.placeInOrder}: a fresh plan of the 1,000 nodes, then
 *       the 10,000 placements); {@code tryAdmit} admits them one by one on a fresh plan (quota and placement,
 *       as a policy does);
 *       {@code round} is a whole {@code Rounds.run} with the best-effort FIFO policy.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PlacementBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PlacementBenchmark {
    static final String BLOCK = "fairway.io/block";
    static final String RACK = ClusterSpec.RACK_LABEL;

    /** 512 one-GPU members on 10,000 nodes. */
    @State(Scope.Benchmark)
    public static class Gang512 {
        @Param({"TOPOLOGY_AWARE", "FIRST_FIT"})
        public PlacementStrategy strategy;

        @Param({"0", "50"})
        public int busyPercent;

        Snapshot snapshot;
        PolicyContext ctx;
        JobStatus gang;
        SchedulingPolicy policy;
        final Map<String, Integer> counts = Map.of("workers", 512);
        final Map<String, String> flavors = Map.of("workers", "default");

        @Setup(Level.Trial)
        public void setUp() {
            JobSpec spec = JobSpec.builder("gang-512").queue("q")
                    .podSet(PodSet.of("workers", 512, Resources.builder().cpu(4).gpus(1).build()).withTopology(TopologyRequest.preferred(RACK)))
                    .build();
            gang = pending(spec, 1);
            snapshot = snapshot(10_000, "nvswitch-8", List.of(BLOCK, RACK), busyPercent, List.of(gang), strategy);
            ctx = Stages.planContext(snapshot);
            policy = Policies.create("best-effort-fifo", Map.of());
            Optional<Placement> p = ctx.placement().find(gang, counts, flavors);
            if (p.isEmpty() || p.get().members().size() != 512) {
                throw new IllegalStateException("the gang does not fit: " + p);
            }
            check();
        }

        /** In setup and after the measurement: the round admits the gang, all 512 members placed. */
        @TearDown(Level.Trial)
        public void check() {
            RoundResult r = Rounds.run(snapshot, policy);
            boolean admitted = r.decisions().stream().anyMatch(d -> d instanceof io.fairway.api.decision.Admit a
                    && a.jobId().equals("gang-512") && a.placement().members().size() == 512);
            if (!admitted) {
                throw new IllegalStateException("the round did not admit the 512-member gang whole");
            }
        }
    }

    /** 10,000 one-GPU jobs on 1,000 nodes. */
    @State(Scope.Benchmark)
    public static class Singles {
        @Param({"TOPOLOGY_AWARE", "FIRST_FIT"})
        public PlacementStrategy strategy;

        @Param({"8", "16"})
        public int gpusPerNode;

        Snapshot snapshot;
        SchedulingPolicy policy;
        List<JobStatus> jobs;
        List<JobSpec> specs;

        @Setup(Level.Trial)
        public void setUp() {
            jobs = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                JobSpec spec = JobSpec.builder("j" + i).queue("q")
                        .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).gpus(1).build())).build();
                jobs.add(pending(spec, i + 1));
            }
            specs = jobs.stream().map(JobStatus::spec).toList();
            snapshot = snapshot(1_000, gpusPerNode == 8 ? "nvswitch-8" : "uniform-16", List.of(RACK), 0, jobs, strategy);
            policy = Policies.create("best-effort-fifo", Map.of());
            check();
        }

        /** In setup and after the measurement: every one of the 10,000 jobs is placed (the cluster has 8,000 or 16,000 GPUs). */
        @TearDown(Level.Trial)
        public void check() {
            long expected = Math.min(10_000, 1_000L * gpusPerNode);
            long placed = Stages.placeInOrder(snapshot, specs);
            long admitted = RoundBenchmark.admits(Rounds.run(snapshot, policy));
            if (placed != expected || admitted != expected) {
                throw new IllegalStateException("placed " + placed + " and admitted " + admitted + " of 10,000 jobs, expected " + expected);
            }
        }
    }

    /** A fresh plan per invocation, so that every invocation places all 10,000 jobs from scratch. */
    @State(Scope.Thread)
    public static class FreshPlan {
        PolicyContext ctx;

        @Setup(Level.Invocation)
        public void setUp(Singles s) {
            ctx = Stages.planContext(s.snapshot);
        }
    }

    @Benchmark
    public Optional<Placement> gang512Find(Gang512 s) {
        return s.ctx.placement().find(s.gang, s.counts, s.flavors);
    }

    @Benchmark
    public RoundResult gang512Round(Gang512 s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    @Benchmark
    public int singlesPlace(Singles s) {
        return Stages.placeInOrder(s.snapshot, s.specs);
    }

    @Benchmark
    public int singlesTryAdmit(Singles s, FreshPlan plan) {
        return Admissions.tryAdmitAll(plan.ctx, s.jobs);
    }

    @Benchmark
    public RoundResult singlesRound(Singles s) {
        return Rounds.run(s.snapshot, s.policy);
    }

    // ---------------------------------------------------------------- the cluster

    static JobStatus pending(JobSpec spec, long sequence) {
        return new JobStatus(spec, JobState.PENDING, PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "submitted"), null, 0, 0,
                sequence, 0, 0, -1);
    }

    /**
     * Nodes of one shape in racks of 16 nodes and blocks of 25 racks; {@code busyPercent} of the GPUs already
     * held by running jobs (1 to 4 GPUs each, seeded).
     */
    static Snapshot snapshot(int nodeCount, String shape, List<String> levels, int busyPercent, List<JobStatus> pending,
                             PlacementStrategy strategy) {
        List<Node> nodes = new ArrayList<>(nodeCount);
        for (int i = 0; i < nodeCount; i++) {
            int rack = i / 16;
            nodes.add(Node.builder(String.format("node-%05d", i))
                    .capacity(Resources.builder().cpu(128).memoryGiB(1024).build())
                    .gpus(GpuTopology.named(shape, "H100"))
                    .label(BLOCK, "b" + rack / 25)
                    .label(RACK, "r" + rack)
                    .build());
        }
        List<JobStatus> holding = new ArrayList<>();
        if (busyPercent > 0) {
            SplittableRandom rnd = new SplittableRandom(42);
            long seq = 1_000_000;
            for (Node n : nodes) {
                int free = n.gpus().size();
                int next = 0;
                while (next < n.gpus().size() && rnd.nextInt(100) < busyPercent) {
                    int g = Math.min(1 + rnd.nextInt(4), free);
                    List<Integer> ids = new ArrayList<>();
                    for (int k = 0; k < g; k++) {
                        ids.add(next++);
                    }
                    free -= g;
                    holding.add(running("busy-" + seq, n.name(), ids, seq++));
                    if (free == 0) {
                        break;
                    }
                }
            }
        }
        ClusterQueue cq = ClusterQueue.builder("cq")
                .quota("default", Resources.builder().cpu(100_000_000).memoryGiB(Resources.MAX_QUANTITY >> 30).gpus(100_000_000).build()).build();
        LocalQueue lq = new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "q", "cq");
        return new Snapshot(1, 0, 1, Map.of(Node.DEFAULT_CLUSTER, new ClusterSpec(Node.DEFAULT_CLUSTER, levels)), nodes,
                Map.of("default", ResourceFlavor.of("default")), Map.of("cq", cq), Map.of(), Map.of(lq.key(), lq), pending, holding, Map.of(),
                strategy);
    }

    private static JobStatus running(String id, String node, List<Integer> gpus, long sequence) {
        JobSpec spec = JobSpec.builder(id).queue("q").podSet(PodSet.of("main", 1, Resources.builder().gpus(gpus.size()).build())).build();
        Placement p = new Placement(List.of(new MemberPlacement("main", 0, node, gpus)), null, 1.0);
        Admit a = new Admit(id, "cq", Map.of("main", "default"), Map.of("main", 1), p);
        return new JobStatus(spec, JobState.RUNNING, null, a, 0, 0, sequence, 0, 0, -1);
    }
}
