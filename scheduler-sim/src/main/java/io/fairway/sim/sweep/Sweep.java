package io.fairway.sim.sweep;

import io.fairway.api.InvalidSpecException;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every policy on every workload of a sweep, on a small thread pool, and returns one {@link SweepRow} per run in
 * workload order, then policy order, whatever order the runs finish in. Each run is {@link Simulator#run} with the given
 * options and the workload's seed, so a sweep is reproducible: the same workloads, policies and options give the same
 * rows (but for {@link SweepRow#wallSeconds()}) on any number of threads.
 *
 * <pre>{@code
 * List<SweepRow> rows = Sweep.run(workloads, List.of("themis", "tiresias-las", "best-effort-fifo"),
 *         SimulationOptions.DEFAULTS, 2, Sweep.Progress.NONE);
 * }</pre>
 */
public final class Sweep {
    /** A workload is contended when FIFO keeps at least this fraction of its GPUs busy. */
    public static final double CONTENDED_UTILISATION = 0.60;

    private static final Logger LOG = LoggerFactory.getLogger(Sweep.class);

    private Sweep() {
    }

    /** Told how far a sweep has got. Called from the worker threads, one call at a time. */
    @FunctionalInterface
    public interface Progress {
        /** Ignores progress. */
        Progress NONE = (fraction, done, runs, label) -> { };

        /**
         * @param fraction work done over all runs, 0..1 (finished runs plus the finished share of running ones)
         * @param done runs finished
         * @param runs runs in all
         * @param label the run that reported
         */
        void update(double fraction, int done, int runs, String label);
    }

    /**
     * A policy as a sweep runs it.
     *
     * @param label how its rows name it (unique in a sweep), e.g. {@code themis} or {@code themis:f=0.2}
     * @param name the policy's name known to {@link io.fairway.core.Policies}
     * @param parameters the parameters handed to its provider
     */
    public record Policy(String label, String name, Map<String, String> parameters) {
        /** Copies. */
        public Policy {
            InvalidSpecException.requireName("policy", name);
            label = label == null || label.isBlank() ? name : label;
            parameters = Map.copyOf(parameters == null ? Map.of() : parameters);
        }

        /** @param name a policy name @return it without parameters, labelled by its name */
        public static Policy of(String name) {
            return new Policy(name, name, Map.of());
        }
    }

    /**
     * @param policies policy labels
     * @return the FIFO whose utilisation decides contention: {@code best-effort-fifo} when present, else
     *     {@code strict-fifo}, else null
     */
    public static String contentionFifo(List<String> policies) {
        return policies.contains("best-effort-fifo") ? "best-effort-fifo" : policies.contains("strict-fifo") ? "strict-fifo" : null;
    }

    /**
     * @param workloads the workloads
     * @param policies policy names, run without parameters
     * @param options the simulation options; each run uses them with its workload's seed
     * @param threads runs at once, &ge; 1
     * @param progress told the progress
     * @return one row per run, workloads outermost, in the given orders
     */
    public static List<SweepRow> run(List<SweepWorkload> workloads, List<String> policies, SimulationOptions options, int threads,
                                     Progress progress) {
        return runPolicies(workloads, policies.stream().map(Policy::of).toList(), options, threads, progress);
    }

    /**
     * @param workloads the workloads
     * @param policies the policies (labels unique), at least one of them labelled as a FIFO ({@link #contentionFifo})
     * @param options the simulation options; each run uses them with its workload's seed and its policy's parameters
     * @param threads runs at once, &ge; 1
     * @param progress told the progress
     * @return one row per run, workloads outermost, in the given orders
     * @throws InvalidSpecException on no FIFO among the policies, a label used twice or fewer than one thread; what a
     *     run throws
     */
    public static List<SweepRow> runPolicies(List<SweepWorkload> workloads, List<Policy> policies, SimulationOptions options, int threads,
                                             Progress progress) {
        List<String> labels = policies.stream().map(Policy::label).toList();
        InvalidSpecException.check(new java.util.HashSet<>(labels).size() == labels.size(), "policies", labels,
                "each policy of a sweep needs its own label, was %s", labels);
        String fifo = contentionFifo(labels);
        InvalidSpecException.check(fifo != null, "policies", policies,
                "the policies must include best-effort-fifo or strict-fifo: FIFO's utilisation decides which workloads are contended");
        InvalidSpecException.check(threads >= 1, "threads", threads, "threads must be >= 1, was %d", threads);
        int runs = workloads.size() * policies.size();
        Tally tally = new Tally(runs, progress);
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, Math.max(1, runs)), r -> {
            Thread t = new Thread(r, "fairway-sweep");
            t.setDaemon(true);
            return t;
        });
        List<Future<Run>> futures = new ArrayList<>(runs);
        try {
            int index = 0;
            for (SweepWorkload w : workloads) {
                for (Policy p : policies) {
                    int i = index++;
                    String label = w.id() + " " + p.label();
                    futures.add(pool.submit(() -> {
                        long t0 = System.nanoTime();
                        long c0 = cpuNanos();
                        SimulationOptions o = options.withSeed(w.seed()).withPolicyParameters(p.parameters());
                        SimulationResult r = Simulator.run(w.input(), p.name(), o, f -> tally.update(i, f, false, label));
                        double wall = (System.nanoTime() - t0) / 1e9;
                        double cpu = (cpuNanos() - c0) / 1e9;
                        tally.update(i, 1, true, label);
                        LOG.debug("{}: {} in {} s", w.id(), p.label(), wall);
                        AppFairness apps = AppFairness.of(r, appOf(w));
                        return new Run(r.metrics(), gpuHoursLost(r), utilisationUntil(r, lastSubmitSeconds(w)), wall, cpu,
                                apps.maxRho(), apps.avgAppJctSeconds(), maxWaitSeconds(r));
                    }));
                }
            }
            List<Run> results = new ArrayList<>(runs);
            for (Future<Run> f : futures) {
                results.add(f.get());
            }
            return rows(workloads, labels, fifo, results);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("sweep interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Decides again which workloads are contended, by FIFO's utilisation over the makespan (the default rule, what
     * {@link #run} does) or over the arrival span ({@link SweepRow#arrivalUtilisation()}: not diluted by the long tail
     * of a heavy-tailed window's last jobs).
     *
     * @param rows a sweep's rows
     * @param byArrivals true to judge by the arrival-span utilisation, false by the makespan utilisation
     * @return the rows with {@code contended} set by that rule, in the same order
     * @throws InvalidSpecException when a workload has no FIFO run
     */
    public static List<SweepRow> withContention(List<SweepRow> rows, boolean byArrivals) {
        Map<String, String> policiesOf = new java.util.HashMap<>();
        Map<String, Boolean> contended = new java.util.HashMap<>();
        Map<String, List<String>> labels = new java.util.LinkedHashMap<>();
        for (SweepRow r : rows) {
            labels.computeIfAbsent(r.workload(), k -> new ArrayList<>()).add(r.policy());
        }
        for (Map.Entry<String, List<String>> e : labels.entrySet()) {
            String fifo = contentionFifo(e.getValue());
            InvalidSpecException.check(fifo != null, "rows", e.getKey(), "workload %s has no best-effort-fifo or strict-fifo run", e.getKey());
            policiesOf.put(e.getKey(), fifo);
        }
        for (SweepRow r : rows) {
            if (r.policy().equals(policiesOf.get(r.workload()))) {
                double u = byArrivals ? r.arrivalUtilisation() : r.utilisation();
                contended.put(r.workload(), u >= CONTENDED_UTILISATION);
            }
        }
        List<SweepRow> out = new ArrayList<>(rows.size());
        for (SweepRow r : rows) {
            out.add(r.withContended(contended.get(r.workload())));
        }
        return out;
    }

    /** The progress of every run, summed as the runs report it (one update at a time). */
    private static final class Tally {
        private final double[] fraction;
        private final Progress progress;
        private double sum;
        private int done;

        Tally(int runs, Progress progress) {
            this.fraction = new double[runs];
            this.progress = progress;
        }

        synchronized void update(int run, double f, boolean finished, String label) {
            sum += f - fraction[run];
            fraction[run] = f;
            if (finished) {
                done++;
            }
            double all = done == fraction.length ? 1 : Math.min(1, sum / fraction.length); // no rounding short of 1 at the end
            progress.update(all, done, fraction.length, label);
        }
    }

    /** What one run produced. */
    private record Run(PolicyMetrics metrics, double gpuHoursLost, double arrivalUtilisation, double wallSeconds, double cpuSeconds,
                       double appMaxRho, double appAvgJctSeconds, double maxWaitSeconds) {
    }

    /**
     * @param r a run
     * @return the longest wait of any job from its submission to its first start; a job that never started counts from
     *     its submission to the run's last completion (at least)
     */
    static double maxWaitSeconds(SimulationResult r) {
        double end = 0;
        for (io.fairway.sim.JobOutcome j : r.jobs()) {
            if (!Double.isNaN(j.completionSeconds())) {
                end = Math.max(end, j.completionSeconds());
            }
        }
        double max = 0;
        for (io.fairway.sim.JobOutcome j : r.jobs()) {
            double w = Double.isNaN(j.firstStartSeconds()) ? end - j.submitSeconds() : j.queueingDelaySeconds();
            if (!Double.isNaN(w)) {
                max = Math.max(max, w);
            }
        }
        return max;
    }

    /** @return the app (job set) of each job of the workload, by job id */
    private static Map<String, String> appOf(SweepWorkload w) {
        Map<String, String> m = new java.util.HashMap<>();
        for (io.fairway.sim.SimJob j : w.input().jobs()) {
            m.put(j.id(), j.spec().jobSet());
        }
        return m;
    }

    private static List<SweepRow> rows(List<SweepWorkload> workloads, List<String> policies, String fifo, List<Run> results) {
        List<SweepRow> rows = new ArrayList<>(results.size());
        int fifoIndex = policies.indexOf(fifo);
        for (int w = 0; w < workloads.size(); w++) {
            SweepWorkload wl = workloads.get(w);
            boolean contended = results.get(w * policies.size() + fifoIndex).metrics().gpuUtilization() >= CONTENDED_UTILISATION;
            for (int p = 0; p < policies.size(); p++) {
                Run r = results.get(w * policies.size() + p);
                PolicyMetrics m = r.metrics();
                rows.add(new SweepRow(wl.id(), wl.kind(), wl.seed(), wl.requestedLoad(), wl.load(), wl.checkpoints(), wl.gpus(), m.jobs(),
                        policies.get(p), contended, m.completed(), m.maxRho(), m.meanRho(), m.avgJctSeconds(), m.p95JctSeconds(),
                        m.makespanSeconds(), r.gpuHoursLost(), m.gpuUtilization(), r.arrivalUtilisation(), m.preemptions(), r.wallSeconds(),
                        r.cpuSeconds(), r.appMaxRho(), r.appAvgJctSeconds(), r.maxWaitSeconds()));
            }
        }
        return rows;
    }

    /** @return the CPU time of the current thread, or the wall clock where the JVM cannot measure it */
    private static long cpuNanos() {
        ThreadMXBean b = ManagementFactory.getThreadMXBean();
        return b.isCurrentThreadCpuTimeSupported() ? b.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private static double lastSubmitSeconds(SweepWorkload w) {
        long last = 0;
        for (io.fairway.sim.SimJob j : w.input().jobs()) {
            last = Math.max(last, j.submitMillis());
        }
        return last / 1000.0;
    }

    /**
     * @param r a run (its timeline: GPUs held after each round, a step function)
     * @param untilSeconds the end of the period, from time 0
     * @return GPU-seconds held over [0, untilSeconds] ÷ (cluster GPUs × untilSeconds); NaN for an empty period
     */
    static double utilisationUntil(SimulationResult r, double untilSeconds) {
        if (!(untilSeconds > 0) || r.totalGpus() <= 0) {
            return Double.NaN;
        }
        double end = untilSeconds * 1000;
        List<io.fairway.sim.TimelinePoint> t = r.timeline();
        double area = 0;
        for (int i = 0; i < t.size(); i++) {
            double from = Math.max(0, t.get(i).timeMillis());
            double to = Math.min(end, i + 1 < t.size() ? t.get(i + 1).timeMillis() : end);
            if (to > from) {
                area += t.get(i).busyGpus() * (to - from);
            }
        }
        return area / (r.totalGpus() * end);
    }

    /** @param r a run @return Σ over jobs of the progress each lost to preemptions × its GPUs, in GPU-hours */
    static double gpuHoursLost(SimulationResult r) {
        double s = 0;
        for (JobOutcome j : r.jobs()) {
            s += j.lostWorkSeconds() * j.gpus();
        }
        return s / 3600;
    }
}
