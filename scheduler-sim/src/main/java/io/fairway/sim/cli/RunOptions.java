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

    /** @return the simulation options these command-line options ask for, over a default seed and round interval */
    SimulationOptions simulationOptions(long defaultSeed, double defaultRoundInterval) {
        return SimulationOptions.DEFAULTS.withSeed(seed == null ? defaultSeed : seed)
                .withRoundIntervalSeconds(roundIntervalSeconds == null ? defaultRoundInterval : roundIntervalSeconds)
                .withRecordEvents(events != null)
                .withMaxSimulatedSeconds(maxSimulatedSeconds == null ? 0 : maxSimulatedSeconds);
    }

    /** Prints the table and writes the requested files. */
    void output(PrintWriter out, String title, List<SimulationResult> results, Path defaultReport) {
        List<PolicyMetrics> ms = new ArrayList<>();
        for (SimulationResult r : results) {
            ms.add(r.metrics());
        }
        out.print(ComparisonTable.format(ms));
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
