package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole engine at issue #7's headline scale: {@code jobs} pending one-GPU jobs (default 1,000,000) in 1,000
 * ClusterQueues (10 cohorts) on 10,000 nodes × 8 GPUs, best-effort-fifo. Measures:
 *
 * <ul>
 *   <li>the heap the engine retains per pending job (used heap after full GCs, after minus before submission;
 *       target ≤ 1 KiB);</li>
 *   <li>the first {@code runRound()} (admits 80,000), then {@code rounds} rounds in which nothing can fit
 *       (wall time, whole engine: snapshot, round, applying decisions, events), and the round's own compute time
 *       ({@code RoundResult.computeNanos}).</li>
 * </ul>
 *
 * <p>A one-shot harness rather than JMH: a 1,000,000-job setup takes tens of seconds. Run:
 * {@code java -Xms8g -Xmx8g -cp benchmarks/target/benchmarks.jar io.fairway.bench.EngineScale [jobs] [rounds]}.
 */
public final class EngineScale {
    private EngineScale() {
    }

    /**
     * @param args optional: pending jobs, rounds where nothing fits
     */
    public static void main(String[] args) {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int queues = 1_000;
        int nodes = 10_000;
        Workloads.ManualClock clock = new Workloads.ManualClock();
        Scheduler s = Workloads.scheduler(nodes, queues, "best-effort-fifo", clock);
        long before = usedAfterGc(); // before the specs exist: they are part of what the engine retains
        List<JobSpec> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            batch.add(Workloads.oneGpuJob("j" + i, i, queues));
        }
        long t0 = System.nanoTime();
        s.submitAll(batch);
        long submitNanos = System.nanoTime() - t0;
        batch = null;
        long after = usedAfterGc();
        System.out.printf("pending=%d queues=%d cohorts=%d nodes=%d gpus=%d policy=best-effort-fifo jdk=%s%n", jobs, queues,
                Workloads.cohortsFor(queues), nodes, nodes * 8, Runtime.version());
        System.out.printf("submitAll: %.0f ms; retained heap per pending job: %.0f B%n", submitNanos / 1e6, (after - before) / (double) jobs);
        for (int r = 0; r <= rounds; r++) {
            clock.now += 1000;
            long w0 = System.nanoTime();
            RoundResult res = s.runRound();
            long wall = System.nanoTime() - w0;
            int admitted = 0;
            for (Decision d : res.decisions()) {
                if (d instanceof Admit) {
                    admitted++;
                }
            }
            System.out.printf("round %d: admitted %d, wall %.0f ms, compute %.0f ms%n", r, admitted, wall / 1e6, res.computeNanos() / 1e6);
        }
        System.out.printf("retained heap after the rounds, per job: %.0f B%n", (usedAfterGc() - before) / (double) jobs);
        System.out.println(s.round() > 0 ? "done" : "");
    }

    private static long usedAfterGc() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return m.getHeapMemoryUsage().getUsed();
    }
}
