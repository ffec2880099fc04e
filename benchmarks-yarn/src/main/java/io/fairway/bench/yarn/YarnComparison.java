package io.fairway.bench.yarn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Fairway and Hadoop YARN's CapacityScheduler side by side on one {@link Workload}, in one process. Two steps, each
 * measured from a fresh scheduler ({@code warmups} unmeasured repetitions first, then {@code repetitions} measured
 * ones; the median, minimum and maximum are printed):
 *
 * <ol>
 *   <li><b>fill</b>: an empty cluster, every queue's jobs waiting; one Fairway round, or YARN node heartbeats until
 *       a pass allocates nothing. Printed as allocations per second.</li>
 *   <li><b>preempt</b>: every queue but the last has filled the cluster (each above its guaranteed share), then the
 *       last queue's jobs arrive; cycles with preemption on until the newcomer holds its guaranteed share. Both sides
 *       settle before the newcomer arrives, unmeasured: YARN's nodes heartbeat until a pass allocates nothing, Fairway
 *       runs rounds until one decides nothing (so neither side's measured step includes catching up on the fill).
 *       Fairway:
 *       {@code runRound()} with {@code reclaimWithinCohort: Any}; YARN: {@code ProportionalCapacityPreemptionPolicy}
 *       cycles, each followed by a heartbeat from every node.</li>
 * </ol>
 * Each line says what the side did (allocations, preemptions, cycles, what the newcomer holds) so the work can be
 * compared, and the last lines give the ratio of the medians.
 *
 * <p>Run (from the repository root, after {@code mvn -o -q -B package -DskipTests -pl benchmarks-yarn -am}):
 * {@code java -Xms6g -Xmx6g -cp "$(cat benchmarks-yarn/target/classpath.txt):benchmarks-yarn/target/classes"
 * io.fairway.bench.yarn.YarnComparison [nodes cpusPerNode memoryGiBPerNode queues jobsPerQueue memoryGiBPerJob
 * warmups repetitions]}; without arguments, Armada's shape ({@link Workload#ARMADA}), 10 warm-ups, 8 repetitions.
 *
 * <p>Both sides need about ten repetitions of a step before the JIT has settled: at Armada's shape Fairway's fill takes
 * 300–370 ms on its second repetition and 180–210 ms from its ninth on, and YARN's fill had a median of 1.67 s after
 * 2 warm-ups against 1.15 s after 10. Fewer warm-ups measure the compiler as much as the schedulers.
 */
public final class YarnComparison {
    private YarnComparison() {
    }

    /**
     * Runs both steps on both sides and prints the figures.
     *
     * @param args optional: nodes, CPUs per node, GiB per node, queues, jobs per queue, GiB per job, warm-ups,
     *     repetitions
     */
    public static void main(String[] args) {
        Workload w = Workload.ARMADA;
        int warmups = 10;
        int reps = 8;
        if (args.length > 0) {
            if (args.length != 8) {
                throw new IllegalArgumentException("expected 8 arguments (nodes cpusPerNode memoryGiBPerNode queues "
                        + "jobsPerQueue memoryGiBPerJob warmups repetitions), got " + args.length);
            }
            int[] a = Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
            w = new Workload(a[0], a[1], a[2], a[3], a[4], a[5]);
            warmups = a[6];
            reps = a[7];
        }
        System.out.printf(Locale.ROOT, "workload: %s; JDK %s; %d warm-ups, %d repetitions%n", w,
                System.getProperty("java.version"), warmups, reps);
        List<Side.Outcome> fairwayFill;
        List<Side.Outcome> yarnFill;
        List<Side.Outcome> fairwayPreempt;
        List<Side.Outcome> yarnPreempt;
        try (FairwaySide f = new FairwaySide(w); YarnSide y = new YarnSide(w)) {
            fairwayFill = measure(f, Side::prepareFill, Side::fill, warmups, reps);
            yarnFill = measure(y, Side::prepareFill, Side::fill, warmups, reps);
            fairwayPreempt = measure(f, Side::preparePreemption, Side::preempt, warmups, reps);
            yarnPreempt = measure(y, Side::preparePreemption, Side::preempt, warmups, reps);
            // on a shared machine the wall times above are the load's: Fairway's own work is its thread's CPU time
            cpu("fill", f.fillCpuMillis.subList(warmups, f.fillCpuMillis.size()));
            cpu("preempt", f.preemptCpuMillis.subList(warmups, f.preemptCpuMillis.size()));
        }
        double fFill = report("fill", "Fairway", fairwayFill, true);
        double yFill = report("fill", "YARN", yarnFill, true);
        double fPre = report("preempt", "Fairway", fairwayPreempt, false);
        double yPre = report("preempt", "YARN", yarnPreempt, false);
        System.out.printf(Locale.ROOT, "ratio fill (Fairway allocations/s over YARN's): %.1fx%n", fFill / yFill);
        System.out.printf(Locale.ROOT, "ratio preempt (YARN median time over Fairway's): %.1fx%n", yPre / fPre);
    }

    /**
     * Measures one step of one side.
     *
     * @param side the side
     * @param prepare the unmeasured preparation
     * @param step the measured step
     * @param warmups unmeasured repetitions
     * @param reps measured repetitions
     * @return the measured outcomes
     */
    static List<Side.Outcome> measure(Side side, Consumer<Side> prepare, Function<Side, Side.Outcome> step, int warmups, int reps) {
        List<Side.Outcome> out = new ArrayList<>(reps);
        for (int i = 0; i < warmups + reps; i++) {
            prepare.accept(side);
            System.gc();
            Side.Outcome o = step.apply(side);
            if (i >= warmups) {
                out.add(o);
            }
        }
        return out;
    }

    private static void cpu(String step, List<Double> millis) {
        List<Double> sorted = new ArrayList<>(millis);
        java.util.Collections.sort(sorted);
        System.out.printf(Locale.ROOT, "%-7s Fairway thread CPU median %.1f ms (%.1f-%.1f) over the measured repetitions%n", step,
                sorted.get(sorted.size() / 2), sorted.get(0), sorted.get(sorted.size() - 1));
    }

    private static double report(String step, String side, List<Side.Outcome> outcomes, boolean perSecond) {
        long[] ns = outcomes.stream().mapToLong(Side.Outcome::nanos).sorted().toArray();
        double median = ns[ns.length / 2] / 1e6;
        Side.Outcome o = outcomes.get(0);
        System.out.printf(Locale.ROOT, "%-7s %-7s median %.1f ms (%.1f-%.1f); %d allocations, %d preemptions, %d cycles,"
                        + " newcomer holds %d%s%n", step, side, median, ns[0] / 1e6, ns[ns.length - 1] / 1e6,
                o.allocations(), o.preemptions(), o.cycles(), o.newcomerHolds(),
                perSecond ? String.format(Locale.ROOT, "; %.0f allocations/s", o.allocations() / (median / 1e3)) : "");
        return perSecond ? o.allocations() / (median / 1e3) : median;
    }
}
