package io.fairway.visibility;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries HTTP exchanges between {@link HardenedHttpServer} and the {@link ApiRouter}: turns a request into an
 * {@link HttpRequest} (a body of at most {@link #MAX_BODY_BYTES}, query values of at most {@link #MAX_QUERY_VALUE}
 * characters), writes the answer with the security headers, and runs long-lived answers (server-sent events) on a
 * thread of their own: at most {@code maxStreams} at once and a quarter of them (at least one) per client address,
 * each at most {@code maxStreamMillis} long, each write bounded by the request timeout (a client that stops reading
 * is cut once its buffers are full).
 */
final class ApiHandler extends Handler.Abstract {
    private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);
    static final int MAX_BODY_BYTES = 4096;
    static final int MAX_QUERY_VALUE = 256;
    static final int MAX_QUERY_PARAMETERS = 32;
    /** Sent with every answer: no remote scripts, styles, frames or form targets; the API is same-origin only. */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
    static final Map<String, String> SECURITY_HEADERS = Map.of("Content-Security-Policy", CSP, "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "no-referrer", "X-Frame-Options", "DENY");

    private final Function<HttpRequest, HttpResponse> router;
    private final int maxStreams;
    private final int maxStreamsPerAddress;
    private final Duration writeTimeout;
    private final AtomicInteger openStreams = new AtomicInteger();
    private final Map<InetAddress, Integer> streamsPerAddress = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger streamThreads = new AtomicInteger();
    private volatile HardenedHttpServer server;

    ApiHandler(Function<HttpRequest, HttpResponse> router, int maxStreams, Duration writeTimeout) {
        this.router = router;
        this.maxStreams = maxStreams;
        this.maxStreamsPerAddress = Math.max(1, maxStreams / 4);
        this.writeTimeout = writeTimeout;
    }

    void server(HardenedHttpServer server) {
        this.server = server;
    }

    /** @return streams open now */
    int openStreams() {
        return openStreams.get();
    }

    /** Renders the server's own refusals as the API's JSON errors. */
    static HardenedHttpServer.Page errorPage(int status, String title, String message) {
        HttpResponse r = VisibilityJson.errorResponse(ApiException.status(status, title, message));
        Map<String, String> headers = new HashMap<>(SECURITY_HEADERS);
        headers.put("Cache-Control", "no-store");
        return new HardenedHttpServer.Page(r.contentType, r.body, headers);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        HttpRequest req;
        try {
            req = read(request);
        } catch (ApiException e) {
            write(response, callback, VisibilityJson.errorResponse(e), false);
            return true;
        } catch (IOException e) {
            callback.failed(e);
            return true;
        }
        boolean head = req.method().equals("HEAD");
        HttpResponse r = answer(head ? new HttpRequest("GET", req.path(), req.query(), req.headers(), req.body(), req.remote()) : req);
        if (r.streamer == null || head) {
            write(response, callback, r, head);
            return true;
        }
        InetAddress from = HardenedHttpServer.remote(request);
        if (!takeStream(from)) {
            write(response, callback, VisibilityJson.errorResponse(ApiException.status(503, "too many streams",
                    "too many streams are open" + (from == null ? "" : " (at most " + maxStreamsPerAddress + " per client address)") + "; try again later")),
                    false);
            return true;
        }
        HardenedHttpServer http = server;
        http.releaseFromDeadline(request);
        request.addIdleTimeoutListener(t -> false); // a quiet stream is not idle; its writes have their own deadline
        Thread t = new Thread(() -> {
            try {
                head(response, r, -1);
                try (OutputStream out = new DeadlineOutputStream(Content.Sink.asOutputStream(response), request, http, writeTimeout)) {
                    r.streamer.stream(out);
                }
                callback.succeeded();
            } catch (IOException gone) {
                callback.failed(gone); // the client left, stopped reading, or the server closed
            } catch (RuntimeException e) {
                LOG.warn("visibility API: stream failed", e);
                callback.failed(e);
            } finally {
                releaseStream(from);
            }
        }, "fairway-api-stream-" + streamThreads.incrementAndGet());
        t.setDaemon(true);
        t.start();
        return true;
    }

    private synchronized boolean takeStream(InetAddress from) {
        if (openStreams.get() >= maxStreams) {
            return false;
        }
        if (from != null) {
            int n = streamsPerAddress.getOrDefault(from, 0);
            if (n >= maxStreamsPerAddress) {
                return false;
            }
            streamsPerAddress.put(from, n + 1);
        }
        openStreams.incrementAndGet();
        return true;
    }

    private synchronized void releaseStream(InetAddress from) {
        openStreams.decrementAndGet();
        if (from != null) {
            streamsPerAddress.computeIfPresent(from, (k, v) -> v <= 1 ? null : v - 1);
        }
    }

    private HttpResponse answer(HttpRequest req) {
        try {
            return router.apply(req);
        } catch (ApiException e) {
            return VisibilityJson.errorResponse(e);
        } catch (RuntimeException e) {
            LOG.warn("visibility API: {} {} failed", req.method(), req.path(), e);
            return VisibilityJson.errorResponse(ApiException.status(500, "internal error", "the server failed to answer; see its log"));
        }
    }

    /** Reads the request: method, raw path, checked query, headers in lower case, a bounded body. */
    static HttpRequest read(Request request) throws IOException {
        Map<String, String> headers = new HashMap<>();
        for (HttpField f : request.getHeaders()) {
            headers.putIfAbsent(f.getName().toLowerCase(Locale.ROOT), f.getValue());
        }
        if (headers.containsKey("transfer-encoding")) {
            throw ApiException.status(400, "bad request", "chunked request bodies are not accepted; send Content-Length");
        }
        long length = request.getLength();
        if (length > MAX_BODY_BYTES) {
            throw ApiException.status(413, "request body too large", "the request body may be at most " + MAX_BODY_BYTES + " bytes, was " + length);
        }
        byte[] body = new byte[0];
        if (length > 0) {
            InputStream in = Content.Source.asInputStream(request);
            body = in.readNBytes(MAX_BODY_BYTES);
        }
        String path = request.getHttpURI().getPath(); // raw: the router decodes each segment
        if (path == null || !path.startsWith("/")) {
            throw ApiException.status(400, "bad request", "malformed request line");
        }
        String rawQuery = request.getHttpURI().getQuery();
        Map<String, String> query = rawQuery == null ? Map.of() : parseQuery(rawQuery);
        InetAddress remote = HardenedHttpServer.remote(request);
        return new HttpRequest(request.getMethod(), path, query, headers, body,
                remote == null ? "unknown" : remote.getHostAddress() + ":" + Request.getRemotePort(request));
    }

    static Map<String, String> parseQuery(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw.isEmpty()) {
            return q;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int e = pair.indexOf('=');
            String name = decode("query parameter name", e >= 0 ? pair.substring(0, e) : pair, true);
            String value = e >= 0 ? decode(name, pair.substring(e + 1), true) : "";
            if (value.length() > MAX_QUERY_VALUE) {
                throw ApiException.badParameter(name, VisibilityJson.clip(value), name + " may be at most " + MAX_QUERY_VALUE + " characters long, was " + value.length());
            }
            q.putIfAbsent(name, value);
            if (q.size() > MAX_QUERY_PARAMETERS) {
                throw ApiException.badParameter(name, VisibilityJson.clip(value), "at most " + MAX_QUERY_PARAMETERS + " query parameters are accepted");
            }
        }
        return q;
    }

    /** @return a path segment or query part, URL-decoded; 400 naming {@code what} when malformed */
    static String decode(String what, String raw, boolean plusIsSpace) {
        try {
            String s = plusIsSpace ? raw : raw.replace("+", "%2B");
            return java.net.URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter(what, VisibilityJson.clip(raw), what + " is not correctly URL-encoded: '" + VisibilityJson.clip(raw) + "'");
        }
    }

    private static void head(Response response, HttpResponse r, long contentLength) {
        response.setStatus(r.status);
        var h = response.getHeaders();
        h.put(HttpHeader.CONTENT_TYPE, r.contentType);
        if (contentLength >= 0) {
            h.put(HttpHeader.CONTENT_LENGTH, contentLength);
        }
        h.put(HttpHeader.CONNECTION, "close");
        SECURITY_HEADERS.forEach(h::put);
        if (!r.headers.containsKey("Cache-Control")) {
            h.put(HttpHeader.CACHE_CONTROL, "no-store");
        }
        r.headers.forEach(h::put);
    }

    private static void write(Response response, Callback callback, HttpResponse r, boolean headOnly) {
        head(response, r, r.body.length);
        response.write(true, headOnly ? ByteBuffer.allocate(0) : ByteBuffer.wrap(r.body), callback);
    }

    /** Each write must complete within the timeout, or the connection is closed (the client stopped reading). */
    private static final class DeadlineOutputStream extends OutputStream {
        private final OutputStream out;
        private final Request request;
        private final HardenedHttpServer server;
        private final Duration timeout;

        DeadlineOutputStream(OutputStream out, Request request, HardenedHttpServer server, Duration timeout) {
            this.out = out;
            this.request = request;
            this.server = server;
            this.timeout = timeout;
        }

        private interface Io {
            void run() throws IOException;
        }

        private void bounded(Io io) throws IOException {
            Scheduler.Task deadline = server.closeAfter(request, timeout);
            try {
                io.run();
            } finally {
                deadline.cancel();
            }
        }

        @Override
        public void write(int b) throws IOException {
            bounded(() -> out.write(b));
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            bounded(() -> out.write(b, off, len));
        }

        @Override
        public void flush() throws IOException {
            bounded(out::flush);
        }

        @Override
        public void close() throws IOException {
            bounded(out::close);
        }
    }
}
