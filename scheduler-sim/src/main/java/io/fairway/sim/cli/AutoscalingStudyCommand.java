package io.fairway.sim.cli;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.Resources;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.InfraMetrics;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimNodePool;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.report.ComparisonTable;
import io.fairway.sim.trace.Trace;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway autoscaling-study}: the bundled Philly sample on an empty cluster whose nodes all come from node
 * pools — on-demand only, spot only, or mixed (spot first, on-demand once the spot pool's limit is reached) — with
 * and without checkpointing, under one policy. Reports cost, average JCT, work lost to spot interruptions and time
 * spent waiting for nodes; writes bar charts of the four.
 *
 * <p>Instance types: p3.2xlarge (1 V100), p3.8xlarge (4), p3.16xlarge (8, hybrid cube-mesh), at illustrative prices
 * ($3.06, $12.24, $24.48 per hour on demand; spot at 30% of that). Spot nodes are interrupted at
 * {@code --interruptions-per-hour} per node-hour with a two-minute notice. Pools: 64 GPUs in all, 180 s
 * provisioning delay, 300 s consolidation delay.
 *
 * <pre>
 * ./fairway autoscaling-study --plot docs/guides/autoscaling.png
 * </pre>
 */
@Command(name = "autoscaling-study", mixinStandardHelpOptions = true,
        description = "The Philly sample on node pools (on-demand, spot, mixed) with and without checkpointing: cost, average JCT, "
                + "work lost to spot interruptions, time waiting for nodes.")
public final class AutoscalingStudyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--policy", defaultValue = "best-effort-fifo", description = "The policy. Default: ${DEFAULT-VALUE}.")
    String policy;

    @Option(names = "--jobs", description = "Only the first N jobs of the sample (by submission time).")
    Integer jobs;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the interruptions and the scheduler. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--interruptions-per-hour", defaultValue = "0.05",
            description = "Spot interruptions per node-hour (exponential lifetimes). Default: ${DEFAULT-VALUE}.")
    double rate;

    @Option(names = "--checkpoint-interval", defaultValue = "1800", description = "Seconds of progress between checkpoints. Default: ${DEFAULT-VALUE}.")
    double interval;

    @Option(names = "--restore-seconds", defaultValue = "120", description = "Seconds a restore takes. Default: ${DEFAULT-VALUE}.")
    double restore;

    @Option(names = "--max-simulated-days", defaultValue = "14",
            description = "Stop each run after this many simulated days; jobs not done by then count as unfinished. Default: ${DEFAULT-VALUE}.")
    double maxDays;

    @Option(names = "--consolidation", defaultValue = "WHEN_EMPTY",
            description = "Which pool nodes are consolidated: WHEN_EMPTY, or WHEN_UNDERUTILIZED (also under-used nodes whose jobs all "
                    + "checkpoint and fit elsewhere: they migrate). Default: ${DEFAULT-VALUE}.")
    NodePool.Consolidation consolidation;

    @Option(names = "--plot", paramLabel = "FILE", description = "Write a PNG with four bar charts: cost, average JCT, work lost, node wait.")
    Path plot;

    @Mixin
    MetricsJsonOption json = new MetricsJsonOption();

    @Mixin
    ProgressOption progress = new ProgressOption();

    /** Created by picocli. */
    public AutoscalingStudyCommand() {
    }

    private static InstanceType type(String name, int gpus, double onDemandPrice, boolean spot) {
        String shape = gpus == 8 ? "hybrid-cube-mesh-8" : "uniform-" + gpus;
        Resources r = Resources.builder().cpu(8.0 * gpus).memoryGiB(61.0 * gpus).build();
        return new InstanceType(name + (spot ? "-spot" : ""), r, shape, "V100", spot ? Math.round(onDemandPrice * 30) / 100.0 : onDemandPrice,
                spot ? CapacityType.SPOT : CapacityType.ON_DEMAND);
    }

    private static List<InstanceType> types(boolean spot) {
        return List.of(type("p3.2xlarge", 1, 3.06, spot), type("p3.8xlarge", 4, 12.24, spot), type("p3.16xlarge", 8, 24.48, spot));
    }

    private SimNodePool pool(String name, boolean spot, long gpuLimit) {
        NodePool p = new NodePool(name, null, types(spot), Resources.builder().gpus(gpuLimit).build(), 180_000, 300_000, Map.of(), List.of())
                .withConsolidation(consolidation == null ? NodePool.Consolidation.WHEN_EMPTY : consolidation);
        Map<String, Double> rates = new LinkedHashMap<>();
        if (spot) {
            for (InstanceType t : p.instanceTypes()) {
                rates.put(t.name(), rate);
            }
        }
        return new SimNodePool(p, rates, SimNodePool.DEFAULT_NOTICE_SECONDS);
    }

    /** @return the three clusters: on-demand, spot, mixed */
    Map<String, ClusterModel> clusters() {
        List<ClusterSpec> specs = List.of(ClusterSpec.withRacks("default"));
        Map<String, ClusterModel> m = new LinkedHashMap<>();
        m.put("on-demand", new ClusterModel(specs, List.of(), List.of(pool("on-demand", false, 64)), Map.of()));
        m.put("spot", new ClusterModel(specs, List.of(), List.of(pool("spot", true, 64)), Map.of()));
        m.put("mixed", new ClusterModel(specs, List.of(), List.of(pool("spot", true, 32), pool("on-demand", false, 32)), Map.of()));
        return m;
    }

    private List<SimJob> withCheckpointing(List<SimJob> js) {
        List<SimJob> out = new ArrayList<>(js.size());
        for (SimJob j : js) {
            JobSpec s = j.spec();
            out.add(new SimJob(new JobSpec(s.id(), s.namespace(), s.queue(), s.jobSet(), s.owner(), s.priority(), s.submitTimeMillis(), s.podSets(),
                    s.estimatedSeconds(), s.sensitivity(), new Checkpointing(interval, 0, restore)), j.durationSeconds()));
        }
        return out;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Trace t = Defaults.trace();
        List<SimJob> js = t.jobs();
        if (jobs != null) {
            if (jobs < 1) {
                throw new FairwayCommand.UserException("--jobs must be >= 1, was " + jobs);
            }
            js = js.stream().sorted(Comparator.comparingLong(SimJob::submitMillis)).limit(jobs).toList();
        }
        Runs.policies(List.of(policy), Map.of());
        out.println(String.format(Locale.ROOT, "Autoscaling study: %d jobs of the Philly sample under %s; spot interruptions %.3f per node-hour "
                + "(2 min notice); checkpoints every %.0f s, restore %.0f s; consolidation %s", js.size(), policy, rate, interval, restore, consolidation));
        out.flush();
        List<SimulationResult> results = new ArrayList<>();
        for (Map.Entry<String, ClusterModel> c : clusters().entrySet()) {
            for (boolean ckpt : new boolean[] {false, true}) {
                List<SimJob> runJobs = ckpt ? withCheckpointing(js) : js;
                SimulationInput in = new SimulationInput("Philly sample on " + c.getKey() + " pools", c.getValue(),
                        Defaults.withMissingLocalQueues(Defaults.queues(), t.localQueueKeys()), runJobs, List.of());
                SimulationResult r = Runs.run(in, List.of(policy), SimulationOptions.DEFAULTS.withSeed(seed).withMaxSimulatedSeconds(maxDays * 86_400), spec.commandLine().getErr(),
                        progress.show()).get(0);
                results.add(Runs.renamed(r, c.getKey() + (ckpt ? " + checkpoints" : "")));
            }
        }
        out.println();
        out.print(ComparisonTable.format(results, false));
        out.println();
        out.println(String.format(Locale.ROOT, "%-26s %10s %10s %10s %12s %14s %12s", "pools", "cost", "avg JCT", "completed", "interrupts",
                "lost GPU-h", "node wait"));
        for (SimulationResult r : results) {
            InfraMetrics i = r.infra();
            out.println(String.format(Locale.ROOT, "%-26s %10s %10s %10d %12d %14.1f %10.1f h", r.policy(), String.format(Locale.ROOT, "$%.0f",
                    i.costDollars()), ComparisonTable.duration(r.metrics().avgJctSeconds()), r.metrics().completed(), i.interruptions(),
                    i.gpuHoursLostToInterruptions(), i.nodeWaitJobHours()));
        }
        json.write(out, results);
        if (plot != null) {
            writePlot(plot, results);
            out.println("plot:    " + plot);
        }
        out.flush();
        return 0;
    }

    private static void writePlot(Path file, List<SimulationResult> results) {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<String> names = new ArrayList<>();
        List<Double> cost = new ArrayList<>();
        List<Double> jct = new ArrayList<>();
        List<Double> lost = new ArrayList<>();
        List<Double> wait = new ArrayList<>();
        for (SimulationResult r : results) {
            names.add(r.policy());
            cost.add(r.infra().costDollars() / 1000);
            jct.add(r.metrics().avgJctSeconds() / 3600);
            lost.add(r.infra().gpuHoursLostToInterruptions());
            wait.add(r.infra().nodeWaitJobHours());
        }
        List<CategoryChart> charts = List.of(panel("Cost", "thousand $", names, cost), panel("Average JCT", "hours", names, jct),
                panel("Work lost to spot interruptions", "GPU-hours", names, lost), panel("Time jobs waited for nodes", "job-hours", names, wait));
        try {
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            String base = file.toString().endsWith(".png") ? file.toString().substring(0, file.toString().length() - 4) : file.toString();
            BitmapEncoder.saveBitmap(charts, 2, 2, base, BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static CategoryChart panel(String title, String unit, List<String> names, List<Double> values) {
        CategoryChart c = new CategoryChartBuilder().width(640).height(420).title(title).yAxisTitle(unit).build();
        c.getStyler().setXAxisLabelRotation(30);
        c.getStyler().setLegendVisible(false);
        c.addSeries(title, names, values);
        return c;
    }
}
