package io.fairway.sim.cli;

import io.fairway.sim.ClusterAction;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.config.ClusterConfig;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.config.QueueFiles;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import io.fairway.sim.multicluster.MultiClusterRun;
import io.fairway.sim.report.ComparisonTable;
import io.fairway.sim.trace.Trace;
import io.fairway.sim.trace.TraceFormat;
import io.fairway.sim.trace.Traces;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway simulate}: a trace on a cluster and queues (each defaulting to the bundled ones), or a
 * self-contained scenario, under one or more policies.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Simulates a trace on a cluster and queues under one or more policies, or a scenario file. "
                + "Any of --cluster, --queues, --trace left out falls back to the bundled default.")
public final class SimulateCommand implements Runnable {
    /** Scenarios with at most this many jobs get a per-job listing. */
    private static final int LIST_JOBS_UP_TO = 50;

    @Spec
    private CommandSpec spec;

    @Mixin
    private RunOptions options;

    @Mixin
    private ServeOptions serve;

    @Option(names = "--cluster", paramLabel = "FILE", description = "Cluster YAML (default: bundled 8 x 8 V100 in 2 racks).")
    private Path cluster;

    @Option(names = "--queues", paramLabel = "FILE",
            description = "Queues YAML (default: with no --cluster, the bundled queues (ten team ClusterQueues sharing the bundled "
                    + "cluster through one cohort), plus a LocalQueue for any queue of the trace they lack; with --cluster, one "
                    + "ClusterQueue holding that cluster's whole capacity and a LocalQueue per queue of the trace).")
    private Path queues;

    @Option(names = "--trace", paramLabel = "FILE", description = "Job trace CSV (default: the bundled Philly sample).")
    private Path trace;

    @Option(names = "--trace-format", paramLabel = "FORMAT", description = "philly, tiresias or native (default: from the header).")
    private String traceFormat;

    @Option(names = "--scenario", paramLabel = "FILE", description = "A scenario YAML with cluster, queues, jobs and events.")
    private Path scenario;

    @Option(names = "--jobs", paramLabel = "N", description = "Simulate only the first N jobs (by submission time).")
    private Integer jobs;

    /** Created by picocli. */
    public SimulateCommand() {
    }

    @Override
    public void run() {
        serve.check();
        PrintWriter out = spec.commandLine().getOut();
        SimulationInput input;
        io.fairway.sim.ActuatorFaults scenarioFaults = io.fairway.sim.ActuatorFaults.NONE;
        List<String> requested = options.policies;
        long seed = options.seed == null ? 1 : options.seed;
        double interval = options.roundIntervalSeconds == null ? 0 : options.roundIntervalSeconds;
        if (scenario != null) {
            if (cluster != null || queues != null || trace != null || traceFormat != null) {
                throw new FairwayCommand.UserException("--scenario holds the cluster, queues and jobs; do not combine it with "
                        + "--cluster, --queues, --trace or --trace-format");
            }
            Scenario s = ScenarioConfig.load(scenario);
            input = s.input();
            if (requested.isEmpty()) {
                requested = s.policies();
            }
            if (options.seed == null && s.seed() != null) {
                seed = s.seed();
            }
            if (options.roundIntervalSeconds == null) {
                interval = s.roundIntervalSeconds();
            }
            scenarioFaults = s.actuatorFaults();
            out.println("Scenario " + s.name() + (s.description().isBlank() ? "" : ": " + s.description().strip()));
        } else {
            input = traceInput();
        }
        if (jobs != null) {
            if (jobs < 1) {
                throw new FairwayCommand.UserException("--jobs must be >= 1, was " + jobs);
            }
            input = new SimulationInput(input.name(), input.cluster(), input.queues(),
                    input.jobs().stream().sorted(java.util.Comparator.comparingLong(io.fairway.sim.SimJob::submitMillis)).limit(jobs).toList(),
                    input.actions());
        }
        input = options.withCheckpoints(input);
        List<String> policies = Runs.policies(requested, Map.of());
        if (multiCluster(input)) {
            runMultiCluster(out, input, policies, options.simulationOptions(seed, interval));
            return;
        }
        SimulationOptions o = options.simulationOptions(seed, interval).withActuatorFaults(options.actuatorFaults(scenarioFaults));
        if (serve.serving()) {
            serve.serve(out, input, policies, o.withPlacement(options.placements().get(0)));
            return;
        }
        out.println("Simulating " + plural(input.jobs().size(), "job") + " on " + plural(input.cluster().nodes().size(), "node") + " ("
                + input.cluster().totalGpus() + " GPUs" + (input.cluster().nodePools().isEmpty() ? ""
                        : ", node pools " + input.cluster().nodePools().stream().map(p -> p.pool().name()).toList()) + ") under "
                + String.join(", ", policies));
        out.flush();
        List<SimulationResult> results = new java.util.ArrayList<>();
        List<io.fairway.core.snapshot.PlacementStrategy> strategies = options.placements();
        for (io.fairway.core.snapshot.PlacementStrategy ps : strategies) {
            for (SimulationResult r : Runs.run(input, policies, o.withPlacement(ps), spec.commandLine().getErr(), options.progress.show())) {
                results.add(strategies.size() == 1 ? r : Runs.renamed(r, r.policy() + "/" + RunOptions.name(ps)));
            }
        }
        out.println();
        if (scenario != null && input.jobs().size() <= LIST_JOBS_UP_TO) {
            listJobs(out, results);
        }
        options.output(out, input.name(), results, null);
    }

    /** @return true when the input has several clusters or loses or gains one: the multi-cluster engine runs it */
    static boolean multiCluster(SimulationInput in) {
        return in.cluster().clusters().size() > 1 || in.actions().stream()
                .anyMatch(a -> a instanceof ClusterAction.LoseCluster || a instanceof ClusterAction.JoinCluster);
    }

    private void runMultiCluster(PrintWriter out, SimulationInput input, List<String> policies, SimulationOptions o) {
        if (options.json != null || options.events != null || options.report != null) {
            throw new FairwayCommand.UserException("--json, --events and --report are not available for a multi-cluster run (" 
                    + input.cluster().clusters().size() + " clusters); it prints per-cluster and per-queue tables");
        }
        if (options.placements().size() > 1) {
            throw new FairwayCommand.UserException("--placement both is not available for a multi-cluster run; give one strategy");
        }
        if (options.actuatorFaults(io.fairway.sim.ActuatorFaults.NONE).any()) {
            throw new FairwayCommand.UserException("--actuator-* faults apply to the single-actuator simulator, not to a multi-cluster run");
        }
        List<String> names = input.cluster().clusters().stream().map(io.fairway.api.model.ClusterSpec::name).collect(
                java.util.stream.Collectors.toCollection(java.util.ArrayList::new));
        for (ClusterAction a : input.actions()) {
            if (a instanceof ClusterAction.JoinCluster j) {
                names.add(j.cluster().name() + " (joins at " + ComparisonTable.duration(a.atMillis() / 1000.0) + ")");
            } else if (a instanceof ClusterAction.LoseCluster l) {
                out.println("Cluster " + l.cluster() + " is lost at " + ComparisonTable.duration(a.atMillis() / 1000.0)
                        + ": its executor falls silent, fences itself after " + MultiClusterRun.GRACE_MILLIS / 2000 + " s, and is declared lost after "
                        + MultiClusterRun.GRACE_MILLIS / 1000 + " s");
            }
        }
        out.println("Multi-cluster run: " + plural(input.jobs().size(), "job") + " on clusters " + String.join(", ", names)
                + ", one pull-based executor per cluster, under " + String.join(", ", policies));
        out.println();
        for (String policy : policies) {
            io.fairway.sim.PolicySpec ps = io.fairway.sim.PolicySpec.parse(policy);
            MultiClusterRun.Result r = MultiClusterRun.run(input, ps.name(), ps.applyTo(o));
            out.println(policy + ":");
            out.println(String.format(Locale.ROOT, "  %-12s %5s %5s %9s %9s %9s %6s %8s %6s %9s", "cluster", "nodes", "GPUs", "joined", "silent",
                    "lost", "runs", "finishes", "fenced", "GPU-hours"));
            for (MultiClusterRun.ClusterResult c : r.clusters()) {
                out.println(String.format(Locale.ROOT, "  %-12s %5d %5d %9s %9s %9s %6d %8d %6d %9.1f", c.name(), c.nodes(), c.gpus(),
                        ComparisonTable.duration(c.joinedAtSeconds()), ComparisonTable.duration(c.silentAtSeconds()),
                        ComparisonTable.duration(c.declaredLostAtSeconds()), c.runsStarted(), c.completions(), c.runsFenced(), c.gpuHours()));
            }
            out.println(String.format(Locale.ROOT, "  %-16s %6s %5s %5s %9s %9s %9s %6s %9s %6s", "queue", "factor", "jobs", "done", "avg JCT",
                    "avg wait", "GPU-hours", "share", "contended", "target"));
            for (MultiClusterRun.QueueResult q : r.queues()) {
                out.println(String.format(Locale.ROOT, "  %-16s %6.2f %5d %5d %9s %9s %9.1f %6.3f %9.3f %6.3f", q.name(), q.priorityFactor(),
                        q.jobs(), q.completed(), ComparisonTable.duration(q.avgJctSeconds()), ComparisonTable.duration(q.avgWaitSeconds()),
                        q.gpuHours(), q.share(), q.contendedShare(), q.targetShare()));
            }
            if (!r.queues().isEmpty()) {
                out.println(String.format(Locale.ROOT, "  (contended: share of the %.1f GPU-hours used while every queue had jobs waiting; "
                        + "target: 1/priority factor, normalised)", r.queues().get(0).contendedGpuHours()));
            }
            out.println(String.format(Locale.ROOT, "  %d jobs: %d finished exactly once, %d finished more than once, %d unfinished; "
                    + "at most %d executor(s) ran one job at the same moment; clusters declared lost: %s; %d job(s) restarted after "
                    + "their cluster was lost; last finish at %s", r.jobs(), r.completedOnce(), r.completedMoreThanOnce(), r.unfinished(),
                    r.maxConcurrentRuns(), r.lostClusters().isEmpty() ? "none" : String.join(", ", r.lostClusters()), r.restartedAfterLoss(),
                    ComparisonTable.duration(r.endSeconds())));
            out.println();
        }
        out.flush();
    }

    static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private SimulationInput traceInput() {
        ClusterConfig.Setup setup = cluster == null ? null : ClusterConfig.loadSetup(cluster);
        ClusterModel c = setup == null ? Defaults.cluster() : setup.model();
        List<io.fairway.sim.ClusterAction> actions = setup == null ? List.of() : setup.actions();
        Trace t;
        if (trace == null) {
            if (traceFormat != null) {
                throw new FairwayCommand.UserException("--trace-format needs --trace");
            }
            t = Defaults.trace();
        } else {
            t = Traces.read(trace, traceFormat == null ? null : TraceFormat.of(traceFormat));
        }
        QueueModel q;
        if (queues != null) {
            q = QueueFiles.load(queues);
        } else if (cluster == null) {
            q = Defaults.withMissingLocalQueues(Defaults.queues(), t.localQueueKeys());
        } else {
            q = Defaults.queuesFor(withJoining(c, actions), t.localQueueKeys());
        }
        String name = (trace == null ? "Philly sample" : trace.getFileName().toString()) + " on " + c.totalGpus() + " GPUs";
        return new SimulationInput(name, c, q, t.jobs(), actions);
    }

    /** @return the cluster with the nodes of clusters that join later, so a default quota covers them too */
    private static ClusterModel withJoining(ClusterModel c, List<ClusterAction> actions) {
        List<io.fairway.api.model.ClusterSpec> specs = new java.util.ArrayList<>(c.clusters());
        List<io.fairway.api.model.Node> nodes = new java.util.ArrayList<>(c.nodes());
        for (ClusterAction a : actions) {
            if (a instanceof ClusterAction.JoinCluster j) {
                specs.add(j.cluster());
                nodes.addAll(j.nodes());
            }
        }
        return new ClusterModel(specs, nodes, c.nodePools(), c.nodePricePerHour());
    }

    private static void listJobs(PrintWriter out, List<SimulationResult> results) {
        for (SimulationResult r : results) {
            out.println(r.policy() + ":");
            for (JobOutcome j : r.jobs()) {
                String state = j.cancelled() ? "cancelled" : j.completed() ? "completed" : Double.isNaN(j.firstStartSeconds()) ? "never started"
                        : "unfinished";
                out.println(String.format(Locale.ROOT, "  %-16s submitted %8s  started %8s  finished %8s  JCT %8s  %s", j.id(),
                        ComparisonTable.duration(j.submitSeconds()), ComparisonTable.duration(j.firstStartSeconds()),
                        ComparisonTable.duration(j.completionSeconds()), ComparisonTable.duration(j.jctSeconds()), state));
            }
        }
        out.println();
    }
}
