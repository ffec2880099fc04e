package io.fairway.bench;

import com.netflix.fenzo.ConstraintEvaluator;
import com.netflix.fenzo.SchedulingResult;
import com.netflix.fenzo.TaskRequest;
import com.netflix.fenzo.TaskScheduler;
import com.netflix.fenzo.VMAssignmentResult;
import com.netflix.fenzo.VMTaskFitnessCalculator;
import com.netflix.fenzo.VirtualMachineLease;
import com.netflix.fenzo.plugins.BinPackingFitnessCalculators;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.mesos.Protos;
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
 * Fairway and Netflix Fenzo 1.0.1 on the same workload in the same run: 1,000 hosts × 8 GPUs (128 CPUs, 1 TiB),
 * 10,000 one-GPU tasks (1 CPU, 8 GiB), one scheduling pass from an empty cluster. 8,000 tasks fit; both place all
 * 8,000 (checked in setup).
 *
 * <ul>
 *   <li>{@code FAIRWAY}: one whole {@code Rounds.run} — quota admission in one ClusterQueue, topology-aware
 *       placement on GPU ids, the core's validation, a pending reason for each of the 2,000 left over.</li>
 *   <li>{@code FENZO}: one {@code TaskScheduler.scheduleOnce} with {@code cpuMemBinPacker} fitness; GPUs are a
 *       scalar resource ({@code "gpu"}) on the leases and the tasks; a fresh TaskScheduler per invocation (Fenzo
 *       remembers assignments).</li>
 *   <li>{@code FENZO_GPU}: the same with a GPU bin-packing fitness (fuller host first).</li>
 *   <li>{@code FENZO_TUNED}: Fenzo tuned for speed: the GPU bin-packing fitness with a first-fit "good enough"
 *       cutoff (the first host that fits at all is taken without evaluating the rest), and shortfall evaluation
 *       off (it only feeds autoscaling, which this pass does not use).</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar FenzoComparisonBenchmark -f 1}; the ratio is the Fenzo
 * score divided by the Fairway score. Warm-up is 5 × 4 s: on two cores the Fairway pass reaches its compiled steady
 * state only after about 10 s of calls (shorter warm-ups measured the interpreter and C1 code).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 5, time = 2)
// AlwaysPreTouch: on this VM, the first touch of heap pages G1 moves into later makes long runs slower (see docs/performance.md)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class FenzoComparisonBenchmark {
    static final int HOSTS = 1_000;
    static final int GPUS_PER_HOST = 8;
    static final int TASKS = 10_000;

    /** One scheduling pass of a scheduler on the fixed workload. */
    interface Engine {
        /** Gets ready for one pass (outside the measurement). */
        void reset();

        /** @return the number of tasks placed by one scheduling pass */
        int scheduleOnce();
    }

    /** The schedulers compared. */
    public enum Peer {
        FAIRWAY, FENZO, FENZO_GPU, FENZO_TUNED
    }

    @State(Scope.Benchmark)
    public static class Side {
        @Param({"FAIRWAY", "FENZO", "FENZO_GPU", "FENZO_TUNED"})
        public Peer peer;

        Engine engine;

        @Setup(Level.Trial)
        public void setUp() {
            engine = switch (peer) {
                case FAIRWAY -> new FairwayEngine();
                case FENZO -> new FenzoEngine(BinPackingFitnessCalculators.cpuMemBinPacker, false);
                case FENZO_GPU -> new FenzoEngine(new GpuBinPacker(), false);
                case FENZO_TUNED -> new FenzoEngine(new GpuBinPacker(), true);
            };
            engine.reset();
            int placed = engine.scheduleOnce();
            if (placed != HOSTS * GPUS_PER_HOST) {
                throw new IllegalStateException(peer + " placed " + placed + " tasks, expected " + HOSTS * GPUS_PER_HOST);
            }
        }

        @Setup(Level.Invocation)
        public void reset() {
            engine.reset();
        }

        /** Tasks placed by the last measured pass. */
        int lastPlaced = -1;

        /** The outcome checked in setup is checked again on the last measured pass. */
        @TearDown(Level.Trial)
        public void check() {
            if (lastPlaced != HOSTS * GPUS_PER_HOST) {
                throw new IllegalStateException(peer + " placed " + lastPlaced + " tasks in the last measured pass, expected " + HOSTS * GPUS_PER_HOST);
            }
        }
    }

    @Benchmark
    public int scheduleOnce(Side s) {
        s.lastPlaced = s.engine.scheduleOnce();
        return s.lastPlaced;
    }

    // ---------------------------------------------------------------- Fairway

    static final class FairwayEngine implements Engine {
        final Snapshot snapshot = Workloads.snapshot(HOSTS, 1, TASKS, false);
        final SchedulingPolicy policy = Policies.create("best-effort-fifo", Map.of());

        @Override
        public void reset() {
            // Rounds.run is a pure function of the snapshot: nothing to reset
        }

        @Override
        public int scheduleOnce() {
            RoundResult r = Rounds.run(snapshot, policy);
            int n = 0;
            for (Decision d : r.decisions()) {
                if (d instanceof Admit) {
                    n++;
                }
            }
            return n;
        }
    }

    // ---------------------------------------------------------------- Fenzo

    static final class FenzoEngine implements Engine {
        final VMTaskFitnessCalculator fitness;
        final boolean tuned;
        final List<FenzoTask> tasks = new ArrayList<>(TASKS);
        TaskScheduler scheduler;
        List<VirtualMachineLease> leases;

        FenzoEngine(VMTaskFitnessCalculator fitness, boolean tuned) {
            this.fitness = fitness;
            this.tuned = tuned;
            for (int i = 0; i < TASKS; i++) {
                tasks.add(new FenzoTask("t" + i));
            }
        }

        @Override
        public void reset() {
            if (scheduler != null) {
                scheduler.shutdown();
            }
            TaskScheduler.Builder b = new TaskScheduler.Builder()
                    .withLeaseOfferExpirySecs(1_000_000)
                    .withLeaseRejectAction(lease -> { })
                    .withFitnessCalculator(fitness);
            if (tuned) {
                b.withFitnessGoodEnoughFunction(f -> f > 0.0).disableShortfallEvaluation();
            }
            scheduler = b.build();
            leases = new ArrayList<>(HOSTS);
            for (int i = 0; i < HOSTS; i++) {
                leases.add(new FenzoLease("host-" + i));
            }
            for (FenzoTask t : tasks) {
                t.setAssignedResources(null);
            }
        }

        @Override
        public int scheduleOnce() {
            SchedulingResult r = scheduler.scheduleOnce(tasks, leases);
            int n = 0;
            for (VMAssignmentResult a : r.getResultMap().values()) {
                n += a.getTasksAssigned().size();
            }
            return n;
        }
    }

    /** Fuller hosts first by GPUs: 1 − free GPUs after placing / GPUs of the host. */
    static final class GpuBinPacker implements VMTaskFitnessCalculator {
        @Override
        public String getName() {
            return "gpuBinPacker";
        }

        @Override
        public double calculateFitness(TaskRequest task, com.netflix.fenzo.VirtualMachineCurrentState vm,
                                       com.netflix.fenzo.TaskTrackerState state) {
            int used = vm.getRunningTasks().size() + vm.getTasksCurrentlyAssigned().size() + 1; // one GPU per task
            return Math.min(1.0, used / (double) GPUS_PER_HOST);
        }
    }

    static final class FenzoTask implements TaskRequest {
        private final String id;
        private AssignedResources assigned;
        private static final Map<String, Double> SCALARS = new java.util.HashMap<>(Map.of("gpu", 1.0));

        FenzoTask(String id) {
            this.id = id;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public String taskGroupName() {
            return "default";
        }

        @Override
        public double getCPUs() {
            return 1;
        }

        @Override
        public double getMemory() {
            return 8192;
        }

        @Override
        public double getNetworkMbps() {
            return 0;
        }

        @Override
        public double getDisk() {
            return 0;
        }

        @Override
        public int getPorts() {
            return 0;
        }

        @Override
        public Map<String, Double> getScalarRequests() {
            return SCALARS;
        }

        @Override
        public Map<String, NamedResourceSetRequest> getCustomNamedResources() {
            return java.util.Collections.emptyMap();
        }

        @Override
        public List<? extends ConstraintEvaluator> getHardConstraints() {
            return List.of();
        }

        @Override
        public List<? extends VMTaskFitnessCalculator> getSoftConstraints() {
            return List.of();
        }

        @Override
        public void setAssignedResources(AssignedResources assignedResources) {
            this.assigned = assignedResources;
        }

        @Override
        public AssignedResources getAssignedResources() {
            return assigned;
        }
    }

    static final class FenzoLease implements VirtualMachineLease {
        private final String host;
        // HashMaps: Fenzo looks up null keys, which Map.of refuses
        private static final Map<String, Double> SCALARS = new java.util.HashMap<>(Map.of("gpu", (double) GPUS_PER_HOST));
        private static final Map<String, Protos.Attribute> ATTRIBUTES = new java.util.HashMap<>();

        FenzoLease(String host) {
            this.host = host;
        }

        @Override
        public String getId() {
            return "lease-" + host;
        }

        @Override
        public long getOfferedTime() {
            return 0;
        }

        @Override
        public String hostname() {
            return host;
        }

        @Override
        public String getVMID() {
            return host;
        }

        @Override
        public double cpuCores() {
            return 128;
        }

        @Override
        public double memoryMB() {
            return 1024 * 1024;
        }

        @Override
        public double networkMbps() {
            return 10_000;
        }

        @Override
        public double diskMB() {
            return 1024 * 1024;
        }

        @Override
        public List<Range> portRanges() {
            return List.of();
        }

        @Override
        public Protos.Offer getOffer() {
            return null;
        }

        @Override
        public Map<String, Protos.Attribute> getAttributeMap() {
            return ATTRIBUTES;
        }

        @Override
        public Double getScalarValue(String name) {
            return SCALARS.get(name);
        }

        @Override
        public Map<String, Double> getScalarValues() {
            return SCALARS;
        }
    }
}
