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
}
