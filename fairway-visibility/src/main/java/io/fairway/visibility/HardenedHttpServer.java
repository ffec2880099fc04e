package io.fairway.visibility;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fairway's one embedded HTTP server (Jetty 12, core API, no servlets), set up once for untrusted clients and used by
 * the visibility API and web UI and by the Kubernetes controller's probe and metrics port. Each instance has its own
 * connector and thread pool, so a flood on one port never starves another. Around the handler it is given it adds:
 * <ul>
 *   <li>a deadline for each connection's exchange ({@link Builder#requestTimeout}): a request head (and body) not
 *       received, or an answer not written, within it closes the connection, however slowly the bytes trickle in;
 *       long-lived answers leave it with {@link #releaseFromDeadline};</li>
 *   <li>an idle timeout per read or write, a request head of at most {@link #MAX_HEAD_BYTES} (431 beyond);</li>
 *   <li>a cap on open connections, in all and per client address (the connections beyond it are closed at once);</li>
 *   <li>a {@code Host} allow-list: IP literals, {@code localhost} and the names configured; any other name is refused
 *       with 421, so a page that rebinds its own DNS name to this address reads nothing;</li>
 *   <li>an {@code Origin} check on every request other than GET, HEAD and OPTIONS: a browser's cross-origin request
 *       ({@code Origin} not this host, or {@code Sec-Fetch-Site} not same-origin) is refused with 403; requests
 *       without either header (curl, {@code fairway ctl}) are not browsers' and pass;</li>
 *   <li>one request per connection ({@code Connection: close}), no server version.</li>
 * </ul>
 * Jetty reads request heads without holding a thread, so connections that send slowly cost a socket, not a thread.
 */
public final class HardenedHttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HardenedHttpServer.class);
    /** The largest request head (request line and headers); 431 beyond. */
    public static final int MAX_HEAD_BYTES = 8192;
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-f:.]+(%[0-9a-z]+)?]");
    private static final Pattern PORT = Pattern.compile(":\\d{1,5}");

    /** An answer the server writes itself: refusals, and errors found before the handler runs. */
    @FunctionalInterface
    public interface ErrorPages {
        /**
         * @param status the HTTP status
         * @param title a short title ("forbidden")
         * @param message what went wrong, for a person
         * @return the page
         */
        Page render(int status, String title, String message);
    }

    /**
     * A page the server writes.
     *
     * @param contentType its content type
     * @param body its body
     * @param headers extra headers
     */
    public record Page(String contentType, byte[] body, Map<String, String> headers) {
        /** Copies the headers. */
        public Page {
            headers = Map.copyOf(headers);
        }

        /**
         * @param text a plain-text body
         * @return the page
         */
        public static Page text(String text) {
            return new Page("text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8), Map.of());
        }
    }

    private final Server server;
    private final ServerConnector connector;
    private final Scheduler scheduler;
    private final long requestTimeoutMillis;
    private final int maxPerAddress;
    private final Set<String> allowedHosts;
    private final ErrorPages errors;
    private final Map<Connection, Tracked> tracked = new ConcurrentHashMap<>();
    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger timedOut = new AtomicInteger();

    private record Tracked(InetAddress address, Scheduler.Task deadline) {
    }

    private HardenedHttpServer(Builder b) throws java.io.IOException {
        this.requestTimeoutMillis = b.requestTimeout().toMillis();
        this.maxPerAddress = b.maxConnectionsPerAddress;
        this.allowedHosts = b.allowedHosts;
        this.errors = b.errors;
        // one acceptor and one selector thread, plus the threads that run handlers
        QueuedThreadPool pool = new QueuedThreadPool(b.threads() + 2, Math.min(2, b.threads() + 2), 60_000);
        pool.setName(b.name);
        pool.setDaemon(true);
        pool.setReservedThreads(0);
        this.server = new Server(pool);
        this.scheduler = new ScheduledExecutorScheduler(b.name + "-deadline", true);
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(MAX_HEAD_BYTES);
        http.setResponseHeaderSize(MAX_HEAD_BYTES);
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setSendDateHeader(true);
        http.setHttpCompliance(HttpCompliance.RFC9110);
        // the handlers decode each path segment themselves and refuse what they do not know
        http.setUriCompliance(UriCompliance.LEGACY);
        http.setIdleTimeout(b.idleTimeout.toMillis());
        this.connector = new ServerConnector(server, null, scheduler, null, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(b.address().getHostAddress());
        connector.setPort(b.port());
        connector.setIdleTimeout(b.idleTimeout.toMillis());
        connector.setAcceptQueueSize(64);
        connector.setReuseAddress(true);
        connector.addBean(new Tracker());
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(b.maxConnections, connector));
        server.setHandler(new Guard(b.handler));
        server.setErrorHandler(new ErrorHandler());
        server.setStopTimeout(0);
        try {
            server.start();
        } catch (java.io.IOException e) {
            stopQuietly();
            throw e;
        } catch (Exception e) {
            stopQuietly();
            if (e.getCause() instanceof java.io.IOException io) {
                throw io;
            }
            throw new java.io.IOException("cannot start the HTTP server on " + b.address().getHostAddress() + ":" + b.port() + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param name names the server's threads (e.g. {@code fairway-api})
     * @param handler answers the requests that pass the server's checks
     * @param errors renders the server's own refusals and errors
     * @return a builder: loopback, any free port, 4 threads, a 10 s request deadline
     */
    public static Builder builder(String name, Handler handler, ErrorPages errors) {
        if (name == null || !name.matches("[a-z0-9-]{1,32}") || handler == null || errors == null) {
            throw new IllegalArgumentException("a server needs a lower-case name, a handler and error pages, was " + name);
        }
        return new Builder(name, handler, errors);
    }

    /** @return the port bound */
    public int port() {
        return connector.getLocalPort();
    }

    /** @return connections closed at once because their address already had its share */
    public int refusedConnections() {
        return refused.get();
    }

    /** @return connections closed because their exchange overran the request deadline */
    public int timedOutConnections() {
        return timedOut.get();
    }

    /**
     * Lets the connection carrying this request outlive the request deadline (a stream with its own bounds).
     *
     * @param request a request being handled
     */
    public void releaseFromDeadline(Request request) {
        Tracked t = tracked.get(request.getConnectionMetaData().getConnection());
        if (t != null) {
            t.deadline().cancel();
        }
    }

    /**
     * Closes the connection carrying this request after {@code delay} unless {@code task} is cancelled first: a
     * write deadline for a stream.
     *
     * @param request a request being handled
     * @param delay how long
     * @return the task
     */
    public Scheduler.Task closeAfter(Request request, Duration delay) {
        Connection c = request.getConnectionMetaData().getConnection();
        return scheduler.schedule(() -> c.getEndPoint().close(), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @return the remote address of the request (for audits and per-address counts) */
    static InetAddress remote(Request request) {
        SocketAddress a = request.getConnectionMetaData().getRemoteSocketAddress();
        return a instanceof InetSocketAddress i ? i.getAddress() : null;
    }

    /** Counts connections per address, closes those beyond the cap, and closes each at its deadline. */
    private final class Tracker implements Connection.Listener {
        @Override
        public void onOpened(Connection c) {
            SocketAddress remote = c.getEndPoint().getRemoteSocketAddress();
            InetAddress address = remote instanceof InetSocketAddress i ? i.getAddress() : null;
            if (address != null) {
                int n = perAddress.merge(address, 1, Integer::sum);
                if (n > maxPerAddress) {
                    perAddress.computeIfPresent(address, (k, v) -> v <= 1 ? null : v - 1);
                    refused.incrementAndGet();
                    c.getEndPoint().close();
                    return;
                }
            }
            Scheduler.Task deadline = scheduler.schedule(() -> {
                if (tracked.containsKey(c)) {
                    timedOut.incrementAndGet();
                    c.getEndPoint().close();
                }
            }, requestTimeoutMillis, TimeUnit.MILLISECONDS);
            tracked.put(c, new Tracked(address, deadline));
        }

        @Override
        public void onClosed(Connection c) {
            Tracked t = tracked.remove(c);
            if (t != null) {
                t.deadline().cancel();
                if (t.address() != null) {
                    perAddress.computeIfPresent(t.address(), (k, v) -> v <= 1 ? null : v - 1);
                }
            }
        }
    }

    /** The checks every request passes before the handler: Host, Origin; and one request per connection. */
    private final class Guard extends Handler.Wrapper {
        Guard(Handler handler) {
            super(handler);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            String host = request.getHeaders().get(HttpHeader.HOST);
            if (!hostAllowed(host, allowedHosts)) {
                refuse(response, callback, 421, "misdirected request", "this server does not answer for the host name '"
                        + VisibilityJson.clip(host) + "'; use its address, localhost, or a name it was told to allow");
                return true;
            }
            String method = request.getMethod();
            if (!method.equals("GET") && !method.equals("HEAD") && !method.equals("OPTIONS")) {
                String why = crossOrigin(host, request.getHeaders().get(HttpHeader.ORIGIN), request.getHeaders().get("Sec-Fetch-Site"));
                if (why != null) {
                    refuse(response, callback, 403, "cross-origin request", why);
                    return true;
                }
            }
            return super.handle(request, response, callback);
        }
    }

    private void refuse(Response response, Callback callback, int status, String title, String message) {
        write(response, callback, status, errors.render(status, title, message));
    }

    static void write(Response response, Callback callback, int status, Page page) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, page.contentType());
        page.headers().forEach((k, v) -> response.getHeaders().put(k, v));
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        response.write(true, ByteBuffer.wrap(page.body()), callback);
    }

    /** Renders the errors Jetty finds itself (a head too large, a malformed request) with the server's pages. */
    private final class ErrorHandler implements Request.Handler {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            Object s = request.getAttribute(org.eclipse.jetty.server.handler.ErrorHandler.ERROR_STATUS);
            int status = s instanceof Integer i ? i : response.getStatus() >= 400 ? response.getStatus() : 500;
            Object m = request.getAttribute(org.eclipse.jetty.server.handler.ErrorHandler.ERROR_MESSAGE);
            String reason = org.eclipse.jetty.http.HttpStatus.getMessage(status);
            String message = m instanceof String str && !str.isBlank() ? str : reason;
            write(response, callback, status, errors.render(status, reason.toLowerCase(Locale.ROOT), message));
            return true;
        }
    }

    /**
     * @param host the {@code Host} header, or null
     * @param allowed names allowed besides IP literals and localhost, in lower case
     * @return true when the name is one this server answers for
     */
    static boolean hostAllowed(String host, Set<String> allowed) {
        if (host == null) {
            return true; // HTTP/1.0 without Host: no browser sends that, so no page can rebind it
        }
        String h = host.trim().toLowerCase(Locale.ROOT);
        String name;
        String port;
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            if (end < 0) {
                return false;
            }
            name = h.substring(0, end + 1);
            port = h.substring(end + 1);
            if (!IPV6.matcher(name).matches()) {
                return false;
            }
        } else {
            int c = h.indexOf(':');
            name = c >= 0 ? h.substring(0, c) : h;
            port = c >= 0 ? h.substring(c) : "";
            if (!IPV4.matcher(name).matches() && !name.equals("localhost") && !allowed.contains(name)) {
                return false;
            }
        }
        return port.isEmpty() || PORT.matcher(port).matches();
    }

    /** @return why a state-changing request comes from another origin, or null when it does not */
    static String crossOrigin(String host, String origin, String fetchSite) {
        if (fetchSite != null && !fetchSite.equalsIgnoreCase("same-origin") && !fetchSite.equalsIgnoreCase("none")) {
            return "a " + VisibilityJson.clip(fetchSite) + " request may not change anything here (Sec-Fetch-Site)";
        }
        if (origin == null) {
            return null;
        }
        String o = origin.trim().toLowerCase(Locale.ROOT);
        String h = host == null ? "" : host.trim().toLowerCase(Locale.ROOT);
        if (!h.isEmpty() && (o.equals("http://" + h) || o.equals("https://" + h))) {
            return null;
        }
        return "a request from the origin '" + VisibilityJson.clip(origin) + "' may not change anything here; only pages of this server may";
    }

    private void stopQuietly() {
        try {
            server.stop();
        } catch (Exception e) {
            LOG.debug("HTTP server: stop failed", e);
        }
    }

    /** Stops listening and closes every connection, streams included. */
    @Override
    public void close() {
        stopQuietly();
    }

    /**
     * Builds a {@link HardenedHttpServer}; every setter checks its argument. Threads: at most 256; the request
     * deadline counts whole milliseconds (at least 1 ms), as does the idle timeout.
     */
    public static final class Builder extends GuardedServerBuilder<Builder> {
        private final String name;
        private final Handler handler;
        private final ErrorPages errors;
        private Duration idleTimeout = Duration.ofSeconds(10);

        private Builder(String name, Handler handler, ErrorPages errors) {
            super(InetAddress.getLoopbackAddress(), 0, 256, Duration.ofMillis(1));
            this.name = name;
            this.handler = handler;
            this.errors = errors;
        }

        /** @param timeout the longest a read or a write may wait for the client @return this */
        public Builder idleTimeout(Duration timeout) {
            check(timeout != null && timeout.toMillis() > 0, "idleTimeout", timeout, "positive");
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * Binds the port and starts serving.
         *
         * @return the server
         * @throws java.io.IOException when the port cannot be bound
         */
        public HardenedHttpServer build() throws java.io.IOException {
            return new HardenedHttpServer(this);
        }
    }

    /** Refuses a setting with a message naming the field, what it must be and what it was. */
    static void check(boolean ok, String field, Object value, String expected) {
        if (!ok) {
            throw new IllegalArgumentException(field + " must be " + expected + ", was " + value);
        }
    }

    /** @return {@code max}, checked to be a connection limit (1..65536) */
    static int connectionLimit(String field, int max) {
        check(max >= 1 && max <= 65536, field, max, "1..65536");
        return max;
    }

    /** @return the host names, checked (letters, digits, dots and dashes) and lower-cased */
    static Set<String> hostNames(Collection<String> hosts) {
        check(hosts != null && hosts.stream().allMatch(h -> h != null && h.matches("[A-Za-z0-9.-]{1,253}")), "allowedHosts", hosts,
                "host names (letters, digits, dots and dashes)");
        return hosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }
}
