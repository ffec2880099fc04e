package io.fairway.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Draws the scaling curves of docs/performance.md from JMH's JSON output: one PNG per benchmark method that has a
 * numeric {@code @Param}, score (with its error bars, clipped at 90% of the score) against that parameter, log-log.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar RoundBenchmark -f 1 -wi 3 -i 5 -rf json -rff results.json}
 * then {@code java -cp benchmarks/target/benchmarks.jar io.fairway.bench.PerformanceCharts results.json docs/images}.
 */
public final class PerformanceCharts {
    private PerformanceCharts() {
    }

    /**
     * @param args JMH JSON results file(s), then the output directory last
     * @throws IOException when a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: PerformanceCharts results.json [more.json...] outputDir");
            System.exit(2);
        }
        Path out = Path.of(args[args.length - 1]);
        Files.createDirectories(out);
        // chart "method vs param" -> one series per value of the other parameters -> {x, score, error}
        Map<String, Map<String, List<double[]>>> charts = new LinkedHashMap<>();
        Map<String, String> units = new LinkedHashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < args.length - 1; i++) {
            for (JsonNode b : json.readTree(Path.of(args[i]).toFile())) {
                String name = b.get("benchmark").asText();
                name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
                JsonNode params = b.get("params");
                if (params == null) {
                    continue;
                }
                for (Map.Entry<String, JsonNode> p : params.properties()) {
                    double x;
                    try {
                        x = Double.parseDouble(p.getValue().asText());
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    StringBuilder label = new StringBuilder();
                    for (Map.Entry<String, JsonNode> o : params.properties()) {
                        if (!o.getKey().equals(p.getKey()) && !isNumber(o.getValue().asText())) {
                            label.append(label.length() == 0 ? "" : ", ").append(o.getKey()).append('=').append(o.getValue().asText());
                        }
                    }
                    JsonNode m = b.get("primaryMetric");
                    String key = name + " vs " + p.getKey();
                    charts.computeIfAbsent(key, k -> new LinkedHashMap<>())
                            .computeIfAbsent(label.length() == 0 ? name : label.toString(), k -> new ArrayList<>())
                            .add(new double[] {x, m.get("score").asDouble(), safe(m.get("scoreError").asDouble())});
                    units.put(key, m.get("scoreUnit").asText());
                }
            }
        }
        for (Map.Entry<String, Map<String, List<double[]>>> c : charts.entrySet()) {
            boolean varies = c.getValue().values().stream().anyMatch(pts -> pts.stream().mapToDouble(p -> p[0]).distinct().count() >= 2);
            if (!varies) {
                continue; // the parameter does not vary in this benchmark
            }
            String[] parts = c.getKey().split(" vs ");
            XYChart chart = new XYChartBuilder().width(640).height(420).title(c.getKey())
                    .xAxisTitle(parts[1]).yAxisTitle(units.get(c.getKey())).build();
            chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true).setLegendPosition(Styler.LegendPosition.InsideNW)
                    .setMarkerSize(6);
            for (Map.Entry<String, List<double[]>> e : c.getValue().entrySet()) {
                List<double[]> pts = e.getValue();
                pts.sort((a, b) -> Double.compare(a[0], b[0]));
                double[] x = pts.stream().mapToDouble(p -> p[0]).toArray();
                double[] y = pts.stream().mapToDouble(p -> p[1]).toArray();
                // JMH's 99.9% error can exceed the score on a noisy machine; a log axis needs the bar above zero
                double[] err = pts.stream().mapToDouble(p -> Math.min(p[2], p[1] * 0.9)).toArray();
                chart.addSeries(e.getKey(), x, y, err);
            }
            Path file = out.resolve(c.getKey().replace(' ', '-').replace('.', '-') + ".png");
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            System.out.println("wrote " + file);
        }
    }

    /** @return true when the parameter value is a number (then it is an axis, not a series label) */
    private static boolean isNumber(String v) {
        try {
            Double.parseDouble(v);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static double safe(double v) {
        return Double.isNaN(v) ? 0 : v;
    }
}
