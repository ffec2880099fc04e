package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.sim.SimJob;
import io.fairway.sim.sweep.SweepWorkload;
import io.fairway.sim.sweep.SweepWorkloads;
import io.fairway.sim.trace.TraceFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepCommandTest {
    private static final List<String> POLICIES = List.of("themis", "tiresias-las", "best-effort-fifo");

    @TempDir
    Path dir;

    /**
     * A Philly-format trace of {@code rows} jobs: arrivals ~72 s apart, 1-32 GPUs (and a few of 64, which the sweep must
     * leave out), 1 min to 4 h, three virtual clusters — about 200 GPUs of work arriving per second of trace time.
     */
    static Path phillyTrace(Path dir, int rows) throws IOException {
        Random r = new Random(7);
        StringBuilder sb = new StringBuilder("timestamp,duration,num_gpus,gpu_time,cluster\n");
        LocalDateTime t = LocalDateTime.of(2017, 10, 1, 0, 0, 0);
        DateTimeFormatter f = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");
        int[] gpus = {1, 1, 1, 1, 2, 2, 4, 4, 8, 16, 32, 64};
        String[] clusters = {"vc-a", "vc-b", "vc-c"};
        for (int i = 0; i < rows; i++) {
            t = t.plusSeconds(1 + (long) (-Math.log(1 - r.nextDouble()) * 72));
            double duration = Math.round(Math.exp(Math.log(60) + r.nextDouble() * (Math.log(4 * 3600) - Math.log(60))));
            int g = gpus[r.nextInt(gpus.length)];
            sb.append(String.format(Locale.ROOT, "%s,%.1f,%d,%.1f,%s%n", f.format(t), duration, g, duration * g, clusters[r.nextInt(3)]));
        }
        Path p = dir.resolve("philly-generated.csv");
        Files.writeString(p, sb.toString());
        return p;
    }

    /** Tiresias' format, 12 jobs. */
    static Path tiresiasTrace(Path dir) throws IOException {
        StringBuilder sb = new StringBuilder("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n");
        for (int i = 0; i < 12; i++) {
            sb.append(String.format(Locale.ROOT, "%d,%d,%d,100,vgg19,%d,30%n", i, 1 << (i % 4), i * 40, 300 + 50 * i));
        }
        Path p = dir.resolve(SweepCommand.TIRESIAS_FILE);
        Files.writeString(p, sb.toString());
        return p;
    }

    private JsonNode sweep(Path trace, String seeds, String workloads, String threads, Path json, Path plot) throws IOException {
        List<String> args = new ArrayList<>(List.of("sweep", "--trace", trace.toString(), "--seeds", seeds, "--jobs", "100", "--policy",
                String.join(",", POLICIES), "--workloads", workloads, "--threads", threads, "--no-progress", "--json", json.toString()));
        if (plot != null) {
            args.addAll(List.of("--plot", plot.toString()));
        }
        FairwayCommandTest.Run r = FairwayCommandTest.run(args.toArray(String[]::new));
        assertThat(r.exit()).as(r.err() + r.out()).isZero();
        assertThat(r.out()).contains("Targets:").doesNotContain("issue #").contains("Verdicts, per job | per app:")
                .containsPattern("\\[(met|missed|not judged) \\| (met|missed|not judged)\\] on every contended run");
        return new ObjectMapper().readTree(json.toFile());
    }

    @Test
    void sweepOnAGeneratedTraceGivesOneRowPerRunReproduciblyWithTheSummaryComputedFromTheRows() throws IOException {
        Path trace = phillyTrace(dir, 400);
        tiresiasTrace(dir);
        Path plot = dir.resolve("out/sweep.png");
        JsonNode a = sweep(trace, "21-22", "philly,tiresias", "2", dir.resolve("a.json"), plot);
        JsonNode b = sweep(trace, "22", "philly", "1", dir.resolve("b.json"), null);

        // 2 seeds × 2 loads × with/without checkpoints + Tiresias once = 9 workloads, × 3 policies
        JsonNode rows = a.get("rows");
        assertThat(rows).hasSize(9 * POLICIES.size());
        assertThat(a.get("summary").get("workloads").asInt()).isEqualTo(9);
        // a seed gives the same rows, whatever the other seeds and the number of threads (only the wall and CPU times differ)
        List<JsonNode> seed22 = new ArrayList<>();
        for (JsonNode r : rows) {
            if (r.get("seed").asInt() == 22 && r.get("kind").asText().equals("philly")) {
                seed22.add(r);
            }
        }
        assertThat(seed22).hasSize(4 * POLICIES.size());
        assertThat(withoutTimes(seed22)).isEqualTo(withoutTimes(b.get("rows")));

        Map<String, Map<String, JsonNode>> byWorkload = new HashMap<>();
        for (JsonNode r : rows) {
            byWorkload.computeIfAbsent(r.get("workload").asText(), k -> new HashMap<>()).put(r.get("policy").asText(), r);
            if (r.get("kind").asText().equals("philly")) {
                assertThat(r.get("jobs").asInt()).isEqualTo(100);
                assertThat(r.get("gpus").asLong() % 8).isZero();
                assertThat(r.get("gpus").asLong()).isGreaterThanOrEqualTo(32);
                // whole 8-GPU nodes: the load achieved is close to the one asked for
                assertThat(r.get("load").asDouble()).isCloseTo(r.get("requestedLoad").asDouble(), within(0.1 * r.get("requestedLoad").asDouble()));
                assertThat(r.get("checkpoints").asBoolean()).isEqualTo(r.get("workload").asText().endsWith("-ckpt"));
                // a Philly window has one job per app: its max ρ per app is its max ρ per job
                assertThat(r.get("appMaxRho").asDouble()).isCloseTo(r.get("maxRho").asDouble(), within(1e-6 * r.get("maxRho").asDouble()));
            }
        }
        assertThat(byWorkload.keySet()).contains("philly-s21-L1-nockpt", "philly-s21-L3-ckpt", "philly-s22-L3-nockpt", "tiresias-60");
        // the 3× cluster is about a third of the 1× one
        double small = byWorkload.get("philly-s21-L3-nockpt").get("themis").get("gpus").asDouble();
        double large = byWorkload.get("philly-s21-L1-nockpt").get("themis").get("gpus").asDouble();
        assertThat(large / small).isBetween(2.4, 3.6);

        // the summary, recomputed by hand from the rows for themis against tiresias-las and the lowest baseline
        JsonNode summary = a.get("summary");
        List<Double> lasRatios = new ArrayList<>();
        int atMost125 = 0;
        int contended = 0;
        for (Map<String, JsonNode> runs : byWorkload.values()) {
            JsonNode themis = runs.get("themis");
            if (!themis.get("contended").asBoolean()) {
                continue;
            }
            contended++;
            assertThat(themis.get("completed").asInt()).isEqualTo(themis.get("jobs").asInt());
            double rho = themis.get("maxRho").asDouble();
            lasRatios.add(rho / runs.get("tiresias-las").get("maxRho").asDouble());
            double lowest = Math.min(runs.get("tiresias-las").get("maxRho").asDouble(), runs.get("best-effort-fifo").get("maxRho").asDouble());
            if (rho <= 1.25 * lowest + 1e-9) {
                atMost125++;
            }
        }
        assertThat(contended).as("the 3x windows keep FIFO busy").isGreaterThanOrEqualTo(2).isEqualTo(summary.get("contended").asInt());
        lasRatios.sort(Double::compare);
        int m = lasRatios.size() / 2;
        double median = lasRatios.size() % 2 == 1 ? lasRatios.get(m) : (lasRatios.get(m - 1) + lasRatios.get(m)) / 2;
        JsonNode las = null;
        for (JsonNode bl : summary.get("baselines")) {
            if (bl.get("policy").asText().equals("tiresias-las")) {
                las = bl;
            }
        }
        assertThat(las).isNotNull();
        assertThat(las.get("runs").asInt()).isEqualTo(contended);
        assertThat(las.get("medianMaxRhoRatio").asDouble()).isCloseTo(median, within(1e-9));
        assertThat(las.get("worstMaxRhoRatio").asDouble()).isCloseTo(lasRatios.get(lasRatios.size() - 1), within(1e-9));
        assertThat(summary.get("best").get("atMost125").asInt()).isEqualTo(atMost125);
        JsonNode every = summary.get("targets").get(0);
        assertThat(every.get("verdict").asText()).isEqualTo(atMost125 == contended ? "met" : "missed");
        // --rows summarises saved rows again without running; a run given twice is refused
        FairwayCommandTest.Run again = FairwayCommandTest.run("sweep", "--rows", dir.resolve("a.json").toString(), "--no-table", "--json",
                dir.resolve("c.json").toString());
        assertThat(again.exit()).as(again.err()).isZero();
        JsonNode c = new ObjectMapper().readTree(dir.resolve("c.json").toFile());
        assertThat(c.get("summary")).isEqualTo(summary);
        assertThat(c.get("rows")).isEqualTo(rows);
        FairwayCommandTest.Run twice = FairwayCommandTest.run("sweep", "--rows", dir.resolve("a.json") + "," + dir.resolve("b.json"));
        assertThat(twice.exit()).isEqualTo(2);
        assertThat(twice.err()).contains("philly-s22-L1-nockpt under themis appears twice");

        assertThat(Files.size(plot)).isGreaterThan(10_000);
        assertThat(Files.readAllBytes(plot)).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    }

    private static List<JsonNode> withoutTimes(Iterable<JsonNode> rows) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode r : rows) {
            ObjectNode c = r.deepCopy();
            c.remove("wallSeconds");
            c.remove("cpuSeconds");
            out.add(c);
        }
        return out;
    }

    @Test
    void windowsAreDrawnBySeedLeaveOutLargeJobsAndStartAtZero() throws IOException {
        List<SimJob> eligible = SweepWorkloads.eligible(TraceFormat.PHILLY.reader().read(phillyTrace(dir, 400)), 32);
        assertThat(eligible).hasSizeLessThan(400).allMatch(j -> j.gpus() <= 32);
        List<SweepWorkload> s21 = SweepWorkloads.phillyWindows(eligible, 21, 100, 32, List.of(1.0, 3.0), List.of(false, true), 600);
        List<SweepWorkload> again = SweepWorkloads.phillyWindows(eligible, 21, 100, 32, List.of(1.0, 3.0), List.of(false, true), 600);
        List<SweepWorkload> s22 = SweepWorkloads.phillyWindows(eligible, 22, 100, 32, List.of(1.0, 3.0), List.of(false, true), 600);
        assertThat(s21).hasSize(4);
        assertThat(ids(s21.get(0))).isEqualTo(ids(again.get(0)));
        assertThat(s21.get(0).firstJob()).isNotEqualTo(s22.get(0).firstJob());
        assertThat(ids(s21.get(0))).isNotEqualTo(ids(s22.get(0)));
        for (SweepWorkload w : s21) {
            assertThat(ids(w)).isEqualTo(ids(s21.get(0))); // one window at every load, with and without checkpoints
            assertThat(w.input().jobs().get(0).submitMillis()).isZero();
            assertThat(w.input().jobs()).allMatch(j -> (j.spec().checkpointing() != null) == w.checkpoints());
        }
        SimJob j = s21.get(1).input().jobs().get(0);
        assertThat(j.spec().checkpointing().intervalSeconds()).isEqualTo(600);
        assertThat(j.spec().checkpointing().restoreCostSeconds()).isEqualTo(SweepWorkloads.RESTORE_SECONDS);
    }

    private static List<String> ids(SweepWorkload w) {
        return w.input().jobs().stream().map(SimJob::id).toList();
    }

    @Test
    void themisWorkloadIsTheReproductionsOn64GpusOf4PerNode() {
        SweepWorkload w = SweepWorkloads.themis(21);
        assertThat(w.gpus()).isEqualTo(64);
        assertThat(w.input().cluster().nodes()).hasSize(16);
        assertThat(w.input().jobs()).allMatch(j -> j.spec().podSets().get(0).resources().gpus() <= 4)
                .allMatch(j -> j.spec().checkpointing() != null);
        assertThat(w.input().jobs().stream().mapToLong(SimJob::gpus).max().orElse(0)).isEqualTo(8);
        assertThat(SweepWorkloads.themis(21).input().jobs()).isEqualTo(w.input().jobs());
    }

    @Test
    void withoutTraceTheBundledSampleIsSweptAndSaysSo() {
        FairwayCommandTest.Run r = FairwayCommandTest.run("sweep", "--seeds", "21", "--jobs", "100", "--loads", "3", "--checkpoints", "off",
                "--workloads", "philly", "--policy", "tiresias-las,best-effort-fifo", "--subject", "tiresias-las", "--threads", "1",
                "--no-progress", "--no-table");
        assertThat(r.exit()).as(r.err() + r.out()).isZero();
        assertThat(r.out()).contains("(no --trace: philly windows drawn from the bundled 1500-job sample;")
                .contains("TRACE-ATTRIBUTION.md").contains("Bundled sample ").contains("Targets:")
                .contains("Sweep: 1 workloads × 2 policies = 2 runs");
    }

    @Test
    void helpPrintsNoFormatWarningAndNamesNoIssueOrMachinePath() {
        // picocli reports a description it cannot format on System.err, not on the command line's err writer
        java.io.PrintStream systemErr = System.err;
        java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
        FairwayCommandTest.Run r;
        try {
            System.setErr(new java.io.PrintStream(warnings, true, java.nio.charset.StandardCharsets.UTF_8));
            r = FairwayCommandTest.run("sweep", "--help");
        } finally {
            System.setErr(systemErr);
        }
        assertThat(r.exit()).isZero();
        assertThat(warnings.toString(java.nio.charset.StandardCharsets.UTF_8) + r.err()).doesNotContainIgnoringCase("format");
        String help = r.out().replaceAll("\\s+", " ");
        assertThat(help).contains(">= 60 % over the makespan").contains("bundled 1,500-job sample")
                .doesNotContainPattern("[Ii]ssue #?[0-9]|#[0-9]+'s|/work/|\\.\\./shared");
    }

    @Test
    void missingTraceAndBadOptionsAreRefusedWithExitCode2() throws IOException {
        FairwayCommandTest.Run r = FairwayCommandTest.run("sweep", "--trace", dir.resolve("nope.csv").toString(), "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--trace " + dir.resolve("nope.csv") + ": no such file").doesNotContain("\tat ");

        Path trace = phillyTrace(dir, 50);
        r = FairwayCommandTest.run("sweep", "--trace", trace.toString(), "--seeds", "30-21", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--seeds: range \"30-21\"");

        r = FairwayCommandTest.run("sweep", "--trace", trace.toString(), "--checkpoint-interval", "ten minutes", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--checkpoint-interval must be a duration like 10m", "ten minutes");

        r = FairwayCommandTest.run("sweep", "--trace", trace.toString(), "--jobs", "100", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("fewer than --jobs 100");

        r = FairwayCommandTest.run("sweep", "--trace", trace.toString(), "--contended-by", "busy", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--contended-by must be makespan or arrivals, was \"busy\"");

        r = FairwayCommandTest.run("sweep", "--trace", trace.toString(), "--policy", "tiresias-las,best-effort-fifo", "--no-progress");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--subject themis is not among the policies run");
    }

    @Test
    void durationsAndSeedRangesParse() {
        assertThat(SweepCommand.durationSeconds("x", "10m")).isEqualTo(600);
        assertThat(SweepCommand.durationSeconds("x", "90")).isEqualTo(90);
        assertThat(SweepCommand.durationSeconds("x", "1.5h")).isEqualTo(5400);
        assertThat(SweepCommand.seeds("21-23,1,22")).containsExactly(21L, 22L, 23L, 1L);
    }
}
