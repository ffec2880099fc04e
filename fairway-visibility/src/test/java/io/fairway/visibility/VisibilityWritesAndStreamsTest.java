package io.fairway.visibility;

import static io.fairway.visibility.Fixture.error;
import static io.fairway.visibility.Fixture.get;
import static io.fairway.visibility.Fixture.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.api.job.JobState;
import io.fairway.core.SchedulerState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Writes behind a token and audited; job-set streams that end when the set is done; a server slow clients cannot hang. */
class VisibilityWritesAndStreamsTest {
    private static final String TOKEN = "s3cret-token-0123456789";

    @Test
    void anAdapterRoutesWritesToItsOwnObjectsBehindTheSameTokenAndAudit() throws Exception {
        Fixture f = new Fixture();
        List<String> made = new ArrayList<>();
        OperatorWrites objects = new OperatorWrites() {
            @Override
            public boolean cancel(String jobId) {
                made.add("delete " + jobId);
                return true;
            }

            @Override
            public boolean setPriority(String jobId, int priority) {
                throw new IllegalStateException("the API server refused the patch of " + jobId);
            }

            @Override
            public boolean stopClusterQueue(String clusterQueue, boolean stop) {
                made.add((stop ? "hold " : "release ") + clusterQueue);
                return true;
            }
        };
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).writes(TOKEN, s -> objects).build()) {
            f.populated();
            String api = server.url() + "api/v1";
            SchedulerState before = f.scheduler.exportState();
            error("POST", api + "/jobs/gang/cancel", null, 401);
            assertThat(made).as("nothing without the token").isEmpty();
            assertThat(send("POST", api + "/jobs/gang/cancel", TOKEN).statusCode()).isEqualTo(200);
            assertThat(send("POST", api + "/clusterqueues/team-b/stop", TOKEN).statusCode()).isEqualTo(200);
            JsonNode failed = error("POST", api + "/jobs/w03/priority?value=9", TOKEN, 502);
            assertThat(failed.get("message").asText()).contains("refused the patch of w03");
            assertThat(made).containsExactly("delete gang", "hold team-b");
            assertThat(f.scheduler.exportState()).as("the engine itself is left to follow the objects").isEqualTo(before);
            List<String> audits = new ArrayList<>();
            get(api + "/events?type=AUDIT").get("items").forEach(e -> audits.add(e.get("reason").asText()));
            assertThat(audits).containsExactly("cancel gang", "stop team-b");
        }
    }

    @Test
    void writesNeedTheRightTokenAndAreAudited() throws Exception {
        Fixture f = new Fixture();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).writes(TOKEN).build()) {
            f.populated();
            String api = server.url() + "api/v1";
            assertThat(get(api).get("writes").asBoolean()).isTrue();
            SchedulerState before = f.scheduler.exportState();
            error("POST", api + "/jobs/gang/cancel", null, 401);
            error("POST", api + "/jobs/gang/cancel", TOKEN + "x", 401);
            error("POST", api + "/jobs/gang/cancel", "short", 401);
            error("POST", api + "/clusterqueues/team-a/stop", "wrong-token-0123456789", 401);
            assertThat(f.scheduler.exportState()).isEqualTo(before);

            HttpResponse<String> ok = send("POST", api + "/jobs/gang/cancel", TOKEN);
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            assertThat(Fixture.JSON.readTree(ok.body()).get("changed").asBoolean()).isTrue();
            assertThat(f.scheduler.status("gang").orElseThrow().state()).isEqualTo(JobState.CANCELLED);

            assertThat(send("POST", api + "/jobs/w03/priority?value=99", TOKEN).statusCode()).isEqualTo(200);
            assertThat(f.scheduler.status("w03").orElseThrow().spec().priority()).isEqualTo(99);
            assertThat(get(api + "/clusterqueues/team-a/pending?limit=1").get("items").get(0).get("id").asText()).isEqualTo("w03");
            JsonNode bad = error("POST", api + "/jobs/w03/priority?value=high", TOKEN, 400);
            assertThat(bad.get("parameter").asText()).isEqualTo("value");

            assertThat(send("POST", api + "/clusterqueues/team-b/stop", TOKEN).statusCode()).isEqualTo(200);
            assertThat(f.scheduler.snapshot().clusterQueues().get("team-b").stopped()).isTrue();
            assertThat(get(api + "/clusterqueues/team-b").get("stopped").asBoolean()).isTrue();
            assertThat(send("POST", api + "/clusterqueues/team-b/resume", TOKEN).statusCode()).isEqualTo(200);
            assertThat(f.scheduler.snapshot().clusterQueues().get("team-b").stopped()).isFalse();
            error("POST", api + "/jobs/nope/cancel", TOKEN, 404);

            List<String> audits = new ArrayList<>();
            get(api + "/events?limit=1000").get("items").forEach(e -> {
                if (e.get("type").asText().equals("AUDIT")) {
                    audits.add(e.get("reason").asText() + " by " + e.get("actor").asText());
                }
            });
            assertThat(audits).hasSize(4);
            assertThat(audits.get(0)).startsWith("cancel gang by token@");
            assertThat(audits.get(1)).startsWith("priority=99 w03 by token@");
            assertThat(get(api + "/jobs/gang").get("history").toString()).contains("AUDIT");
        }
    }

    @Test
    void aTokenShorterThan16CharactersIsRefused() {
        Fixture f = new Fixture();
        assertThatThrownBy(() -> VisibilityServer.builder(f.scheduler).writes("short")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token");
    }

    @Test
    void aJobSetStreamEndsWhenEveryJobOfTheSetHasFinished() throws Exception {
        Fixture f = new Fixture();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build()) {
            f.populated();
            HttpRequest req = HttpRequest.newBuilder(URI.create(server.url() + "api/v1/jobsets/sweep/watch")).timeout(Duration.ofSeconds(30)).build();
            CompletableFuture<HttpResponse<java.util.stream.Stream<String>>> resp = Fixture.HTTP.sendAsync(req, HttpResponse.BodyHandlers.ofLines());
            HttpResponse<java.util.stream.Stream<String>> r = resp.get(20, TimeUnit.SECONDS);
            assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/event-stream");
            CompletableFuture<List<String>> lines = CompletableFuture.supplyAsync(() -> r.body().collect(Collectors.toList()));
            for (String id : List.of("gang", "borrower")) {
                f.scheduler.reportStarted(id);
                f.now += 1000;
                f.scheduler.reportFinished(id);
            }
            List<String> got = lines.get(20, TimeUnit.SECONDS); // the server closed the stream
            String all = String.join("\n", got);
            assertThat(got.get(0)).isEqualTo("event: snapshot");
            assertThat(all).contains("\"type\":\"STARTED\"").contains("\"type\":\"SUCCEEDED\"");
            int end = got.indexOf("event: end");
            assertThat(end).isPositive();
            JsonNode data = Fixture.JSON.readTree(got.get(end + 1).substring("data: ".length()));
            assertThat(data.get("allSucceeded").asBoolean()).isTrue();
            assertThat(data.get("counts").get("SUCCEEDED").asInt()).isEqualTo(2);
        }
    }

    @Test
    void streamsAreBoundedInNumberAndDuration() throws Exception {
        Fixture f = new Fixture();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).maxStreams(1).maxStreamDuration(Duration.ofMillis(300))
                .keepAlive(Duration.ofMillis(50)).build()) {
            f.populated();
            String watch = server.url() + "api/v1/jobsets/sweep/watch";
            HttpResponse<java.util.stream.Stream<String>> first = Fixture.HTTP.send(HttpRequest.newBuilder(URI.create(watch)).build(),
                    HttpResponse.BodyHandlers.ofLines());
            CompletableFuture<List<String>> lines = CompletableFuture.supplyAsync(() -> first.body().collect(Collectors.toList()));
            error("GET", watch, null, 503);
            List<String> got = lines.get(20, TimeUnit.SECONDS);
            int end = got.indexOf("event: end");
            assertThat(got.get(end + 1)).contains("\"timedOut\":true");
            assertThat(got).contains(": keep-alive");
            error("GET", server.url() + "api/v1/jobsets/nope/watch", null, 404);
        }
    }

    @Test
    void aClientThatNeverSendsItsRequestDoesNotStopOthersBeingAnswered() throws Exception {
        Fixture f = new Fixture();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).threads(2).requestTimeout(Duration.ofMillis(400)).build()) {
            f.populated();
            List<Socket> silent = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                s.getOutputStream().write("GET /api/v1 HT".getBytes(StandardCharsets.ISO_8859_1)); // and never the rest
                silent.add(s);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(get(server.url() + "api/v1/clusterqueues").get("items")).hasSize(3);
            }
            for (Socket s : silent) {
                s.setSoTimeout(10_000);
                assertThat(s.getInputStream().read()).as("closed by the server").isEqualTo(-1);
                s.close();
            }
        }
    }

    @Test
    void oversizedHeadsAndBodiesAreRefused() throws Exception {
        Fixture f = new Fixture();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build(); Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /api/v1 HTTP/1.1\r\nX: " + "a".repeat(HardenedHttpServer.MAX_HEAD_BYTES) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            s.setSoTimeout(10_000);
            String status = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1)).readLine();
            assertThat(status).isEqualTo("HTTP/1.1 431 Request Header Fields Too Large");
        }
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build(); Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write("POST /api/v1/jobs/x/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.setSoTimeout(10_000);
            String status = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1)).readLine();
            assertThat(status).isEqualTo("HTTP/1.1 413 Payload Too Large");
        }
    }
}
