package io.fairway.visibility;

import io.fairway.core.Scheduler;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import org.slf4j.LoggerFactory;

/**
 * Serves the visibility API ({@code /api/v1/...}, schema in {@code docs/reference/visibility-api.md}) and the web
 * UI's assets for one {@link Scheduler}, on a {@link HardenedHttpServer} (a deadline for each exchange, idle timeouts,
 * connection caps in all and per client address, a {@code Host} allow-list, an {@code Origin} check on every write;
 * bounded request heads, bodies and query values; a bounded number of streams, per client address too, each with a
 * maximum duration). Read-only unless {@link Builder#writes(String) writes} are enabled with a token.
 *
 * <pre>{@code
 * try (VisibilityServer api = VisibilityServer.builder(scheduler).port(8080).build()) {
 *     log.info("UI at {}", api.url());
 *     ...
 * }
 * }</pre>
 *
 * <p>Build it before the scheduler's first submission to have complete job histories and events: it listens to
 * the scheduler from the moment it is built.
 */
public final class VisibilityServer implements AutoCloseable {
    private final SchedulerSource source;
    private final EventRing events;
    private final HardenedHttpServer http;
    private final ApiHandler handler;
    private final String host;
    private final History history;
    private final java.util.concurrent.ScheduledExecutorService sampler;

    private VisibilityServer(Builder b) throws IOException {
        this.events = new EventRing(b.eventCapacity);
        this.history = new History(b.historyPoints, b.historySpacing.toMillis());
        events.subscribe(history::count);
        this.source = new SchedulerSource(b.scheduler, events);
        source.attach();
        ApiRouter router = new ApiRouter(source, b.mode, events, new Writes(events, b.token, b.writeTarget), b.simulation,
                b.maxStreamDuration.toMillis(), b.keepAlive.toMillis(), history);
        this.handler = new ApiHandler(router, b.maxStreams, b.requestTimeout());
        try {
            this.http = HardenedHttpServer.builder("fairway-api", handler, ApiHandler::errorPage)
                    .bind(b.address()).port(b.port()).threads(b.threads())
                    .requestTimeout(b.requestTimeout()).idleTimeout(b.requestTimeout())
                    .maxConnections(b.maxConnections).maxConnectionsPerAddress(b.maxConnectionsPerAddress)
                    .allowedHosts(b.allowedHosts)
                    .build();
        } catch (IOException | RuntimeException e) {
            source.detach();
            throw e;
        }
        handler.server(http);
        String h = b.address().getHostAddress();
        this.host = h.contains(":") ? "[" + h + "]" : h;
        if (b.simulation == null) {
            // A live scheduler's clock is the wall clock: look once a second whether a history point is due.
            this.sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fairway-api-history");
                t.setDaemon(true);
                return t;
            });
            sampler.scheduleWithFixedDelay(this::sampleNow, 0, 1, java.util.concurrent.TimeUnit.SECONDS);
        } else {
            this.sampler = null; // the simulation calls recordHistory at each simulated instant
        }
    }

    private void sampleNow() {
        try {
            Scheduler s = source.attach();
            if (s != null) {
                history.record(s.snapshot());
            }
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(VisibilityServer.class).warn("visibility API: history point failed", e);
        }
    }

    /**
     * Records a point of the history ({@code GET /api/v1/history}) when one is due at this time of the scheduler's
     * clock; cheap when none is. A simulation calls it before each simulated instant; under a live scheduler the
     * server does it by itself once a second.
     *
     * @param clockMillis the scheduler's clock now
     */
    public void recordHistory(long clockMillis) {
        if (history.due(clockMillis)) {
            sampleNow();
        }
    }

    /**
     * @param scheduler the scheduler to show
     * @return a builder (loopback, port 8080, read-only)
     */
    public static Builder builder(Scheduler scheduler) {
        if (scheduler == null) {
            throw new IllegalArgumentException("scheduler must not be null");
        }
        return new Builder(() -> scheduler);
    }

    /**
     * For an adapter whose engine comes and goes (the Kubernetes controller rebuilds it on configuration changes
     * and has none while it stands by): each request reads the scheduler the supplier gives then, and answers 503
     * while it gives null. Events and job histories start over with each new scheduler.
     *
     * @param scheduler gives the scheduler now, or null
     * @return a builder (loopback, port 8080, read-only)
     */
    public static Builder builder(java.util.function.Supplier<Scheduler> scheduler) {
        if (scheduler == null) {
            throw new IllegalArgumentException("scheduler must not be null");
        }
        return new Builder(scheduler);
    }

    /** @return the port bound (useful with port 0) */
    public int port() {
        return http.port();
    }

    /** @return the base URL, e.g. {@code http://127.0.0.1:8080/} */
    public String url() {
        return "http://" + host + ":" + port() + "/";
    }

    /** @return connections closed at once because their client address already had its share */
    public int refusedConnections() {
        return http.refusedConnections();
    }

    /** @return job-set streams open now */
    public int openStreams() {
        return handler.openStreams();
    }

    /** Stops serving and stops listening to the scheduler. */
    @Override
    public void close() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
        http.close();
        source.detach();
    }

    /**
     * Builds a {@link VisibilityServer}; every setter checks its argument. Threads: at most 256; the request deadline
     * is any positive duration, and is also the idle timeout of each read or write.
     */
    public static final class Builder extends GuardedServerBuilder<Builder> {
        private final java.util.function.Supplier<Scheduler> scheduler;
        private String mode = "embedded";
        private String token;
        private java.util.function.Function<Scheduler, OperatorWrites> writeTarget;
        private SimulationControl simulation;
        private int maxStreams = 16;
        private Duration maxStreamDuration = Duration.ofHours(1);
        private Duration keepAlive = Duration.ofSeconds(1);
        private int eventCapacity = 10_000;
        private int historyPoints = 720;
        private Duration historySpacing = Duration.ofSeconds(10);

        private Builder(java.util.function.Supplier<Scheduler> scheduler) {
            super(InetAddress.getLoopbackAddress(), 8080, 256, Duration.ofNanos(1));
            this.scheduler = scheduler;
        }

        /**
         * @param host a host name or address to bind
         * @return this
         * @throws IllegalArgumentException when it does not resolve
         */
        public Builder bind(String host) {
            try {
                return bind(InetAddress.getByName(require("bind", host)));
            } catch (IOException e) {
                throw new IllegalArgumentException("bind: cannot resolve '" + host + "'", e);
            }
        }

        /** @param mode what is served: {@code simulation}, {@code controller}, {@code manager} or {@code embedded} @return this */
        public Builder mode(String mode) {
            check(mode != null && mode.matches("[a-z-]{1,32}"), "mode", mode, "a lower-case word");
            this.mode = mode;
            return this;
        }

        /**
         * Enables the write verbs for requests carrying {@code Authorization: Bearer TOKEN}.
         *
         * @param token the token (at least 16 characters)
         * @return this
         */
        public Builder writes(String token) {
            check(token != null && token.strip().length() >= 16, "token", token == null ? null : "(" + token.length() + " characters)",
                    "at least 16 characters");
            this.token = token.strip();
            return this;
        }

        /**
         * Enables the write verbs for requests carrying {@code Authorization: Bearer TOKEN}, acting through
         * {@code target} (given the scheduler the request reads) instead of on the scheduler itself: for an adapter
         * whose source of truth is elsewhere. The token check and the audit are the server's, as with
         * {@link #writes(String)}.
         *
         * @param token the token (at least 16 characters)
         * @param target where each write acts
         * @return this
         */
        public Builder writes(String token, java.util.function.Function<Scheduler, OperatorWrites> target) {
            writes(token);
            this.writeTarget = require("target", target);
            return this;
        }

        /** @param control the time control of a simulated run (enables {@code /api/v1/simulation}) @return this */
        public Builder simulation(SimulationControl control) {
            this.simulation = require("simulation", control);
            this.mode = "simulation";
            return this;
        }

        /** @param streams job-set streams open at once, 1..1024 @return this */
        public Builder maxStreams(int streams) {
            check(streams >= 1 && streams <= 1024, "maxStreams", streams, "1..1024");
            this.maxStreams = streams;
            return this;
        }

        /** @param duration the longest a stream stays open @return this */
        public Builder maxStreamDuration(Duration duration) {
            check(duration != null && !duration.isNegative() && !duration.isZero(), "maxStreamDuration", duration, "positive");
            this.maxStreamDuration = duration;
            return this;
        }

        /**
         * @param interval how long a stream stays silent before a keep-alive comment (default 1 s: a client that
         *     left is seen at the second write after it left, so its slot is free within two intervals)
         * @return this
         */
        public Builder keepAlive(Duration interval) {
            check(interval != null && !interval.isNegative() && !interval.isZero(), "keepAlive", interval, "positive");
            this.keepAlive = interval;
            return this;
        }

        /** @param capacity recent events kept, 1..1,000,000 @return this */
        public Builder eventCapacity(int capacity) {
            check(capacity >= 1 && capacity <= 1_000_000, "eventCapacity", capacity, "1..1000000");
            this.eventCapacity = capacity;
            return this;
        }

        /**
         * The history's bounds ({@code GET /api/v1/history}): at most {@code points} points, taken at least
         * {@code spacing} apart on the scheduler's clock; when full, every other point is dropped and the spacing
         * doubles, so the history always reaches back to the start.
         *
         * @param points 4..100,000 (default 720)
         * @param spacing at least 1 ms (default 10 s: 2 hours at full resolution)
         * @return this
         */
        public Builder history(int points, Duration spacing) {
            check(points >= 4 && points <= 100_000, "historyPoints", points, "4..100000");
            check(spacing != null && spacing.toMillis() >= 1, "historySpacing", spacing, "at least 1 ms");
            this.historyPoints = points;
            this.historySpacing = spacing;
            return this;
        }

        /**
         * Binds the port, starts serving and starts listening to the scheduler.
         *
         * @return the server
         * @throws IOException when the port cannot be bound
         */
        public VisibilityServer build() throws IOException {
            return new VisibilityServer(this);
        }

        private static <T> T require(String field, T value) {
            check(value != null, field, null, "set");
            return value;
        }

        private static void check(boolean ok, String field, Object value, String expected) {
            HardenedHttpServer.check(ok, field, value, expected);
        }
    }
}
