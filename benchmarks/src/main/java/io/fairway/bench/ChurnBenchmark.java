package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayDeque;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Steady-state churn through the whole engine ({@link Scheduler}): every invocation, the {@code churn} oldest
 * running jobs finish (and are forgotten), {@code churn} new one-GPU jobs arrive, and {@code runRound()} admits
 * onto the freed GPUs; the queue stays {@code pending} deep. The score is the time of one such step in ms; each
 * step admits exactly {@code churn} jobs (checked), so admissions per second = {@code churn} × 1000 / score.
 * Includes the engine's bookkeeping: reports, submission, the snapshot, applying the decisions, and with
 * {@code listener=true} the events (built only while a listener is registered) delivered to a listener that reads
 * each message.
 *
 * <p>Parameters: {@code nodes} × 8 GPUs, 100 ClusterQueues in one cohort, best-effort-fifo.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ChurnBenchmark -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// AlwaysPreTouch: on this VM, the first touch of heap pages G1 moves into later makes long runs slower (see docs/performance.md)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class ChurnBenchmark {

    /** An engine at steady state. */
    @State(Scope.Benchmark)
    public static class Engine {
        @Param({"1000"})
        public int nodes;

        @Param({"100000"})
        public int pending;

        @Param({"1000", "8000"})
        public int churn;

        /** Whether a listener is registered: the engine builds events (a message per state change) only for listeners. */
        @Param({"false", "true"})
        public boolean listener;

        /** Events the listener received (read so the work is not dead). */
        long heard;

        static final int QUEUES = 100;
        Scheduler scheduler;
        final ArrayDeque<String> running = new ArrayDeque<>();
        long next;
        int lastAdmitted;

        @Setup(Level.Trial)
        public void setUp() {
            scheduler = Workloads.scheduler(nodes, QUEUES, "best-effort-fifo", new Workloads.ManualClock());
            if (listener) {
                scheduler.addListener(e -> heard += e.reason() == null ? 1 : e.reason().length());
            }
            List<JobSpec> batch = new ArrayList<>();
            for (next = 0; next < pending + nodes * 8L; next++) {
                batch.add(Workloads.oneGpuJob("j" + next, next, QUEUES));
            }
            scheduler.submitAll(batch);
            record(scheduler.runRound());
            if (running.size() != nodes * 8) {
                throw new IllegalStateException("expected a full cluster, " + running.size() + " admitted");
            }
        }

        void record(RoundResult r) {
            int n = 0;
            for (Decision d : r.decisions()) {
                if (d instanceof Admit a) {
                    running.add(a.jobId());
                    n++;
                }
            }
            lastAdmitted = n;
        }

        int step() {
            List<JobSpec> batch = new ArrayList<>(churn);
            for (int i = 0; i < churn; i++) {
                String id = running.poll();
                scheduler.reportFinished(id);
                scheduler.jobs().forget(id);
                batch.add(Workloads.oneGpuJob("j" + next, next, QUEUES));
                next++;
            }
            scheduler.submitAll(batch);
            record(scheduler.runRound());
            if (lastAdmitted != churn) {
                throw new IllegalStateException("expected " + churn + " admissions, got " + lastAdmitted);
            }
            return lastAdmitted;
        }
    }

    /** One churn step: {@code churn} finish, {@code churn} arrive, one round admits {@code churn}. */
    @Benchmark
    public int roundMillis(Engine e) {
        return e.step();
    }
}
