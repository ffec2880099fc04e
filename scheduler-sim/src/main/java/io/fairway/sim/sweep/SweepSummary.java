package io.fairway.sim.sweep;

import io.fairway.api.InvalidSpecException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A sweep's summary: how one policy (the subject, {@code themis} by default) compares with every other policy of the
 * sweep (the baselines), over the contended workloads, and the verdicts on the targets. The same summary is made per
 * job (the rows' {@code maxRho}, {@code avgJctSeconds}) and per app ({@link #perApp}: the rows' app-level figures).
 *
 * <p>Per workload, a policy's max ρ and avg JCT are taken as infinite when some of its jobs did not finish (a ρ over
 * the finished jobs only would flatter it). A ratio is subject ÷ baseline; "worst" is the largest ratio (the subject's
 * worst showing); medians of an even count average the two middle values. The <em>lowest baseline</em> of a workload is
 * the baseline with the lowest max ρ there, the <em>best baseline</em> the one with the lowest avg JCT.
 *
 * <p>Targets, each over the contended workloads: the subject's max ρ ≤ 1.25 × the lowest baseline's on every one and
 * ≤ 1.0 × on at least 95 %; its median max ρ ratio against each FIFO ({@code strict-fifo}, {@code best-effort-fifo})
 * and {@code tiresias-las} ≤ 1 ÷ 2.25; its avg JCT ≤ 1.05 × the best baseline's on the median workload and ≤ 1.20 × on
 * the worst; and no starvation: no job waits longer for its first start than the longest wait under
 * {@value #ARRIVAL_ORDER} on the same workload.
 *
 * @param subject the policy judged
 * @param workloads workloads in the sweep
 * @param contended contended workloads (FIFO's utilisation ≥ 60 %)
 * @param baselines the subject against each baseline, over the contended workloads
 * @param best the subject against the lowest (max ρ) and best (avg JCT) baseline of each contended workload
 * @param comparisons per workload (contended or not), the subject against its lowest and best baseline
 * @param targets the verdict on each target
 */
public record SweepSummary(String subject, int workloads, int contended, List<Baseline> baselines, Best best, List<Comparison> comparisons,
                           List<Target> targets) {
    /** Ratios at or below this count as ≤ 1.0 ×: ties are not misses. */
    private static final double TIE = 1e-9;
    /** The subject's avg JCT over the best baseline's on the median contended workload, at most. */
    public static final double MEDIAN_JCT_RATIO = 1.05;
    /** The subject's avg JCT over the best baseline's on the worst contended workload, at most. */
    public static final double WORST_JCT_RATIO = 1.20;
    /** How much lower than FIFO's and LAS's the subject's median max ρ must be. */
    public static final double BELOW_FIFO_AND_LAS = 2.25;
    /** The baselines the "below FIFO and LAS" target names. */
    public static final List<String> FIFO_AND_LAS = List.of("strict-fifo", "best-effort-fifo", "tiresias-las");

    /** Copies. */
    public SweepSummary {
        baselines = List.copyOf(baselines);
        comparisons = List.copyOf(comparisons);
        targets = List.copyOf(targets);
    }

    /**
     * The subject against one baseline over the contended workloads where both ratios exist.
     *
     * @param policy the baseline
     * @param runs contended workloads compared
     * @param medianMaxRhoRatio median of subject max ρ ÷ baseline max ρ
     * @param worstMaxRhoRatio the largest such ratio
     * @param worstMaxRhoWorkload where it was
     * @param medianAvgJctRatio median of subject avg JCT ÷ baseline avg JCT
     * @param worstAvgJctRatio the largest such ratio
     */
    public record Baseline(String policy, int runs, double medianMaxRhoRatio, double worstMaxRhoRatio, String worstMaxRhoWorkload,
                           double medianAvgJctRatio, double worstAvgJctRatio) {
    }

    /**
     * The subject against each contended workload's lowest-max-ρ and lowest-avg-JCT baseline.
     *
     * @param runs contended workloads
     * @param atMostEqual workloads where the subject's max ρ ≤ 1.0 × the lowest baseline's
     * @param atMost125 workloads where it is ≤ 1.25 ×
     * @param medianMaxRhoRatio median of subject max ρ ÷ lowest baseline max ρ
     * @param worstMaxRhoRatio the largest such ratio
     * @param worstMaxRhoWorkload where it was
     * @param medianAvgJctRatio median of subject avg JCT ÷ best baseline avg JCT
     * @param worstAvgJctRatio the largest such ratio
     * @param worstAvgJctWorkload where it was
     */
    public record Best(int runs, int atMostEqual, int atMost125, double medianMaxRhoRatio, double worstMaxRhoRatio, String worstMaxRhoWorkload,
                       double medianAvgJctRatio, double worstAvgJctRatio, String worstAvgJctWorkload) {
    }

    /**
     * One workload: the subject against its lowest (max ρ) and best (avg JCT) baseline.
     *
     * @param workload the workload's id
     * @param contended whether it is contended
     * @param subjectMaxRho the subject's max ρ (infinite when some job did not finish)
     * @param lowestBaseline the baseline with the lowest max ρ
     * @param lowestBaselineMaxRho its max ρ
     * @param maxRhoRatio subject ÷ lowest baseline
     * @param subjectAvgJctSeconds the subject's avg JCT (infinite when some job did not finish)
     * @param bestBaseline the baseline with the lowest avg JCT
     * @param bestBaselineAvgJctSeconds its avg JCT
     * @param avgJctRatio subject ÷ best baseline
     */
    public record Comparison(String workload, boolean contended, double subjectMaxRho, String lowestBaseline, double lowestBaselineMaxRho,
                             double maxRhoRatio, double subjectAvgJctSeconds, String bestBaseline, double bestBaselineAvgJctSeconds,
                             double avgJctRatio) {
    }

    /**
     * @param target what is aimed at
     * @param met true when met, false when missed, null when it cannot be judged (no contended workload, or a baseline it
     *     names was not run)
     * @param detail the numbers behind the verdict
     */
    public record Target(String target, Boolean met, String detail) {
        /** @return {@code met}, {@code missed} or {@code not judged} */
        public String verdict() {
            return met == null ? "not judged" : met ? "met" : "missed";
        }
    }

    /**
     * The summary per app: the same comparisons and targets on each row's app-level max ρ and avg app JCT
     * ({@link SweepRow#perApp()}).
     *
     * @param rows the sweep's rows
     * @param subject the policy to judge
     * @return the summary per app, or null when some row has no app-level figures (rows of an older sweep)
     * @throws InvalidSpecException when the subject or any baseline is missing from the rows
     */
    public static SweepSummary perApp(List<SweepRow> rows, String subject) {
        for (SweepRow r : rows) {
            if (r.allCompleted() && (Double.isNaN(r.appMaxRho()) || Double.isNaN(r.appAvgJctSeconds()))) {
                return null;
            }
        }
        return of(rows.stream().map(SweepRow::perApp).toList(), subject);
    }

    /**
     * @param rows the sweep's rows
     * @param subject the policy to judge
     * @return the summary
     * @throws InvalidSpecException when the subject or any baseline is missing from the rows
     */
    public static SweepSummary of(List<SweepRow> rows, String subject) {
        Map<String, Map<String, SweepRow>> byWorkload = new LinkedHashMap<>();
        List<String> policies = new ArrayList<>();
        for (SweepRow r : rows) {
            byWorkload.computeIfAbsent(r.workload(), k -> new LinkedHashMap<>()).put(r.policy(), r);
            if (!policies.contains(r.policy())) {
                policies.add(r.policy());
            }
        }
        InvalidSpecException.check(policies.contains(subject), "subject", subject, "the subject %s is not among the policies run: %s",
                subject, policies);
        List<String> baselines = new ArrayList<>(policies);
        baselines.remove(subject);
        InvalidSpecException.check(!baselines.isEmpty(), "policies", policies, "a summary needs at least one policy besides %s", subject);

        List<Comparison> comparisons = new ArrayList<>();
        for (Map.Entry<String, Map<String, SweepRow>> e : byWorkload.entrySet()) {
            comparisons.add(compare(e.getKey(), e.getValue(), subject, baselines));
        }
        List<Comparison> contended = comparisons.stream().filter(Comparison::contended).toList();

        List<Baseline> perBaseline = new ArrayList<>();
        for (String b : baselines) {
            perBaseline.add(baseline(b, subject, contended, byWorkload));
        }

        Best best = best(contended);
        List<Target> targets = new ArrayList<>(targets(subject, perBaseline, best));
        targets.add(starvation(subject, byWorkload, contended));
        return new SweepSummary(subject, comparisons.size(), contended.size(), perBaseline, best, comparisons, targets);
    }

    /** One workload's runs: the subject against the baseline of lowest max ρ and the one of lowest average JCT. */
    private static Comparison compare(String workload, Map<String, SweepRow> runs, String subject, List<String> baselines) {
        SweepRow s = runs.get(subject);
        InvalidSpecException.check(s != null, "rows", workload, "workload %s has no run of %s", workload, subject);
        String lowest = null;
        String bestJct = null;
        for (String b : baselines) {
            SweepRow r = runs.get(b);
            InvalidSpecException.check(r != null, "rows", workload, "workload %s has no run of %s", workload, b);
            if (lowest == null || maxRho(r) < maxRho(runs.get(lowest))) {
                lowest = b;
            }
            if (bestJct == null || avgJct(r) < avgJct(runs.get(bestJct))) {
                bestJct = b;
            }
        }
        return new Comparison(workload, s.contended(), maxRho(s), lowest, maxRho(runs.get(lowest)),
                ratio(maxRho(s), maxRho(runs.get(lowest))), avgJct(s), bestJct, avgJct(runs.get(bestJct)),
                ratio(avgJct(s), avgJct(runs.get(bestJct))));
    }

    /** The subject against one baseline over the contended workloads: medians and worst of the max-ρ and JCT ratios. */
    private static Baseline baseline(String b, String subject, List<Comparison> contended, Map<String, Map<String, SweepRow>> byWorkload) {
        List<Double> rho = new ArrayList<>();
        List<String> where = new ArrayList<>();
        List<Double> jct = new ArrayList<>();
        for (Comparison c : contended) {
            Map<String, SweepRow> runs = byWorkload.get(c.workload());
            double r = ratio(maxRho(runs.get(subject)), maxRho(runs.get(b)));
            if (!Double.isNaN(r)) {
                rho.add(r);
                where.add(c.workload());
            }
            double j = ratio(avgJct(runs.get(subject)), avgJct(runs.get(b)));
            if (!Double.isNaN(j)) {
                jct.add(j);
            }
        }
        return new Baseline(b, rho.size(), median(rho), worst(rho), worstAt(rho, where), median(jct), worst(jct));
    }

    /** The subject against the best baseline of each contended workload. */
    private static Best best(List<Comparison> contended) {
        List<Double> rho = new ArrayList<>();
        List<String> rhoWhere = new ArrayList<>();
        List<Double> jct = new ArrayList<>();
        List<String> jctWhere = new ArrayList<>();
        int equal = 0;
        int within = 0;
        for (Comparison c : contended) {
            if (c.maxRhoRatio() <= 1 + TIE) {
                equal++;
            }
            if (c.maxRhoRatio() <= 1.25 + TIE) {
                within++;
            }
            if (!Double.isNaN(c.maxRhoRatio())) {
                rho.add(c.maxRhoRatio());
                rhoWhere.add(c.workload());
            }
            if (!Double.isNaN(c.avgJctRatio())) {
                jct.add(c.avgJctRatio());
                jctWhere.add(c.workload());
            }
        }
        return new Best(contended.size(), equal, within, median(rho), worst(rho), worstAt(rho, rhoWhere), median(jct), worst(jct),
                worstAt(jct, jctWhere));
    }

    /** The baseline whose longest wait bounds the subject's: it starts jobs in arrival order. */
    public static final String ARRIVAL_ORDER = "strict-fifo";

    /**
     * No starvation: on every contended run, no job of the subject waits longer for its first start than the longest
     * wait under {@value #ARRIVAL_ORDER}, which starts jobs in arrival order (a job there waits only for the work
     * submitted before it). Not judged when that baseline was not run or rows carry no waits (older sweeps).
     */
    private static Target starvation(String subject, Map<String, Map<String, SweepRow>> byWorkload, List<Comparison> contended) {
        String name = "no starvation: on every contended run, no job of " + subject + " waits longer for its first start than the longest wait under "
                + ARRIVAL_ORDER;
        if (contended.isEmpty()) {
            return new Target(name, null, "no contended workload");
        }
        int within = 0;
        double worst = Double.NaN;
        String worstAt = "";
        for (Comparison c : contended) {
            Map<String, SweepRow> runs = byWorkload.get(c.workload());
            SweepRow fifo = runs.get(ARRIVAL_ORDER);
            if (fifo == null) {
                return new Target(name, null, ARRIVAL_ORDER + " was not run");
            }
            SweepRow s = runs.get(subject);
            if (Double.isNaN(s.maxWaitSeconds()) || Double.isNaN(fifo.maxWaitSeconds())) {
                return new Target(name, null, "rows without waits (an older sweep)");
            }
            double r = s.maxWaitSeconds() / Math.max(1e-9, fifo.maxWaitSeconds());
            if (s.maxWaitSeconds() <= fifo.maxWaitSeconds() + TIE) {
                within++;
            }
            if (Double.isNaN(worst) || r > worst) {
                worst = r;
                worstAt = String.format(Locale.ROOT, "%s: %.2f h against %.2f h", c.workload(), s.maxWaitSeconds() / 3600,
                        fifo.maxWaitSeconds() / 3600);
            }
        }
        return new Target(name, within == contended.size(), String.format(Locale.ROOT, "%d of %d contended runs; worst %s× (%s)", within,
                contended.size(), num(worst), worstAt));
    }

    private static List<Target> targets(String subject, List<Baseline> baselines, Best best) {
        List<Target> t = new ArrayList<>();
        int n = best.runs();
        String none = "no contended workload";
        t.add(new Target("on every contended run, " + subject + " max ρ ≤ 1.25 × the lowest baseline's", n == 0 ? null : best.atMost125() == n,
                n == 0 ? none : String.format(Locale.ROOT, "%d of %d contended runs; worst %s× (%s)", best.atMost125(), n,
                        num(best.worstMaxRhoRatio()), best.worstMaxRhoWorkload())));
        t.add(new Target("on ≥ 95 % of contended runs, " + subject + " max ρ ≤ 1.0 × the lowest baseline's",
                n == 0 ? null : best.atMostEqual() >= 0.95 * n,
                n == 0 ? none : String.format(Locale.ROOT, "%d of %d contended runs (%.0f %%); median %s×", best.atMostEqual(), n,
                        100.0 * best.atMostEqual() / n, num(best.medianMaxRhoRatio()))));
        for (String b : FIFO_AND_LAS) {
            Baseline bl = baselines.stream().filter(x -> x.policy().equals(b)).findFirst().orElse(null);
            String name = "median over contended runs, " + subject + " max ρ ≥ " + BELOW_FIFO_AND_LAS + "× below " + b + "'s";
            if (bl == null) {
                t.add(new Target(name, null, b + " was not run"));
            } else if (bl.runs() == 0) {
                t.add(new Target(name, null, none));
            } else {
                t.add(new Target(name, bl.medianMaxRhoRatio() <= 1 / BELOW_FIFO_AND_LAS + TIE, String.format(Locale.ROOT,
                        "median ratio %s (%s× below), need ≤ %.3f; worst %s× (%s)", num(bl.medianMaxRhoRatio()),
                        num(1 / bl.medianMaxRhoRatio()), 1 / BELOW_FIFO_AND_LAS, num(bl.worstMaxRhoRatio()), bl.worstMaxRhoWorkload())));
            }
        }
        t.add(new Target("avg JCT within 5 % of the best baseline's on the median contended run", n == 0 ? null
                : best.medianAvgJctRatio() <= MEDIAN_JCT_RATIO + TIE, n == 0 ? none
                : String.format(Locale.ROOT, "median ratio %s×", num(best.medianAvgJctRatio()))));
        t.add(new Target("avg JCT within 20 % of the best baseline's on the worst contended run", n == 0 ? null
                : best.worstAvgJctRatio() <= WORST_JCT_RATIO + TIE, n == 0 ? none
                : String.format(Locale.ROOT, "worst ratio %s× (%s)", num(best.worstAvgJctRatio()), best.worstAvgJctWorkload())));
        return t;
    }

    /** @param r a run @return its max ρ, infinite when some job did not finish */
    static double maxRho(SweepRow r) {
        return r.allCompleted() ? r.maxRho() : Double.POSITIVE_INFINITY;
    }

    /** @param r a run @return its avg JCT, infinite when some job did not finish */
    static double avgJct(SweepRow r) {
        return r.allCompleted() ? r.avgJctSeconds() : Double.POSITIVE_INFINITY;
    }

    /** @return a ÷ b; NaN when both are infinite or both zero */
    static double ratio(double a, double b) {
        if (Double.isInfinite(a) && Double.isInfinite(b) || a == 0 && b == 0) {
            return Double.NaN;
        }
        return a / b;
    }

    /**
     * By hand rather than commons-math3's {@code Median}, which interpolates a + 0.5 (b − a) and can differ from (a + b) / 2
     * in the last bit, changing recorded sweep summaries.
     *
     * @param v values
     * @return the median (mean of the middle two of an even count); NaN when empty
     */
    static double median(List<Double> v) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        int m = a.length / 2;
        return a.length % 2 == 1 ? a[m] : (a[m - 1] + a[m]) / 2;
    }

    private static double worst(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static String worstAt(List<Double> v, List<String> where) {
        int at = -1;
        for (int i = 0; i < v.size(); i++) {
            if (at < 0 || v.get(i) > v.get(at)) {
                at = i;
            }
        }
        return at < 0 ? "" : where.get(at);
    }

    /** @param x a number @return it with 2 decimals, or ∞ / – */
    static String num(double x) {
        return Double.isNaN(x) ? "–" : Double.isInfinite(x) ? "∞" : String.format(Locale.ROOT, "%.2f", x);
    }
}
