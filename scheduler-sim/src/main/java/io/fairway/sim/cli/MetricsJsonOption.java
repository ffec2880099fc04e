package io.fairway.sim.cli;

import io.fairway.sim.SimulationResult;
import io.fairway.sim.report.MetricsJson;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --json FILE}, a mixin of the studies that write the metrics of every run they make, in the format of {@code simulate --json}. */
final class MetricsJsonOption {
    @Option(names = "--json", paramLabel = "FILE", description = "Write the metrics of every run as JSON.")
    Path file;

    /**
     * Writes the runs' metrics and says where, when {@code --json} was given.
     *
     * @param out where the command prints
     * @param results the runs
     */
    void write(PrintWriter out, List<SimulationResult> results) {
        if (file != null) {
            MetricsJson.writeMetrics(file, results);
            out.println("metrics: " + file);
        }
    }
}
