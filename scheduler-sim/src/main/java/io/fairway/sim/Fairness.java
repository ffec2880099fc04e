package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import org.apache.commons.math3.stat.descriptive.rank.Percentile;

/**
 * Finish-time fairness (Themis) and the statistics the simulator reports.
 *
 * <p>ρ = JCT ÷ T_isolated. T_isolated is the job's run time on a private 1/N share of the cluster, N being the
 * time-averaged number of jobs present (pending or running, the job included) during its lifetime: with
 * share = totalGpus ÷ N, T_isolated = duration when the job's GPU demand ≤ share, else duration × demand ÷
 * share. ρ ≤ 1 means the job did no worse than on its own share (Themis' sharing incentive). A job without GPUs
 * (or a cluster without GPUs) uses its dominant share instead: the largest fraction of the cluster's capacity
 * of any resource it asks for, against a share of 1/N.
 *
 * <pre>{@code
 * double iso = Fairness.isolatedSeconds(100, 16, 64, 8);   // share 8 GPUs < 16 → 200 s
 * double rho = Fairness.rho(300, iso);                      // 1.5
 * double jain = Fairness.jainIndex(new double[] {1, 1, 2}); // 16 / 18 ≈ 0.889
 * }</pre>
 */
public final class Fairness {
    private Fairness() {
    }

    /**
     * @param durationSeconds the job's ideal run time at its requested size
     * @param gpuDemand the GPUs it asks for
     * @param totalGpus the cluster's GPUs
     * @param jobsPresent N, the average number of jobs present during its lifetime (values below 1 count as 1)
     * @return its run time on a private 1/N share of the cluster
     */
    public static double isolatedSeconds(double durationSeconds, long gpuDemand, long totalGpus, double jobsPresent) {
        InvalidSpecException.check(totalGpus > 0, "totalGpus", totalGpus, "totalGpus must be > 0, was %d", totalGpus);
        return isolatedSeconds(durationSeconds, (double) gpuDemand / totalGpus, jobsPresent);
    }

    /**
     * @param durationSeconds the job's ideal run time at its requested size
     * @param demandFraction the fraction of the cluster it asks for (GPUs ÷ cluster GPUs, or its dominant share)
     * @param jobsPresent N, the average number of jobs present during its lifetime (values below 1 count as 1)
     * @return its run time on a private 1/N share of the cluster
     */
    public static double isolatedSeconds(double durationSeconds, double demandFraction, double jobsPresent) {
        double share = 1.0 / Math.max(1.0, jobsPresent);
        return demandFraction <= share ? durationSeconds : durationSeconds * demandFraction / share;
    }

    /**
     * @param demand what a job asks for at full size
     * @param capacity the cluster's capacity
     * @return the largest fraction of any resource's capacity the job asks for (resources the cluster lacks are ignored)
     */
    public static double dominantShare(io.fairway.api.model.Resources demand, io.fairway.api.model.Resources capacity) {
        double max = 0;
        for (java.util.Map.Entry<String, Long> e : demand.asMap().entrySet()) {
            long cap = capacity.get(e.getKey());
            if (cap > 0) {
                max = Math.max(max, (double) e.getValue() / cap);
            }
        }
        return max;
    }

    /**
     * @param jctSeconds the job's completion time minus its submission time
     * @param isolatedSeconds its isolated run time
     * @return ρ = jct ÷ isolated
     */
    public static double rho(double jctSeconds, double isolatedSeconds) {
        return jctSeconds / isolatedSeconds;
    }

    /**
     * Jain's fairness index: (Σx)² ÷ (n·Σx²); 1 when all values are equal, 1/n when one value dominates.
     *
     * @param values the values (e.g. ρ of every job)
     * @return the index, NaN for no values, 1 when all values are zero
     */
    public static double jainIndex(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        double sq = 0;
        for (double v : values) {
            sum += v;
            sq += v * v;
        }
        return sq == 0 ? 1.0 : sum * sum / (values.length * sq);
    }

    /**
     * A plain sum over the count, by hand: commons-math3's mean adds a correction term, whose last bits would change
     * recorded results.
     *
     * @param values values
     * @return their mean, NaN when empty
     */
    public static double mean(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double s = 0;
        for (double v : values) {
            s += v;
        }
        return s / values.length;
    }

    /**
     * Nearest-rank percentile: the smallest value with at least p% of the values at or below it.
     *
     * @param values values (any order; not modified)
     * @param p the percentile, in (0, 100]
     * @return the percentile, NaN when empty
     */
    public static double percentile(double[] values, double p) {
        InvalidSpecException.check(p > 0 && p <= 100, "percentile", p, "percentile must be in (0, 100], was %s", p);
        if (values.length == 0) {
            return Double.NaN;
        }
        // commons-math3's R_1 estimate is the nearest rank: the value at rank ceil(p/100 x n), no interpolation.
        return new Percentile(p).withEstimationType(Percentile.EstimationType.R_1).evaluate(values);
    }

    /**
     * @param values values
     * @return the largest, NaN when empty
     */
    public static double max(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double m = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            m = Math.max(m, v);
        }
        return m;
    }
}
