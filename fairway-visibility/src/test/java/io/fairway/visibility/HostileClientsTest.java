package io.fairway.visibility;

import static io.fairway.visibility.HostileClients.OTHER_LOOPBACK;
import static io.fairway.visibility.HostileClients.closedByServer;
import static io.fairway.visibility.HostileClients.raw;
import static io.fairway.visibility.HostileClients.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.api.job.JobState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The served API against hostile clients on the loopback interface, each case bounded in count and time: a
 * slowloris, a flood of idle connections from one address, DNS rebinding (a foreign {@code Host}), cross-origin
 * writes (the simulation controls included), streams opened and never read, and dead stream clients.
 */
class HostileClientsTest {
    private static final String TOKEN = "s3cret-token-0123456789";
    private static final String SLOW_HEAD = "GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + "a".repeat(4000) + "\r\n\r\n";

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void twentySlowlorisConnectionsDoNotStopTheApi() throws Exception {
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build(); HostileClients bad = new HostileClients()) {
            bad.slowloris("127.0.0.1", server.port(), 20, SLOW_HEAD, Duration.ofMillis(500));
            Thread.sleep(500);
            int answered = HostileClients.probes(server.url() + "api/v1/clusterqueues", 4, Duration.ofSeconds(5));
            assertThat(answered).as("probes answered (of 4, 5 s each) while 20 slowloris connections are held").isEqualTo(4);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aRequestHeadSentAByteAtATimeIsCutAtTheDeadline() throws Exception {
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).requestTimeout(Duration.ofMillis(500)).build();
             HostileClients bad = new HostileClients()) {
            // a byte every 100 ms: each read is well inside any idle timeout, the whole head is not (8 kB would take 13 minutes)
            Socket s = bad.slowloris("127.0.0.1", server.port(), 1, SLOW_HEAD, Duration.ofMillis(100)).get(0);
            assertThat(closedByServer(s, Duration.ofSeconds(5))).as("closed within 5 s by a 0.5 s head deadline").isTrue();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void connectionsFromOneAddressAreCappedAndOthersAreStillAnswered() throws Exception {
        assumeTrue(HostileClients.otherLoopbackWorks(), "this machine cannot bind " + OTHER_LOOPBACK);
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build(); HostileClients bad = new HostileClients()) {
            List<Socket> flood = bad.idle(OTHER_LOOPBACK, server.port(), 200);
            Thread.sleep(500);
            assertThat(HostileClients.probes(server.url() + "api/v1", 3, Duration.ofSeconds(5))).as("probes answered (of 3)").isEqualTo(3);
            int closed = 0;
            for (Socket s : flood) {
                if (closedByServer(s, Duration.ofMillis(20))) {
                    closed++;
                }
            }
            assertThat(closed).as("connections of the flood closed at once by the per-address cap").isGreaterThanOrEqualTo(flood.size() - 32);
        }
    }

    @Test
    void aForeignHostNameIsRefusedSoDnsRebindingReadsNothing() throws Exception {
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build()) {
            int port = server.port();
            for (String host : List.of("attacker.example", "attacker.example:" + port, "127.0.0.1.attacker.example")) {
                String answer = raw(port, "GET /api/v1/clusterqueues HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
                assertThat(status(answer)).as("Host: " + host + " -> " + answer).isNotEqualTo(200);
                assertThat(answer).doesNotContain("team-a");
            }
            String ui = raw(port, "GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n");
            assertThat(status(ui)).isNotEqualTo(200);
            for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "localhost", "[::1]:" + port)) {
                String answer = raw(port, "GET /api/v1/clusterqueues HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
                assertThat(status(answer)).as("Host: " + host).isEqualTo(200);
                assertThat(answer).contains("team-a");
            }
        }
    }

    /** A controllable replay that only records what it was told. */
    private static final class Recording implements SimulationControl {
        volatile boolean paused;

        @Override
        public State state() {
            return new State(0, -1, paused, 1, false, true);
        }

        @Override
        public void pause() {
            paused = true;
        }

        @Override
        public void resume() {
            paused = false;
        }

        @Override
        public void speed(double speed) {
        }

        @Override
        public void step(long millis) {
        }
    }

    @Test
    void aCrossOriginWriteIsRefusedTheSimulationControlsIncluded() throws Exception {
        Fixture f = new Fixture().populated();
        Recording sim = new Recording();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).simulation(sim).writes(TOKEN).build()) {
            int port = server.port();
            String host = "Host: 127.0.0.1:" + port + "\r\n";
            String pause = "POST /api/v1/simulation/pause HTTP/1.1\r\n" + host + "Content-Length: 0\r\nConnection: close\r\n";
            assertThat(status(raw(port, pause + "Origin: http://attacker.example\r\n\r\n"))).isEqualTo(403);
            assertThat(status(raw(port, pause + "Origin: null\r\n\r\n"))).isEqualTo(403);
            assertThat(status(raw(port, pause + "Sec-Fetch-Site: cross-site\r\n\r\n"))).isEqualTo(403);
            assertThat(status(raw(port, pause + "Origin: http://127.0.0.1:" + (port == 1 ? 2 : port - 1) + "\r\n\r\n"))).isEqualTo(403);
            assertThat(sim.paused).as("paused by a cross-origin request").isFalse();
            String cancel = "POST /api/v1/jobs/gang/cancel HTTP/1.1\r\n" + host + "Authorization: Bearer " + TOKEN
                    + "\r\nContent-Length: 0\r\nConnection: close\r\nOrigin: http://attacker.example\r\n\r\n";
            assertThat(status(raw(port, cancel))).isEqualTo(403);
            assertThat(f.scheduler.status("gang").orElseThrow().state()).isNotEqualTo(JobState.CANCELLED);

            // the UI itself (same origin) and tools that send no Origin (curl, fairway ctl) still can
            assertThat(status(raw(port, pause + "Origin: http://127.0.0.1:" + port + "\r\nSec-Fetch-Site: same-origin\r\n\r\n"))).isEqualTo(200);
            assertThat(sim.paused).isTrue();
            assertThat(status(raw(port, "POST /api/v1/simulation/resume HTTP/1.1\r\n" + host + "Content-Length: 0\r\nConnection: close\r\n\r\n")))
                    .isEqualTo(200);
            assertThat(sim.paused).isFalse();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void streamsOpenedAndNeverReadDoNotHoldEverySlot() throws Exception {
        assumeTrue(HostileClients.otherLoopbackWorks(), "this machine cannot bind " + OTHER_LOOPBACK);
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build(); HostileClients bad = new HostileClients()) {
            for (int i = 0; i < 16; i++) { // the default number of streams
                bad.sendAndNeverRead(OTHER_LOOPBACK, server.port(), "GET /api/v1/jobsets/sweep/watch HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            }
            Thread.sleep(500);
            HttpResponse<java.util.stream.Stream<String>> r = Fixture.HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "api/v1/jobsets/sweep/watch"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofLines());
            assertThat(r.statusCode()).as("a stream for another client while 16 are hoarded").isEqualTo(200);
            assertThat(r.body().findFirst()).contains("event: snapshot");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStreamWhoseClientLeftIsFreedWithinSeconds() throws Exception {
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).maxStreams(1).build()) {
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.getOutputStream().write("GET /api/v1/jobsets/sweep/watch HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                s.setSoTimeout(5000);
                assertThat(new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1)).readLine()).isEqualTo("HTTP/1.1 200 OK");
            } // the client leaves
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int got = 0;
            while (System.nanoTime() < deadline) {
                HttpResponse<java.io.InputStream> r = Fixture.HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "api/v1/jobsets/sweep/watch"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofInputStream());
                got = r.statusCode();
                r.body().close();
                if (got == 200) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(got).as("the only stream slot is free again within 10 s of its client leaving (keep-alive 1 s)").isEqualTo(200);
        }
    }

    @Test
    void eventsAfterTheLargestSequenceIsEmptyNotTheOldest() throws Exception {
        Fixture f = new Fixture().populated();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build()) {
            f.scheduler.reportStarted("gang");
            var page = Fixture.get(server.url() + "api/v1/events?after=" + Long.MAX_VALUE);
            assertThat(page.get("items")).isEmpty();
            var almost = Fixture.get(server.url() + "api/v1/events?after=" + (Long.MAX_VALUE - 1));
            assertThat(almost.get("items")).isEmpty();
        }
    }
}
