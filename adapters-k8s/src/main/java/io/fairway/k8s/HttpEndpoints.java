package io.fairway.k8s;

import io.fairway.visibility.HardenedHttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The controller's plain-text HTTP endpoints ({@code /healthz}, {@code /readyz}, {@code /metrics}): GET or HEAD
 * only, on a {@link HardenedHttpServer} of their own (own port, own threads), so the liveness probe is answered
 * whatever happens on the API's port. The server gives each connection a deadline for its whole exchange (a client
 * that sends its request a byte at a time is closed at it), caps connections in all and per client address, and
 * answers only requests naming an IP address or {@code localhost} as their {@code Host} (kubelet and Prometheus
 * address the pod by its IP; a DNS-rebinding page gets 421, not the metrics).
 */
public final class HttpEndpoints implements AutoCloseable {
    /** The largest request head read (request line and headers); 431 beyond. */
    static final int MAX_HEAD_BYTES = HardenedHttpServer.MAX_HEAD_BYTES;

    private final HardenedHttpServer server;

    /**
     * Binds the port on every interface and starts serving.
     *
     * @param port the port (0: any free port, see {@link #port()})
     * @param routes path to the body it answers (text/plain, status 200)
     * @param threads the most requests handled at once
     * @param requestTimeout the longest a connection is kept: receiving the request and writing the answer
     * @throws IOException when the port cannot be bound
     */
    public HttpEndpoints(int port, Map<String, Supplier<String>> routes, int threads, Duration requestTimeout) throws IOException {
        if (threads < 1 || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("threads must be >= 1 and the request timeout > 0, were " + threads + " and " + requestTimeout);
        }
        Map<String, Supplier<String>> copy = Map.copyOf(routes);
        this.server = HardenedHttpServer.builder("fairway-http", new Routes(copy), (status, title, message) -> HardenedHttpServer.Page.text(message + "\n"))
                .bind(wildcard()).port(port).threads(threads).requestTimeout(requestTimeout).idleTimeout(requestTimeout)
                .maxConnections(64).maxConnectionsPerAddress(16)
                .build();
    }

    private static InetAddress wildcard() {
        try {
            return InetAddress.getByName("0.0.0.0");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the port bound */
    public int port() {
        return server.port();
    }

    /** @return connections closed at once because their client address already had its share */
    public int refusedConnections() {
        return server.refusedConnections();
    }

    /** Answers the routes, GET or HEAD only. */
    private static final class Routes extends Handler.Abstract {
        private final Map<String, Supplier<String>> routes;

        Routes(Map<String, Supplier<String>> routes) {
            this.routes = routes;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            boolean headOnly = request.getMethod().equals("HEAD");
            if (!request.getMethod().equals("GET") && !headOnly) {
                respond(response, callback, 405, "only GET and HEAD\n", false);
                return true;
            }
            Supplier<String> route = routes.get(request.getHttpURI().getPath());
            if (route == null) {
                respond(response, callback, 404, "not found\n", headOnly);
                return true;
            }
            respond(response, callback, 200, route.get(), headOnly);
            return true;
        }

        private static void respond(Response response, Callback callback, int code, String body, boolean headOnly) {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            response.setStatus(code);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, b.length);
            response.write(true, headOnly ? ByteBuffer.allocate(0) : ByteBuffer.wrap(b), callback);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
