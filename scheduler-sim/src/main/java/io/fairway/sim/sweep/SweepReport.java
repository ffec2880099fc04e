package io.fairway.sim.sweep;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A sweep's outputs: the table of runs, the summary with the targets' verdicts, JSON and a plot.
 *
 * <p>JSON: {@code {"subject": "themis", "contendedUtilisation": 0.6, "rows": [...], "summary": {...}}}. A row has the
 * {@link SweepRow} fields by name; the summary has {@code workloads, contended, baselines[], best, comparisons[],
 * targets[]} with the {@link SweepSummary} fields by name, each target with its {@code verdict}. A value that does not
 * exist or is infinite (no job finished; some job never finished) is {@code null}.
 */
public final class SweepReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    private SweepReport() {
    }

    /** @param rows the runs @return a table, one line per run, blank lines between workloads */
    public static String table(List<SweepRow> rows) {
        StringBuilder sb = new StringBuilder();
        String head = String.format(Locale.ROOT, "%-24s %4s %5s %4s %5s %4s  %-18s %9s %7s %9s %9s %10s %10s %5s %8s %9s%n", "workload", "seed", "load",
                "ckpt", "GPUs", "cont", "policy", "max ρ", "mean ρ", "avg JCT h", "p95 JCT h", "makespan h", "GPU-h lost", "util", "util arr", "done");
        sb.append(head);
        String last = null;
        for (SweepRow r : rows) {
            if (last != null && !last.equals(r.workload())) {
                sb.append('\n');
            }
            last = r.workload();
            sb.append(String.format(Locale.ROOT, "%-24s %4d %5.2f %4s %5d %4s  %-18s %9s %7s %9s %9s %10s %10.1f %4.0f%% %7.0f%% %9s%n", r.workload(),
                    r.seed(), r.load(), r.checkpoints() ? "yes" : "no", r.gpus(), r.contended() ? "yes" : "no", r.policy(), fixed(r.maxRho()),
                    fixed(r.meanRho()), hours(r.avgJctSeconds()), hours(r.p95JctSeconds()), hours(r.makespanSeconds()), r.gpuHoursLost(),
                    100 * r.utilisation(), 100 * r.arrivalUtilisation(), r.completed() + "/" + r.jobs()));
        }
        return sb.toString();
    }

    /**
     * @param s the summary per job
     * @param perApp the summary per app, or null when the rows have no app-level figures
     * @return both summaries ({@link #summary(SweepSummary)}), then the verdict on each target per job and per app side
     *     by side
     */
    public static String summary(SweepSummary s, SweepSummary perApp) {
        if (perApp == null) {
            return "Per job:\n" + summary(s) + "(no per-app figures in these rows)\n";
        }
        StringBuilder sb = new StringBuilder("Per job:\n").append(summary(s)).append("\nPer app (an app finishes with its last job):\n")
                .append(summary(perApp));
        sb.append(String.format(Locale.ROOT, "%nVerdicts, per job | per app:%n"));
        for (int i = 0; i < s.targets().size(); i++) {
            SweepSummary.Target j = s.targets().get(i);
            SweepSummary.Target a = perApp.targets().get(i);
            sb.append(String.format(Locale.ROOT, "  [%s | %s] %s: per job %s; per app %s%n", j.verdict(), a.verdict(), j.target(), j.detail(),
                    a.detail()));
        }
        return sb.toString();
    }

    /**
     * @param byPolicy per policy (the subject and its variants), its summary per job and per app (null when unknown)
     * @return one line per policy: against the lowest and best baselines, per job and per app
     */
    public static String variants(Map<String, SweepSummary[]> byPolicy) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "Variants against the same baselines (contended runs; ratios to the "
                + "lowest max ρ / best avg JCT baseline):%n  %-44s %5s %13s %13s %11s %11s %13s %13s%n", "policy", "runs", "≤1.0/≤1.25 job",
                "max ρ med/wst", "JCT med", "JCT worst", "≤1.0/≤1.25 app", "app ρ med/wst"));
        for (Map.Entry<String, SweepSummary[]> e : byPolicy.entrySet()) {
            SweepSummary.Best b = e.getValue()[0].best();
            SweepSummary.Best a = e.getValue()[1] == null ? null : e.getValue()[1].best();
            sb.append(String.format(Locale.ROOT, "  %-44s %5d %13s %13s %11s %11s %13s %13s%n", e.getKey(), b.runs(), b.atMostEqual() + "/" + b.atMost125(),
                    fixed(b.medianMaxRhoRatio()) + "/" + fixed(b.worstMaxRhoRatio()), fixed(b.medianAvgJctRatio()), fixed(b.worstAvgJctRatio()),
                    a == null ? "–" : a.atMostEqual() + "/" + a.atMost125(),
                    a == null ? "–" : fixed(a.medianMaxRhoRatio()) + "/" + fixed(a.worstMaxRhoRatio())));
        }
        return sb.toString();
    }

    /**
     * Writes a PNG: one point per policy (the subject and its variants), its worst and median avg JCT ÷ the best
     * baseline's (x) against its worst max ρ ÷ the lowest baseline's (y), per job, over the contended runs, with the
     * targets' bounds (x = 1.2, y = 1.25) — the price in JCT of each way of trading fairness.
     *
     * @param file the PNG file
     * @param byPolicy per policy, its summary per job (and per app, unused here)
     * @throws UncheckedIOException when it cannot be written
     */
    public static void writeTradeoff(Path file, Map<String, SweepSummary[]> byPolicy) {
        XYChart c = new XYChartBuilder().width(900).height(620).title("JCT price of fairness, per job, contended runs (filled: worst JCT; "
                + "hollow: median JCT)").xAxisTitle("avg JCT ÷ best baseline's").yAxisTitle("worst max ρ ÷ lowest baseline's").build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(13f));
        double xMax = 1.25;
        double yMax = 1.3;
        for (Map.Entry<String, SweepSummary[]> e : byPolicy.entrySet()) {
            SweepSummary.Best b = e.getValue()[0].best();
            double y = b.worstMaxRhoRatio();
            if (!Double.isFinite(y) || !Double.isFinite(b.worstAvgJctRatio())) {
                continue;
            }
            XYSeries w = c.addSeries(e.getKey(), new double[] {b.medianAvgJctRatio(), b.worstAvgJctRatio()}, new double[] {y, y});
            w.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            w.setMarker(SeriesMarkers.CIRCLE);
            xMax = Math.max(xMax, b.worstAvgJctRatio() * 1.05);
            yMax = Math.max(yMax, y * 1.05);
        }
        line(c, "JCT bound 1.2 (worst)", new double[] {1.2, 1.2}, new double[] {0, yMax});
        line(c, "JCT bound 1.05 (median)", new double[] {1.05, 1.05}, new double[] {0, yMax});
        line(c, "max ρ bound 1.25", new double[] {0.8, xMax}, new double[] {1.25, 1.25});
        try {
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void line(XYChart c, String name, double[] x, double[] y) {
        XYSeries s = c.addSeries(name, x, y);
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        s.setMarker(SeriesMarkers.NONE);
    }

    /** @param s the summary @return the per-baseline table, the comparison with the best baseline, and one line per target */
    public static String summary(SweepSummary s) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s against each baseline over %d contended of %d workloads (ratio = %s ÷ baseline; "
                + "worst = largest):%n", s.subject(), s.contended(), s.workloads(), s.subject()));
        sb.append(String.format(Locale.ROOT, "  %-24s %5s %12s %12s  %-24s %12s %12s%n", "baseline", "runs", "max ρ median", "max ρ worst",
                "(worst at)", "JCT median", "JCT worst"));
        for (SweepSummary.Baseline b : s.baselines()) {
            sb.append(String.format(Locale.ROOT, "  %-24s %5d %12s %12s  %-24s %12s %12s%n", b.policy(), b.runs(), fixed(b.medianMaxRhoRatio()),
                    fixed(b.worstMaxRhoRatio()), b.worstMaxRhoWorkload(), fixed(b.medianAvgJctRatio()), fixed(b.worstAvgJctRatio())));
        }
        SweepSummary.Best b = s.best();
        sb.append(String.format(Locale.ROOT, "  %-24s %5d %12s %12s  %-24s %12s %12s%n", "lowest / best baseline", b.runs(),
                fixed(b.medianMaxRhoRatio()), fixed(b.worstMaxRhoRatio()), b.worstMaxRhoWorkload(), fixed(b.medianAvgJctRatio()),
                fixed(b.worstAvgJctRatio())));
        sb.append(String.format(Locale.ROOT, "  %s max ρ ≤ 1.0 × the lowest baseline's on %d, ≤ 1.25 × on %d of %d contended runs%n",
                s.subject(), b.atMostEqual(), b.atMost125(), b.runs()));
        sb.append(String.format(Locale.ROOT, "%nTargets:%n"));
        for (SweepSummary.Target t : s.targets()) {
            sb.append(String.format(Locale.ROOT, "  [%s] %s: %s%n", t.verdict(), t.target(), t.detail()));
        }
        return sb.toString();
    }

    /**
     * @param file where to write
     * @param rows the runs
     * @param summary their summary
     * @throws UncheckedIOException when it cannot be written
     */
    public static void writeJson(Path file, List<SweepRow> rows, SweepSummary summary) {
        writeJson(file, rows, summary, null);
    }

    /**
     * @param file where to write
     * @param rows the runs
     * @param summary their summary per job
     * @param perApp their summary per app (written as {@code summaryPerApp}), or null
     * @throws UncheckedIOException when it cannot be written
     */
    public static void writeJson(Path file, List<SweepRow> rows, SweepSummary summary, SweepSummary perApp) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("subject", summary.subject());
        o.put("contendedUtilisation", Sweep.CONTENDED_UTILISATION);
        List<Object> rs = new ArrayList<>();
        for (SweepRow r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("workload", r.workload());
            m.put("kind", r.kind());
            m.put("seed", r.seed());
            m.put("requestedLoad", num(r.requestedLoad()));
            m.put("load", num(r.load()));
            m.put("checkpoints", r.checkpoints());
            m.put("gpus", r.gpus());
            m.put("jobs", r.jobs());
            m.put("policy", r.policy());
            m.put("contended", r.contended());
            m.put("completed", r.completed());
            m.put("maxRho", num(r.maxRho()));
            m.put("meanRho", num(r.meanRho()));
            m.put("avgJctSeconds", num(r.avgJctSeconds()));
            m.put("p95JctSeconds", num(r.p95JctSeconds()));
            m.put("makespanSeconds", num(r.makespanSeconds()));
            m.put("gpuHoursLost", num(r.gpuHoursLost()));
            m.put("utilisation", num(r.utilisation()));
            m.put("arrivalUtilisation", num(r.arrivalUtilisation()));
            m.put("preemptions", r.preemptions());
            m.put("wallSeconds", num(r.wallSeconds()));
            m.put("cpuSeconds", num(r.cpuSeconds()));
            m.put("appMaxRho", num(r.appMaxRho()));
            m.put("appAvgJctSeconds", num(r.appAvgJctSeconds()));
            m.put("maxWaitSeconds", num(r.maxWaitSeconds()));
            rs.add(m);
        }
        o.put("rows", rs);
        o.put("summary", summaryJson(summary));
        if (perApp != null) {
            o.put("summaryPerApp", summaryJson(perApp));
        }
        try {
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            JSON.writeValue(file.toFile(), o);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> summaryJson(SweepSummary summary) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("workloads", summary.workloads());
        s.put("contended", summary.contended());
        List<Object> bs = new ArrayList<>();
        for (SweepSummary.Baseline b : summary.baselines()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("policy", b.policy());
            m.put("runs", b.runs());
            m.put("medianMaxRhoRatio", num(b.medianMaxRhoRatio()));
            m.put("worstMaxRhoRatio", num(b.worstMaxRhoRatio()));
            m.put("worstMaxRhoWorkload", b.worstMaxRhoWorkload());
            m.put("medianAvgJctRatio", num(b.medianAvgJctRatio()));
            m.put("worstAvgJctRatio", num(b.worstAvgJctRatio()));
            bs.add(m);
        }
        s.put("baselines", bs);
        SweepSummary.Best b = summary.best();
        Map<String, Object> best = new LinkedHashMap<>();
        best.put("runs", b.runs());
        best.put("atMostEqual", b.atMostEqual());
        best.put("atMost125", b.atMost125());
        best.put("medianMaxRhoRatio", num(b.medianMaxRhoRatio()));
        best.put("worstMaxRhoRatio", num(b.worstMaxRhoRatio()));
        best.put("worstMaxRhoWorkload", b.worstMaxRhoWorkload());
        best.put("medianAvgJctRatio", num(b.medianAvgJctRatio()));
        best.put("worstAvgJctRatio", num(b.worstAvgJctRatio()));
        best.put("worstAvgJctWorkload", b.worstAvgJctWorkload());
        s.put("best", best);
        List<Object> cs = new ArrayList<>();
        for (SweepSummary.Comparison c : summary.comparisons()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("workload", c.workload());
            m.put("contended", c.contended());
            m.put("subjectMaxRho", num(c.subjectMaxRho()));
            m.put("lowestBaseline", c.lowestBaseline());
            m.put("lowestBaselineMaxRho", num(c.lowestBaselineMaxRho()));
            m.put("maxRhoRatio", num(c.maxRhoRatio()));
            m.put("subjectAvgJctSeconds", num(c.subjectAvgJctSeconds()));
            m.put("bestBaseline", c.bestBaseline());
            m.put("bestBaselineAvgJctSeconds", num(c.bestBaselineAvgJctSeconds()));
            m.put("avgJctRatio", num(c.avgJctRatio()));
            cs.add(m);
        }
        s.put("comparisons", cs);
        List<Object> ts = new ArrayList<>();
        for (SweepSummary.Target t : summary.targets()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", t.target());
            m.put("verdict", t.verdict());
            m.put("met", t.met());
            m.put("detail", t.detail());
            ts.add(m);
        }
        s.put("targets", ts);
        return s;
    }

    /**
     * Writes a PNG of two panels, one point per workload: the subject's max ρ against the lowest baseline's (log-log, with
     * the lines y = x and y = 1.25 x), and its avg JCT against the best baseline's (with y = x and y = 1.2 x); contended
     * workloads filled, the others hollow. Workloads where a value is infinite (some job never finished) are left out and
     * counted in the panel's title.
     *
     * @param file the PNG file
     * @param summary the summary
     * @throws UncheckedIOException when it cannot be written
     */
    public static void writePlot(Path file, SweepSummary summary) {
        writePlot(file, summary, null);
    }

    /**
     * {@link #writePlot(Path, SweepSummary)} with a third panel: the subject's max ρ per app against the lowest
     * baseline's per app.
     *
     * @param file the PNG file
     * @param summary the summary per job
     * @param perApp the summary per app, or null for the two panels alone
     * @throws UncheckedIOException when it cannot be written
     */
    public static void writePlot(Path file, SweepSummary summary, SweepSummary perApp) {
        List<XYChart> charts = new ArrayList<>(List.of(panel(summary, true, "per job")));
        if (perApp != null) {
            charts.add(panel(perApp, true, "per app"));
        }
        charts.add(panel(summary, false, "per job"));
        try {
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            try (OutputStream out = Files.newOutputStream(file)) {
                BitmapEncoder.saveBitmap(charts, 1, charts.size(), out, BitmapEncoder.BitmapFormat.PNG);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static XYChart panel(SweepSummary s, boolean rho, String unit) {
        String what = (rho ? "max ρ " : "avg JCT (h) ") + unit;
        String baseline = rho ? "lowest baseline" : "best baseline";
        List<double[]> cont = new ArrayList<>();
        List<double[]> other = new ArrayList<>();
        int left = 0;
        double lo = Double.POSITIVE_INFINITY;
        double hi = 0;
        for (SweepSummary.Comparison c : s.comparisons()) {
            double x = rho ? c.lowestBaselineMaxRho() : c.bestBaselineAvgJctSeconds() / 3600;
            double y = rho ? c.subjectMaxRho() : c.subjectAvgJctSeconds() / 3600;
            if (!(x > 0) || !(y > 0) || Double.isInfinite(x) || Double.isInfinite(y)) {
                left++;
                continue;
            }
            (c.contended() ? cont : other).add(new double[] {x, y});
            lo = Math.min(lo, Math.min(x, y));
            hi = Math.max(hi, Math.max(x, y));
        }
        String title = String.format(Locale.ROOT, "%s: %s vs %s, per workload%s", what, s.subject(), baseline,
                left == 0 ? "" : " (" + left + " left out: a job never finished)");
        XYChart c = new XYChartBuilder().width(760).height(620).title(title).xAxisTitle(baseline + " " + what)
                .yAxisTitle(s.subject() + " " + what).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(13f));
        if (hi == 0) {
            lo = 1;
            hi = 10;
        }
        double a = lo / 1.2;
        double b = hi * 1.2;
        line(c, "y = x (" + s.subject() + " = " + baseline + ")", a, b, 1);
        line(c, rho ? "y = 1.25 x (target bound)" : "y = 1.2 x (target bound)", a, b, rho ? 1.25 : 1.2);
        scatter(c, "contended (" + cont.size() + ")", cont, SeriesMarkers.CIRCLE);
        scatter(c, "not contended (" + other.size() + ")", other, SeriesMarkers.TRIANGLE_UP);
        return c;
    }

    private static void line(XYChart c, String name, double from, double to, double slope) {
        XYSeries s = c.addSeries(name, new double[] {from, to}, new double[] {from * slope, to * slope});
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        s.setMarker(SeriesMarkers.NONE);
    }

    private static void scatter(XYChart c, String name, List<double[]> pts, org.knowm.xchart.style.markers.Marker marker) {
        if (pts.isEmpty()) {
            return;
        }
        double[] x = new double[pts.size()];
        double[] y = new double[pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            x[i] = pts.get(i)[0];
            y[i] = pts.get(i)[1];
        }
        XYSeries s = c.addSeries(name, x, y);
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(marker);
    }

    /**
     * Reads the rows back from a file {@link #writeJson} wrote.
     *
     * @param file the JSON file
     * @return its rows, in file order
     * @throws UncheckedIOException when it cannot be read
     * @throws io.fairway.api.InvalidSpecException when it is not a sweep's JSON (names the file and what is missing)
     */
    public static List<SweepRow> readRows(Path file) {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        JsonNode rows = root == null ? null : root.get("rows");
        io.fairway.api.InvalidSpecException.check(rows != null && rows.isArray(), "rows", file,
                "%s is not the JSON of a sweep: it has no \"rows\" array", file);
        List<SweepRow> out = new ArrayList<>();
        for (JsonNode r : rows) {
            for (String k : List.of("workload", "kind", "seed", "policy", "jobs", "completed", "gpus")) {
                io.fairway.api.InvalidSpecException.check(r.hasNonNull(k), "rows", file, "%s: row %d has no \"%s\"", file, out.size() + 1, k);
            }
            out.add(new SweepRow(r.get("workload").asText(), r.get("kind").asText(), r.get("seed").asLong(), dbl(r, "requestedLoad"),
                    dbl(r, "load"), r.path("checkpoints").asBoolean(), r.get("gpus").asLong(), r.get("jobs").asInt(), r.get("policy").asText(),
                    r.path("contended").asBoolean(), r.get("completed").asInt(), dbl(r, "maxRho"), dbl(r, "meanRho"), dbl(r, "avgJctSeconds"),
                    dbl(r, "p95JctSeconds"), dbl(r, "makespanSeconds"), dbl(r, "gpuHoursLost"), dbl(r, "utilisation"),
                    dbl(r, "arrivalUtilisation"), r.path("preemptions").asInt(), dbl(r, "wallSeconds"), dbl(r, "cpuSeconds"),
                    dbl(r, "appMaxRho"), dbl(r, "appAvgJctSeconds"), dbl(r, "maxWaitSeconds")));
        }
        return out;
    }

    private static double dbl(JsonNode r, String key) {
        JsonNode v = r.get(key);
        return v == null || v.isNull() ? Double.NaN : v.asDouble();
    }

    private static Object num(double x) {
        return Double.isFinite(x) ? x : null;
    }

    private static String fixed(double x) {
        return SweepSummary.num(x);
    }

    private static String hours(double seconds) {
        if (Double.isNaN(seconds)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2f", seconds / 3600);
    }
}
