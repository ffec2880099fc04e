package io.fairway.visibility;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP/1.1 server for untrusted clients, one request per connection ({@code Connection: close}). The
 * hardening follows the controller's {@code HttpEndpoints}: connections are served by a bounded pool of threads
 * with a bounded queue (a connection that finds both full is closed at once); a watchdog closes a connection not
 * answered within the request timeout of a thread taking it, whether the client is slow to send or to read; the
 * request head is at most {@link #MAX_HEAD_BYTES}, a body at most {@link #MAX_BODY_BYTES}, a query value at most
 * {@link #MAX_QUERY_VALUE} characters. Long-lived answers (server-sent events) leave the request pool for a thread
 * of their own, at most {@code maxStreams} at once, each closed after {@code maxStreamMillis}.
 */
final class HttpServerCore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpServerCore.class);
    static final int MAX_HEAD_BYTES = 8192;
    static final int MAX_BODY_BYTES = 4096;
    static final int MAX_QUERY_VALUE = 256;
    static final int MAX_QUERY_PARAMETERS = 32;
    /** Sent with every answer: no remote scripts, styles, frames or form targets; the API is same-origin only. */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

    private final ServerSocket server;
    private final Function<HttpRequest, HttpResponse> handler;
    private final long timeoutMillis;
    private final long maxStreamMillis;
    private final Semaphore streams;
    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor watchdog;
    private final Thread acceptor;
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger streamThreads = new AtomicInteger();
    private final java.util.Set<Socket> openStreams = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    HttpServerCore(InetAddress bind, int port, Function<HttpRequest, HttpResponse> handler, int threads, long timeoutMillis,
                   int maxStreams, long maxStreamMillis) throws IOException {
        this.handler = handler;
        this.timeoutMillis = timeoutMillis;
        this.maxStreamMillis = maxStreamMillis;
        this.streams = new Semaphore(maxStreams);
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(bind, port), 64);
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(threads * 4), r -> daemon(r, "fairway-api-" + n.incrementAndGet()));
        this.watchdog = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "fairway-api-timeout"));
        watchdog.setRemoveOnCancelPolicy(true);
        this.acceptor = daemon(this::acceptLoop, "fairway-api-accept");
        acceptor.start();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    int port() {
        return server.getLocalPort();
    }

    int refusedConnections() {
        return refused.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("visibility API: accept failed", e);
                }
                continue;
            }
            try {
                pool.execute(() -> {
                    // the clock starts when a thread takes the connection: waiting in the queue costs the client nothing
                    ScheduledFuture<?> deadline = watchdog.schedule(() -> closeQuietly(s), timeoutMillis, TimeUnit.MILLISECONDS);
                    boolean handedOff = false;
                    try {
                        handedOff = serve(s, deadline);
                    } finally {
                        if (!handedOff) {
                            deadline.cancel(false);
                            closeQuietly(s);
                        }
                    }
                });
            } catch (RejectedExecutionException full) {
                refused.incrementAndGet();
                closeQuietly(s);
            }
        }
    }

    /** @return true when the connection was handed to a stream thread (which closes it) */
    private boolean serve(Socket s, ScheduledFuture<?> deadline) {
        try {
            s.setSoTimeout((int) Math.max(1, timeoutMillis));
            HttpRequest req;
            try {
                req = read(s.getInputStream(), String.valueOf(s.getRemoteSocketAddress()));
            } catch (ApiException e) {
                write(s.getOutputStream(), VisibilityJson.errorResponse(e), false);
                return false;
            }
            if (req == null) {
                return false;
            }
            boolean head = req.method().equals("HEAD");
            HttpResponse r = answer(head ? new HttpRequest("GET", req.path(), req.query(), req.headers(), req.body(), req.remote()) : req);
            if (r.streamer == null || head) {
                write(s.getOutputStream(), r, head);
                return false;
            }
            if (!streams.tryAcquire()) {
                write(s.getOutputStream(), VisibilityJson.errorResponse(ApiException.status(503, "too many streams",
                        "too many streams are open; try again later")), false);
                return false;
            }
            deadline.cancel(false);
            ScheduledFuture<?> streamDeadline = watchdog.schedule(() -> closeQuietly(s), maxStreamMillis + timeoutMillis, TimeUnit.MILLISECONDS);
            openStreams.add(s);
            Thread t = daemon(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    writeHead(out, r, -1);
                    r.streamer.stream(out);
                } catch (IOException gone) {
                    // the client left or the deadline closed the stream
                } catch (RuntimeException e) {
                    LOG.warn("visibility API: stream failed", e);
                } finally {
                    streamDeadline.cancel(false);
                    closeQuietly(s);
                    openStreams.remove(s);
                    streams.release();
                }
            }, "fairway-api-stream-" + streamThreads.incrementAndGet());
            t.start();
            return true;
        } catch (SocketException | SocketTimeoutException gone) {
            return false; // closed by the deadline, or by the client: nothing to answer
        } catch (IOException | RuntimeException e) {
            LOG.debug("visibility API: request failed", e);
            return false;
        }
    }

    private HttpResponse answer(HttpRequest req) {
        try {
            return handler.apply(req);
        } catch (ApiException e) {
            return VisibilityJson.errorResponse(e);
        } catch (RuntimeException e) {
            LOG.warn("visibility API: {} {} failed", req.method(), req.path(), e);
            return VisibilityJson.errorResponse(ApiException.status(500, "internal error", "the server failed to answer; see its log"));
        }
    }

    /** @return the request, or null when the client closed before sending a whole head */
    static HttpRequest read(InputStream in, String remote) throws IOException {
        byte[] buf = new byte[MAX_HEAD_BYTES];
        int len = 0;
        int end = -1;
        while (end < 0) {
            if (len == buf.length) {
                throw ApiException.status(431, "request head too large", "the request head is larger than " + MAX_HEAD_BYTES + " bytes");
            }
            int r = in.read(buf, len, buf.length - len);
            if (r < 0) {
                return null;
            }
            int from = Math.max(0, len - 3);
            len += r;
            for (int i = from; i + 3 < len; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                    end = i;
                    break;
                }
            }
        }
        String[] lines = new String(buf, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] parts = lines[0].split(" ");
        if (parts.length != 3 || !parts[2].startsWith("HTTP/") || !parts[1].startsWith("/")) {
            throw ApiException.status(400, "bad request", "malformed request line");
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            if (c > 0) {
                headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
            }
        }
        byte[] body = readBody(in, headers, Arrays.copyOfRange(buf, end + 4, len));
        String target = parts[1];
        int q = target.indexOf('?');
        String path = q >= 0 ? target.substring(0, q) : target; // raw: the router decodes each segment
        Map<String, String> query = q >= 0 ? parseQuery(target.substring(q + 1)) : Map.of();
        return new HttpRequest(parts[0], path, query, headers, body, remote);
    }

    private static byte[] readBody(InputStream in, Map<String, String> headers, byte[] already) throws IOException {
        if (headers.containsKey("transfer-encoding")) {
            throw ApiException.status(400, "bad request", "chunked request bodies are not accepted; send Content-Length");
        }
        String cl = headers.get("content-length");
        if (cl == null) {
            return new byte[0];
        }
        long n;
        try {
            n = Long.parseLong(cl);
        } catch (NumberFormatException e) {
            throw ApiException.status(400, "bad request", "Content-Length is not a number: " + VisibilityJson.clip(cl));
        }
        if (n < 0 || n > MAX_BODY_BYTES) {
            throw ApiException.status(413, "request body too large", "the request body may be at most " + MAX_BODY_BYTES + " bytes, was " + n);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream((int) n);
        body.write(already, 0, (int) Math.min(n, already.length));
        byte[] chunk = new byte[1024];
        while (body.size() < n) {
            int r = in.read(chunk, 0, (int) Math.min(chunk.length, n - body.size()));
            if (r < 0) {
                break;
            }
            body.write(chunk, 0, r);
        }
        return body.toByteArray();
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

    private static void write(OutputStream out, HttpResponse r, boolean headOnly) throws IOException {
        writeHead(out, r, r.body.length);
        if (!headOnly) {
            out.write(r.body);
        }
        out.flush();
    }

    private static void writeHead(OutputStream out, HttpResponse r, int contentLength) throws IOException {
        StringBuilder h = new StringBuilder(256);
        h.append("HTTP/1.1 ").append(r.status).append(' ').append(HttpResponse.reason(r.status)).append("\r\n");
        h.append("Content-Type: ").append(r.contentType).append("\r\n");
        if (contentLength >= 0) {
            h.append("Content-Length: ").append(contentLength).append("\r\n");
        }
        h.append("Connection: close\r\n");
        h.append("Content-Security-Policy: ").append(CSP).append("\r\n");
        h.append("X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n");
        if (!r.headers.containsKey("Cache-Control")) {
            h.append("Cache-Control: no-store\r\n");
        }
        r.headers.forEach((k, v) -> h.append(k).append(": ").append(v).append("\r\n"));
        h.append("\r\n");
        out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("visibility API: close failed", e);
        }
        pool.shutdownNow();
        watchdog.shutdownNow();
        openStreams.forEach(HttpServerCore::closeQuietly); // a stream notices at its next write (keep-alive at the latest)
    }
}
