package io.fairway.sim.report;

import io.fairway.sim.InfraMetrics;
import io.fairway.sim.SimulationResult;
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

    /** Columns added when the cluster has node pools (or priced nodes). */
    private static final String[] POOL_HEADERS = {"cost", "node-h", "peak nodes", "interrupts", "lost GPU-h", "node wait"};
    /** Columns added on request: placement quality. */
    private static final String[] PLACEMENT_HEADERS = {"best locality", "fragmentation"};

    /**
     * @param metrics one entry per policy
     * @return the table, one line per policy after a header, each line ending in a newline
     */
    public static String format(List<PolicyMetrics> metrics) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADERS);
        for (PolicyMetrics m : metrics) {
            rows.add(row(m));
        }
        return layout(rows);
    }

    /**
     * The table with node-pool columns (cost in dollars, pool node-hours, peak nodes, spot interruptions, GPU-hours of
     * work lost to them, job-hours waiting for nodes) when a result has node pools or priced nodes, and placement
     * columns (share of multi-GPU placements at their best locality, time-averaged fragmentation) when asked.
     *
     * @param results one entry per run
     * @param placementColumns add the placement columns
     * @return the table
     */
    public static String format(List<SimulationResult> results, boolean placementColumns) {
        boolean pools = results.stream().anyMatch(r -> r.infra().pools() || r.infra().costDollars() > 0);
        List<String[]> rows = new ArrayList<>();
        rows.add(concat(HEADERS, pools ? POOL_HEADERS : new String[0], placementColumns ? PLACEMENT_HEADERS : new String[0]));
        for (SimulationResult r : results) {
            InfraMetrics i = r.infra();
            String[] p = pools ? new String[] {String.format(Locale.ROOT, "$%.2f", i.costDollars()), fixed(i.poolNodeHours(), 1),
                Integer.toString(i.peakNodes()), Integer.toString(i.interruptions()), fixed(i.gpuHoursLostToInterruptions(), 1),
                fixed(i.nodeWaitJobHours(), 2) + " h"} : new String[0];
            String[] q = placementColumns ? new String[] {percent(i.bestLocalityShare()), percent(i.avgFragmentation())} : new String[0];
            rows.add(concat(row(r.metrics()), p, q));
        }
        return layout(rows);
    }

    private static String[] concat(String[] a, String[] b, String[] c) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length + c.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        System.arraycopy(c, 0, out, a.length + b.length, c.length);
        return out;
    }

    private static String[] row(PolicyMetrics m) {
        return new String[] {
            m.policy(), Integer.toString(m.jobs()), Integer.toString(m.completed()), duration(m.avgJctSeconds()),
            duration(m.p95JctSeconds()), duration(m.makespanSeconds()), percent(m.gpuUtilization()), fixed(m.maxRho(), 2),
            fixed(m.meanRho(), 2), fixed(m.jainIndex(), 3), Integer.toString(m.preemptions()), fixed(m.schedulerMillisPerRound(), 2)};
    }

    private static String layout(List<String[]> rows) {
        int[] width = new int[rows.get(0).length];
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
