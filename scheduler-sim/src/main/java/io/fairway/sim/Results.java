package io.fairway.sim;

import java.util.ArrayList;
import java.util.List;

/** Turns a finished run's bookkeeping into job outcomes and metrics. */
final class Results {
    private Results() {
    }

    static SimulationResult of(String policy, SimulationInput input, List<JobTrack> order, List<SkippedJob> skipped,
                               List<TimelinePoint> timeline, long totalGpus, List<EventRecord> events, List<ActuationRecord> actuations,
                               List<long[]> presentSteps, double busyGpuMillis, long endMillis, int preemptions, long rounds,
                               long roundNanos) {
        PresentJobs presentJobs = new PresentJobs(presentSteps);
        io.fairway.api.model.Resources capacity = input.cluster().capacity();
        List<JobOutcome> outcomes = new ArrayList<>(order.size());
        long firstSubmit = Long.MAX_VALUE;
        double lost = 0;
        for (JobTrack t : order) {
            firstSubmit = Math.min(firstSubmit, t.job.submitMillis());
            outcomes.add(outcome(t, totalGpus, capacity, presentJobs));
            lost += t.lost / 1000.0;
        }
        if (order.isEmpty()) {
            firstSubmit = 0;
        }
        double[] jct = values(outcomes, true, 0);
        double[] delay = values(outcomes, false, 1);
        double[] rho = values(outcomes, true, 2);
        int completed = jct.length;
        double makespan = Math.max(0, endMillis - firstSubmit) / 1000.0;
        double util = makespan > 0 && totalGpus > 0 ? busyGpuMillis / 1000.0 / (totalGpus * makespan) : 0;
        PolicyMetrics m = new PolicyMetrics(policy, order.size(), skipped.size(), completed,
                Fairness.mean(jct), Fairness.percentile(jct, 50), Fairness.percentile(jct, 95), Fairness.percentile(jct, 99),
                Fairness.mean(delay), Fairness.percentile(delay, 95), makespan, util,
                Fairness.max(rho), Fairness.mean(rho), Fairness.jainIndex(rho), preemptions, lost, rounds,
                rounds == 0 ? 0 : roundNanos / 1e6 / rounds);
        return new SimulationResult(policy, m, outcomes, skipped, timeline, totalGpus, events, actuations);
    }

    private static JobOutcome outcome(JobTrack t, long totalGpus, io.fairway.api.model.Resources capacity, PresentJobs presentJobs) {
        SimJob j = t.job;
        double submit = j.submitMillis() / 1000.0;
        double start = t.firstStart < 0 ? Double.NaN : t.firstStart / 1000.0;
        boolean done = t.completion >= 0 && !t.cancelled;
        double end = done ? t.completion / 1000.0 : Double.NaN;
        double jct = done ? end - submit : Double.NaN;
        double n = done ? presentJobs.average(j.submitMillis(), t.completion) : Double.NaN;
        double demand = j.gpus() > 0 && totalGpus > 0 ? (double) j.gpus() / totalGpus
                : Fairness.dominantShare(j.spec().totalResources(), capacity);
        double iso = done ? Fairness.isolatedSeconds(j.durationSeconds(), demand, n) : Double.NaN;
        double rho = done ? Fairness.rho(jct, iso) : Double.NaN;
        return new JobOutcome(j.id(), j.spec().localQueueKey(), j.gpus(), submit, j.durationSeconds(), start, end, jct,
                Double.isNaN(start) ? Double.NaN : start - submit, n, iso, rho, t.preemptions, t.lost / 1000.0, t.cancelled);
    }

    /** kind 0: JCT, 1: queueing delay, 2: ρ. */
    private static double[] values(List<JobOutcome> outcomes, boolean completedOnly, int kind) {
        List<Double> v = new ArrayList<>();
        for (JobOutcome o : outcomes) {
            if (completedOnly && !o.completed()) {
                continue;
            }
            double x = kind == 0 ? o.jctSeconds() : kind == 1 ? o.queueingDelaySeconds() : o.rho();
            if (!Double.isNaN(x)) {
                v.add(x);
            }
        }
        double[] a = new double[v.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = v.get(i);
        }
        return a;
    }

    /** The number of jobs present over time, a step function, with its integral for averages over intervals. */
    static final class PresentJobs {
        private final long[] times;
        private final long[] counts;
        private final double[] cumulative;

        PresentJobs(List<long[]> steps) {
            int n = steps.size();
            times = new long[n];
            counts = new long[n];
            cumulative = new double[n];
            for (int i = 0; i < n; i++) {
                times[i] = steps.get(i)[0];
                counts[i] = steps.get(i)[1];
                if (i > 0) {
                    cumulative[i] = cumulative[i - 1] + (double) counts[i - 1] * (times[i] - times[i - 1]);
                }
            }
        }

        private int stepAt(long t) {
            int lo = 0;
            int hi = times.length - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (times[mid] <= t) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        private double integral(long t) {
            int i = stepAt(t);
            return cumulative[i] + (double) counts[i] * (t - times[i]);
        }

        /** @return the time-averaged count over [from, to], or the count at {@code from} for an empty interval */
        double average(long from, long to) {
            if (times.length == 0) {
                return 1;
            }
            if (to <= from) {
                return counts[stepAt(from)];
            }
            return (integral(to) - integral(from)) / (to - from);
        }
    }
}
