package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clients that never finish their request (or send megabytes of headers) do not block {@code /healthz}: they hold a
 * thread of a bounded pool for at most the request timeout and are then disconnected.
 */
class HttpEndpointsTest {
    private static final Duration TIMEOUT = Duration.ofMillis(300);

    private static HttpEndpoints endpoints() throws Exception {
        return new HttpEndpoints(0, Map.of("/healthz", () -> "ok\n", "/metrics", () -> "fairway_up 1\n"), 2, TIMEOUT);
    }

    private static Socket halfRequest(int port) throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        OutputStream out = s.getOutputStream();
        out.write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1)); // never the blank line
        out.flush();
        return s;
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The server ended the connection without an answer: end of stream, or a reset when it closed with unread bytes. */
    private static void assertClosedByServer(Socket s) throws Exception {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        try {
            assertThat(in.read()).as("the server closed the half-finished request").isEqualTo(-1);
        } catch (java.net.SocketException reset) {
            assertThat(reset.getMessage()).containsIgnoringCase("reset");
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void healthIsAnsweredWhileClientsThatNeverFinishTheirRequestAreConnected() throws Exception {
        try (HttpEndpoints http = endpoints()) {
            List<Socket> slow = new ArrayList<>();
            for (int i = 0; i < 6; i++) { // three times the pool
                slow.add(halfRequest(http.port()));
            }
            HttpResponse<String> r = get(http.port(), "/healthz");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok\n");
            // every slow client was disconnected by the server (end of stream, no answer), not left holding a thread
            for (Socket s : slow) {
                assertClosedByServer(s);
                s.close();
            }
            assertThat(get(http.port(), "/metrics").body()).isEqualTo("fairway_up 1\n");
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aClientDribblingHeadersIsCutAtTheRequestTimeoutNotAtEachRead() throws Exception {
        try (HttpEndpoints http = endpoints(); Socket s = halfRequest(http.port())) {
            OutputStream out = s.getOutputStream();
            // one header line every 100 ms (each read succeeds within the timeout) for up to 5 s
            boolean cut = false;
            for (int i = 0; i < 50 && !cut; i++) {
                try {
                    out.write(("X-" + i + ": y\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    Thread.sleep(100);
                } catch (java.io.IOException closed) {
                    cut = true;
                }
            }
            if (!cut) {
                assertClosedByServer(s);
            }
            assertThat(get(http.port(), "/healthz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void unknownPathsOtherMethodsAndHugeHeadsAreRefused() throws Exception {
        try (HttpEndpoints http = endpoints()) {
            assertThat(get(http.port(), "/nope").statusCode()).isEqualTo(404);
            assertThat(get(http.port(), "/healthz?verbose=1").statusCode()).isEqualTo(200);
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/healthz"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            try (Socket s = new Socket("127.0.0.1", http.port())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(("GET /healthz HTTP/1.1\r\nX: " + "a".repeat(HttpEndpoints.MAX_HEAD_BYTES) + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(answer).startsWith("HTTP/1.1 431");
            }
        }
    }

    /** A slowloris: one header byte every 500 ms on each of {@code n} connections from {@code from}. */
    private static List<Socket> slowloris(String from, int port, int n, java.util.concurrent.ScheduledExecutorService ticker) throws Exception {
        byte[] head = ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + "a".repeat(4000) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        List<Socket> opened = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = new Socket();
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            opened.add(s);
            int[] next = {0};
            ticker.scheduleAtFixedRate(() -> {
                try {
                    s.getOutputStream().write(head[next[0]++ % head.length]);
                } catch (java.io.IOException closed) {
                    // cut by the server
                }
            }, 0, 500, TimeUnit.MILLISECONDS);
        }
        return opened;
    }

    private static int probes(int port, int count) throws Exception {
        int answered = 0;
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < count; i++) {
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                answered += r.statusCode() == 200 ? 1 : 0;
            } catch (java.io.IOException unanswered) {
                // not answered in time
            }
        }
        return answered;
    }

    private static void assumeOtherLoopback() {
        try (Socket check = new Socket()) {
            check.bind(new InetSocketAddress("127.0.0.2", 0));
        } catch (java.io.IOException e) {
            org.junit.jupiter.api.Assumptions.abort("this machine cannot bind 127.0.0.2");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theLivenessProbeIsAnsweredWhileTwentySlowlorisConnectionsAreHeld() throws Exception {
        // the controller's own settings for its probe port
        var ticker = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (HttpEndpoints http = new HttpEndpoints(0, Map.of("/healthz", () -> "ok\n"), FairwayController.HTTP_THREADS,
                FairwayController.HTTP_REQUEST_TIMEOUT)) {
            // from another address than the probe's, as a pod's would be: kubelet probes from the node
            assumeOtherLoopback();
            List<Socket> slow = slowloris("127.0.0.2", http.port(), 20, ticker);
            Thread.sleep(500);
            assertThat(probes(http.port(), 4)).as("probes answered (of 4, 5 s each) while 20 slowloris connections are held").isEqualTo(4);
            for (Socket s : slow) {
                s.close();
            }
        } finally {
            ticker.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aFloodOfIdleConnectionsFromOneAddressDoesNotStopTheProbe() throws Exception {
        List<Socket> flood = new ArrayList<>();
        try (HttpEndpoints http = new HttpEndpoints(0, Map.of("/healthz", () -> "ok\n"), FairwayController.HTTP_THREADS,
                FairwayController.HTTP_REQUEST_TIMEOUT)) {
            String from = "127.0.0.2";
            assumeOtherLoopback();
            for (int i = 0; i < 200; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(from, 0));
                try {
                    s.connect(new InetSocketAddress("127.0.0.1", http.port()), 2000);
                } catch (java.io.IOException refused) {
                    // a full backlog: fine
                }
                flood.add(s);
            }
            Thread.sleep(300);
            assertThat(probes(http.port(), 3)).as("probes answered (of 3) while 200 idle connections come from another address").isEqualTo(3);
        } finally {
            for (Socket s : flood) {
                s.close();
            }
        }
    }

    @Test
    void aForeignHostNameGetsNoMetrics() throws Exception {
        try (HttpEndpoints http = endpoints(); Socket s = new Socket("127.0.0.1", http.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).doesNotStartWith("HTTP/1.1 200").doesNotContain("fairway_up");
        }
        try (HttpEndpoints http = endpoints(); Socket s = new Socket("127.0.0.1", http.port())) {
            s.setSoTimeout(10_000);
            // kubelet and Prometheus address the pod by its IP
            s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: 10.1.2.3:9090\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 200").contains("fairway_up 1");
        }
    }
}
