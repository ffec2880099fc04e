package io.fairway.sim.report;

import io.fairway.sim.InfraMetrics;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.PolicyMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Formats per-policy metrics as a fixed-width text table, one row per policy. The table of simulation results
 * ({@link #format(List, boolean)}) marks the best value of each column with {@code *}, names the policies whose
 * outcomes are identical (every job run alike), and ends with the {@link #legend()} of the columns.
 *
 * <pre>
 * policy            jobs  completed  avg JCT   p95 JCT   makespan    util   max ρ   mean ρ    Jain   preempt  ms/round
 * best-effort-fifo  1500      1500*  3.12 h*   11.9 h    98.7 h*   51.2%*  412.0    9.81   0.091         0*     0.41
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
     * @return the table, the best value of each column marked {@code *}, a line naming the policies with identical
     *     outcomes, then the {@link #legend()}
     */
    public static String format(List<SimulationResult> results, boolean placementColumns) {
        boolean pools = results.stream().anyMatch(r -> r.infra().pools() || r.infra().costDollars() > 0);
        List<String[]> rows = new ArrayList<>();
        rows.add(concat(HEADERS, pools ? POOL_HEADERS : new String[0], placementColumns ? PLACEMENT_HEADERS : new String[0]));
        List<double[]> values = new ArrayList<>();
        for (SimulationResult r : results) {
            values.add(values(r.metrics()));
            InfraMetrics i = r.infra();
            String[] p = pools ? new String[] {String.format(Locale.ROOT, "$%.2f", i.costDollars()), fixed(i.poolNodeHours(), 1),
                Integer.toString(i.peakNodes()), Integer.toString(i.interruptions()), fixed(i.gpuHoursLostToInterruptions(), 1),
                fixed(i.nodeWaitJobHours(), 2) + " h"} : new String[0];
            String[] q = placementColumns ? new String[] {percent(i.bestLocalityShare()), percent(i.avgFragmentation())} : new String[0];
            rows.add(concat(row(r.metrics()), p, q));
        }
        boolean marked = markBest(rows, values);
        StringBuilder sb = new StringBuilder(layout(rows));
        String identical = HtmlReport.identical(results);
        if (!identical.isEmpty()) {
            sb.append("identical rows: ").append(identical).append(" (every job admitted, run and finished at the same times)\n");
        }
        String legend = legend();
        return sb.append(marked ? legend : legend.substring(0, legend.indexOf("*:"))).toString();
    }

    /** Columns of {@link #HEADERS} compared across policies, and whether more (+1) or less (-1) is better. */
    private static final int[] COMPARED = {2, 3, 4, 5, 6, 7, 8, 9, 10};
    private static final int[] BETTER = {+1, -1, -1, -1, +1, -1, -1, +1, -1};

    private static double[] values(PolicyMetrics m) {
        return new double[] {m.completed(), m.avgJctSeconds(), m.p95JctSeconds(), m.makespanSeconds(), m.gpuUtilization(), m.maxRho(),
            m.meanRho(), m.jainIndex(), m.preemptions()};
    }

    /**
     * Appends {@code *} to the best value of each compared column (every value tied for best), and a space to the
     * others so the column stays aligned; nothing when fewer than two rows differ in it.
     *
     * @return whether any column was marked
     */
    private static boolean markBest(List<String[]> rows, List<double[]> values) {
        boolean marked = false;
        if (values.size() < 2) {
            return false;
        }
        for (int k = 0; k < COMPARED.length; k++) {
            int col = COMPARED[k];
            int best = -1;
            for (int i = 0; i < values.size(); i++) {
                double x = values.get(i)[k];
                if (Double.isFinite(x) && (best < 0 || (BETTER[k] > 0 ? x > values.get(best)[k] : x < values.get(best)[k]))) {
                    best = i;
                }
            }
            if (best < 0) {
                continue;
            }
            // as shown: values equal at the table's precision are tied
            String shown = rows.get(best + 1)[col];
            boolean differ = false;
            for (int i = 0; i < values.size(); i++) {
                differ |= !rows.get(i + 1)[col].equals(shown);
            }
            if (!differ) {
                continue;
            }
            for (int i = 0; i < values.size(); i++) {
                String[] r = rows.get(i + 1);
                r[col] = r[col] + (r[col].equals(shown) ? "*" : " ");
            }
            rows.get(0)[col] = rows.get(0)[col] + " ";
            marked = true;
        }
        return marked;
    }

    /**
     * @return what the columns mean, one line each, for under the table
     */
    public static String legend() {
        return """
                JCT: job completion time, from submission to finish (mean and 95th percentile over completed jobs).
                ρ: finish-time fairness, a job's time in the shared cluster ÷ its time alone on a 1/N share of it (N: jobs present); 1 = no worse than alone, lower is better.
                Jain: Jain's fairness index of the jobs' ρ, from 1/n (one job bears all the slowdown) to 1 (all slowed down alike).
                *: best in its column (most completed, highest util and Jain; least JCT, makespan, ρ and preemptions).
                """;
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
