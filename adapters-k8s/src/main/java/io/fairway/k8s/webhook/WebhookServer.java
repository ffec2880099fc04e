package io.fairway.k8s.webhook;

import io.fabric8.kubernetes.client.internal.CertUtils;
import io.fairway.visibility.ServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@link PodGateWebhook} over HTTPS (Jetty 12, TLS only) at {@value #PATH}, with the certificate and key of a
 * {@code kubernetes.io/tls} Secret mounted as files ({@code tls.crt}, {@code tls.key}, PEM; RSA or EC keys, PKCS#1,
 * SEC1 or PKCS#8). The files are read again when they change (checked every {@link Builder#reloadEvery}), so a
 * renewed certificate (cert-manager rotates the Secret; the kubelet updates the mounted files) is served without a
 * restart.
 *
 * <p>Bounded for untrusted clients: one request per connection, each connection closed when its exchange overruns
 * {@link Builder#requestTimeout} however slowly its bytes come; a request head of at most 8 KiB; a body of at most
 * {@link PodGateWebhook#MAX_REVIEW_BYTES} (413 beyond); POST to {@value #PATH} only; a fixed pool of handler threads.
 */
public final class WebhookServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);
    /** The path the MutatingWebhookConfiguration calls. */
    public static final String PATH = "/mutate";

    private final Server server;
    private final ServerConnector connector;
    private final SslContextFactory.Server ssl;
    private final Scheduler scheduler;
    private final Path cert;
    private final Path key;
    private final Map<Connection, Scheduler.Task> deadlines = new ConcurrentHashMap<>();
    private volatile String loaded;

    private WebhookServer(Builder b) throws IOException {
        this.cert = b.certDir.resolve("tls.crt");
        this.key = b.certDir.resolve("tls.key");
        QueuedThreadPool pool = new QueuedThreadPool(b.threads() + 2, 2, 60_000);
        pool.setName("fairway-webhook");
        pool.setDaemon(true);
        pool.setReservedThreads(0);
        server = new Server(pool);
        scheduler = new ScheduledExecutorScheduler("fairway-webhook-deadline", true);
        ssl = new SslContextFactory.Server();
        ssl.setKeyStore(keyStore());
        ssl.setKeyStorePassword("");
        ssl.setIncludeProtocols("TLSv1.3", "TLSv1.2");
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(8192);
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setIdleTimeout(b.requestTimeout().toMillis());
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        secure.setSniHostCheck(false); // the API server calls the Service's name; the certificate is the operator's to match
        http.addCustomizer(secure);
        connector = new ServerConnector(server, null, scheduler, null, 1, 1, new SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(http));
        connector.setHost(b.address().getHostAddress());
        connector.setPort(b.port());
        connector.setIdleTimeout(b.requestTimeout().toMillis());
        long deadline = b.requestTimeout().toMillis();
        connector.addBean(new Connection.Listener() {
            @Override
            public void onOpened(Connection c) {
                deadlines.put(c, scheduler.schedule(() -> c.getEndPoint().close(), deadline, TimeUnit.MILLISECONDS));
            }

            @Override
            public void onClosed(Connection c) {
                Scheduler.Task t = deadlines.remove(c);
                if (t != null) {
                    t.cancel();
                }
            }
        });
        server.addConnector(connector);
        server.setHandler(new Answer(b.webhook));
        server.setStopTimeout(0);
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw new IOException("cannot start the admission webhook on " + b.address().getHostAddress() + ":" + b.port() + ": " + e.getMessage(), e);
        }
        if (b.reloadEvery != null) {
            scheduler.schedule(new Runnable() {
                @Override
                public void run() {
                    reloadIfChanged();
                    if (server.isRunning()) {
                        scheduler.schedule(this, b.reloadEvery.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }
            }, b.reloadEvery.toMillis(), TimeUnit.MILLISECONDS);
        }
        LOG.info("admission webhook serving https on {}:{}{}", b.address().getHostAddress(), port(), PATH);
    }

    /**
     * @param webhook decides the reviews
     * @param certDir the folder holding {@code tls.crt} and {@code tls.key} (a mounted TLS Secret)
     * @return a builder: all addresses, port 9443, 4 threads, a 10 s request deadline, reloaded every 60 s
     */
    public static Builder builder(PodGateWebhook webhook, Path certDir) {
        if (webhook == null || certDir == null) {
            throw new IllegalArgumentException("a webhook server needs the webhook and the certificate folder");
        }
        return new Builder(webhook, certDir);
    }

    /** @return the port bound */
    public int port() {
        return connector.getLocalPort();
    }

    /** Reads the certificate and key again when either file changed; keeps the old ones when the new cannot be read. */
    void reloadIfChanged() {
        try {
            if (stamp().equals(loaded)) {
                return;
            }
            KeyStore ks = keyStore();
            ssl.reload(f -> f.setKeyStore(ks));
            LOG.info("admission webhook: certificate reloaded from {}", cert);
        } catch (Exception e) {
            LOG.warn("admission webhook: the new certificate in {} cannot be read; still serving the old one: {}", cert.getParent(), e.getMessage());
        }
    }

    private String stamp() throws IOException {
        return Files.getLastModifiedTime(cert) + "|" + Files.getLastModifiedTime(key) + "|" + Files.size(cert) + "|" + Files.size(key);
    }

    private KeyStore keyStore() throws IOException {
        String stamp = stamp();
        byte[] c = Files.readAllBytes(cert);
        byte[] k = Files.readAllBytes(key);
        KeyStore ks = readKeyStore(c, k);
        loaded = stamp;
        return ks;
    }

    /**
     * @param certPem the certificate chain, PEM
     * @param keyPem its private key, PEM (RSA or EC; PKCS#1, SEC1 or PKCS#8)
     * @return a key store holding them (empty password)
     * @throws IOException naming the file's problem when they cannot be read
     */
    static KeyStore readKeyStore(byte[] certPem, byte[] keyPem) throws IOException {
        String text = new String(keyPem, StandardCharsets.US_ASCII);
        String[] algorithms = text.contains("BEGIN EC PRIVATE KEY") ? new String[] {"EC"} : text.contains("BEGIN RSA PRIVATE KEY") ? new String[] {"RSA"}
                : new String[] {"RSA", "EC"};
        Exception last = null;
        for (String alg : algorithms) {
            try (InputStream ci = new ByteArrayInputStream(certPem); InputStream ki = new ByteArrayInputStream(keyPem)) {
                return CertUtils.createKeyStore(ci, ki, alg, new char[0], null, new char[0]);
            } catch (GeneralSecurityException | IOException | RuntimeException e) {
                last = e;
            }
        }
        throw new IOException("tls.crt and tls.key are not a PEM certificate and its RSA or EC private key: " + (last == null ? "" : last.getMessage()), last);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            LOG.debug("admission webhook: stop failed", e);
        }
        try {
            scheduler.stop();
        } catch (Exception e) {
            LOG.debug("admission webhook: scheduler stop failed", e);
        }
    }

    /** Answers POST {@value #PATH} with the review's decision; anything else with an error. */
    private static final class Answer extends Handler.Abstract {
        private final PodGateWebhook webhook;

        Answer(PodGateWebhook webhook) {
            this.webhook = webhook;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            if (!PATH.equals(Request.getPathInContext(request))) {
                return text(response, callback, 404, "not found: the webhook answers POST " + PATH);
            }
            if (!"POST".equals(request.getMethod())) {
                return text(response, callback, 405, "method not allowed: the webhook answers POST " + PATH);
            }
            long length = request.getLength();
            if (length > PodGateWebhook.MAX_REVIEW_BYTES) {
                return text(response, callback, 413, "the review may be at most " + PodGateWebhook.MAX_REVIEW_BYTES + " bytes, was " + length);
            }
            byte[] body;
            try (InputStream in = Content.Source.asInputStream(request)) {
                body = in.readNBytes(PodGateWebhook.MAX_REVIEW_BYTES + 1);
            } catch (IOException e) {
                return text(response, callback, 400, "the body could not be read: " + e.getMessage());
            }
            if (body.length > PodGateWebhook.MAX_REVIEW_BYTES) {
                return text(response, callback, 413, "the review may be at most " + PodGateWebhook.MAX_REVIEW_BYTES + " bytes");
            }
            byte[] answer;
            try {
                answer = webhook.review(body);
            } catch (IllegalArgumentException e) {
                return text(response, callback, 400, e.getMessage());
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(answer), callback);
            return true;
        }

        private static boolean text(Response response, Callback callback, int status, String message) {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
            response.write(true, ByteBuffer.wrap((message + "\n").getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
    }

    /**
     * Builds a {@link WebhookServer}; every setter checks its argument. Threads (reviews decided at once): at most 64;
     * the request deadline counts whole milliseconds (at least 1 ms).
     */
    public static final class Builder extends ServerBuilder<Builder> {
        private final PodGateWebhook webhook;
        private final Path certDir;
        private Duration reloadEvery = Duration.ofSeconds(60);

        private Builder(PodGateWebhook webhook, Path certDir) {
            super(allAddresses(), 9443, 64, Duration.ofMillis(1));
            this.webhook = webhook;
            this.certDir = certDir;
        }

        private static InetAddress allAddresses() {
            try {
                return InetAddress.getByName("0.0.0.0");
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }

        /** @param every how often the certificate files are checked for a change, or null never @return this */
        public Builder reloadEvery(Duration every) {
            check(every == null || every.toMillis() > 0, "reloadEvery", every, "positive or null");
            this.reloadEvery = every;
            return this;
        }

        /**
         * Reads the certificate, binds the port and starts serving.
         *
         * @return the server
         * @throws IOException when the certificate cannot be read or the port bound
         */
        public WebhookServer build() throws IOException {
            return new WebhookServer(this);
        }

        private static void check(boolean ok, String field, Object value, String expected) {
            if (!ok) {
                throw new IllegalArgumentException(field + " must be " + expected + ", was " + value);
            }
        }
    }
}
