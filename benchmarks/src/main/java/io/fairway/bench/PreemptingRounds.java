package io.fairway.bench;

import io.fairway.core.RoundResult;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * {@link PreemptingRoundBenchmark}'s rounds timed one by one, in wall time and in the thread's own CPU time: on a
 * shared machine the CPU time shows what a round costs when the other work is taken out. Prints the first round
 * and the median (min-max) of the steady rounds.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.fairway.bench.PreemptingRounds 8000 fair-sharing 30}.
 */
public final class PreemptingRounds {
    private PreemptingRounds() {
    }

    /**
     * @param args pending jobs, policy, steady rounds measured, steady rounds run before (warm-up)
     */
    public static void main(String[] args) {
        int pending = args.length > 0 ? Integer.parseInt(args[0]) : 8000;
        String policy = args.length > 1 ? args[1] : "fair-sharing";
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        PreemptingRoundBenchmark.Engine e = new PreemptingRoundBenchmark.Engine();
        e.pending = pending;
        e.policy = policy;
        e.build();
        long w0 = System.nanoTime();
        long c0 = mx.getCurrentThreadCpuTime();
        RoundResult first = e.round();
        long firstWall = System.nanoTime() - w0;
        long firstCpu = mx.getCurrentThreadCpuTime() - c0;
        e.checkFull("after the first round");
        double[] wall = new double[rounds];
        double[] cpu = new double[rounds];
        for (int i = 0; i < warmup; i++) {
            e.churnAndRound();
        }
        long preemptionsBefore = e.preemptions;
        for (int i = 0; i < rounds; i++) {
            long w = System.nanoTime();
            long c = mx.getCurrentThreadCpuTime();
            e.churnAndRound();
            wall[i] = (System.nanoTime() - w) / 1e6;
            cpu[i] = (mx.getCurrentThreadCpuTime() - c) / 1e6;
        }
        e.checkFull("after the steady rounds");
        System.out.printf("pending=%d policy=%s first round: %.1f ms wall, %.1f ms CPU (%d decisions, %d running)%n", pending, policy,
                firstWall / 1e6, firstCpu / 1e6, first.decisions().size(), e.running.size());
        System.out.printf("steady rounds (%d after %d, 1%% churn; %d preemptions): wall median %.1f ms (%.1f-%.1f), CPU median %.1f ms (%.1f-%.1f)%n",
                rounds, warmup, e.preemptions - preemptionsBefore, median(wall), min(wall), max(wall), median(cpu), min(cpu), max(cpu));
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static double min(double[] a) {
        return Arrays.stream(a).min().orElse(0);
    }

    private static double max(double[] a) {
        return Arrays.stream(a).max().orElse(0);
    }
}
