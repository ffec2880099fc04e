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
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ArmadaShapeBenchmark -f 1 -wi 5 -i 5 -prof gc}.
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
