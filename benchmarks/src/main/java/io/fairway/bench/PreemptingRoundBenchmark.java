package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
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
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Preempting rounds through the whole engine ({@code scheduler.runRound()}: snapshot, round, applying decisions,
 * events to a registered listener), in the shape Kueue users configure: 1,000 nodes × 8 GPUs, 100 ClusterQueues in
 * 10 cohorts, each with a nominal quota of 80 GPUs and preemption {@code withinClusterQueue: LowerPriority},
 * {@code reclaimWithinCohort: Any}; jobs of 1, 2, 4 or 8 GPUs with seeded random priorities 0-999, all submitted at
 * once, spread at random over the queues.
 *
 * <ul>
 *   <li>{@code firstRound}: the round that fills the empty cluster from {@code pending} jobs;</li>
 *   <li>{@code steadyRound}: after that, each invocation 1 % of the running jobs finish (and as many new jobs of
 *       the same distribution arrive, so the queue stays {@code pending} deep), then one round runs: it admits onto
 *       the freed GPUs, and every job that does not fit searches for victims;</li>
 *   <li>{@code quietRound}: once rounds change nothing (setup runs rounds until one makes no decision and changes
 *       no reason), each invocation only advances the clock by 10 s and runs one round: nothing any waiting job
 *       depends on changed.</li>
 * </ul>
 * Setup checks the cluster is full after the first round; tear-down checks, after the measurement, that the
 * engine's invariants hold, that the cluster is still at least 90 % busy, and that rounds did preempt.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PreemptingRoundBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class PreemptingRoundBenchmark {
    static final int NODES = 1_000;
    static final int QUEUES = 100;
    static final int COHORTS = 10;
    static final long NOMINAL_GPUS = 80;
    static final String FLAVOR = "default";

    /** A scheduler with the benchmark's cluster, queues and jobs, before its first round. */
    @State(Scope.Benchmark)
    public static class Engine {
        /** Jobs submitted at once (and kept waiting: the queue depth). */
        @Param({"2000", "8000", "80000"})
        public int pending;

        /** The policy. */
        @Param({"fair-sharing", "best-effort-fifo", "priority"})
        public String policy;

        Scheduler scheduler;
        SplittableRandom random;
        final Workloads.ManualClock clock = new Workloads.ManualClock();
        final List<String> running = new ArrayList<>();
        long next;
        long preemptions;
        long heard;

        /** Builds the engine and submits the jobs. */
        void build() {
            clock.now = 0;
            random = new SplittableRandom(42);
            running.clear();
            next = 0;
            scheduler = scheduler(policy, clock);
            scheduler.addListener(e -> heard += e.reason() == null ? 1 : e.reason().length());
            List<JobSpec> batch = new ArrayList<>(pending);
            for (int i = 0; i < pending; i++) {
                batch.add(job());
            }
            scheduler.submitAll(batch);
        }

        JobSpec job() {
            int gpus = 1 << random.nextInt(4);
            return JobSpec.builder("job-" + next++).queue("lq-" + random.nextInt(QUEUES)).priority(random.nextInt(1000))
                    .submitTimeMillis(clock.now)
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(2L * gpus).memoryGiB(16L * gpus).gpus(gpus).build())).build();
        }

        RoundResult round() {
            RoundResult r = scheduler.runRound();
            for (Decision d : r.decisions()) {
                if (d instanceof Admit a) {
                    running.add(a.jobId());
                } else if (d instanceof Preempt p) {
                    running.remove(p.jobId());
                    preemptions++;
                }
            }
            return r;
        }

        /** 1 % of the running jobs finish (seeded choice), as many new jobs arrive, one round runs. */
        RoundResult churnAndRound() {
            clock.now += 10_000;
            int finish = Math.max(1, running.size() / 100);
            List<JobSpec> batch = new ArrayList<>(finish);
            for (int k = 0; k < finish && !running.isEmpty(); k++) {
                int at = random.nextInt(running.size());
                String id = running.get(at);
                running.set(at, running.get(running.size() - 1));
                running.remove(running.size() - 1);
                scheduler.reportFinished(id);
                scheduler.jobs().forget(id);
                batch.add(job());
            }
            scheduler.submitAll(batch);
            return round();
        }

        long busyGpus() {
            long busy = 0;
            for (var j : scheduler.jobs().all()) {
                if (j.state().holdsResources() && j.admission() != null) {
                    busy += j.spec().podSets().get(0).resources().get(Resources.GPU);
                }
            }
            return busy;
        }

        void checkFull(String when) {
            List<String> broken = scheduler.checkInvariants();
            if (!broken.isEmpty()) {
                throw new IllegalStateException(when + ": invariants broken: " + broken.subList(0, Math.min(5, broken.size())));
            }
            long busy = busyGpus();
            if (pending >= 4_000 && busy < NODES * 8L * 9 / 10) {
                throw new IllegalStateException(when + ": expected a cluster at least 90 % busy, " + busy + " of " + NODES * 8 + " GPUs");
            }
        }
    }

    /** An engine after its first round, for steady rounds. */
    @State(Scope.Benchmark)
    public static class Steady extends Engine {
        @Setup(Level.Trial)
        public void setUp() {
            build();
            round();
            checkFull("after the first round");
        }

        @TearDown(Level.Trial)
        public void check() {
            checkFull("after the measurement");
            if (pending >= 4_000 && preemptions == 0) {
                throw new IllegalStateException("no round preempted: the benchmark does not measure preemption");
            }
        }
    }

    /** An engine after its first rounds, once a round changed nothing (no decision, no reason), for quiet rounds. */
    @State(Scope.Benchmark)
    public static class Quiet extends Engine {
        @Setup(Level.Trial)
        public void setUp() {
            build();
            round();
            // preemptions make room for jobs that preempt others in turn: run rounds until one changes nothing
            int rounds = 1;
            RoundResult r;
            do {
                clock.now += 10_000;
                r = round();
            } while ((!r.decisions().isEmpty() || !r.pendingReasons().isEmpty()) && ++rounds < 500);
            if (!r.decisions().isEmpty()) {
                throw new IllegalStateException("no round without decisions after " + rounds + " rounds");
            }
            checkFull("after the first rounds");
        }

        @TearDown(Level.Trial)
        public void check() {
            checkFull("after the measurement");
        }
    }

    /** A fresh engine before every invocation, for first rounds. */
    @State(Scope.Benchmark)
    public static class Fresh extends Engine {
        RoundResult last;

        @Setup(Level.Invocation)
        public void setUp() {
            build();
        }

        @TearDown(Level.Invocation)
        public void check() {
            checkFull("after a first round");
        }
    }

    /** One steady round: 1 % of the running jobs finish, as many arrive, {@code runRound()}. */
    @Benchmark
    public RoundResult steadyRound(Steady e) {
        return e.churnAndRound();
    }

    /**
     * One quiet round: 10 s pass and nothing else changes (no job finishes or arrives), {@code runRound()}. Its cost
     * should not grow with the waiting jobs: nothing they depend on changed.
     */
    @Benchmark
    public RoundResult quietRound(Quiet e) {
        e.clock.now += 10_000;
        RoundResult r = e.scheduler.runRound();
        if (!r.decisions().isEmpty()) {
            throw new IllegalStateException("a round in which nothing changed decided " + r.decisions().size() + " things");
        }
        return r;
    }

    /** The first round, which fills the empty cluster. */
    @Benchmark
    public RoundResult firstRound(Fresh e) {
        return e.round();
    }

    /** The benchmark's scheduler: 1,000 nodes, 100 preempting ClusterQueues of 80 GPUs in 10 cohorts. */
    static Scheduler scheduler(String policy, Workloads.ManualClock clock) {
        Scheduler.Builder b = Scheduler.builder().policy(policy).clock(clock).seed(1)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of(FLAVOR)).nodes(Workloads.nodes(NODES));
        for (int c = 0; c < COHORTS; c++) {
            b.cohort(Cohort.of("co-" + c, null));
        }
        PreemptionPolicy preemption = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        for (int q = 0; q < QUEUES; q++) {
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("co-" + q % COHORTS).preemption(preemption)
                    .quota(FLAVOR, Resources.builder().cpu(NOMINAL_GPUS * 16).memoryGiB(NOMINAL_GPUS * 128).gpus(NOMINAL_GPUS).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        return b.build();
    }
}
