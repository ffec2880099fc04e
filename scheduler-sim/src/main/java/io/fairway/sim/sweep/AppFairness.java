package io.fairway.sim.sweep;

import io.fairway.sim.Fairness;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.SimulationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finish-time fairness per <em>app</em> (Themis' measure): an app (a job set; a job without one is an app of its own)
 * finishes with its last job; ρ_app = (its last completion − its first submission) ÷ T_id, with T_id = max(its longest
 * job, Σ duration × GPUs ÷ min(share, its GPUs)), share = cluster GPUs ÷ N and N the number of apps present,
 * time-averaged over the app's life. Apps with a job that never finished are left out (and counted).
 *
 * <pre>{@code
 * AppFairness a = AppFairness.of(result, appOf);   // appOf: job id -> app
 * double worst = a.maxRho();
 * }</pre>
 *
 * @param rho the ρ of every finished app, in app-name order
 * @param byApp the same by app name
 * @param maxRho the largest (NaN when no app finished)
 * @param meanRho the mean
 * @param jain Jain's index of the app ρ
 * @param avgAppJctSeconds mean over finished apps of last completion − first submission
 * @param unfinished apps with a job that never finished
 * @param worst the worst app, described (name, submitted, done, ideal, GPUs), or empty
 */
public record AppFairness(double[] rho, Map<String, Double> byApp, double maxRho, double meanRho, double jain, double avgAppJctSeconds,
                          int unfinished, String worst) {
    /**
     * @param r a run
     * @param appOf the app of each job, by job id (jobs missing from it are apps of their own)
     * @return the app-level fairness of the run
     */
    public static AppFairness of(SimulationResult r, Map<String, String> appOf) {
        Map<String, double[]> span = new TreeMap<>(); // app -> {start, end, longest, gpuWork, demand, unfinished}
        for (JobOutcome j : r.jobs()) {
            String app = appOf.getOrDefault(j.id(), j.id());
            double[] s = span.computeIfAbsent(app, k -> new double[] {Double.MAX_VALUE, 0, 0, 0, 0, 0});
            s[0] = Math.min(s[0], j.submitSeconds());
            if (j.completed()) {
                s[1] = Math.max(s[1], j.completionSeconds());
            } else {
                s[5] = 1;
            }
            s[2] = Math.max(s[2], j.durationSeconds());
            s[3] += j.durationSeconds() * j.gpus();
            s[4] += j.gpus();
        }
        // apps present over time: +1 at start, -1 at end
        TreeMap<Double, Integer> delta = new TreeMap<>();
        int unfinished = 0;
        for (double[] s : span.values()) {
            if (s[5] == 0) {
                delta.merge(s[0], 1, Integer::sum);
                delta.merge(s[1], -1, Integer::sum);
            } else {
                unfinished++;
            }
        }
        List<double[]> steps = new ArrayList<>(); // {time, count from then on}
        int c = 0;
        for (Map.Entry<Double, Integer> e : delta.entrySet()) {
            c += e.getValue();
            steps.add(new double[] {e.getKey(), c});
        }
        List<Double> rhos = new ArrayList<>();
        Map<String, Double> byName = new TreeMap<>();
        double jctSum = 0;
        String worst = "";
        double worstRho = -1;
        for (Map.Entry<String, double[]> e : span.entrySet()) {
            double[] s = e.getValue();
            if (s[5] != 0) {
                continue;
            }
            double n = averagePresent(steps, s[0], s[1]);
            double share = r.totalGpus() / Math.max(1.0, n);
            double ideal = Math.max(s[2], s[3] / Math.min(share, s[4]));
            double rho = (s[1] - s[0]) / ideal;
            rhos.add(rho);
            byName.put(e.getKey(), rho);
            jctSum += s[1] - s[0];
            if (rho > worstRho) {
                worstRho = rho;
                worst = String.format(Locale.ROOT, "%s (submitted %.0f s, done %.0f s, ideal %.0f s, %.0f GPUs)", e.getKey(), s[0], s[1], ideal, s[4]);
            }
        }
        double[] rho = rhos.stream().mapToDouble(Double::doubleValue).toArray();
        return new AppFairness(rho, byName, Fairness.max(rho), Fairness.mean(rho), Fairness.jainIndex(rho),
                rho.length == 0 ? Double.NaN : jctSum / rho.length, unfinished, worst);
    }

    /** @return the time-averaged count of apps present over [from, to], at least 1 */
    private static double averagePresent(List<double[]> steps, double from, double to) {
        if (to <= from) {
            return 1;
        }
        double area = 0;
        int i = firstStepAfter(steps, from);
        for (i = Math.max(0, i - 1); i < steps.size(); i++) {
            double a = Math.max(from, steps.get(i)[0]);
            if (a >= to) {
                break;
            }
            double b = Math.min(to, i + 1 < steps.size() ? steps.get(i + 1)[0] : to);
            if (b > a) {
                area += (b - a) * steps.get(i)[1];
            }
        }
        return Math.max(1, area / (to - from));
    }

    /** @return the index of the first step starting after {@code t} (binary search; steps are sorted by time) */
    private static int firstStepAfter(List<double[]> steps, double t) {
        int lo = 0;
        int hi = steps.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (steps.get(mid)[0] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
