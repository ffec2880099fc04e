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
        List<SimulationResult> results = Runs.run(input, policies, o, spec.commandLine().getErr(), options.progress.show());
        pw.printf("%n");
        options.output(pw, input.name(), results, noReport ? null : out);
        for (String why : whyIdentical(results, trace.jobs())) {
            pw.println(why);
        }
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
     * Why policies that ran every job alike did, from what the workload lacks: a policy that orders by priority when
     * every job has the same one, or that shares between job sets (apps) when every job is a set of its own, admits in
     * submission order, as best-effort-fifo does; and when no two jobs ever waited at once, no policy had an order to choose.
     *
     * @param results one per policy
     * @param jobs the workload they ran
     * @return one line per explained policy (none when no policy ran like best-effort-fifo)
     */
    static List<String> whyIdentical(List<SimulationResult> results, List<io.fairway.sim.SimJob> jobs) {
        SimulationResult fifo = results.stream().filter(r -> r.policy().equals("best-effort-fifo")).findFirst().orElse(null);
        List<String> lines = new java.util.ArrayList<>();
        if (fifo == null || jobs.isEmpty()) {
            return lines;
        }
        if (mostWaitingAtOnce(fifo) <= 1) {
            if (results.stream().anyMatch(r -> r != fifo && r.jobs().equals(fifo.jobs()))) {
                lines.add("why identical: under best-effort-fifo never more than one job was waiting at a time, so a policy had"
                        + " no order to choose; more jobs (--jobs) make them differ.");
            }
            return lines;
        }
        java.util.Set<Integer> priorities = new java.util.TreeSet<>();
        boolean noJobSets = true;
        for (io.fairway.sim.SimJob j : jobs) {
            priorities.add(j.spec().priority());
            noJobSets &= j.spec().jobSet().equals(j.spec().id());
        }
        for (SimulationResult r : results) {
            if (r == fifo || !r.jobs().equals(fifo.jobs())) {
                continue;
            }
            if (r.policy().equals("priority") && priorities.size() == 1) {
                lines.add("why priority = best-effort-fifo: priority orders jobs by their priority, and every job of this trace has"
                        + " priority " + priorities.iterator().next() + " (the trace has no priorities), so it admits in submission"
                        + " order and skips what does not fit, as best-effort-fifo does.");
            } else if (r.policy().equals("isolated-share") && noJobSets) {
                lines.add("why isolated-share = best-effort-fifo: isolated-share divides the GPUs between apps (job sets), and this"
                        + " trace names none, so every job is an app of its own; an app using nothing may always start its job, so"
                        + " it too admits in submission order and skips what does not fit.");
            }
        }
        return lines;
    }

    /** @return the most jobs that waited (submitted, not yet started) at the same moment in this run */
    private static int mostWaitingAtOnce(SimulationResult run) {
        java.util.List<double[]> edges = new java.util.ArrayList<>();
        for (io.fairway.sim.JobOutcome j : run.jobs()) {
            if (j.queueingDelaySeconds() > 0) {
                edges.add(new double[] {j.submitSeconds(), +1});
                edges.add(new double[] {j.firstStartSeconds(), -1});
            }
        }
        // at the same moment a start comes before a submission: a job that starts as another arrives is not waiting
        edges.sort(java.util.Comparator.<double[]>comparingDouble(e -> e[0]).thenComparingDouble(e -> e[1]));
        int waiting = 0;
        int most = 0;
        for (double[] e : edges) {
            waiting += (int) e[1];
            most = Math.max(most, waiting);
        }
        return most;
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
