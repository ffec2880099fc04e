package io.fairway.sim.report;

import io.fairway.sim.JobOutcome;
import io.fairway.sim.InfraMetrics;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.TimelinePoint;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes an HTML page comparing policies, with charts drawn by XChart into PNG files beside it: the CDF of job
 * completion times, ρ per job, GPU utilisation over time and queue length over time.
 *
 * <pre>{@code
 * Path index = HtmlReport.write(Path.of("fairway-out/demo"), "Philly sample on 64 GPUs", results);
 * }</pre>
 */
public final class HtmlReport {
    /** Chart width in pixels. */
    private static final int WIDTH = 1100;
    /** Chart height in pixels. */
    private static final int HEIGHT = 480;
    /** Time series are averaged into this many buckets. */
    private static final int BUCKETS = 600;

    private HtmlReport() {
    }

    /**
     * @param dir the directory (created when missing)
     * @param title the page title (the input's name)
     * @param results one result per policy
     * @return the path of {@code index.html}
     * @throws UncheckedIOException when a file cannot be written
     */
    public static Path write(Path dir, String title, List<SimulationResult> results) {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        try {
            Files.createDirectories(dir);
            save(jctCdf(results), dir.resolve("jct-cdf.png"));
            save(rho(results), dir.resolve("rho.png"));
            save(timeline(results, "GPU utilisation over time", "busy GPUs / all GPUs",
                    (p) -> p.busyGpus(), true), dir.resolve("utilization.png"));
            save(timeline(results, "Queue length over time", "pending jobs", (p) -> p.pendingJobs(), false), dir.resolve("queue-length.png"));
            if (hasPools(results)) {
                save(nodes(results), dir.resolve("nodes.png"));
            }
            Path index = dir.resolve("index.html");
            Files.writeString(index, html(title, results), StandardCharsets.UTF_8);
            return index;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void save(XYChart chart, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    /** One colour per series, distinct for up to 12 (the built-in policies and then some). */
    private static final java.awt.Color[] PALETTE = {
        new java.awt.Color(0x1f77b4), new java.awt.Color(0xff7f0e), new java.awt.Color(0x2ca02c), new java.awt.Color(0xd62728),
        new java.awt.Color(0x9467bd), new java.awt.Color(0x8c564b), new java.awt.Color(0xe377c2), new java.awt.Color(0x7f7f7f),
        new java.awt.Color(0xbcbd22), new java.awt.Color(0x17becf), new java.awt.Color(0x000000), new java.awt.Color(0xaec7e8)};

    private static XYChart chart(String title, String x, String y) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle(y).build();
        // One legend entry per line, right of the plot: a horizontal legend below it is cut off past 5 or 6 policies.
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        c.getStyler().setSeriesColors(PALETTE);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setAntiAlias(true);
        return c;
    }

    private static XYChart jctCdf(List<SimulationResult> results) {
        XYChart c = chart("CDF of job completion time", "JCT (hours, log scale)", "fraction of completed jobs");
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        boolean any = false;
        for (List<SimulationResult> g : sameOutcomes(results)) {
            SimulationResult r = g.get(0);
            double[] jct = r.jobs().stream().filter(JobOutcome::completed).mapToDouble(j -> Math.max(1, j.jctSeconds()) / 3600).toArray();
            if (jct.length == 0) {
                continue;
            }
            Arrays.sort(jct);
            int n = Math.min(jct.length, 1000);
            double[] x = new double[n];
            double[] y = new double[n];
            for (int i = 0; i < n; i++) {
                int k = (int) ((long) (i + 1) * jct.length / n) - 1;
                x[i] = jct[k];
                y[i] = (k + 1.0) / jct.length;
            }
            c.addSeries(label(g), x, y).setMarker(SeriesMarkers.NONE);
            any = true;
        }
        return any ? c : empty(c);
    }

    private static XYChart rho(List<SimulationResult> results) {
        XYChart c = chart("Finish-time fairness ρ per job", "job (submission order)", "ρ = JCT / T_isolated (log scale)");
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        c.getStyler().setMarkerSize(3);
        boolean any = false;
        for (List<SimulationResult> g : sameOutcomes(results)) {
            SimulationResult r = g.get(0);
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            int i = 0;
            for (JobOutcome j : r.jobs()) {
                i++;
                if (j.completed() && j.rho() > 0) {
                    xs.add((double) i);
                    ys.add(j.rho());
                }
            }
            if (!xs.isEmpty()) {
                c.addSeries(label(g), xs, ys);
                any = true;
            }
        }
        return any ? c : empty(c);
    }

    private static XYChart timeline(List<SimulationResult> results, String title, String y, ToDoubleFunction<TimelinePoint> value,
                                    boolean perGpu) {
        XYChart c = chart(title, "simulated time (hours)", y);
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        boolean any = false;
        for (List<SimulationResult> g : sameOutcomes(results)) {
            SimulationResult r = g.get(0);
            List<TimelinePoint> tl = r.timeline();
            if (tl.isEmpty()) {
                continue;
            }
            double scale = perGpu && r.totalGpus() > 0 ? 1.0 / r.totalGpus() : 1.0;
            double[][] xy = bucketAverage(tl, value, scale);
            c.addSeries(label(g), xy[0], xy[1]).setMarker(SeriesMarkers.NONE);
            any = true;
        }
        return any ? c : empty(c);
    }

    /** Averages a step function over equal time buckets, so long runs draw as a readable line. */
    static double[][] bucketAverage(List<TimelinePoint> tl, ToDoubleFunction<TimelinePoint> value, double scale) {
        long start = tl.get(0).timeMillis();
        long end = tl.get(tl.size() - 1).timeMillis();
        if (end <= start || tl.size() <= BUCKETS) {
            double[] x = new double[tl.size()];
            double[] v = new double[tl.size()];
            for (int i = 0; i < tl.size(); i++) {
                x[i] = tl.get(i).timeMillis() / 3_600_000.0;
                v[i] = value.applyAsDouble(tl.get(i)) * scale;
            }
            return new double[][] {x, v};
        }
        double width = (double) (end - start) / BUCKETS;
        double[] sum = new double[BUCKETS];
        for (int i = 0; i < tl.size() - 1; i++) {
            double v = value.applyAsDouble(tl.get(i)) * scale;
            double a = tl.get(i).timeMillis() - start;
            double b = tl.get(i + 1).timeMillis() - start;
            int first = (int) Math.min(BUCKETS - 1, a / width);
            int last = (int) Math.min(BUCKETS - 1, b / width);
            for (int k = first; k <= last; k++) {
                double lo = Math.max(a, k * width);
                double hi = Math.min(b, (k + 1) * width);
                if (hi > lo) {
                    sum[k] += v * (hi - lo);
                }
            }
        }
        double[] x = new double[BUCKETS];
        double[] y = new double[BUCKETS];
        for (int k = 0; k < BUCKETS; k++) {
            x[k] = (start + (k + 0.5) * width) / 3_600_000.0;
            y[k] = sum[k] / width;
        }
        return new double[][] {x, y};
    }

    private static boolean hasPools(List<SimulationResult> results) {
        return results.stream().anyMatch(r -> r.infra().pools());
    }

    /** Nodes present (static and pool) over time, one step line per run. */
    static XYChart nodes(List<SimulationResult> results) {
        XYChart c = chart("Nodes over time", "simulated time (hours)", "nodes present");
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        boolean any = false;
        for (List<SimulationResult> g : sameOutcomes(results)) {
            SimulationResult r = g.get(0);
            List<InfraMetrics.NodeCount> n = r.infra().nodes();
            if (n.isEmpty()) {
                continue;
            }
            double[] x = new double[2 * n.size() - 1];
            double[] y = new double[2 * n.size() - 1];
            for (int i = 0; i < n.size(); i++) {
                x[2 * i] = n.get(i).timeMillis() / 3_600_000.0;
                y[2 * i] = n.get(i).nodes();
                if (i + 1 < n.size()) {
                    x[2 * i + 1] = n.get(i + 1).timeMillis() / 3_600_000.0;
                    y[2 * i + 1] = n.get(i).nodes();
                }
            }
            c.addSeries(label(g), x, y).setMarker(SeriesMarkers.NONE);
            any = true;
        }
        return any ? c : empty(c);
    }

    private static XYChart empty(XYChart c) {
        c.addSeries("no data", new double[] {1}, new double[] {1}).setMarker(SeriesMarkers.NONE);
        return c;
    }

    private static String html(String title, List<SimulationResult> results) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Fairway simulation: ").append(esc(title))
                .append("</title>\n<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
                        + "table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
                        + "td:first-child,th:first-child{text-align:left}td.best{font-weight:bold}img{max-width:100%}</style>\n</head>\n<body>\n");
        sb.append("<h1>Fairway simulation: ").append(esc(title)).append("</h1>\n");
        if (!results.isEmpty()) {
            SimulationResult first = results.get(0);
            sb.append("<p>").append(first.metrics().jobs()).append(" jobs simulated");
            if (first.metrics().skipped() > 0) {
                sb.append(" (").append(first.metrics().skipped()).append(" skipped: more GPUs than the cluster)");
            }
            sb.append(" on ").append(first.totalGpus()).append(" GPUs, under ").append(results.size()).append(" policies.</p>\n");
        }
        metricsTable(sb, results);
        if (hasPools(results) || results.stream().anyMatch(r -> r.infra().costDollars() > 0)) {
            costTable(sb, results);
        }
        String same = identical(results);
        if (!same.isEmpty()) {
            sb.append("<p>Identical outcomes (every job admitted, run and finished at the same times; one line in the charts, "
                    + "named \"a = b\"): ").append(esc(same)).append(".</p>\n");
        }
        sb.append("<p>Bold: the best value of its column (most completed, highest utilisation and Jain; least JCT, queueing, "
                + "makespan, ρ and preemptions). JCT = completion − submission. ρ = JCT / T_isolated, T_isolated being the job's run time on a private 1/N "
                + "share of the cluster, N the time-averaged number of jobs present during its lifetime (Themis' finish-time "
                + "fairness; ρ ≤ 1 is the sharing incentive). Jain's index over ρ: 1 when every job fares alike. GPU utilisation = "
                + "GPU-seconds held by jobs / (GPUs × makespan). ms/round is wall time, the only non-deterministic value.</p>\n");
        for (String[] img : new String[][] {{"jct-cdf.png", "CDF of job completion time"}, {"rho.png", "ρ per job"},
            {"utilization.png", "GPU utilisation over time"}, {"queue-length.png", "Queue length over time"},
            {hasPools(results) ? "nodes.png" : null, "Nodes over time"}}) {
            if (img[0] == null) {
                continue;
            }
            sb.append("<h2>").append(img[1]).append("</h2>\n<img src=\"").append(img[0]).append("\" alt=\"").append(img[1]).append("\">\n");
        }
        sb.append("<p><small>Generated by Fairway's simulator. The bundled trace sample is derived from Microsoft's Philly traces "
                + "(Jeon et al., \"Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads\", USENIX ATC 2019), "
                + "as published with the Pollux artifact (petuum/adaptdl); see TRACE-ATTRIBUTION.md.</small></p>\n</body>\n</html>\n");
        return sb.toString();
    }

    /** The table of each policy's metrics, the best value of each compared column in bold. */
    private static void metricsTable(StringBuilder sb, List<SimulationResult> results) {
        sb.append("<table>\n<tr><th>policy</th><th>jobs</th><th>completed</th><th>avg JCT</th><th>p50 JCT</th><th>p95 JCT</th>"
                + "<th>p99 JCT</th><th>avg queueing</th><th>makespan</th><th>GPU util</th><th>max ρ</th><th>mean ρ</th><th>Jain (ρ)</th>"
                + "<th>preemptions</th><th>ms/round</th></tr>\n");
        // the best value of each compared column in bold (all values tied for it at the shown precision)
        List<String[]> shown = new ArrayList<>();
        List<double[]> values = new ArrayList<>();
        for (SimulationResult r : results) {
            PolicyMetrics m = r.metrics();
            shown.add(new String[] {Integer.toString(m.jobs()), Integer.toString(m.completed()), ComparisonTable.duration(m.avgJctSeconds()),
                ComparisonTable.duration(m.p50JctSeconds()), ComparisonTable.duration(m.p95JctSeconds()), ComparisonTable.duration(m.p99JctSeconds()),
                ComparisonTable.duration(m.avgQueueingDelaySeconds()), ComparisonTable.duration(m.makespanSeconds()),
                ComparisonTable.percent(m.gpuUtilization()), ComparisonTable.fixed(m.maxRho(), 2), ComparisonTable.fixed(m.meanRho(), 2),
                ComparisonTable.fixed(m.jainIndex(), 3), Integer.toString(m.preemptions()), ComparisonTable.fixed(m.schedulerMillisPerRound(), 2)});
            values.add(new double[] {Double.NaN, m.completed(), m.avgJctSeconds(), m.p50JctSeconds(), m.p95JctSeconds(), m.p99JctSeconds(),
                m.avgQueueingDelaySeconds(), m.makespanSeconds(), m.gpuUtilization(), m.maxRho(), m.meanRho(), m.jainIndex(), m.preemptions(), Double.NaN});
        }
        int[] better = {0, +1, -1, -1, -1, -1, -1, -1, +1, -1, -1, +1, -1, 0};
        String[] best = new String[better.length];
        for (int k = 0; k < better.length && results.size() > 1; k++) {
            int b = -1;
            for (int i = 0; i < values.size(); i++) {
                double x = values.get(i)[k];
                if (better[k] != 0 && Double.isFinite(x) && (b < 0 || (better[k] > 0 ? x > values.get(b)[k] : x < values.get(b)[k]))) {
                    b = i;
                }
            }
            if (b >= 0) {
                String v = shown.get(b)[k];
                int col = k;
                best[k] = shown.stream().allMatch(row -> row[col].equals(v)) ? null : v;
            }
        }
        for (int i = 0; i < results.size(); i++) {
            sb.append("<tr><td>").append(esc(results.get(i).policy())).append("</td>");
            for (int k = 0; k < better.length; k++) {
                String v = shown.get(i)[k];
                sb.append(v.equals(best[k]) ? "<td class=\"best\">" : "<td>").append(v).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table>\n");
    }

    /** The table of nodes and cost, when node pools or priced nodes are simulated. */
    private static void costTable(StringBuilder sb, List<SimulationResult> results) {
        sb.append("<h2>Nodes and cost</h2>\n<table>\n<tr><th>policy</th><th>cost</th><th>pool node-hours</th><th>nodes provisioned</th>"
                + "<th>peak nodes</th><th>spot interruptions</th><th>work lost to interruptions (GPU-h)</th>"
                + "<th>waiting for nodes (job-h)</th><th>jobs that waited for nodes</th></tr>\n");
        for (SimulationResult r : results) {
            InfraMetrics i = r.infra();
            sb.append("<tr><td>").append(esc(r.policy())).append("</td><td>").append(String.format(java.util.Locale.ROOT, "$%.2f", i.costDollars()))
                    .append("</td><td>").append(ComparisonTable.fixed(i.poolNodeHours(), 1))
                    .append("</td><td>").append(i.provisionedNodes()).append("</td><td>").append(i.peakNodes())
                    .append("</td><td>").append(i.interruptions())
                    .append("</td><td>").append(ComparisonTable.fixed(i.gpuHoursLostToInterruptions(), 2))
                    .append("</td><td>").append(ComparisonTable.fixed(i.nodeWaitJobHours(), 2))
                    .append("</td><td>").append(i.jobsWaitedForNodes()).append("</td></tr>\n");
        }
        sb.append("</table>\n<p>Cost = instance-hours × price: pool nodes from their Provision decision to their removal, priced "
                + "static nodes over the whole run. GPU utilisation with node pools is of the GPUs present.</p>\n");
    }

    /**
     * @param results the runs
     * @return the runs grouped by identical job outcomes, in order of first appearance: a chart draws one series per
     *     group (named "a = b"), so no policy's line hides under another's
     */
    static List<List<SimulationResult>> sameOutcomes(List<SimulationResult> results) {
        List<List<SimulationResult>> groups = new ArrayList<>();
        for (SimulationResult r : results) {
            List<SimulationResult> home = null;
            for (List<SimulationResult> g : groups) {
                if (g.get(0).jobs().equals(r.jobs())) {
                    home = g;
                    break;
                }
            }
            if (home == null) {
                groups.add(new ArrayList<>(List.of(r)));
            } else {
                home.add(r);
            }
        }
        return groups;
    }

    private static String label(List<SimulationResult> group) {
        List<String> names = new ArrayList<>();
        group.forEach(r -> names.add(r.policy()));
        return String.join(" = ", names);
    }

    /** Groups policies whose job outcomes are identical, e.g. "best-effort-fifo = priority". */
    static String identical(List<SimulationResult> results) {
        List<String> groups = new ArrayList<>();
        boolean[] seen = new boolean[results.size()];
        for (int i = 0; i < results.size(); i++) {
            if (seen[i]) {
                continue;
            }
            List<String> g = new ArrayList<>(List.of(results.get(i).policy()));
            for (int k = i + 1; k < results.size(); k++) {
                if (!seen[k] && results.get(k).jobs().equals(results.get(i).jobs())) {
                    seen[k] = true;
                    g.add(results.get(k).policy());
                }
            }
            if (g.size() > 1) {
                groups.add(String.join(" = ", g));
            }
        }
        return String.join("; ", groups);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
