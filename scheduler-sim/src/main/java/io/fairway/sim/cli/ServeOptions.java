package io.fairway.sim.cli;

import io.fairway.sim.PolicySpec;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.serve.ServedSimulation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code fairway simulate ... --serve PORT}: the options that serve a run over the visibility API and the web UI. */
final class ServeOptions {
    @Option(names = "--serve", paramLabel = "PORT",
            description = "Serve the run's visibility API and web UI on PORT (0: any free port) until Ctrl-C, instead of printing tables.")
    Integer port;

    @Option(names = "--pace", paramLabel = "SPEED",
            description = "With --serve: replay the run at SPEED simulated seconds per wall second, with a time control "
                    + "(default: a replay held at its start, stepped or resumed from the UI).")
    Double pace;

    @Option(names = "--pause-at", paramLabel = "SECONDS",
            description = "With --serve: hold the replay at the first instant after SECONDS of simulated time (resume it from the UI or API).")
    Double pauseAt;

    @Option(names = "--final", description = "With --serve: run to the end first and show the final state only (no time control).")
    boolean finalState;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "With --serve: the address to bind (default 127.0.0.1, loopback only).")
    String bind = "127.0.0.1";

    @Option(names = "--ui-allowed-host", split = ",", paramLabel = "NAME", description = "With --serve: a host name the page and API "
            + "answer for besides IP addresses and localhost (repeatable; any other name in a request's Host header is refused, "
            + "against DNS rebinding).")
    List<String> allowedHosts = new java.util.ArrayList<>();

    @Option(names = "--ui-write", description = "With --serve: enable the write verbs (cancel, priority, stop-queue) for requests "
            + "with the token of --ui-token-file or $FAIRWAY_UI_TOKEN.")
    boolean write;

    @Option(names = "--ui-token-file", paramLabel = "FILE", description = "With --ui-write: a file holding the bearer token (16+ characters).")
    Path tokenFile;

    boolean serving() {
        return port != null;
    }

    /** Refuses serve-only options without --serve. */
    void check() {
        if (port == null && (pace != null || pauseAt != null || finalState || write || tokenFile != null || !allowedHosts.isEmpty())) {
            throw new FairwayCommand.UserException("--pace, --pause-at, --final, --ui-allowed-host, --ui-write and --ui-token-file need --serve PORT");
        }
        if (finalState && (pace != null || pauseAt != null)) {
            throw new FairwayCommand.UserException("--final shows the run's end only: it cannot be combined with --pace or --pause-at");
        }
    }

    /** @return the write token (null: read-only) */
    static String token(boolean write, Path tokenFile) {
        if (!write) {
            if (tokenFile != null) {
                throw new FairwayCommand.UserException("--ui-token-file needs --ui-write");
            }
            return null;
        }
        String t;
        if (tokenFile != null) {
            try {
                t = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new FairwayCommand.UserException("--ui-token-file: cannot read " + tokenFile + ": " + e.getMessage());
            }
        } else {
            t = System.getenv("FAIRWAY_UI_TOKEN");
        }
        if (t == null || t.strip().length() < 16) {
            throw new FairwayCommand.UserException("--ui-write needs a token of at least 16 characters in --ui-token-file or $FAIRWAY_UI_TOKEN");
        }
        return t.strip();
    }

    /** Serves one policy's run until the thread is interrupted (Ctrl-C ends the process). */
    void serve(PrintWriter out, SimulationInput input, List<String> policies, SimulationOptions options) {
        if (policies.size() != 1) {
            throw new FairwayCommand.UserException("--serve shows one run; give one --policy (requested: " + String.join(", ", policies) + ")");
        }
        if (SimulateCommand.multiCluster(input)) {
            throw new FairwayCommand.UserException("--serve is not available for a multi-cluster run (" + input.cluster().clusters().size()
                    + " clusters)");
        }
        if (pace != null && !(pace > 0 && pace <= 1_000_000)) {
            throw new FairwayCommand.UserException("--pace must be in (0, 1000000] simulated seconds per second, was " + pace);
        }
        if (pauseAt != null && !(pauseAt >= 0)) {
            throw new FairwayCommand.UserException("--pause-at must be >= 0 seconds, was " + pauseAt);
        }
        if (port < 0 || port > 65535) {
            throw new FairwayCommand.UserException("--serve must be a port in 0..65535, was " + port);
        }
        PolicySpec ps = PolicySpec.parse(policies.get(0));
        // Without --pace, --pause-at or --final, the run is held at its start: a person steps through it and sees jobs
        // wait, be admitted and preempted, rather than a final state in which nothing is pending any more.
        double holdAt = pauseAt != null ? pauseAt : pace == null && !finalState ? 0 : -1;
        ServedSimulation.Settings settings;
        try {
            settings = new ServedSimulation.Settings(bind, port, pace == null ? 0 : pace, holdAt, token(write, tokenFile), allowedHosts);
        } catch (IllegalArgumentException e) {
            throw new FairwayCommand.UserException(e.getMessage());
        }
        try (ServedSimulation s = ServedSimulation.start(input, ps.name(), ps.parameters().isEmpty() ? options : ps.applyTo(options), settings)) {
            out.println("Serving " + input.name() + " under " + policies.get(0) + (settings.replay() ? " (replay" + (pace == null ? ""
                    : " at " + pace + " simulated s per s") + (holdAt < 0 ? "" : ", held at " + holdAt + " s: step or resume it from the page") + ")" : " (final state)")
                    + (settings.writeToken() != null ? ", writes enabled" : ", read-only"));
            out.println("Open " + s.url() + "  (API: " + s.url() + "api/v1)  Ctrl-C to stop");
            out.flush();
            new java.util.concurrent.CountDownLatch(1).await();
        } catch (IOException e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof java.net.BindException) {
                    throw new FairwayCommand.UserException("--serve " + port + ": port " + port + " on " + bind
                            + " is already in use (or not allowed); pick another, or --serve 0 for any free port");
                }
            }
            throw new UncheckedIOException("--serve " + port + ": cannot bind " + bind + ":" + port + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
