package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Average time to admission at Kueue's large-scale shape, on a simulated clock: 1,000 ClusterQueues in 10 cohorts,
 * 50,000 one-GPU jobs submitted at time 0, each running 0.15–1 s (uniform, seeded) once admitted, on 1,000
 * nodes × 8 GPUs, best-effort-fifo. Rounds run back to back; the simulated clock advances by each round's
 * measured wall time (so a slow scheduler is charged for its slowness), and jobs whose run time has elapsed are
 * reported finished before the next round. Prints the average and p99 time to admission, the number of rounds
 * and the mean round time.
 *
 * <p>Kueue's own performance test reports ≈ 700 s average time to admission for its small workloads (different
 * cluster, same queue shape).
 *
 * <p>Run: {@code java -Xmx4g -cp benchmarks/target/benchmarks.jar io.fairway.bench.TimeToAdmission [jobs] [queues] [nodes]}.
 */
public final class TimeToAdmission {
    private TimeToAdmission() {
    }

    /**
     * @param args optional: jobs, ClusterQueues, nodes
     */
    public static void main(String[] args) {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int queues = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int nodes = args.length > 2 ? Integer.parseInt(args[2]) : 1_000;
        Workloads.ManualClock clock = new Workloads.ManualClock();
        Scheduler s = Workloads.scheduler(nodes, queues, "best-effort-fifo", clock);
        SplittableRandom rnd = new SplittableRandom(7);
        Map<String, Long> runMillis = new HashMap<>();
        List<JobSpec> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            String id = "j" + i;
            batch.add(Workloads.oneGpuJob(id, i, queues));
            runMillis.put(id, 150 + (long) rnd.nextInt(851));
        }
        s.submitAll(batch);
        PriorityQueue<long[]> ends = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0])); // {end, job index}
        long[] waits = new long[jobs];
        int admitted = 0;
        int rounds = 0;
        long roundNanos = 0;
        while (admitted < jobs) {
            while (!ends.isEmpty() && ends.peek()[0] <= clock.now) {
                String id = "j" + ends.poll()[1];
                s.reportFinished(id);
                s.jobs().forget(id);
            }
            long t0 = System.nanoTime();
            RoundResult r = s.runRound();
            long took = System.nanoTime() - t0;
            roundNanos += took;
            rounds++;
            long admittedAt = clock.now;
            int before = admitted;
            for (Decision d : r.decisions()) {
                if (d instanceof Admit a) {
                    int idx = Integer.parseInt(a.jobId().substring(1));
                    waits[admitted++] = admittedAt;
                    ends.add(new long[] {admittedAt + Math.max(1, took / 1_000_000) + runMillis.get(a.jobId()), idx});
                }
            }
            clock.now += Math.max(1, took / 1_000_000);
            if (admitted == before && !ends.isEmpty() && ends.peek()[0] > clock.now) {
                clock.now = ends.peek()[0]; // idle until the next job ends
            }
        }
        java.util.Arrays.sort(waits);
        double avg = java.util.Arrays.stream(waits).average().orElse(0) / 1000.0;
        System.out.printf("jobs=%d queues=%d cohorts=%d nodes=%d gpus=%d run=0.15-1s policy=best-effort-fifo%n", jobs, queues,
                Workloads.cohortsFor(queues), nodes, nodes * 8);
        System.out.printf("average time to admission: %.2f s (p50 %.2f s, p99 %.2f s, last %.2f s)%n", avg, waits[jobs / 2] / 1000.0,
                waits[(int) (jobs * 0.99)] / 1000.0, waits[jobs - 1] / 1000.0);
        System.out.printf("rounds: %d, mean round %.1f ms (wall, whole engine)%n", rounds, roundNanos / 1e6 / rounds);
    }
}
