package io.fairway.bench;

import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.Stages;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The provisioning decision at scale (the provisioning target: ≤ 50 ms): 10,000 pending gangs, all admitted under quota
 * and fitting no node (the cluster is empty), over 50 instance types in two pools — 25 spot and 25 on-demand
 * types of 0 to 8 GPUs of four models, varied CPU, memory and prices. Gangs have 1 to 16 members of varied GPU,
 * CPU and memory requests; a quarter ask for on-demand or spot capacity or one GPU model by node selector.
 *
 * <p>Timed: the provisioning stage alone ({@code Stages.provision}, the documented testing entry point, which runs
 * the engine's provisioner and lists its decisions), on a snapshot and pending reasons prepared once and a fresh plan context
 * per invocation (the provisioner charges reserved quota to it). Few calls fit in an iteration, so warm-up iterations are
 * long (10 s): the first calls run before the JIT has compiled the hot loops.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ProvisioningBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 10)
@Measurement(iterations = 5, time = 5)
@Fork(1)
public class ProvisioningBenchmark {
    static final String[] MODELS = {"V100", "A100", "H100", "T4"};

    /** The prepared input. */
    @State(Scope.Benchmark)
    public static class Input {
        Snapshot snapshot;
        Map<String, PendingReason> reasons;
        PolicyContext ctx;

        /** Builds the pools, the queue and the 10,000 gangs. */
        @Setup(Level.Trial)
        public void build() {
            snapshot = snapshot(10_000, 1);
            reasons = new HashMap<>();
            for (JobStatus j : snapshot.pending()) {
                reasons.put(j.id(), PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "no node has room"));
            }
        }

        /** A fresh plan context: the provisioner charges the quota it reserves to it. */
        @Setup(Level.Invocation)
        public void context() {
            ctx = Stages.planContext(snapshot);
        }
    }

    /**
     * @param types the types of one capacity type
     * @param spot spot or on-demand
     * @return 25 instance types: GPU machines of 1, 2, 4 and 8 GPUs of four models in two sizes, and CPU machines
     */
    static List<InstanceType> types(boolean spot) {
        List<InstanceType> out = new ArrayList<>();
        int[] gpuCounts = {1, 2, 4, 8};
        double[] modelPrice = {3.06, 4.10, 9.80, 0.53};
        for (int m = 0; m < MODELS.length; m++) {
            for (int g : gpuCounts) {
                for (int size = 1; size <= (g == 8 ? 1 : 2) && out.size() < 22; size++) {
                    String shape = g == 8 ? (m == 0 ? "hybrid-cube-mesh-8" : "nvswitch-8") : g == 4 ? "pcie-4" : "uniform-" + g;
                    Resources cap = Resources.builder().cpu(8.0 * g * size).memoryGiB(61.0 * g * size).build();
                    double price = g * modelPrice[m] * (1 + 0.15 * (size - 1)) * (spot ? 0.3 : 1.0);
                    out.add(new InstanceType(MODELS[m].toLowerCase(java.util.Locale.ROOT) + "." + g + "g" + size + (spot ? "-spot" : ""), cap,
                            shape, MODELS[m], Math.round(price * 100) / 100.0, spot ? CapacityType.SPOT : CapacityType.ON_DEMAND));
                }
            }
        }
        for (int c : new int[] {16, 32, 64}) {
            out.add(new InstanceType("c." + c + (spot ? "-spot" : ""), Resources.builder().cpu(c).memoryGiB(2.0 * c).build(), "none", "",
                    Math.round(c * 0.0425 * (spot ? 0.3 : 1.0) * 100) / 100.0, spot ? CapacityType.SPOT : CapacityType.ON_DEMAND));
        }
        return out;
    }

    /**
     * @param gangs how many pending gangs
     * @param seed the seed of their shapes
     * @return a snapshot of an empty cluster with two node pools of 25 types each and {@code gangs} pending gangs
     */
    static Snapshot snapshot(int gangs, long seed) {
        NodePool spot = new NodePool("spot", null, types(true), Resources.builder().gpus(1_000_000).cpu(100_000_000).build(), 180_000, 300_000,
                Map.of(), List.of());
        NodePool onDemand = new NodePool("on-demand", null, types(false), Resources.builder().gpus(1_000_000).cpu(100_000_000).build(), 180_000,
                300_000, Map.of(), List.of());
        Scheduler s = Scheduler.builder().policy("best-effort-fifo").flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(10_000_000).cpu(1_000_000_000)
                        .memoryGiB(Resources.MAX_QUANTITY >> 30).build()).build()) // the largest quantity (8 Pi bytes): never binding
                .localQueue(new LocalQueue("default", "q", "cq")).nodePool(spot).nodePool(onDemand).build();
        SplittableRandom r = new SplittableRandom(seed);
        int[] members = {1, 1, 1, 2, 2, 4, 8, 16};
        int[] gpusPer = {1, 1, 2, 4, 8};
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < gangs; i++) {
            int n = members[r.nextInt(members.length)];
            boolean cpuOnly = r.nextInt(10) == 0;
            int g = gpusPer[r.nextInt(gpusPer.length)];
            Resources res = cpuOnly ? Resources.builder().cpu(2 + r.nextInt(30)).memoryGiB(4 + r.nextInt(56)).build()
                    : Resources.builder().gpus(g).cpu(Math.max(1, g * (2 + r.nextInt(7)))).memoryGiB(g * (8 + r.nextInt(50))).build();
            Map<String, String> selector = switch (r.nextInt(12)) {
                case 0 -> Map.of(NodePool.CAPACITY_TYPE_LABEL, "on-demand");
                case 1 -> Map.of(NodePool.CAPACITY_TYPE_LABEL, "spot");
                case 2 -> Map.of(NodePool.POOL_LABEL, "on-demand");
                default -> Map.of();
            };
            PodSet ps = PodSet.of("workers", n, res).withNodeSelector(selector);
            jobs.add(JobSpec.builder(String.format("job-%05d", i)).queue("q").submitTimeMillis(i).podSet(ps).build());
        }
        s.submitAll(jobs);
        return s.snapshot();
    }

    /**
     * @param in the prepared input
     * @return the decision
     */
    @Benchmark
    public List<Decision> decide(Input in) {
        return Stages.provision(in.snapshot, in.ctx, in.reasons);
    }
}
