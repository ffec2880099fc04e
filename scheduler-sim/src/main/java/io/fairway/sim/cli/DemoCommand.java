package io.fairway.sim.cli;

import io.fairway.sim.ClusterModel;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.report.MetricsJson;
import io.fairway.sim.trace.Trace;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway demo}: the bundled Philly sample on the bundled 64-GPU cluster under every installed policy,
 * one comparison table, and an HTML report.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Simulates the bundled Philly trace sample (1,500 jobs) on the bundled 64-GPU cluster under every installed "
                + "policy, prints a comparison table and writes an HTML report (fairway-out/demo/ by default).")
public final class DemoCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Mixin
    private RunOptions options;

    @Option(names = "--out", paramLabel = "DIR", description = "Where the report and metrics.json go (default: ${DEFAULT-VALUE}).")
    private Path out = Path.of("fairway-out", "demo");

    @Option(names = "--jobs", paramLabel = "N", description = "Simulate only the first N jobs of the sample.")
    private Integer jobs;

    @Option(names = "--no-report", description = "Do not write the HTML report.")
    private boolean noReport;

    /** Created by picocli. */
    public DemoCommand() {
    }

    @Override
    public void run() {
        PrintWriter pw = spec.commandLine().getOut();
        List<String> policies = Runs.policies(options.policies, Map.of());
        Trace trace = Defaults.trace();
        if (jobs != null) {
            if (jobs < 1) {
                throw new FairwayCommand.UserException("--jobs must be >= 1, was " + jobs);
            }
            trace = trace.limit(jobs);
        }
        ClusterModel cluster = Defaults.cluster();
        QueueModel queues = Defaults.queues();
        SimulationInput input = new SimulationInput("Philly sample (" + trace.jobs().size() + " jobs) on " + cluster.totalGpus() + " GPUs",
                cluster, queues, trace.jobs(), List.of());
        input = options.withCheckpoints(input);
        SimulationOptions o = options.simulationOptions(1, 0);
        pw.println("Simulating " + trace.jobs().size() + " jobs of the Philly trace sample on " + cluster.totalGpus() + " GPUs ("
                + cluster.nodes().size() + " nodes) under " + policies.size() + " policies: " + String.join(", ", policies));
        pw.flush();
        long t0 = System.nanoTime();
        List<SimulationResult> results = Runs.run(input, policies, o, spec.commandLine().getErr(), !options.noProgress);
        pw.printf("%n");
        options.output(pw, input.name(), results, noReport ? null : out);
        pw.println(fairest(results));
        if (!noReport && options.json == null) {
            Path metrics = out.resolve("metrics.json");
            MetricsJson.writeMetrics(metrics, results);
            pw.println("metrics: " + metrics);
        }
        pw.printf("simulated in %.1f s wall time%n", (System.nanoTime() - t0) / 1e9);
        pw.flush();
    }

    /**
     * @param results one per policy
     * @return a line naming the fairest policy by max ρ (ties named together) and the runner-up, with their values
     */
    static String fairest(List<SimulationResult> results) {
        List<SimulationResult> byRho = new java.util.ArrayList<>(results);
        byRho.sort(java.util.Comparator.comparingDouble((SimulationResult r) -> r.metrics().maxRho()).thenComparing(SimulationResult::policy));
        if (byRho.isEmpty()) {
            return "";
        }
        String best = String.format(java.util.Locale.ROOT, "%.2f", byRho.get(0).metrics().maxRho());
        List<String> tied = new java.util.ArrayList<>();
        int next = 0;
        while (next < byRho.size() && String.format(java.util.Locale.ROOT, "%.2f", byRho.get(next).metrics().maxRho()).equals(best)) {
            tied.add(byRho.get(next++).policy());
        }
        StringBuilder sb = new StringBuilder("Fairest by max ρ (the job treated worst, relative to running alone on its share): ")
                .append(String.join(", ", tied)).append(" (").append(best).append(tied.size() > 1 ? ", tied" : "").append(')');
        if (next < byRho.size()) {
            SimulationResult r = byRho.get(next);
            sb.append(String.format(java.util.Locale.ROOT, "; next %s (%.2f, %.1f× higher)", r.policy(), r.metrics().maxRho(),
                    r.metrics().maxRho() / byRho.get(0).metrics().maxRho()));
        }
        return sb.append('.').toString();
    }
}
