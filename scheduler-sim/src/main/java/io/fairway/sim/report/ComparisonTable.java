package io.fairway.sim.report;

import io.fairway.sim.PolicyMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Formats per-policy metrics as a fixed-width text table, one row per policy.
 *
 * <pre>
 * policy            jobs  completed  avg JCT  p95 JCT  makespan   util  max ρ  mean ρ   Jain  preempt  ms/round
 * best-effort-fifo  1500       1500   3.12 h  11.9 h    98.7 h  51.2%  412.0    9.81  0.091        0      0.41
 * </pre>
 */
public final class ComparisonTable {
    private static final String[] HEADERS = {"policy", "jobs", "completed", "avg JCT", "p95 JCT", "makespan", "util", "max ρ",
        "mean ρ", "Jain", "preempt", "ms/round"};

    private ComparisonTable() {
    }

    /**
     * @param metrics one entry per policy
     * @return the table, one line per policy after a header, each line ending in a newline
     */
    public static String format(List<PolicyMetrics> metrics) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADERS);
        for (PolicyMetrics m : metrics) {
            rows.add(new String[] {
                m.policy(), Integer.toString(m.jobs()), Integer.toString(m.completed()), duration(m.avgJctSeconds()),
                duration(m.p95JctSeconds()), duration(m.makespanSeconds()), percent(m.gpuUtilization()), fixed(m.maxRho(), 2),
                fixed(m.meanRho(), 2), fixed(m.jainIndex(), 3), Integer.toString(m.preemptions()), fixed(m.schedulerMillisPerRound(), 2)});
        }
        int[] width = new int[HEADERS.length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                if (i > 0) {
                    sb.append("  ");
                }
                String pad = " ".repeat(width[i] - r[i].length());
                sb.append(i == 0 ? r[i] + pad : pad + r[i]);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * @param seconds a duration
     * @return it in s, min, h or d with 3 significant digits; {@code -} when not a number
     */
    public static String duration(double seconds) {
        if (!Double.isFinite(seconds)) {
            return "-";
        }
        if (seconds < 120) {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        if (seconds < 2 * 3600) {
            return String.format(Locale.ROOT, "%.1f min", seconds / 60);
        }
        if (seconds < 3 * 86400) {
            return String.format(Locale.ROOT, "%.2f h", seconds / 3600);
        }
        return String.format(Locale.ROOT, "%.2f d", seconds / 86400);
    }

    static String percent(double fraction) {
        return Double.isFinite(fraction) ? String.format(Locale.ROOT, "%.1f%%", fraction * 100) : "-";
    }

    static String fixed(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : "-";
    }
}
