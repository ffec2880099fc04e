package io.fairway.k8s;

import io.fairway.core.Scheduler;
import io.fairway.visibility.VisibilityServer;
import java.io.IOException;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * {@code --ui-port}, {@code --ui-bind} and {@code --ui-allowed-host}: serve the visibility API and the web UI over the engine's state, off by
 * default, on a port of their own (not the metrics port: that one is scraped from inside the cluster, this one
 * should be reached only through {@code kubectl port-forward}). Read-only unless {@code --ui-write} (with a token
 * from {@code --ui-token-file} or {@code FAIRWAY_UI_TOKEN}): then the write verbs act on the Kubernetes objects, the
 * source of truth here, never on the engine alone (which the next reconcile would undo).
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

    @Option(names = "--ui-write", description = "enable the API's write verbs (cancel deletes the job's object, priority sets its "
            + "fairway.io/priority label, stop-queue/resume-queue set the ClusterQueue's stopPolicy in the configuration ConfigMap); "
            + "each needs the token and is audited; the RBAC is deploy/ui-writes-rbac.yaml")
    boolean write;

    @Option(names = "--ui-token-file", paramLabel = "FILE", description = "the write token (at least 16 characters; default: $FAIRWAY_UI_TOKEN)")
    java.nio.file.Path tokenFile;

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
        return start(scheduler, mode, null);
    }

    /**
     * @param scheduler the engine now (null while there is none)
     * @param mode {@code controller} or {@code manager}
     * @param writes where {@code --ui-write}'s verbs act (null: no writes whatever the options say)
     * @return the server, or null when {@code --ui-port} is 0
     * @throws IOException when the port cannot be bound or the token file read
     */
    public VisibilityServer start(Supplier<Scheduler> scheduler, String mode, io.fairway.visibility.OperatorWrites writes) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--ui-port must be 0..65535, was " + port);
        }
        if (port == 0) {
            return null;
        }
        VisibilityServer.Builder b = VisibilityServer.builder(scheduler).bind(bind).port(port).mode(mode).allowedHosts(allowedHosts);
        if (write) {
            if (writes == null) {
                throw new IllegalArgumentException("--ui-write: this command serves the API read-only");
            }
            String token = tokenFile != null ? java.nio.file.Files.readString(tokenFile, java.nio.charset.StandardCharsets.UTF_8).strip()
                    : System.getenv("FAIRWAY_UI_TOKEN");
            if (token == null || token.length() < 16) {
                throw new IllegalArgumentException("--ui-write needs a token of at least 16 characters in --ui-token-file or FAIRWAY_UI_TOKEN");
            }
            b.writes(token, s -> writes);
        }
        return b.build();
    }
}
