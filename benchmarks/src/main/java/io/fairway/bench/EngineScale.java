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
 * The whole engine at the headline scale of the scale targets (docs/performance.md): {@code jobs} pending one-GPU
 * jobs (default 1,000,000) in 1,000
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
 * {@code java -Xms8g -Xmx8g -cp benchmarks/target/benchmarks.jar io.fairway.bench.EngineScale [jobs] [rounds] [kueue|armada]};
 * {@code armada} is Armada's shape ({@link ArmadaScaleBenchmark}: 100 queues, 5 clusters × 1,000 nodes,
 * fair share over time).
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
        boolean armada = args.length > 2 && args[2].equals("armada");
        int queues = armada ? ArmadaScaleBenchmark.QUEUES : 1_000;
        int nodes = armada ? ArmadaScaleBenchmark.CLUSTERS * ArmadaScaleBenchmark.NODES_PER_CLUSTER : 10_000;
        String policy = armada ? "fair-share-over-time" : "best-effort-fifo";
        Workloads.ManualClock clock = new Workloads.ManualClock();
        Scheduler s = armada ? ArmadaScaleBenchmark.scheduler(clock) : Workloads.scheduler(nodes, queues, policy, clock);
        long before = usedAfterGc(); // before the specs exist: they are part of what the engine retains
        List<JobSpec> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            batch.add(armada ? ArmadaScaleBenchmark.job("j" + i, i) : Workloads.oneGpuJob("j" + i, i, queues));
        }
        long t0 = System.nanoTime();
        s.submitAll(batch);
        long submitNanos = System.nanoTime() - t0;
        batch = null;
        long after = usedAfterGc();
        System.out.printf("pending=%d queues=%d cohorts=%d clusters=%d nodes=%d gpus=%d policy=%s jdk=%s%n", jobs, queues,
                armada ? 1 : Workloads.cohortsFor(queues), armada ? ArmadaScaleBenchmark.CLUSTERS : 1, nodes, nodes * 8, policy, Runtime.version());
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
