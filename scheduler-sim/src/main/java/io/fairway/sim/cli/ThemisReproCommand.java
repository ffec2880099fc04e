package io.fairway.sim.cli;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.Fairness;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.PolicySpec;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.trace.ThemisWorkloadGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code fairway themis-repro}: the Themis reproduction (docs/policies/themis.md). Runs a workload (the bundled
 * Philly sample, or a
 * generated Themis-like one of hyper-parameter-search apps, {@link ThemisWorkloadGenerator}) on a 2-rack cluster of 64
 * GPUs (16 nodes × 4) or 256 GPUs (32 nodes × 8) under several policies — each given as {@code name} or
 * {@code name:key=value,key=value} ({@link PolicySpec}) — plus optional sweeps of Themis' fairness knob f and lease length, and reports
 * app-level finish-time fairness: an app (job set) finishes with its last job; its ρ is its completion time ÷ its
 * time on a private 1/N share (N = apps present, time-averaged over its life), i.e. max(longest job, Σ work × GPUs ÷
 * min(share, its demand)). Writes {@code results.md}, {@code results.csv} and PNG charts into {@code --out}.
 *
 * <pre>
 * ./fairway themis-repro --workload themis --gpus 64 --apps 150 --sweep-f 0,0.5,0.8,0.95 --sweep-lease 2,10,40 --out docs/policies/themis
 * </pre>
 */
@Command(name = "themis-repro", mixinStandardHelpOptions = true,
        description = "Reproduces Themis (finish-time fairness) against the baselines on the Philly sample or a generated workload of "
                + "hyper-parameter-search apps, with sweeps of f and the lease length; app-level rho, JCT, makespan, GPU-time.")
public final class ThemisReproCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--workload", defaultValue = "themis", description = "themis (generated) or philly (the bundled sample). Default: ${DEFAULT-VALUE}.")
    String workload;

    @Option(names = "--gpus", defaultValue = "64", description = "64 (16 nodes x 4 GPUs) or 256 (32 nodes x 8), 2 racks. Default: ${DEFAULT-VALUE}.")
    int gpus;

    @Option(names = "--apps", defaultValue = "150", description = "Apps of the generated workload. Default: ${DEFAULT-VALUE}.")
    int apps;

    @Option(names = "--load", defaultValue = "1.3", description = "Offered load of the generated workload. Default: ${DEFAULT-VALUE}.")
    double load;

    @Option(names = "--jobs", description = "Only the first N jobs of the Philly sample.")
    Integer jobs;

    @Option(names = "--checkpoint-minutes", defaultValue = "0",
            description = "Give every Philly job checkpointing every so many minutes (0: none, as in the trace). Default: ${DEFAULT-VALUE}.")
    double checkpointMinutes;

    @Option(names = "--seed", defaultValue = "42", description = "Workload and scheduler seed. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--policy", paramLabel = "NAME[:KEY=VALUE,...]", description = "Policies, as for simulate: NAME or "
            + "NAME:KEY=VALUE,KEY=VALUE, several separated by \",\" or \";\" or by repeating --policy (a token with \"=\" is a "
            + "parameter of the policy before it). Default: themis,tiresias-las,srtf,isolated-share,best-effort-fifo,strict-fifo.")
    List<String> policies;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write every run's app-level and job-level metrics as JSON.")
    Path json;

    @Mixin
    ProgressOption progress = new ProgressOption();

    @Option(names = "--sweep-f", split = ",", description = "Also run themis with each of these f.")
    List<Double> sweepF;

    @Option(names = "--sweep-lease", split = ",", description = "Also run themis with each of these lease lengths (minutes).")
    List<Double> sweepLease;

    @Option(names = "--write-trace", description = "Also write the workload as a native trace CSV.")
    Path writeTrace;

    @Option(names = "--diagnose", description = "Also print, per run: why jobs were preempted, GPU-hours lost to preemptions and restores, "
            + "waiting and JCT by job size, the five worst apps.")
    boolean diagnose;

    @Option(names = "--out", description = "Directory for results.md, results.csv and charts.")
    Path out;

    /** Created by picocli. */
    public ThemisReproCommand() {
    }

    /** One row of the results. */
    record Row(String label, String policy, Map<String, String> params, PolicyMetrics m, double[] appRho, double appMaxRho, double appMeanRho,
               double appJain, double avgAppJct, double gpuHours, String worstApp, Map<String, Double> appRhoByName) {
    }

    @Override
    public Integer call() {
        PrintWriter o = spec.commandLine().getOut();
        ClusterModel cluster = cluster(gpus);
        int perNode = (int) cluster.nodes().get(0).capacity().gpus();
        List<SimJob> input;
        String name;
        if (workload.equals("themis")) {
            ThemisWorkloadGenerator g = new ThemisWorkloadGenerator(gpus, apps, load, seed);
            input = writeTrace != null ? g.writeNativeCsv(writeTrace) : g.generate();
            name = String.format(Locale.ROOT, "themis-like (%d apps, load %.2f, seed %d)", apps, load, seed);
        } else if (workload.equals("philly")) {
            var t = Defaults.trace();
            input = jobs == null ? t.jobs() : t.limit(jobs).jobs();
            name = "philly-sample" + (jobs == null ? "" : " (first " + jobs + ")");
        } else {
            throw new FairwayCommand.UserException("--workload must be themis or philly, was " + workload);
        }
        List<SimJob> shaped = new ArrayList<>();
        for (SimJob j : input) {
            shaped.add(reshape(j, perNode, checkpointMinutes));
        }
        LinkedHashSet<String> lqs = new LinkedHashSet<>();
        Map<String, String> appOf = new HashMap<>();
        for (SimJob j : shaped) {
            lqs.add(j.spec().localQueueKey());
            appOf.put(j.id(), j.spec().jobSet());
        }
        QueueModel queues = Defaults.queuesFor(cluster, lqs);
        SimulationInput in = new SimulationInput(name, cluster, queues, shaped, List.of());
        List<PolicySpec> specs = new ArrayList<>(policies == null || policies.isEmpty()
                ? PolicySpec.parseList("themis,tiresias-las,srtf,isolated-share,best-effort-fifo,strict-fifo") : PolicySpec.parseAll(policies));
        for (Double f : sweepF == null ? List.<Double>of() : sweepF) {
            specs.add(new PolicySpec("themis", Map.of("f", String.valueOf(f))));
        }
        for (Double l : sweepLease == null ? List.<Double>of() : sweepLease) {
            specs.add(new PolicySpec("themis", Map.of("leaseMinutes", String.valueOf(l))));
        }
        for (PolicySpec p : specs) {
            p.check(); // an unknown policy or parameter fails before any run
        }
        o.printf(Locale.ROOT, "%s: %d jobs of %d apps on %d nodes (%d GPUs, 2 racks)%n", name, shaped.size(), new LinkedHashSet<>(appOf.values()).size(),
                cluster.nodes().size(), cluster.totalGpus());
        o.flush();
        List<Row> rows = new ArrayList<>();
        ProgressBar bar = new ProgressBar(spec.commandLine().getErr(), progress.show());
        try {
            for (int i = 0; i < specs.size(); i++) {
                PolicySpec p = specs.get(i);
                int index = i;
                int n = specs.size();
                SimulationResult r = Simulator.run(in, p.name(), p.applyTo(SimulationOptions.DEFAULTS.withSeed(seed).withRecordEvents(diagnose)),
                        f -> bar.update((index + f) / n, p.label() + " (" + (index + 1) + "/" + n + ")"));
                bar.finish();
                Row row = row(p.label(), p.name(), p.parameters(), r, appOf);
                rows.add(row);
                o.println(format(row) + " worst: " + row.worstApp());
                if (diagnose) {
                    o.print(diagnosis(r, appOf, shaped));
                }
                o.flush();
            }
        } finally {
            bar.finish();
        }
        String table = table(name, cluster, rows);
        o.println();
        o.print(table);
        if (out != null) {
            write(out, name, table, rows);
            o.println("written: " + out.resolve("results.md"));
        }
        if (json != null) {
            writeJson(json, name, cluster, rows);
            o.println("metrics: " + json);
        }
        o.flush();
        return 0;
    }

    /**
     * Writes the runs as JSON: {@code {"workload", "gpus", "nodes", "seed", "runs": [{"label", "policy", "parameters",
     * "appMaxRho", "appMeanRho", "appJain", "avgAppJctSeconds", "gpuHours", "worstApp", "appRho": {app: rho}, "metrics":
     * {job-level metrics as in simulate's --json}}]}}; a value that does not exist is null.
     */
    private void writeJson(Path file, String name, ClusterModel cluster, List<Row> rows) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("workload", name);
        doc.put("gpus", cluster.totalGpus());
        doc.put("nodes", cluster.nodes().size());
        doc.put("seed", seed);
        List<Map<String, Object>> runs = new ArrayList<>();
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("label", r.label());
            m.put("policy", r.policy());
            m.put("parameters", r.params());
            m.put("appMaxRho", num(r.appMaxRho()));
            m.put("appMeanRho", num(r.appMeanRho()));
            m.put("appJain", num(r.appJain()));
            m.put("avgAppJctSeconds", num(r.avgAppJct()));
            m.put("gpuHours", num(r.gpuHours()));
            m.put("worstApp", r.worstApp());
            Map<String, Object> byApp = new LinkedHashMap<>();
            r.appRhoByName().forEach((k, v) -> byApp.put(k, num(v)));
            m.put("appRho", byApp);
            m.put("metrics", io.fairway.sim.report.MetricsJson.toMap(r.m()));
            runs.add(m);
        }
        doc.put("runs", runs);
        try {
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            new com.fasterxml.jackson.databind.ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                    .writeValue(file.toFile(), doc);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static Double num(double v) {
        return Double.isFinite(v) ? v : null;
    }

    static ClusterModel cluster(int gpus) {
        int perNode;
        GpuTopology shape;
        if (gpus == 64) {
            perNode = 4;
            shape = GpuTopology.pcie4("V100");
        } else if (gpus == 256) {
            perNode = 8;
            shape = GpuTopology.hybridCubeMesh8("V100");
        } else {
            throw new FairwayCommand.UserException("--gpus must be 64 or 256, was " + gpus);
        }
        int nodes = gpus / perNode;
        List<Node> ns = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            String rack = "rack-" + (i * 2 / nodes);
            ns.add(Node.builder(String.format(Locale.ROOT, "n%03d", i)).label(ClusterSpec.RACK_LABEL, rack).gpus(shape)
                    .capacity(Resources.builder().cpu(64).memoryGiB(512).gpus(perNode).build()).build());
        }
        return new ClusterModel(List.of(ClusterSpec.withRacks("default")), ns);
    }

    /** Members of at most {@code perNode} GPUs (the fewest members dividing the GPU count), optional checkpointing. */
    static SimJob reshape(SimJob j, int perNode, double checkpointMinutes) {
        JobSpec s = j.spec();
        List<PodSet> podSets = s.podSets();
        if (podSets.size() == 1 && podSets.get(0).resources().gpus() > perNode) {
            PodSet p = podSets.get(0);
            int g = (int) (p.resources().gpus() * p.count());
            int m = (g + perNode - 1) / perNode;
            while (g % m != 0) {
                m++;
            }
            Resources per = Resources.builder().gpus(g / m).build();
            podSets = List.of(PodSet.of(p.name(), m, per));
        }
        Checkpointing c = s.checkpointing();
        if (c == null && checkpointMinutes > 0) {
            c = new Checkpointing(checkpointMinutes * 60, 0, ThemisWorkloadGenerator.RESTORE_SECONDS);
        }
        if (podSets == s.podSets() && c == s.checkpointing()) {
            return j;
        }
        return new SimJob(new JobSpec(s.id(), s.namespace(), s.queue(), s.jobSet(), s.owner(), s.priority(), s.submitTimeMillis(), podSets,
                s.estimatedSeconds(), s.sensitivity(), c), j.durationSeconds());
    }

    /** App-level metrics from the jobs' outcomes. */
    static Row row(String label, String policy, Map<String, String> params, SimulationResult r, Map<String, String> appOf) {
        io.fairway.sim.sweep.AppFairness a = io.fairway.sim.sweep.AppFairness.of(r, appOf);
        PolicyMetrics m = r.metrics();
        double gpuHours = m.gpuUtilization() * r.totalGpus() * m.makespanSeconds() / 3600;
        return new Row(label, policy, params, m, a.rho(), a.maxRho(), a.meanRho(), a.jain(), a.avgAppJctSeconds(), gpuHours, a.worst(),
                a.byApp());
    }

    /**
     * Where a run's time went: preemptions by reason, GPU-hours lost to preemptions (work redone) and to restores,
     * waiting and JCT by job size, and the five worst apps with their ρ.
     */
    static String diagnosis(SimulationResult r, Map<String, String> appOf, List<SimJob> jobs) {
        StringBuilder sb = new StringBuilder();
        Map<String, Integer> reasons = new TreeMap<>();
        for (io.fairway.sim.ActuationRecord e : r.actuations()) {
            if (e.kind().equals("Preempt") && e.detail() != null) {
                String[] w = e.detail().replaceAll("\\(.*", "").replaceAll("app-\\d+|[0-9.]+", "#").split(" ");
                reasons.merge(String.join(" ", java.util.Arrays.copyOf(w, Math.min(w.length, 9))).trim(), 1, Integer::sum);
            }
        }
        Map<String, Double> restore = new HashMap<>();
        for (SimJob j : jobs) {
            restore.put(j.id(), j.spec().checkpointing() == null ? 0 : j.spec().checkpointing().restoreCostSeconds());
        }
        double lost = 0;
        double restores = 0;
        TreeMap<Long, double[]> bySize = new TreeMap<>(); // gpus -> {jobs, jct, wait, preemptions}
        for (JobOutcome j : r.jobs()) {
            lost += j.lostWorkSeconds() * j.gpus() / 3600;
            restores += j.preemptions() * restore.getOrDefault(j.id(), 0.0) * j.gpus() / 3600;
            double[] b = bySize.computeIfAbsent(j.gpus(), k -> new double[4]);
            if (j.completed()) {
                b[0]++;
                b[1] += j.jctSeconds();
                b[2] += j.queueingDelaySeconds();
                b[3] += j.preemptions();
            }
        }
        sb.append(String.format(Locale.ROOT, "    GPU-hours lost: %.0f redone after preemptions, %.0f restoring%n", lost, restores));
        reasons.forEach((k, v) -> sb.append(String.format(Locale.ROOT, "    %5d preemptions: %s%n", v, k)));
        bySize.forEach((g, b) -> sb.append(String.format(Locale.ROOT, "    %2d-GPU jobs: %4.0f, avg JCT %.2f h, first wait %.2f h, %.1f preemptions each%n",
                g, b[0], b[1] / b[0] / 3600, b[2] / b[0] / 3600, b[3] / b[0])));
        // the five worst apps: their jobs' submission, first wait, JCT, run time and GPUs
        Row row = row("", "", Map.of(), r, appOf);
        Map<String, List<JobOutcome>> byApp = new TreeMap<>();
        for (JobOutcome j : r.jobs()) {
            byApp.computeIfAbsent(appOf.getOrDefault(j.id(), j.id()), k -> new ArrayList<>()).add(j);
        }
        List<Map.Entry<String, Double>> worst = new ArrayList<>(row.appRhoByName().entrySet());
        worst.sort(Map.Entry.<String, Double>comparingByValue().reversed());
        for (Map.Entry<String, Double> e : worst.subList(0, Math.min(5, worst.size()))) {
            StringBuilder js = new StringBuilder();
            for (JobOutcome j : byApp.getOrDefault(e.getKey(), List.of())) {
                js.append(String.format(Locale.ROOT, " [%s %d GPUs, submitted %.0f s, waited %.0f s, JCT %.0f s, runs %.0f s, %d preemptions]",
                        j.id(), j.gpus(), j.submitSeconds(), j.queueingDelaySeconds(), j.jctSeconds(), j.durationSeconds(), j.preemptions()));
                if (js.length() > 600) {
                    js.append(" ...");
                    break;
                }
            }
            sb.append(String.format(Locale.ROOT, "    worst app %s rho %.2f:%s%n", e.getKey(), e.getValue(), js));
        }
        return sb.toString();
    }


    private static String format(Row r) {
        return String.format(Locale.ROOT, "| %-28s | %8.2f | %6.2f | %5.3f | %8.2f | %8.2f | %8.2f | %9.0f | %7d | %4d/%-4d |", r.label(),
                r.appMaxRho(), r.appMeanRho(), r.appJain(), r.m().avgJctSeconds() / 3600, r.avgAppJct() / 3600,
                r.m().makespanSeconds() / 3600, r.gpuHours(), r.m().preemptions(), r.m().completed(), r.m().jobs());
    }

    static String table(String name, ClusterModel cluster, List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s on %d GPUs (%d nodes, 2 racks)%n%n", name, cluster.totalGpus(), cluster.nodes().size()));
        sb.append("| policy                       | max ρ app | mean ρ | Jain  | avg JCT h | app JCT h | makespan h | GPU-hours | preempt | done      |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            sb.append(format(r)).append('\n');
        }
        return sb.toString();
    }

    /** @return v with this many decimals (a dot, whatever the locale) */
    private static String f(int decimals, double v) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static void write(Path dir, String name, String table, List<Row> rows) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("results.md"), table, StandardCharsets.UTF_8);
            List<List<String>> csv = new java.util.ArrayList<>();
            for (Row r : rows) {
                csv.add(List.of(r.label(), r.policy(), f(4, r.appMaxRho()), f(4, r.appMeanRho()), f(4, r.appJain()), f(1, r.m().avgJctSeconds()),
                        f(1, r.avgAppJct()), f(1, r.m().makespanSeconds()), f(2, r.gpuHours()), String.valueOf(r.m().preemptions()),
                        String.valueOf(r.m().completed()), String.valueOf(r.m().jobs()), f(4, r.m().maxRho()), f(4, r.m().meanRho())));
            }
            io.fairway.sim.report.CsvFiles.write(dir.resolve("results.csv"), List.of("label", "policy", "max_rho_app", "mean_rho_app", "jain_app",
                    "avg_jct_s", "avg_app_jct_s", "makespan_s", "gpu_hours", "preemptions", "completed", "jobs", "max_rho_job", "mean_rho_job"), csv);
            XYChart cdf = new XYChartBuilder().width(800).height(500).title("CDF of app finish-time fairness: " + name)
                    .xAxisTitle("rho (app)").yAxisTitle("fraction of apps").build();
            cdf.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
            cdf.getStyler().setXAxisLogarithmic(true);
            cdf.getStyler().setYAxisDecimalPattern("0.00");
            for (Row r : rows) {
                if (!r.params().isEmpty() || r.appRho().length == 0) {
                    continue;
                }
                double[] x = r.appRho().clone();
                java.util.Arrays.sort(x);
                double[] y = new double[x.length];
                for (int i = 0; i < x.length; i++) {
                    x[i] = Math.max(x[i], 1e-3);
                    y[i] = (i + 1.0) / x.length;
                }
                XYSeries s = cdf.addSeries(r.label(), x, y);
                s.setMarker(SeriesMarkers.NONE);
            }
            BitmapEncoder.saveBitmap(cdf, dir.resolve("rho-cdf").toString(), BitmapEncoder.BitmapFormat.PNG);
            sweepChart(dir, "f", "sweep-f", rows);
            sweepChart(dir, "leaseMinutes", "sweep-lease", rows);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write into " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void sweepChart(Path dir, String key, String file, List<Row> rows) throws IOException {
        List<double[]> pts = new ArrayList<>();
        for (Row r : rows) {
            if (r.policy().equals("themis") && r.params().size() == 1 && r.params().containsKey(key)) {
                pts.add(new double[] {Double.parseDouble(r.params().get(key)), r.appMaxRho(), r.m().avgJctSeconds() / 3600});
            }
        }
        if (pts.size() < 2) {
            return;
        }
        pts.sort((a, b) -> Double.compare(a[0], b[0]));
        double[] x = new double[pts.size()];
        double[] rho = new double[pts.size()];
        double[] jct = new double[pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            x[i] = pts.get(i)[0];
            rho[i] = pts.get(i)[1];
            jct[i] = pts.get(i)[2];
        }
        XYChart c = new XYChartBuilder().width(800).height(500).title("themis: sweep of " + key).xAxisTitle(key).yAxisTitle("value").build();
        c.addSeries("max rho (app)", x, rho);
        c.addSeries("avg JCT (h)", x, jct);
        BitmapEncoder.saveBitmap(c, dir.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
