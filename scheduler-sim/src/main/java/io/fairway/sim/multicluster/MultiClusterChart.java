package io.fairway.sim.multicluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;

/**
 * Draws each queue's GPU share over time against the share its priority factor entitles it to, as a PNG.
 * {@code main} runs {@link MultiClusterSimulation.Config#example()} and writes the chart to the path given.
 */
public final class MultiClusterChart {
    private MultiClusterChart() {
    }

    /**
     * @param r a run's result
     * @param out where to write the PNG
     * @throws IOException if it cannot be written
     */
    public static void write(MultiClusterSimulation.Result r, Path out) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(500).title("GPU share per queue, 5 clusters, c2 lost at 2 h, c5 joins at 4 h")
                .xAxisTitle("simulated hours").yAxisTitle("share of GPUs in use").build();
        chart.getStyler().setXAxisDecimalPattern("0.#");
        chart.getStyler().setYAxisDecimalPattern("0.00");
        for (Map.Entry<String, List<Double>> q : r.shares().entrySet()) {
            chart.addSeries(q.getKey() + " (factor target " + String.format("%.2f", r.targets().get(q.getKey())) + ")", r.sampleHours(), q.getValue())
                    .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            XYSeries t = chart.addSeries(q.getKey() + " target", List.of(r.sampleHours().get(0), r.sampleHours().get(r.sampleHours().size() - 1)),
                    Collections.nCopies(2, r.targets().get(q.getKey())));
            t.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
        }
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * @param args the PNG path (default {@code docs/guides/multi-cluster-share.png})
     * @throws IOException if it cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/guides/multi-cluster-share.png");
        write(MultiClusterSimulation.run(MultiClusterSimulation.Config.example()), out);
    }
}
