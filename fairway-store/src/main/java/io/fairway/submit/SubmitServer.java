package io.fairway.submit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.store.JobStore;
import io.fairway.store.StoreException;
import io.fairway.visibility.HardenedHttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The submission API over HTTP, on a {@link HardenedHttpServer} (a deadline per exchange, connection caps, a
 * {@code Host} allow-list, an {@code Origin} check on writes). Every request carries {@code Authorization: Bearer
 * TOKEN}; the {@link Authenticator} names the principal and {@link QueuePermissions} decide per queue.
 *
 * <ul>
 *   <li>{@code POST /api/v1/jobsets} — body: a job set (YAML or JSON, {@link JobSetRequest}); answers
 *       {@code {"queue", "jobSetId", "jobIds": [...]}} once the jobs are durable;</li>
 *   <li>{@code POST /api/v1/jobsets/cancel} — {@code {"queue", "jobSetId", "jobIds"?}} (no ids: the whole set);</li>
 *   <li>{@code POST /api/v1/jobsets/reprioritize} — {@code {"queue", "jobSetId", "jobIds"?, "priority"}};</li>
 *   <li>{@code GET /api/v1/jobsets/QUEUE/JOBSET/events?from=SEQ&wait=SECONDS&limit=N} — the job set's events after
 *       sequence number {@code SEQ}, waiting up to {@code wait} seconds (at most 20) for the first one (long poll);
 *       answers {@code {"events": [...], "next": SEQ}}: ask again with {@code from=next} to resume.</li>
 * </ul>
 * Errors are {@code {"error", "message"}} with 400 (bad input, naming the field), 401 (no or bad token), 403 (not
 * permitted), 404, 413 (body over {@link #MAX_BODY_BYTES}) or 503 (the store failed: nothing was stored).
 *
 * <pre>{@code
 * try (SubmitServer api = SubmitServer.builder(jobSets, JwtAuthenticator.hmac(secret, null, null)).port(8090).build()) { ... }
 * }</pre>
 */
public final class SubmitServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SubmitServer.class);
    /** The largest request body. */
    public static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    /** The longest a watch waits for an event. */
    public static final int MAX_WAIT_SECONDS = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HardenedHttpServer http;
    private final JobSets jobSets;
    private final Authenticator auth;
    private final Semaphore waiters;
    private final String host;

    private SubmitServer(Builder b) throws IOException {
        this.jobSets = b.jobSets;
        this.auth = b.auth;
        this.waiters = new Semaphore(Math.max(1, b.threads / 2)); // waiting watches never hold every thread
        this.http = HardenedHttpServer.builder("fairway-submit", new Api(), SubmitServer::errorPage)
                .bind(b.bind).port(b.port).threads(b.threads)
                .requestTimeout(Duration.ofSeconds(MAX_WAIT_SECONDS + 10)).idleTimeout(Duration.ofSeconds(MAX_WAIT_SECONDS + 5))
                .allowedHosts(b.allowedHosts).build();
        String h = b.bind.getHostAddress();
        this.host = h.contains(":") ? "[" + h + "]" : h;
    }

    /**
     * @param jobSets the job sets it serves
     * @param auth checks bearer tokens
     * @return a builder (loopback, port 8090, 16 threads)
     */
    public static Builder builder(JobSets jobSets, Authenticator auth) {
        if (jobSets == null || auth == null) {
            throw new IllegalArgumentException("a submission API needs job sets and an authenticator");
        }
        return new Builder(jobSets, auth);
    }

    /** @return the port bound */
    public int port() {
        return http.port();
    }

    /** @return the base URL, e.g. {@code http://127.0.0.1:8090/} */
    public String url() {
        return "http://" + host + ":" + port() + "/";
    }

    @Override
    public void close() {
        http.close();
    }

    private static HardenedHttpServer.Page errorPage(int status, String title, String message) {
        return new HardenedHttpServer.Page("application/json; charset=utf-8", error(title, message).getBytes(StandardCharsets.UTF_8),
                Map.of("Cache-Control", "no-store"));
    }

    private static String error(String error, String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", error);
        o.put("message", message);
        return o.toString();
    }

    /** An answer other than 200. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final String error;

        Refused(int status, String error, String message) {
            super(message);
            this.status = status;
            this.error = error;
        }
    }

    private final class Api extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = 200;
            String body;
            try {
                body = route(request);
            } catch (Refused r) {
                status = r.status;
                body = error(r.error, r.getMessage());
            } catch (JobSets.Forbidden f) {
                status = 403;
                body = error("forbidden", f.getMessage());
            } catch (IllegalArgumentException e) {
                status = 400;
                body = error("bad request", e.getMessage());
            } catch (StoreException e) {
                LOG.warn("submission API: {}", e.getMessage());
                status = 503;
                body = error("store unavailable", "nothing was changed: " + e.getMessage());
            } catch (RuntimeException e) {
                LOG.warn("submission API: request failed", e);
                status = 500;
                body = error("internal error", "the request failed; nothing is known to have changed");
            }
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            response.getHeaders().put("X-Content-Type-Options", "nosniff");
            if (status == 401) {
                response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
            }
            response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
    }

    private String route(Request request) {
        String path = request.getHttpURI().getPath();
        String method = request.getMethod();
        if (path == null || !path.startsWith("/api/v1/jobsets")) {
            throw new Refused(404, "not found", "no such resource; the submission API is under /api/v1/jobsets");
        }
        Principal who = principal(request);
        if (path.equals("/api/v1/jobsets")) {
            post(method);
            return submit(request, who);
        }
        if (path.equals("/api/v1/jobsets/cancel") || path.equals("/api/v1/jobsets/reprioritize")) {
            post(method);
            return changeJobs(request, who, path.endsWith("cancel"));
        }
        String[] parts = path.substring("/api/v1/jobsets/".length()).split("/", -1);
        if (parts.length == 3 && parts[2].equals("events")) {
            if (!method.equals("GET")) {
                throw new Refused(405, "method not allowed", "use GET");
            }
            return events(request, who, URLDecoder.decode(parts[0], StandardCharsets.UTF_8), URLDecoder.decode(parts[1], StandardCharsets.UTF_8));
        }
        throw new Refused(404, "not found", "no such resource: " + (path.length() > 100 ? path.substring(0, 100) : path));
    }

    /** POST /api/v1/jobsets: submits a job set; answers its queue, id and the ids of its jobs. */
    private String submit(Request request, Principal who) {
        JobSetRequest req = JobSetRequest.parse(new String(body(request), StandardCharsets.UTF_8));
        List<String> ids = jobSets.submit(who, req);
        ObjectNode o = JSON.createObjectNode();
        o.put("queue", req.queue());
        o.put("jobSetId", req.jobSetId());
        ArrayNode a = o.putArray("jobIds");
        ids.forEach(a::add);
        LOG.info("{} submitted {} jobs to {}/{}", who.name(), ids.size(), req.queue(), req.jobSetId());
        return o.toString();
    }

    /** POST /api/v1/jobsets/cancel or /reprioritize: changes the named jobs of a job set (all when none is named); answers their ids. */
    private String changeJobs(Request request, Principal who, boolean cancel) {
        JsonNode b = json(body(request));
        String queue = field(b, "queue");
        String set = field(b, "jobSetId");
        List<String> ids = new ArrayList<>();
        JsonNode j = b.get("jobIds");
        if (j != null && !j.isNull()) {
            JobSetRequest.check(j.isArray() && j.size() <= JobSetRequest.MAX_JOBS, "jobIds", j, "a list of job ids");
            j.forEach(x -> ids.add(x.asText()));
        }
        List<String> done;
        if (cancel) {
            done = jobSets.cancel(who, queue, set, ids);
        } else {
            JsonNode p = b.get("priority");
            JobSetRequest.check(p != null && p.isIntegralNumber() && p.canConvertToInt(), "priority", p, "an integer");
            done = jobSets.reprioritize(who, queue, set, ids, p.asInt());
        }
        ObjectNode o = JSON.createObjectNode();
        ArrayNode a = o.putArray("jobIds");
        done.forEach(a::add);
        return o.toString();
    }

    /** GET /api/v1/jobsets/QUEUE/SET/events: a page of the job set's events after {@code from}, waiting up to {@code wait} s for one. */
    private String events(Request request, Principal who, String queue, String set) {
        Map<String, String> q = query(request);
        long from = number(q, "from", 0, 0, Long.MAX_VALUE);
        long wait = number(q, "wait", 0, 0, MAX_WAIT_SECONDS);
        int limit = (int) number(q, "limit", 1000, 1, 10_000);
        long seen = jobSets.store().lastSeq(); // read before the query: a commit after it wakes the wait below at once
        List<JobStore.Event> events = jobSets.events(who, queue, set, from, limit);
        if (events.isEmpty() && wait > 0 && waiters.tryAcquire()) {
            try {
                long deadline = System.nanoTime() + wait * 1_000_000_000L;
                while (events.isEmpty()) {
                    long left = (deadline - System.nanoTime()) / 1_000_000;
                    if (left <= 0 || !jobSets.store().awaitAfter(seen, left)) {
                        break;
                    }
                    seen = jobSets.store().lastSeq();
                    events = jobSets.events(who, queue, set, from, limit);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiters.release();
            }
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("queue", queue);
        o.put("jobSetId", set);
        ArrayNode a = o.putArray("events");
        long next = from;
        for (JobStore.Event e : events) {
            ObjectNode x = a.addObject();
            x.put("seq", e.seq());
            if (e.jobId() != null) {
                x.put("jobId", e.jobId());
            }
            x.put("type", e.type());
            x.put("atMillis", e.atMillis());
            x.put("message", e.detail());
            next = e.seq();
        }
        o.put("next", next);
        return o.toString();
    }

    private Principal principal(Request request) {
        String h = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new Refused(401, "unauthorized", "send Authorization: Bearer TOKEN");
        }
        try {
            return auth.authenticate(h.substring(7).strip());
        } catch (Authenticator.AuthException e) {
            throw new Refused(401, "unauthorized", e.getMessage());
        }
    }

    private static void post(String method) {
        if (!method.equals("POST")) {
            throw new Refused(405, "method not allowed", "use POST");
        }
    }

    private static byte[] body(Request request) {
        long declared = request.getLength();
        if (declared > MAX_BODY_BYTES) {
            throw new Refused(413, "payload too large", "the body may be at most " + MAX_BODY_BYTES + " bytes, was " + declared);
        }
        try (InputStream in = Content.Source.asInputStream(request)) {
            byte[] b = in.readNBytes(MAX_BODY_BYTES + 1);
            if (b.length > MAX_BODY_BYTES) {
                throw new Refused(413, "payload too large", "the body may be at most " + MAX_BODY_BYTES + " bytes");
            }
            return b;
        } catch (IOException e) {
            throw new Refused(400, "bad request", "the body could not be read: " + e.getMessage());
        }
    }

    private static JsonNode json(byte[] body) {
        try {
            JsonNode n = JSON.readTree(body);
            JobSetRequest.check(n != null && n.isObject(), "body", "(not an object)", "a JSON object");
            return n;
        } catch (IOException e) {
            throw new IllegalArgumentException("body must be JSON: " + e.getMessage());
        }
    }

    private static String field(JsonNode b, String name) {
        JsonNode v = b.get(name);
        JobSetRequest.check(v != null && v.isTextual() && !v.asText().isBlank() && v.asText().length() <= 128, name, v, "a non-empty string");
        return v.asText();
    }

    private static Map<String, String> query(Request request) {
        Map<String, String> out = new HashMap<>();
        String q = request.getHttpURI().getQuery();
        if (q == null) {
            return out;
        }
        for (String kv : q.split("&", 16)) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                out.putIfAbsent(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static long number(Map<String, String> q, String name, long dflt, long min, long max) {
        String v = q.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(name + " must be an integer in " + min + ".." + max + ", was " + (v.length() > 40 ? v.substring(0, 40) : v));
    }

    /** Builds a {@link SubmitServer}. */
    public static final class Builder {
        private final JobSets jobSets;
        private final Authenticator auth;
        private InetAddress bind = InetAddress.getLoopbackAddress();
        private int port = 8090;
        private int threads = 16;
        private java.util.Set<String> allowedHosts = java.util.Set.of();

        private Builder(JobSets jobSets, Authenticator auth) {
            this.jobSets = jobSets;
            this.auth = auth;
        }

        /** @param address the address to bind (default loopback) @return this */
        public Builder bind(InetAddress address) {
            if (address == null) {
                throw new IllegalArgumentException("bind must be an address");
            }
            this.bind = address;
            return this;
        }

        /** @param port 0..65535 (0: any free port) @return this */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** @param threads requests handled at once, 2..256 (half at most wait in watches) @return this */
        public Builder threads(int threads) {
            if (threads < 2 || threads > 256) {
                throw new IllegalArgumentException("threads must be 2..256, was " + threads);
            }
            this.threads = threads;
            return this;
        }

        /** @param hosts host names answered besides IP literals and localhost @return this */
        public Builder allowedHosts(java.util.Collection<String> hosts) {
            this.allowedHosts = java.util.Set.copyOf(hosts);
            return this;
        }

        /**
         * @return the server, serving
         * @throws IOException when the port cannot be bound
         */
        public SubmitServer build() throws IOException {
            return new SubmitServer(this);
        }
    }
}
