package io.fairway.sim.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.cli.FairwayCommand;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code fairway ctl} against borrow-and-reclaim served and held at t = 150 s: a2 pending (preempted by b1). */
class CtlCommandTest {
    private static final String TOKEN = "ctl-test-token-0123456789";
    private static ServedSimulation served;

    @BeforeAll
    static void serve() throws Exception {
        Scenario s = ScenarioConfig.load(Path.of("../examples/scenarios/borrow-and-reclaim.yaml"));
        served = ServedSimulation.start(s.input(), "best-effort-fifo", SimulationOptions.DEFAULTS,
                new ServedSimulation.Settings("127.0.0.1", 0, 0, 150, TOKEN));
    }

    @AfterAll
    static void close() {
        served.close();
    }

    record Run(int exit, String out, String err) {
    }

    static Run ctl(String... args) {
        return ctlAt(served, args);
    }

    static Run ctlAt(ServedSimulation at, String... args) {
        return ctlAt(at, new StringWriter(), args);
    }

    /** Runs {@code ctl} writing its output to {@code out} as it goes (a test can read it while the command runs). */
    static Run ctlAt(ServedSimulation at, StringWriter out, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = FairwayCommand.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> a = new ArrayList<>(List.of("ctl", "--server", at.url()));
        a.addAll(List.of(args));
        int exit = cl.execute(a.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void queuesPrintsUsageAgainstNominal() throws Exception {
        Run r = ctl("queues");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("QUEUE").contains("USED/NOMINAL");
        assertThat(r.out().lines().filter(l -> l.startsWith("team-a")).findFirst().orElseThrow()).contains("research").contains("8/8").contains("active");
        JsonNode json = new ObjectMapper().readTree(ctl("queues", "-o", "json").out());
        assertThat(json.get("items")).hasSize(2);
    }

    @Test
    void jobsListsEveryJobFilteredAndSortedByTheServer() throws Exception {
        Run r = ctl("jobs", "--sort", "id", "--desc");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> ids = r.out().lines().skip(1).filter(l -> !l.contains(" of ")).map(l -> l.split("\\s+")[0]).toList();
        assertThat(ids).containsExactly("b1", "a2", "a1");
        assertThat(r.out()).contains("1-3 of 3 jobs");
        Run pending = ctl("jobs", "--state", "pending");
        assertThat(pending.out().lines().filter(l -> l.startsWith("a2"))).singleElement().asString().contains("PENDING").contains("team-a");
        Run bad = ctl("jobs", "--sort", "size");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("sort").contains("size");
    }

    @Test
    void fairnessPrintsEachQueuesShares() throws Exception {
        Run r = ctl("fairness");
        assertThat(r.exit()).as(r.err()).isZero();
        // t = 150 s: b1 runs on team-b's 8 GPUs, a1 on team-a's: each at its nominal half of the cohort, none borrowing.
        assertThat(r.out().lines().filter(l -> l.startsWith("team-b"))).singleElement().asString()
                .contains("nvidia.com/gpu").contains("50%").contains("0.00");
    }

    @Test
    void pendingListsPositionJobAndReason() throws Exception {
        Run r = ctl("pending");
        assertThat(r.exit()).as(r.err()).isZero();
        String a2 = r.out().lines().filter(l -> l.contains(" a2 ")).findFirst().orElseThrow();
        assertThat(a2).startsWith("team-a").contains("PREEMPTED: preempted by b1")
                .as("the reason does not repeat itself").doesNotContain("preempted: preempted");
        Run one = ctl("pending", "--queue", "team-a", "--limit", "1", "-o", "json");
        JsonNode page = new ObjectMapper().readTree(one.out());
        assertThat(page.get("items").get(0).get("position").asInt()).isEqualTo(1);
        assertThat(ctl("pending", "--queue", "team-a", "--limit", "0").err()).contains("limit").contains("0");
    }

    @Test
    void whyExplainsAPendingJobAndJobShowsItsHistory() {
        Run why = ctl("why", "a2");
        assertThat(why.exit()).isZero();
        assertThat(why.out()).contains("a2 is PENDING in ClusterQueue team-a at position 1 (0 jobs ahead)")
                .contains("PREEMPTED: preempted by b1").doesNotContain("preempted: preempted");
        Run running = ctl("why", "b1");
        assertThat(running.out()).contains("b1 is RUNNING").contains("placed: main[0]=gpu-");
        Run job = ctl("job", "a2");
        assertThat(job.out()).contains("History:").contains("PREEMPTED").contains("ADMITTED");
        Run missing = ctl("job", "nope");
        assertThat(missing.exit()).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(missing.err()).contains("404").contains("nope");
    }

    @Test
    void writeVerbsNeedTheToken(@TempDir Path dir) throws Exception {
        Run refused = ctl("stop-queue", "team-b", "--token-file", Files.writeString(dir.resolve("wrong"), "wrong-token-0123456789").toString());
        assertThat(refused.exit()).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(refused.err()).contains("401");
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Run stop = ctl("--token-file", token.toString(), "stop-queue", "team-b");
        assertThat(stop.exit()).as(stop.err()).isZero();
        assertThat(stop.out()).contains("stop team-b: done");
        assertThat(served.scheduler().snapshot().clusterQueues().get("team-b").stopped()).isTrue();
        assertThat(ctl("--token-file", token.toString(), "resume-queue", "team-b").exit()).isZero();
        assertThat(served.scheduler().snapshot().clusterQueues().get("team-b").stopped()).isFalse();
    }

    @Test
    void anUnreachableServerIsAUserError() {
        StringWriter err = new StringWriter();
        CommandLine cl = FairwayCommand.newCommandLine();
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("ctl", "--server", "http://127.0.0.1:1", "queues")).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(err.toString()).contains("cannot reach the visibility API");
    }

    @Test
    void watchStreamsUntilTheJobSetIsDoneAndExitsZeroWhenAllSucceeded() throws Exception {
        try (ServedSimulation own = ServedSimulation.scenario(Path.of("../examples/scenarios/borrow-and-reclaim.yaml"), 0, 150)) {
            watchUntilDone(own);
        }
    }

    private static void watchUntilDone(ServedSimulation own) throws Exception {
        StringWriter text = new StringWriter();
        StringWriter json = new StringWriter();
        CompletableFuture<Run> watch = CompletableFuture.supplyAsync(() -> ctlAt(own, text, "watch", "a2"));
        CompletableFuture<Run> watchJson = CompletableFuture.supplyAsync(() -> ctlAt(own, json, "watch", "b1", "-o", "json"));
        // a stream subscribes to the events before it sends its snapshot: once both printed theirs, none of the
        // events after the hold can be missed
        awaitOutput(text, "job set a2: ");
        awaitOutput(json, "\"event\":\"snapshot\"");
        own.control().resume();
        Run r = watch.get(60, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("job set a2 done: {\"SUCCEEDED\":1}");
        assertThat(r.out().lines()).as("a2's end, streamed as it happened").anyMatch(l -> l.matches("\\s*[0-9.]+s?\\s+a2\\s+SUCCEEDED\\b.*"));
        Run j = watchJson.get(60, TimeUnit.SECONDS);
        assertThat(j.exit()).isZero();
        assertThat(j.out().lines()).as("b1's end, streamed as it happened").anyMatch(l -> l.startsWith("{\"event\":\"job\"") && l.contains("\"SUCCEEDED\""));
        assertThat(j.out().lines().reduce((a, b) -> b).orElseThrow()).contains("\"event\":\"end\"").contains("\"allSucceeded\":true");
    }

    /** Waits (at most a minute) until a running command has printed {@code text}. */
    private static void awaitOutput(StringWriter out, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!out.toString().contains(text)) {
            assertThat(System.nanoTime() - deadline).as("waiting for \"%s\" in: %s", text, out).isNegative();
            Thread.sleep(10);
        }
    }
}
