package io.fairway.k8s;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Fairway controller for Kubernetes: runs a {@link FairwayAdapter} with leader election and serves Prometheus
 * metrics on {@code /metrics} (and {@code /healthz}, {@code /readyz}).
 *
 * <pre>
 * java -jar fairway-k8s.jar --config-map fairway-system/fairway-queues
 * java -jar fairway-k8s.jar --kubeconfig ~/.kube/config --config queues.yaml --namespace team-a --no-leader-elect
 * </pre>
 */
@Command(name = "fairway-controller", mixinStandardHelpOptions = true, version = "fairway-controller 0.1.0",
        description = "Admits batch/v1 Jobs labelled fairway.io/queue-name under ClusterQueue quota, places them on nodes and GPUs, "
                + "and explains why the others wait.")
public final class FairwayController implements Callable<Integer> {
    @Option(names = "--kubeconfig", description = "kubeconfig file (default: in-cluster service account, then $KUBECONFIG or ~/.kube/config)")
    Path kubeconfig;

    @Option(names = "--context", description = "kubeconfig context (default: the current one)")
    String context;

    @Option(names = "--namespace", description = "manage only the Jobs of this namespace (default: every namespace)")
    String namespace;

    @Option(names = "--config", description = "queue configuration YAML file, re-read when it changes (e.g. a mounted ConfigMap)")
    Path config;

    @Option(names = "--config-map", description = "NAMESPACE/NAME of a ConfigMap holding the queue configuration, watched for changes")
    String configMap;

    @Option(names = "--config-key", defaultValue = AdapterOptions.DEFAULT_CONFIG_KEY, description = "key of the YAML in the ConfigMap (default: ${DEFAULT-VALUE})")
    String configKey;

    @Option(names = "--kueue-queue-label", description = "also queue Jobs labelled kueue.x-k8s.io/queue-name")
    boolean kueueLabel;

    @Option(names = "--kueue-objects", arity = "0..1", fallbackValue = "v1beta2", paramLabel = "VERSION",
            description = "read the queues from Kueue's objects (ResourceFlavor, ClusterQueue, LocalQueue, Cohort, Topology, WorkloadPriorityClass)"
                    + " at this kueue.x-k8s.io version (v1beta2, the default, or v1beta1) and write their status; --config or --config-map then"
                    + " give only the policy, node pools and integrations. Implies --kueue-queue-label")
    String kueueObjects;

    @Option(names = "--allow-kueue-controller", description = "with --kueue-objects or --kueue-queue-label: start even when Kueue's controller or webhooks are found running")
    boolean allowKueue;

    @Option(names = "--kueue-namespace", defaultValue = "kueue-system", description = "where Kueue's controller would run, to detect it (default: ${DEFAULT-VALUE})")
    String kueueNamespace;

    @Option(names = "--exclude-resource-prefix", description = "resources not counted against quota (repeatable), e.g. ephemeral-storage")
    List<String> excluded = new ArrayList<>();

    @Option(names = "--leader-elect", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "act only while holding the Lease (default: ${DEFAULT-VALUE})")
    boolean leaderElect;

    @Option(names = "--lease-namespace", description = "the Lease's namespace (default: $POD_NAMESPACE, else fairway-system)")
    String leaseNamespace;

    @Option(names = "--lease-name", defaultValue = "fairway-controller", description = "the Lease's name (default: ${DEFAULT-VALUE})")
    String leaseName;

    @Option(names = "--identity", description = "this replica's identity in the Lease (default: $POD_NAME, else $HOSTNAME)")
    String identity;

    @Option(names = "--metrics-port", defaultValue = "8080", description = "port for /metrics, /healthz and /readyz; 0 turns it off (default: ${DEFAULT-VALUE})")
    int metricsPort;

    @Option(names = "--resync-seconds", defaultValue = "300", description = "informer resync period (default: ${DEFAULT-VALUE})")
    long resyncSeconds;

    @Option(names = "--node-class", defaultValue = "karpenter.k8s.aws/EC2NodeClass/default",
            description = "GROUP/KIND/NAME of the Karpenter node class the NodeClaims of the configured node pools name (default: ${DEFAULT-VALUE})")
    String nodeClass;

    @picocli.CommandLine.Mixin
    UiOptions ui = new UiOptions();

    @Option(names = "--node-termination-taint", split = ",",
            description = "taint keys that announce a node's termination; its Jobs are drained (default: "
                    + NodeTermination.AWS_NTH_SPOT_TAINT + "," + NodeTermination.KARPENTER_DISRUPTED_TAINT + "," + NodeTermination.GKE_TERMINATION_TAINT
                    + "; an empty value turns taints off)")
    List<String> terminationTaints;

    @Option(names = "--node-termination-condition", split = ",",
            description = "node condition types that announce a node's termination when True (default: none)")
    List<String> terminationConditions;

    @Option(names = "--interval-millis", defaultValue = "1000", description = "reconcile at least this often (default: ${DEFAULT-VALUE})")
    long intervalMillis;

    @Option(names = "--webhook-port", defaultValue = "0",
            description = "serve the admission webhook that gates queued pods over HTTPS on this port; 0 turns it off (default: ${DEFAULT-VALUE})")
    int webhookPort;

    @Option(names = "--webhook-cert-dir", defaultValue = "/etc/fairway/webhook-tls",
            description = "folder with the webhook's tls.crt and tls.key (a mounted kubernetes.io/tls Secret), re-read when they change (default: ${DEFAULT-VALUE})")
    Path webhookCertDir;

    @Option(names = "--webhook-admitter",
            description = "user allowed to ungate queued pods (default: system:serviceaccount:$POD_NAMESPACE:fairway-controller, the controller's service account)")
    String webhookAdmitter;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new FairwayController()).execute(args));
    }

    /** Counted down to stop a running controller (by the shutdown hook, or a test). */
    final CountDownLatch stop = new CountDownLatch(1);
    /** Counted down once the controller runs. */
    final CountDownLatch running = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        AdapterOptions options = options();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "fairway-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        HttpEndpoints http = null;
        io.fairway.k8s.webhook.WebhookServer webhook = null;
        io.fairway.visibility.VisibilityServer api = null;
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig()).build();
             FairwayAdapter adapter = new FairwayAdapter(client, options, registry)) {
            http = metricsPort > 0 ? serve(registry, adapter) : null;
            webhook = webhookPort > 0 ? webhook() : null;
            api = ui.start(adapter::scheduler, "controller", adapter.operatorWrites());
            adapter.start().runInBackground();
            System.out.printf("fairway-controller running: namespace %s, configuration %s, leader election %s%s%n",
                    namespace == null ? "(all)" : namespace,
                    (kueueObjects != null ? "Kueue's objects (" + kueueObjects + ")" + (configMap != null || config != null ? " + " : "") : "")
                            + (configMap != null ? "ConfigMap " + configMap : config != null ? config.toString() : ""),
                    leaderElect ? "on as " + options.identity() : "off", (http == null ? "" : ", metrics on :" + metricsPort)
                    + (api == null ? "" : ", UI and API on " + api.url()));
            running.countDown();
            stop.await();
        } finally {
            if (http != null) {
                http.close();
            }
            if (webhook != null) {
                webhook.close();
            }
            if (api != null) {
                api.close();
            }
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running
            }
        }
        System.out.println("fairway-controller stopped");
        return 0;
    }

    AdapterOptions options() {
        AdapterOptions.Builder b = AdapterOptions.builder()
                .namespace(namespace)
                .kueueQueueLabel(kueueLabel)
                .excludedResourcePrefixes(excluded)
                .resyncPeriod(Duration.ofSeconds(resyncSeconds))
                .reconcileInterval(Duration.ofMillis(intervalMillis));
        try {
            b.nodeTermination(NodeTermination.DEFAULT
                    .withTaintKeys(terminationTaints == null ? NodeTermination.DEFAULT.taintKeys() : terminationTaints.stream().filter(t -> !t.isBlank()).toList())
                    .withConditionTypes(terminationConditions == null ? List.of() : terminationConditions));
        } catch (io.fairway.api.InvalidSpecException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--node-termination-*: " + e.getMessage());
        }
        try {
            b.nodeClassRef(AdapterOptions.NodeClassRef.parse(nodeClass));
        } catch (io.fairway.api.InvalidSpecException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--node-class: " + e.getMessage());
        }
        if (configMap != null) {
            String[] nn = configMap.split("/", 2);
            if (nn.length != 2 || nn[0].isBlank() || nn[1].isBlank()) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--config-map must be NAMESPACE/NAME, was " + configMap);
            }
            b.configMap(nn[0], nn[1], configKey);
        } else if (config != null) {
            if (!Files.isReadable(config)) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--config " + config + " is not a readable file");
            }
            b.configFile(config);
        } else if (kueueObjects == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "give --config FILE, --config-map NAMESPACE/NAME or --kueue-objects");
        }
        b.allowRunningKueue(allowKueue, kueueNamespace);
        if (kueueObjects != null) {
            try {
                b.kueueObjects(kueueObjects, allowKueue, kueueNamespace);
            } catch (io.fairway.api.InvalidSpecException e) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--kueue-objects: " + e.getMessage());
            }
        }
        if (leaderElect) {
            String ns = leaseNamespace != null ? leaseNamespace : env("POD_NAMESPACE", () -> "fairway-system");
            String id = identity != null ? identity : env("POD_NAME", () -> env("HOSTNAME", () -> "fairway-" + ProcessHandle.current().pid()));
            b.leaderElection(ns, leaseName, id);
        }
        return b.build();
    }

    private Config clientConfig() throws IOException {
        if (kubeconfig != null) {
            return Config.fromKubeconfig(context, kubeconfig.toFile());
        }
        return Config.autoConfigure(context);
    }

    private static String env(String name, Supplier<String> otherwise) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? otherwise.get() : v;
    }

    /** Threads serving the HTTP endpoints; a slow client holds one for at most {@link #HTTP_REQUEST_TIMEOUT}. */
    static final int HTTP_THREADS = 4;
    /** The longest a connection to the HTTP endpoints is kept (reading the request and writing the answer). */
    static final Duration HTTP_REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private HttpEndpoints serve(PrometheusMeterRegistry registry, FairwayAdapter adapter) throws IOException {
        return new HttpEndpoints(metricsPort, Map.of(
                "/metrics", registry::scrape,
                "/healthz", () -> "ok\n",
                "/readyz", () -> adapter.isLeader() ? "leader\n" : "standby\n"), HTTP_THREADS, HTTP_REQUEST_TIMEOUT);
    }

    /**
     * @param namespace the controller's namespace
     * @return the user the webhook lets ungate pods by default: the controller's service account (deploy/serviceaccount.yaml)
     */
    static String defaultAdmitter(String namespace) {
        return "system:serviceaccount:" + namespace + ":fairway-controller";
    }

    /** Starts the admission webhook (on every replica: it decides from the review alone). */
    io.fairway.k8s.webhook.WebhookServer webhook() throws IOException {
        String admitter = webhookAdmitter != null ? webhookAdmitter : defaultAdmitter(env("POD_NAMESPACE", () -> "fairway-system"));
        String ns = namespace;
        return io.fairway.k8s.webhook.WebhookServer.builder(new io.fairway.k8s.webhook.PodGateWebhook(n -> ns == null || ns.equals(n), List.of(admitter)),
                webhookCertDir).port(webhookPort).build();
    }

    /** @return the usage text, for tests and docs */
    static String usage() {
        java.io.StringWriter w = new java.io.StringWriter();
        new CommandLine(new FairwayController()).usage(new PrintWriter(w));
        return w.toString();
    }
}
