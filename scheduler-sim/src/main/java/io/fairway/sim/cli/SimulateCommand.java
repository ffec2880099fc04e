package io.fairway.sim.cli;

import io.fairway.sim.ClusterModel;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.config.ClusterConfig;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.config.QueuesConfig;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
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

    @Option(names = "--cluster", paramLabel = "FILE", description = "Cluster YAML (default: bundled 8 x 8 V100 in 2 racks).")
    private Path cluster;

    @Option(names = "--queues", paramLabel = "FILE",
            description = "Queues YAML (default: one ClusterQueue with the cluster's capacity and a LocalQueue per queue of the trace).")
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
        List<String> policies = Runs.policies(requested, Map.of());
        SimulationOptions o = options.simulationOptions(seed, interval).withActuatorFaults(options.actuatorFaults(scenarioFaults));
        out.println("Simulating " + plural(input.jobs().size(), "job") + " on " + plural(input.cluster().nodes().size(), "node") + " ("
                + input.cluster().totalGpus() + " GPUs" + (input.cluster().nodePools().isEmpty() ? ""
                        : ", node pools " + input.cluster().nodePools().stream().map(p -> p.pool().name()).toList()) + ") under "
                + String.join(", ", policies));
        out.flush();
        List<SimulationResult> results = new java.util.ArrayList<>();
        List<io.fairway.core.PlacementStrategy> strategies = options.placements();
        for (io.fairway.core.PlacementStrategy ps : strategies) {
            for (SimulationResult r : Runs.run(input, policies, o.withPlacement(ps), spec.commandLine().getErr(), !options.noProgress)) {
                results.add(strategies.size() == 1 ? r : Runs.renamed(r, r.policy() + "/" + RunOptions.name(ps)));
            }
        }
        out.println();
        if (scenario != null && input.jobs().size() <= LIST_JOBS_UP_TO) {
            listJobs(out, results);
        }
        options.output(out, input.name(), results, null);
    }

    static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private SimulationInput traceInput() {
        ClusterModel c = cluster == null ? Defaults.cluster() : ClusterConfig.load(cluster);
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
            q = QueuesConfig.load(queues);
        } else if (cluster == null) {
            q = Defaults.withMissingLocalQueues(Defaults.queues(), t.localQueueKeys());
        } else {
            q = Defaults.queuesFor(c, t.localQueueKeys());
        }
        String name = (trace == null ? "Philly sample" : trace.getFileName().toString()) + " on " + c.totalGpus() + " GPUs";
        return new SimulationInput(name, c, q, t.jobs(), List.of());
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
