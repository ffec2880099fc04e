package io.fairway.k8s;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's plain-text HTTP endpoints ({@code /healthz}, {@code /readyz}, {@code /metrics}): GET or HEAD
 * only, one request per connection. Built to survive slow or hostile clients: connections are served by a
 * bounded pool of threads with a bounded queue of four connections per thread (a connection that finds both full
 * is closed at once), and a connection is closed when it has not been answered within the request timeout of
 * being taken by a thread — whether the client is slow to send its request or slow to read the answer — so a
 * client that never finishes its request holds one thread for at most that long, and a probe queued behind
 * {@code k} such clients on {@code n} threads is answered within about {@code ceil(k / n)} timeouts.
 */
public final class HttpEndpoints implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoints.class);
    /** The largest request head read (request line and headers). */
    static final int MAX_HEAD_BYTES = 8192;

    private final ServerSocket server;
    private final Map<String, Supplier<String>> routes;
    private final long timeoutMillis;
    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor watchdog;
    private final Thread acceptor;
    private final AtomicInteger refused = new AtomicInteger();
    private volatile boolean closed;

    /**
     * Binds the port and starts serving.
     *
     * @param port the port (0: any free port, see {@link #port()})
     * @param routes path to the body it answers (text/plain, status 200)
     * @param threads the most connections served at once
     * @param requestTimeout the longest a connection is kept: reading the request and writing the answer
     * @throws IOException when the port cannot be bound
     */
    public HttpEndpoints(int port, Map<String, Supplier<String>> routes, int threads, Duration requestTimeout) throws IOException {
        if (threads < 1 || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("threads must be >= 1 and the request timeout > 0, were " + threads + " and " + requestTimeout);
        }
        this.routes = Map.copyOf(routes);
        this.timeoutMillis = requestTimeout.toMillis();
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(port), 64);
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(threads * 4), r -> {
            Thread t = new Thread(r, "fairway-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.watchdog = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fairway-http-timeout");
            t.setDaemon(true);
            return t;
        });
        watchdog.setRemoveOnCancelPolicy(true);
        this.acceptor = new Thread(this::acceptLoop, "fairway-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the port bound */
    public int port() {
        return server.getLocalPort();
    }

    /** @return connections closed unanswered because every thread and queue slot was taken */
    public int refusedConnections() {
        return refused.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("HTTP endpoints: accept failed", e);
                }
                continue;
            }
            try {
                pool.execute(() -> {
                    // the clock starts when a thread takes the connection: waiting in the queue costs the client nothing
                    ScheduledFuture<?> deadline = watchdog.schedule(() -> closeQuietly(s), timeoutMillis, TimeUnit.MILLISECONDS);
                    try {
                        serve(s);
                    } finally {
                        deadline.cancel(false);
                        closeQuietly(s);
                    }
                });
            } catch (RejectedExecutionException full) {
                refused.incrementAndGet();
                closeQuietly(s);
            }
        }
    }

    private void serve(Socket s) {
        try {
            s.setSoTimeout((int) Math.max(1, timeoutMillis));
            String head = readHead(s.getInputStream());
            if (head == null) {
                respond(s, 431, "request head too large or incomplete\n", false);
                return;
            }
            String line = head.substring(0, Math.max(0, head.indexOf("\r\n")));
            String[] parts = line.split(" ");
            if (parts.length != 3 || !parts[2].startsWith("HTTP/")) {
                respond(s, 400, "bad request\n", false);
                return;
            }
            boolean headOnly = parts[0].equals("HEAD");
            if (!parts[0].equals("GET") && !headOnly) {
                respond(s, 405, "only GET and HEAD\n", false);
                return;
            }
            String path = parts[1];
            int q = path.indexOf('?');
            Supplier<String> route = routes.get(q >= 0 ? path.substring(0, q) : path);
            if (route == null) {
                respond(s, 404, "not found\n", headOnly);
                return;
            }
            respond(s, 200, route.get(), headOnly);
        } catch (SocketException | java.net.SocketTimeoutException gone) {
            // closed by the deadline, or by the client: nothing to answer
        } catch (IOException | RuntimeException e) {
            LOG.debug("HTTP endpoints: request failed", e);
        }
    }

    /** @return the request head up to the blank line, or null when it is longer than {@link #MAX_HEAD_BYTES} or cut */
    private static String readHead(InputStream in) throws IOException {
        byte[] buf = new byte[MAX_HEAD_BYTES];
        int len = 0;
        while (len < buf.length) {
            int r = in.read(buf, len, buf.length - len);
            if (r < 0) {
                return null;
            }
            len += r;
            for (int i = Math.max(0, len - r - 3); i + 3 < len; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                    return new String(buf, 0, i + 2, StandardCharsets.ISO_8859_1);
                }
            }
        }
        return null;
    }

    private static void respond(Socket s, int code, String body, boolean headOnly) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String reason = switch (code) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            default -> "Request Header Fields Too Large";
        };
        String head = "HTTP/1.1 " + code + " " + reason + "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: "
                + b.length + "\r\nConnection: close\r\n\r\n";
        OutputStream out = s.getOutputStream();
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        if (!headOnly) {
            out.write(b);
        }
        out.flush();
        s.shutdownOutput();
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
            LOG.debug("HTTP endpoints: close failed", e);
        }
        pool.shutdownNow();
        watchdog.shutdownNow();
    }
}
