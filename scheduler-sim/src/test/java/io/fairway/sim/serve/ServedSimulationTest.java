package io.fairway.sim.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.api.job.JobState;
import io.fairway.sim.cli.FairwayCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code simulate --serve}: a scenario served over the visibility API, held mid-run, then replayed to its end. */
class ServedSimulationTest {
    private static final Path SCENARIO = Path.of("../examples/scenarios/borrow-and-reclaim.yaml");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    static HttpResponse<String> send(String method, String url) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody()).build();
        return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode get(String url) throws Exception {
        HttpResponse<String> r = send("GET", url);
        assertThat(r.statusCode()).as(url + " -> " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    @Test
    void heldMidRunShowsThePreemptedBorrowerPendingAndTheReclaimerOnItsGpus() throws Exception {
        try (ServedSimulation s = ServedSimulation.scenario(SCENARIO, 0, 150)) {
            String api = s.url() + "api/v1";
            JsonNode sim = get(api + "/simulation");
            assertThat(sim.get("paused").asBoolean()).isTrue();
            assertThat(sim.get("finished").asBoolean()).isFalse();
            assertThat(sim.get("timeMillis").asLong()).isEqualTo(150_000);

            JsonNode pending = get(api + "/clusterqueues/team-a/pending");
            assertThat(pending.get("total").asInt()).isEqualTo(1);
            JsonNode a2 = pending.get("items").get(0);
            assertThat(a2.get("id").asText()).isEqualTo("a2");
            assertThat(a2.get("position").asInt()).isEqualTo(1);
            assertThat(a2.get("reason").get("message").asText()).contains("preempted by b1");
            // the same answer the engine gives
            assertThat(s.scheduler().jobs().explain("a2").orElseThrow().reason().message()).isEqualTo(a2.get("reason").get("message").asText());

            JsonNode b1 = get(api + "/jobs/b1");
            assertThat(b1.get("state").asText()).isEqualTo("RUNNING");
            String node = b1.get("placement").get("nodes").get(0).asText();
            JsonNode n = get(api + "/nodes/" + node);
            for (JsonNode g : n.get("gpus")) {
                assertThat(g.get("job").asText()).isEqualTo("b1");
            }
            assertThat(n.get("nvlinkDomains")).hasSize(1);

            // resuming replays the rest of the run: every job finishes
            assertThat(send("POST", api + "/simulation/resume").statusCode()).isEqualTo(200);
            s.awaitResult();
            assertThat(get(api + "/simulation").get("finished").asBoolean()).isTrue();
            assertThat(get(api + "/jobs?state=SUCCEEDED").get("total").asInt()).isEqualTo(3);
            assertThat(s.scheduler().status("a2").orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        }
    }

    @Test
    void aServedRunKeepsAHistoryOfUsagePendingAdmissionsAndPreemptions() throws Exception {
        // Shown at its final state: the history was recorded at each simulated instant while the run went on.
        try (ServedSimulation s = ServedSimulation.scenario(SCENARIO, 0, -1)) {
            JsonNode h = get(s.url() + "api/v1/history");
            List<Long> times = new ArrayList<>();
            h.get("timeMillis").forEach(t -> times.add(t.asLong()));
            assertThat(times).isSorted().first().isEqualTo(0L);
            assertThat(times.get(times.size() - 1)).as("up to the end of the run").isGreaterThan(1_000_000L);
            JsonNode teamB = null;
            for (JsonNode q : h.get("clusterQueues")) {
                if (q.get("name").asText().equals("team-b")) {
                    teamB = q;
                }
            }
            // b1 holds team-b's 8 GPUs between its arrival at t = 100 s and its end at t = 400 s.
            int during = times.indexOf(times.stream().filter(t -> t >= 100_000 && t < 400_000).findFirst().orElseThrow());
            assertThat(teamB.get("gpusUsed").get(during).asLong()).as("team-b at " + times).isEqualTo(8);
            assertThat(teamB.get("gpusUsed").get(0).asLong()).isZero();
            int admitted = 0;
            int preempted = 0;
            for (int i = 0; i < times.size(); i++) {
                admitted += h.get("admitted").get(i).asInt();
                preempted += h.get("preempted").get(i).asInt();
            }
            assertThat(preempted).as("a2 preempted once by b1").isEqualTo(1);
            assertThat(admitted).as("a1, a2, b1, then a2 again").isEqualTo(4);
        }
    }

    @Test
    void aStepIsAnsweredOnceTheReplayHasReachedItsEnd() throws Exception {
        try (ServedSimulation s = ServedSimulation.scenario(SCENARIO, 0, 0)) {
            String api = s.url() + "api/v1";
            assertThat(get(api + "/simulation").get("timeMillis").asLong()).isZero();
            HttpResponse<String> step = send("POST", api + "/simulation/step?seconds=150");
            assertThat(step.statusCode()).as(step.body()).isEqualTo(200);
            // the answer is the state after the step: b1 (submitted at 100 s) has reclaimed team-b's GPUs
            assertThat(JSON.readTree(step.body()).get("timeMillis").asLong()).isEqualTo(150_000);
            assertThat(get(api + "/jobs/b1").get("state").asText()).isEqualTo("RUNNING");
            assertThat(get(api + "/simulation").get("timeMillis").asLong()).isEqualTo(150_000);
            HttpResponse<String> again = send("POST", api + "/simulation/step?seconds=10");
            assertThat(JSON.readTree(again.body()).get("timeMillis").asLong()).isEqualTo(160_000);
        }
    }

    @Test
    void finalStateIsServedWithoutATimeControl() throws Exception {
        try (ServedSimulation s = ServedSimulation.scenario(SCENARIO, 0, -1)) {
            String api = s.url() + "api/v1";
            JsonNode sim = get(api + "/simulation");
            assertThat(sim.get("finished").asBoolean()).isTrue();
            assertThat(sim.get("controllable").asBoolean()).isFalse();
            assertThat(send("POST", api + "/simulation/pause").statusCode()).isEqualTo(409);
            assertThat(get(api + "/jobs").get("total").asInt()).isEqualTo(3);
        }
    }

    @Test
    void theCommandLinePrintsTheUrlAndServesUntilStopped() throws Exception {
        JsonNode info = viaCommandLine(base -> get(base + "api/v1"), "--pause-at", "150");
        assertThat(info.get("mode").asText()).isEqualTo("simulation");
        assertThat(info.get("pending").asInt()).isEqualTo(1);
    }

    @Test
    void plainServeHoldsTheReplayAtItsStartSoAPersonCanStepThroughIt() throws Exception {
        JsonNode sim = viaCommandLine(base -> get(base + "api/v1/simulation"));
        assertThat(sim.get("timeMillis").asLong()).isZero();
        assertThat(sim.get("paused").asBoolean()).isTrue();
        assertThat(sim.get("controllable").asBoolean()).isTrue();
        assertThat(sim.get("finished").asBoolean()).isFalse();
    }

    @Test
    void finalShowsTheEndOfTheRunWithoutATimeControl() throws Exception {
        JsonNode sim = viaCommandLine(base -> get(base + "api/v1/simulation"), "--final");
        assertThat(sim.get("finished").asBoolean()).isTrue();
        assertThat(sim.get("controllable").asBoolean()).isFalse();
    }

    private static long failuresLogged() throws java.io.IOException {
        Path log = Path.of("target/test.log");
        return java.nio.file.Files.exists(log) ? java.nio.file.Files.readAllLines(log).stream().filter(l -> l.contains("the served simulation failed")).count() : 0;
    }

    @Test
    void aTakenPortIsOneClearLineNotAStackTrace() throws Exception {
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
        long logBefore = failuresLogged();
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            CommandLine cl = FairwayCommand.newCommandLine();
            StringWriter err = new StringWriter();
            cl.setOut(new PrintWriter(new StringWriter(), true));
            cl.setErr(new PrintWriter(err, true));
            System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
            int exit;
            try {
                exit = cl.execute("simulate", "--scenario", SCENARIO.toString(), "--serve", String.valueOf(taken.getLocalPort()));
                Thread.sleep(300); // the run's own thread, if it were to log its end
            } finally {
                System.setErr(stderr);
            }
            assertThat(exit).isEqualTo(FairwayCommand.USER_ERROR);
            String all = err + logged.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertThat(all.lines().toList()).as(all).hasSize(1);
            // the command line logs to stderr; the tests log to target/test.log (see simplelogger.properties)
            assertThat(failuresLogged()).as("the run's thread logged a failure with its stack trace").isEqualTo(logBefore);
            assertThat(all).contains(String.valueOf(taken.getLocalPort())).contains("already in use").doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    private static String statusFor(int port, String host) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET /api/v1 HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            return new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(), java.nio.charset.StandardCharsets.ISO_8859_1)).readLine();
        }
    }

    @Test
    void onlyAddressesLocalhostAndTheAllowedNamesAreAnswered() throws Exception {
        io.fairway.sim.config.Scenario sc = io.fairway.sim.config.ScenarioConfig.load(SCENARIO);
        try (ServedSimulation s = ServedSimulation.start(sc.input(), "best-effort-fifo", io.fairway.sim.SimulationOptions.DEFAULTS,
                new ServedSimulation.Settings("127.0.0.1", 0, 0, 0, null, List.of("fairway-demo.example")))) {
            assertThat(statusFor(s.port(), "fairway-demo.example:" + s.port())).isEqualTo("HTTP/1.1 200 OK");
            assertThat(statusFor(s.port(), "127.0.0.1:" + s.port())).isEqualTo("HTTP/1.1 200 OK");
            assertThat(statusFor(s.port(), "attacker.example:" + s.port())).startsWith("HTTP/1.1 421");
        }
        CommandLine cl = FairwayCommand.newCommandLine();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("simulate", "--scenario", SCENARIO.toString(), "--serve", "0", "--ui-allowed-host", "bad host"))
                .isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(err.toString()).contains("bad host");
    }

    @Test
    void finalCannotBeCombinedWithAReplay() {
        CommandLine cl = FairwayCommand.newCommandLine();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("simulate", "--scenario", SCENARIO.toString(), "--serve", "0", "--final", "--pace", "10"))
                .isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(err.toString()).contains("--final").contains("--pace");
    }

    /** Runs {@code simulate --scenario SCENARIO --serve 0 EXTRA...}, asks the served URL, then stops it (exit 0). */
    private static JsonNode viaCommandLine(Ask ask, String... extra) throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cl = FairwayCommand.newCommandLine();
        PrintWriter w = new PrintWriter(out, true);
        cl.setOut(w);
        cl.setErr(new PrintWriter(new StringWriter(), true));
        int[] exit = {-1};
        List<String> args = new ArrayList<>(List.of("simulate", "--scenario", SCENARIO.toString(), "--serve", "0"));
        args.addAll(List.of(extra));
        Thread t = new Thread(() -> exit[0] = cl.execute(args.toArray(String[]::new)));
        t.start();
        Pattern url = Pattern.compile("Open (http://127\\.0\\.0\\.1:\\d+/)");
        Matcher m = url.matcher("");
        for (int i = 0; i < 600 && !(m = url.matcher(out.toString())).find(); i++) {
            Thread.sleep(50);
        }
        assertThat(m.find(0)).as(out.toString()).isTrue();
        JsonNode answer = ask.at(m.group(1));
        t.interrupt();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(exit[0]).isZero();
        return answer;
    }

    @FunctionalInterface
    private interface Ask {
        JsonNode at(String base) throws Exception;
    }
}
