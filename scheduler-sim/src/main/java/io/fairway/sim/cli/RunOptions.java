package io.fairway.sim.cli;

import io.fairway.sim.ActuatorFaults;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.report.ComparisonTable;
import io.fairway.sim.report.HtmlReport;
import io.fairway.sim.report.MetricsJson;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options {@code demo} and {@code simulate} share: policies, seed, outputs. */
final class RunOptions {
    @Option(names = "--policy", paramLabel = "NAME[:KEY=VALUE,...]",
            description = "Policies to run (default: every installed policy), each a name with optional parameters: "
                    + "NAME or NAME:KEY=VALUE,KEY=VALUE. Separate policies with \",\" or \";\", or repeat --policy: a token with "
                    + "\"=\" is a parameter of the policy before it, any other token starts a policy. "
                    + "E.g. --policy themis:f=0.2,leaseMinutes=10,tiresias-las. Values cannot hold \",\" or \";\" (lists take \"/\": "
                    + "tiresias-las:thresholds=3250/7200/18000). `fairway policies` lists each policy's parameters.")
    List<String> policies = new ArrayList<>();

    @Option(names = "--checkpoint-interval", paramLabel = "DURATION",
            description = "Give every job that carries no checkpointing a checkpoint every DURATION of progress (e.g. 10m, 600s, 1h, "
                    + "1h30m; restores take 20 s); a preempted job then loses only the work since its last checkpoint. "
                    + "Default: jobs without checkpointing restart from zero.")
    String checkpointInterval;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of the scheduler's random choices (default: 1, or the scenario's).")
    Long seed;

    @Option(names = "--round-interval", paramLabel = "SECONDS",
            description = "Also run a round every SECONDS of simulated time while jobs wait (default: rounds only at events).")
    Double roundIntervalSeconds;

    @Option(names = "--max-simulated-seconds", paramLabel = "SECONDS",
            description = "Stop at this simulated time (default: a horizon far beyond any schedule that lets work finish).")
    Double maxSimulatedSeconds;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the metrics of every policy as JSON.")
    Path json;

    @Option(names = "--events", paramLabel = "FILE", description = "Write the scheduler's events, one JSON object per line.")
    Path events;

    @Option(names = "--report", paramLabel = "DIR", description = "Write an HTML report with charts into DIR.")
    Path report;

    @Mixin
    ProgressOption progress = new ProgressOption();

    @Option(names = "--placement", paramLabel = "STRATEGY",
            description = "Placement search: topology-aware (default), first-fit, or both (every policy under each, rows named "
                    + "policy/strategy). Adds placement columns to the table: the share of multi-GPU placements at their best "
                    + "locality and the time-averaged fraction of free GPUs stranded on partly used nodes.")
    String placement;

    @Option(names = "--actuator-failure-rate", paramLabel = "KIND=RATE", split = ",",
            description = "Make the simulated actuator fail this fraction of its attempts at a decision kind (admit, provision), "
                    + "e.g. admit=0.3. Failed attempts are retried with exponential backoff.")
    Map<String, Double> actuatorFailureRates = new java.util.LinkedHashMap<>();

    @Option(names = "--actuator-timeout-rate", paramLabel = "KIND=RATE", split = ",",
            description = "Make this fraction of the actuator's attempts at a decision kind time out (see --actuator-timeout).")
    Map<String, Double> actuatorTimeoutRates = new java.util.LinkedHashMap<>();

    @Option(names = "--actuator-timeout", paramLabel = "SECONDS", description = "How long a timed-out attempt waits (default 30).")
    Double actuatorTimeoutSeconds;

    @Option(names = "--actuator-backoff", paramLabel = "BASE,CAP", split = ",",
            description = "Backoff between attempts: BASE seconds before the first retry, doubling, at most CAP (default 10,300).")
    List<Double> actuatorBackoff = new ArrayList<>();

    @Option(names = "--actuator-max-attempts", paramLabel = "N",
            description = "Attempts before the actuator gives up and the job goes back to pending (default 5).")
    Integer actuatorMaxAttempts;

    /**
     * @param base the scenario's actuator faults (or {@link ActuatorFaults#NONE})
     * @return them with the command line's settings applied over them
     */
    ActuatorFaults actuatorFaults(ActuatorFaults base) {
        ActuatorFaults f = base;
        try {
            for (Map.Entry<String, Double> e : actuatorFailureRates.entrySet()) {
                f = f.withFailureRate(e.getKey(), e.getValue());
            }
            for (Map.Entry<String, Double> e : actuatorTimeoutRates.entrySet()) {
                f = f.withTimeoutRate(e.getKey(), e.getValue());
            }
            if (!actuatorBackoff.isEmpty() && actuatorBackoff.size() != 2) {
                throw new FairwayCommand.UserException("--actuator-backoff takes BASE,CAP (two numbers), was " + actuatorBackoff);
            }
            return f.withRetry(actuatorTimeoutSeconds == null ? f.timeoutSeconds() : actuatorTimeoutSeconds,
                    actuatorBackoff.isEmpty() ? f.backoffBaseSeconds() : actuatorBackoff.get(0),
                    actuatorBackoff.isEmpty() ? f.backoffCapSeconds() : actuatorBackoff.get(1),
                    actuatorMaxAttempts == null ? f.maxAttempts() : actuatorMaxAttempts);
        } catch (io.fairway.api.InvalidSpecException e) {
            // name the options the user typed, not the scenario fields behind them
            throw new FairwayCommand.UserException(e.getMessage().replace("actuatorFaults.timeoutSeconds", "--actuator-timeout")
                    .replace("actuatorFaults.backoffBaseSeconds", "--actuator-backoff BASE").replace("actuatorFaults.backoffCapSeconds",
                            "--actuator-backoff CAP").replace("actuatorFaults.maxAttempts", "--actuator-max-attempts"));
        }
    }

    /**
     * @param input a simulation input
     * @return it with {@code --checkpoint-interval} given to its jobs that carry no checkpointing (unchanged without the option)
     */
    io.fairway.sim.SimulationInput withCheckpoints(io.fairway.sim.SimulationInput input) {
        if (checkpointInterval == null) {
            return input;
        }
        try {
            io.fairway.sim.SimulationInput in = io.fairway.sim.trace.Checkpoints.whereMissing(input,
                    io.fairway.sim.trace.Checkpoints.every(io.fairway.sim.trace.Checkpoints.parseDuration(checkpointInterval)));
            return new io.fairway.sim.SimulationInput(input.name() + ", checkpoints every " + checkpointInterval.trim(), in.cluster(),
                    in.queues(), in.jobs(), in.actions());
        } catch (io.fairway.api.InvalidSpecException e) {
            throw new FairwayCommand.UserException("--checkpoint-interval: " + e.getMessage());
        }
    }

    /** @return the placement strategies asked for (one unless {@code --placement both}) */
    List<PlacementStrategy> placements() {
        if (placement == null) {
            return List.of(PlacementStrategy.TOPOLOGY_AWARE);
        }
        return switch (placement.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "topology-aware" -> List.of(PlacementStrategy.TOPOLOGY_AWARE);
            case "first-fit" -> List.of(PlacementStrategy.FIRST_FIT);
            case "both" -> List.of(PlacementStrategy.TOPOLOGY_AWARE, PlacementStrategy.FIRST_FIT);
            default -> throw new FairwayCommand.UserException("--placement must be topology-aware, first-fit or both, was " + placement);
        };
    }

    /** @param s a strategy @return its command-line name */
    static String name(PlacementStrategy s) {
        return s == PlacementStrategy.FIRST_FIT ? "first-fit" : "topology-aware";
    }

    /** @return the simulation options these command-line options ask for, over a default seed and round interval */
    SimulationOptions simulationOptions(long defaultSeed, double defaultRoundInterval) {
        return SimulationOptions.DEFAULTS.withSeed(seed == null ? defaultSeed : seed)
                .withRoundIntervalSeconds(roundIntervalSeconds == null ? defaultRoundInterval : roundIntervalSeconds)
                .withRecordEvents(events != null)
                .withMaxSimulatedSeconds(maxSimulatedSeconds == null ? 0 : maxSimulatedSeconds)
                .withPlacement(placements().get(0))
                .withActuatorFaults(actuatorFaults(ActuatorFaults.NONE));
    }

    /** Prints the table and writes the requested files. */
    void output(PrintWriter out, String title, List<SimulationResult> results, Path defaultReport) {
        out.print(ComparisonTable.format(results, placement != null));
        for (SimulationResult r : results) {
            io.fairway.sim.ActuatorMetrics a = r.actuator();
            if (a.attempts() > 0) {
                out.println(String.format(java.util.Locale.ROOT, "%s actuator: %d attempts, %d failed, %d timed out, %d retries, "
                        + "%d given up (job back to pending), %.0f s of backoff, at most %d attempts for one decision, "
                        + "%d engine/simulator disagreements", r.policy(), a.attempts(), a.failures(), a.timeouts(), a.retries(),
                        a.givenUp(), a.backoffSeconds(), a.maxAttemptsOfOneDecision(), a.engineMismatches()));
            }
        }
        int skipped = results.isEmpty() ? 0 : results.get(0).metrics().skipped();
        if (skipped > 0) {
            out.println("(" + skipped + " job(s) skipped: more GPUs than the whole cluster)");
        }
        if (json != null) {
            MetricsJson.writeMetrics(json, results);
            out.println("metrics: " + json);
        }
        if (events != null) {
            MetricsJson.writeEvents(events, results);
            out.println("events:  " + events);
        }
        Path dir = report != null ? report : defaultReport;
        if (dir != null) {
            out.println("report:  " + HtmlReport.write(dir, title, results));
        }
        out.flush();
    }
}
