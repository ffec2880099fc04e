package io.fairway.sim.cli;

import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.report.ComparisonTable;
import io.fairway.sim.report.HtmlReport;
import io.fairway.sim.report.MetricsJson;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import io.fairway.core.PlacementStrategy;
import java.util.List;
import picocli.CommandLine.Option;

/** The options {@code demo} and {@code simulate} share: policies, seed, outputs. */
final class RunOptions {
    @Option(names = "--policy", split = ",", paramLabel = "NAME", description = "Policies to run, comma-separated (default: every installed policy).")
    List<String> policies = new ArrayList<>();

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

    @Option(names = "--no-progress", description = "Do not draw the progress bar on stderr.")
    boolean noProgress;

    @Option(names = "--placement", paramLabel = "STRATEGY",
            description = "Placement search: topology-aware (default), first-fit, or both (every policy under each, rows named "
                    + "policy/strategy). Adds placement columns to the table: the share of multi-GPU placements at their best "
                    + "locality and the time-averaged fraction of free GPUs stranded on partly used nodes.")
    String placement;

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
                .withPlacement(placements().get(0));
    }

    /** Prints the table and writes the requested files. */
    void output(PrintWriter out, String title, List<SimulationResult> results, Path defaultReport) {
        out.print(ComparisonTable.format(results, placement != null));
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
