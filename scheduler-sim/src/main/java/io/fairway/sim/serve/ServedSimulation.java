package io.fairway.sim.serve;

import io.fairway.core.Scheduler;
import io.fairway.sim.PolicySpec;
import io.fairway.sim.ProgressListener;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import io.fairway.visibility.VisibilityServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated run served over the visibility API and the web UI ({@code fairway simulate ... --serve PORT}): either
 * its final state, or a paced replay ({@link Settings#pace}) that can be paused, sped up and stepped through
 * {@code /api/v1/simulation}. The run goes on a thread of its own; the server keeps serving after it ends until
 * {@link #close}.
 *
 * <pre>{@code
 * try (ServedSimulation s = ServedSimulation.scenario(Path.of("examples/scenarios/borrow-and-reclaim.yaml"), 0, 150)) {
 *     String url = s.url();   // the run is held at t = 150 s: a2 pending, a1 and b1 running
 * }
 * }</pre>
 */
public final class ServedSimulation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServedSimulation.class);

    /**
     * How to serve.
     *
     * @param bind the address to bind (a loopback address unless you mean to expose it)
     * @param port the port (0: any free port)
     * @param pace simulated seconds per wall second for a paced replay, or 0 to show the final state
     * @param pauseAtSeconds hold the replay at the first instant after this simulated time (-1: never); implies a replay
     * @param writeToken enables the write verbs with this bearer token, or null (read-only)
     * @param allowedHosts host names answered besides IP addresses and localhost (see {@link VisibilityServer.Builder#allowedHosts})
     */
    public record Settings(String bind, int port, double pace, double pauseAtSeconds, String writeToken, java.util.List<String> allowedHosts) {
        /**
         * Settings that answer IP addresses and localhost only.
         *
         * @param bind the address to bind
         * @param port the port (0: any free port)
         * @param pace simulated seconds per wall second, or 0 to show the final state
         * @param pauseAtSeconds hold the replay at the first instant after this simulated time (-1: never)
         * @param writeToken enables the write verbs with this bearer token, or null (read-only)
         */
        public Settings(String bind, int port, double pace, double pauseAtSeconds, String writeToken) {
            this(bind, port, pace, pauseAtSeconds, writeToken, java.util.List.of());
        }

        /** Checks the settings. */
        public Settings {
            allowedHosts = allowedHosts == null ? java.util.List.of() : java.util.List.copyOf(allowedHosts);
            for (String h : allowedHosts) {
                if (h == null || !h.matches("[A-Za-z0-9.-]{1,253}")) {
                    throw new IllegalArgumentException("an allowed host must be a host name (letters, digits, dots and dashes), was '" + h + "'");
                }
            }
            if (bind == null || bind.isBlank()) {
                throw new IllegalArgumentException("bind must be an address, was '" + bind + "'");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            if (!(pace >= 0) || Double.isInfinite(pace)) {
                throw new IllegalArgumentException("pace must be >= 0 simulated seconds per second, was " + pace);
            }
            if (!(pauseAtSeconds >= 0 || pauseAtSeconds == -1)) {
                throw new IllegalArgumentException("pauseAtSeconds must be >= 0 (or -1 for never), was " + pauseAtSeconds);
            }
        }

        /** @return true when the run is replayed (paced or held), false when only its final state is shown */
        public boolean replay() {
            return pace > 0 || pauseAtSeconds >= 0;
        }
    }

    private final ReplayPacer pacer;
    private final VisibilityServer server;
    private final Thread runner;
    private final AtomicReference<SimulationResult> result = new AtomicReference<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean closing;

    private ServedSimulation(SimulationInput input, String policy, SimulationOptions options, Settings settings) throws IOException {
        double speed = settings.pace() > 0 ? settings.pace() : Double.POSITIVE_INFINITY;
        long pauseAt = settings.pauseAtSeconds() >= 0 ? Math.round(settings.pauseAtSeconds() * 1000) : Long.MAX_VALUE;
        AtomicReference<VisibilityServer> started = new AtomicReference<>();
        AtomicReference<IOException> bindFailure = new AtomicReference<>();
        AtomicReference<ReplayPacer> pacerRef = new AtomicReference<>();
        this.pacer = new ReplayPacer(speed, pauseAt, settings.replay(), System::currentTimeMillis, s -> {
            try {
                VisibilityServer.Builder b = VisibilityServer.builder(s).bind(settings.bind()).port(settings.port()).simulation(pacerRef.get())
                        .allowedHosts(settings.allowedHosts());
                if (settings.writeToken() != null) {
                    b.writes(settings.writeToken());
                }
                started.set(b.build());
            } catch (IOException e) {
                bindFailure.set(e);
            }
        });
        pacerRef.set(pacer);
        this.runner = new Thread(() -> {
            try {
                result.set(Simulator.run(input, policy, options, ProgressListener.NONE, withHistory(pacer, started)));
            } catch (RuntimeException e) {
                if (bindFailure.get() == null && !closing) {
                    failure.set(e);
                    LOG.error("the served simulation failed", e);
                } // else: stopped because its port could not be bound (the caller reports it), or closed
                pacer.finished(0);
            }
        }, "fairway-served-simulation");
        runner.setDaemon(true);
        runner.start();
        try {
            if (settings.pauseAtSeconds() >= 0) {
                pacer.awaitHeldOrFinished();
            } else if (settings.replay()) {
                pacer.awaitStarted();
            } else {
                pacer.awaitFinished();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the served simulation", e);
        }
        if (bindFailure.get() != null) {
            runner.interrupt();
            throw bindFailure.get();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        this.server = started.get();
    }

    /** The pacer's hooks, and a history point for the API before each simulated instant and at the end. */
    private static io.fairway.sim.SimulationHooks withHistory(ReplayPacer pacer, AtomicReference<VisibilityServer> server) {
        return new io.fairway.sim.SimulationHooks() {
            private Scheduler scheduler;

            @Override
            public void started(Scheduler s) {
                scheduler = s; // the server (built by the pacer) reads it; kept to know the run has started
                pacer.started(s);
            }

            @Override
            public void beforeTime(long simulatedMillis) {
                record(simulatedMillis);
                pacer.beforeTime(simulatedMillis);
            }

            @Override
            public void finished(long endMillis) {
                record(endMillis);
                pacer.finished(endMillis);
            }

            /** The state the last instant left (a snapshot only when a point is due by this time). */
            private void record(long clockMillis) {
                VisibilityServer v = server.get();
                if (v != null && scheduler != null) {
                    v.recordHistory(clockMillis);
                }
            }
        };
    }

    /**
     * Starts a run and serves it; returns once the server is up and the run is over (final state), held at its pause
     * time, or (a replay without one) started.
     *
     * @param input the cluster, queues and jobs (one cluster)
     * @param policy a policy name
     * @param options seed, round interval
     * @param settings how to serve
     * @return the served run
     * @throws IOException when the port cannot be bound
     */
    public static ServedSimulation start(SimulationInput input, String policy, SimulationOptions options, Settings settings) throws IOException {
        return new ServedSimulation(input, policy, options, settings);
    }

    /**
     * Serves a scenario file under its first policy on the loopback address, held at a simulated time: the entry
     * point for browser tests.
     *
     * @param scenario a scenario YAML
     * @param port the port (0: any free port)
     * @param pauseAtSeconds hold the run at the first instant after this simulated time (-1: show the final state)
     * @return the served run
     * @throws IOException when the port cannot be bound
     */
    public static ServedSimulation scenario(Path scenario, int port, double pauseAtSeconds) throws IOException {
        Scenario s = ScenarioConfig.load(scenario);
        SimulationOptions o = SimulationOptions.DEFAULTS.withSeed(s.seed() == null ? 1 : s.seed()).withActuatorFaults(s.actuatorFaults());
        if (s.roundIntervalSeconds() > 0) {
            o = o.withRoundIntervalSeconds(s.roundIntervalSeconds());
        }
        PolicySpec policy = PolicySpec.parse(s.policies().isEmpty() ? "best-effort-fifo" : s.policies().get(0));
        return start(s.input(), policy.name(), policy.parameters().isEmpty() ? o : policy.applyTo(o),
                new Settings("127.0.0.1", port, 0, pauseAtSeconds, null));
    }

    /** @return the base URL of the UI and the API, e.g. {@code http://127.0.0.1:8080/} */
    public String url() {
        return server.url();
    }

    /** @return the port bound */
    public int port() {
        return server.port();
    }

    /** @return the run's scheduler (for tests comparing the API's answers with its own) */
    public Scheduler scheduler() {
        return pacer.scheduler();
    }

    /** @return the time control (what {@code /api/v1/simulation} steers) */
    public io.fairway.visibility.SimulationControl control() {
        return pacer;
    }

    /**
     * Waits for the run to end (resume a held replay first).
     *
     * @return its result
     * @throws InterruptedException when interrupted
     */
    public SimulationResult awaitResult() throws InterruptedException {
        runner.join();
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    /** Stops serving; a replay still held or paced is abandoned. */
    @Override
    public void close() {
        closing = true;
        server.close();
        runner.interrupt();
    }
}
