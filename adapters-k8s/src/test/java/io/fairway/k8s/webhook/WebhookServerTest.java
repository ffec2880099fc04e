package io.fairway.k8s.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook over HTTPS as kube-apiserver calls it: TLS with the certificate of a mounted Secret (RSA or EC, read
 * again when the Secret is renewed), reviews answered, and a client that sends too much, the wrong thing, or too
 * slowly is refused or cut off rather than holding the server.
 */
class WebhookServerTest {
    @TempDir
    Path certs;
    private WebhookServer server;
    private final PodGateWebhook webhook = new PodGateWebhook(ns -> true, List.of(PodGateWebhookTest.FAIRWAY));

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private WebhookServer start(Duration timeout) throws Exception {
        server = WebhookServer.builder(webhook, certs).bind(InetAddress.getLoopbackAddress()).port(0).requestTimeout(timeout).reloadEvery(null).build();
        return server;
    }

    @Test
    void itsSettingsAreCheckedWithTheWebhooksOwnBoundsAndDefaults() {
        WebhookServer.Builder b = WebhookServer.builder(webhook, certs);
        assertThat(b.address().getHostAddress()).as("all addresses").isEqualTo("0.0.0.0");
        assertThat(b.port()).isEqualTo(9443);
        assertThat(b.threads()).isEqualTo(4);
        assertThat(b.threads(64).threads()).isEqualTo(64);
        assertThatThrownBy(() -> b.threads(65)).isInstanceOf(IllegalArgumentException.class).hasMessage("threads must be 1..64, was 65");
        assertThatThrownBy(() -> b.requestTimeout(Duration.ofNanos(999_999))).hasMessage("requestTimeout must be positive, was PT0.000999999S");
        assertThat(b.requestTimeout(Duration.ofMillis(1)).requestTimeout()).isEqualTo(Duration.ofMillis(1));
        assertThatThrownBy(() -> b.port(70000)).hasMessage("port must be 0..65535, was 70000");
        assertThatThrownBy(() -> b.bind(null)).hasMessage("bind must be an address, was null");
        assertThatThrownBy(() -> b.reloadEvery(Duration.ZERO)).hasMessage("reloadEvery must be positive or null, was PT0S");
    }

    private static HttpClient trusting(Certificate cert) throws Exception {
        return HttpClient.newBuilder().sslContext(trustingContext(cert)).connectTimeout(Duration.ofSeconds(20)).build();
    }

    /** @return a TLS context that trusts this certificate alone */
    private static SSLContext trustingContext(Certificate cert) throws Exception {
        KeyStore ts = KeyStore.getInstance(KeyStore.getDefaultType());
        ts.load(null, null);
        ts.setCertificateEntry("webhook", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private HttpResponse<String> post(HttpClient client, String path, byte[] body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] queuedPodReview() {
        return PodGateWebhookTest.review("", "v1", "pods", "CREATE", "team-a", "alice", PodGateWebhookTest.pod("\"fairway.io/queue-name\":\"q\"", "", ""), null)
                .toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void servesReviewsOverTlsWithTheSecretsCertificateRsaOrEc() throws Exception {
        for (String alg : List.of("RSA", "EC")) {
            Certificate cert = TestCerts.write(certs, "fairway-webhook.fairway-system.svc", alg);
            start(Duration.ofSeconds(10));
            HttpResponse<String> r = post(trusting(cert), WebhookServer.PATH, queuedPodReview());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode answer = PodGateWebhookTest.JSON.readTree(r.body());
            assertThat(answer.at("/response/allowed").asBoolean()).isTrue();
            assertThat(answer.at("/response/patchType").asText()).isEqualTo("JSONPatch");
            assertThat(r.sslSession().orElseThrow().getPeerCertificates()[0]).as(alg).isEqualTo(cert);
            server.close();
            server = null;
        }
    }

    @Test
    void aRenewedSecretIsServedWithoutARestartAndABrokenOneKeepsTheOld() throws Exception {
        Certificate first = TestCerts.write(certs, "fairway-webhook.fairway-system.svc", "RSA");
        start(Duration.ofSeconds(10));
        Path next = Files.createDirectory(certs.resolve("next"));
        Certificate second = TestCerts.write(next, "fairway-webhook.fairway-system.svc", "EC");
        Files.copy(next.resolve("tls.crt"), certs.resolve("tls.crt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(next.resolve("tls.key"), certs.resolve("tls.key"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        server.reloadIfChanged();
        assertThat(post(trusting(second), WebhookServer.PATH, queuedPodReview()).statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> post(trusting(first), WebhookServer.PATH, queuedPodReview())).as("the old certificate is no longer served")
                .hasCauseInstanceOf(SSLHandshakeException.class);
        Files.writeString(certs.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n");
        server.reloadIfChanged();
        assertThat(post(trusting(second), WebhookServer.PATH, queuedPodReview()).statusCode()).as("a half-written Secret: the last good one stays").isEqualTo(200);
    }

    @Test
    void wrongPathsMethodsBodiesAndSizesAreRefused() throws Exception {
        Certificate cert = TestCerts.write(certs, "localhost", "EC");
        start(Duration.ofSeconds(10));
        HttpClient c = trusting(cert);
        assertThat(post(c, "/other", queuedPodReview()).statusCode()).isEqualTo(404);
        HttpResponse<String> get = c.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + WebhookServer.PATH)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
        HttpResponse<String> junk = post(c, WebhookServer.PATH, "{\"kind\":\"Pod\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(junk.statusCode()).isEqualTo(400);
        assertThat(junk.body()).contains("AdmissionReview");
        byte[] huge = new byte[PodGateWebhook.MAX_REVIEW_BYTES + 1];
        java.util.Arrays.fill(huge, (byte) ' ');
        // without a Content-Length (chunked): read up to the limit, then refused
        HttpResponse<String> tooBig = c.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + WebhookServer.PATH))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(huge))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(tooBig.statusCode()).isEqualTo(413);
        // with one: refused before the body is read (the client may see the connection closed while it still sends)
        try {
            assertThat(post(c, WebhookServer.PATH, huge).statusCode()).isEqualTo(413);
        } catch (java.io.IOException closedWhileSending) {
            assertThat(closedWhileSending).hasMessageContaining("no bytes");
        }
        assertThat(post(c, WebhookServer.PATH, queuedPodReview()).statusCode()).as("and it still answers").isEqualTo(200);
    }

    @Test
    void aClientThatTricklesItsRequestIsCutOffAtTheDeadlineAndOthersAreStillAnswered() throws Exception {
        Certificate cert = TestCerts.write(certs, "localhost", "RSA");
        start(Duration.ofMillis(800));
        HttpClient c = trusting(cert);
        SSLContext ctx = trustingContext(cert);
        List<SSLSocket> slow = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", server.port());
            s.setSoTimeout(30_000);
            s.startHandshake();
            OutputStream out = s.getOutputStream();
            out.write(("POST " + WebhookServer.PATH + " HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            slow.add(s);
        }
        for (SSLSocket s : slow) {
            // keeps sending a byte now and then, never the whole body: the server closes the connection at its deadline
            boolean closed = false;
            InputStream in = s.getInputStream();
            for (int i = 0; i < 200 && !closed; i++) {
                try {
                    s.getOutputStream().write(' ');
                    s.getOutputStream().flush();
                    s.setSoTimeout(100);
                    int b = in.read();
                    closed = b < 0 || b == 'H'; // end of stream, or an error answer followed by the close
                    if (b == 'H') {
                        in.readAllBytes();
                    }
                } catch (java.net.SocketTimeoutException stillOpen) {
                    // not yet
                } catch (java.io.IOException reset) {
                    closed = true;
                }
            }
            assertThat(closed).as("a trickling client is cut off").isTrue();
            s.close();
        }
        assertThat(post(c, WebhookServer.PATH, queuedPodReview()).statusCode()).isEqualTo(200);
    }

    @Test
    void aSecretThatIsNotACertificateAndKeyIsRefusedAtStartNamingTheFiles() throws Exception {
        Files.writeString(certs.resolve("tls.crt"), "not a certificate");
        Files.writeString(certs.resolve("tls.key"), "not a key");
        assertThatThrownBy(() -> start(Duration.ofSeconds(1))).isInstanceOf(java.io.IOException.class).hasMessageContaining("tls.crt and tls.key");
        assertThat(X509Certificate.class).isNotNull();
    }
}
