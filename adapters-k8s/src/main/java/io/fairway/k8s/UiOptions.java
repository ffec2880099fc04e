package io.fairway.k8s;

import io.fairway.core.Scheduler;
import io.fairway.visibility.VisibilityServer;
import java.io.IOException;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * {@code --ui-port}, {@code --ui-bind} and {@code --ui-allowed-host}: serve the visibility API and the web UI over the engine's state, off by
 * default, on a port of their own (not the metrics port: that one is scraped from inside the cluster, this one
 * should be reached only through {@code kubectl port-forward}). Read-only: the source of truth here is the
 * Kubernetes objects, so a job is cancelled or re-prioritised with kubectl, not through the engine.
 */
public final class UiOptions {
    @Option(names = "--ui-port", defaultValue = "0",
            description = "serve the visibility API (/api/v1) and the web UI on this port; 0 turns it off (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--ui-bind", defaultValue = "127.0.0.1",
            description = "address the UI port binds (default: ${DEFAULT-VALUE}; kubectl port-forward reaches it)")
    String bind;

    @Option(names = "--ui-allowed-host", split = ",",
            description = "a host name the UI port answers for besides IP addresses and localhost (repeatable; "
                    + "any other name in a request's Host header is refused, against DNS rebinding)")
    java.util.List<String> allowedHosts = new java.util.ArrayList<>();

    /**
     * For command lines not parsed by picocli (the multi-cluster manager's).
     *
     * @param port the UI port (0: off)
     * @param bind the address to bind
     * @return these options
     */
    public static UiOptions of(int port, String bind) {
        UiOptions o = new UiOptions();
        o.port = port;
        o.bind = bind;
        return o;
    }

    /**
     * @param scheduler the engine now (null while there is none)
     * @param mode {@code controller} or {@code manager}
     * @return the server, or null when {@code --ui-port} is 0
     * @throws IOException when the port cannot be bound
     */
    public VisibilityServer start(Supplier<Scheduler> scheduler, String mode) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--ui-port must be 0..65535, was " + port);
        }
        return port == 0 ? null : VisibilityServer.builder(scheduler).bind(bind).port(port).mode(mode).allowedHosts(allowedHosts).build();
    }
}
