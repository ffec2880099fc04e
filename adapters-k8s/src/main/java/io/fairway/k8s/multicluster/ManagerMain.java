package io.fairway.k8s.multicluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fairway.config.QueuesConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The command line of a multi-cluster manager ({@link MultiClusterManager#main}): options, clients, leader election, the loop. */
final class ManagerMain {
    private ManagerMain() {
    }

    /** The command line's options, with their defaults. */
    private static final class Options {
        Path managerConfig = null;
        Path queues = null;
        String namespace = null;
        String lease = null;
        long grace = 120;
        Map<String, Path> workerConfigs = new TreeMap<>();
        int uiPort = 0;
        String uiBind = "127.0.0.1";
        String storeUrl = null;
        int submitPort = -1;
        String submitBind = "127.0.0.1";
        java.util.List<String> submitHosts = new java.util.ArrayList<>();
        Path authKey = null;
        String authIssuer = null;
        String authAudience = null;
        Path permissionsFile = null;
        String jwksUrl = null;
        String oidcIssuer = null;
        long jwksCacheSeconds = 300;
        boolean tokenReview = false;
        String tokenReviewAudience = null;
        long periodMillis = 1000;
        long leaseMillis = 15_000;
        long renewMillis = 10_000;
        long retryMillis = 2_000;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i += 2) {
                if (args[i].equals("--auth-token-review")) {
                    o.tokenReview = true; // a flag: no value
                    i--;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                switch (args[i]) {
                    case "--manager-kubeconfig" -> o.managerConfig = Path.of(args[i + 1]);
                    case "--config" -> o.queues = Path.of(args[i + 1]);
                    case "--namespace" -> o.namespace = args[i + 1];
                    case "--leader-elect" -> o.lease = args[i + 1];
                    case "--grace-seconds" -> o.grace = Long.parseLong(args[i + 1]);
                    case "--ui-port" -> o.uiPort = Integer.parseInt(args[i + 1]);
                    case "--ui-bind" -> o.uiBind = args[i + 1];
                    case "--store" -> o.storeUrl = args[i + 1];
                    case "--submit-port" -> o.submitPort = Integer.parseInt(args[i + 1]);
                    case "--submit-bind" -> o.submitBind = args[i + 1];
                    case "--submit-host" -> o.submitHosts.add(args[i + 1]);
                    case "--auth-key" -> o.authKey = Path.of(args[i + 1]);
                    case "--auth-issuer" -> o.authIssuer = args[i + 1];
                    case "--auth-audience" -> o.authAudience = args[i + 1];
                    case "--permissions" -> o.permissionsFile = Path.of(args[i + 1]);
                    case "--auth-jwks-url" -> o.jwksUrl = args[i + 1];
                    case "--auth-oidc-issuer" -> o.oidcIssuer = args[i + 1];
                    case "--auth-jwks-cache-seconds" -> o.jwksCacheSeconds = Long.parseLong(args[i + 1]);
                    case "--auth-token-review-audience" -> o.tokenReviewAudience = args[i + 1];
                    case "--lease-duration-ms" -> o.leaseMillis = Long.parseLong(args[i + 1]);
                    case "--renew-deadline-ms" -> o.renewMillis = Long.parseLong(args[i + 1]);
                    case "--retry-period-ms" -> o.retryMillis = Long.parseLong(args[i + 1]);
                    case "--period-ms" -> o.periodMillis = Long.parseLong(args[i + 1]);
                    case "--worker" -> {
                        String[] kv = args[i + 1].split("=", 2);
                        if (kv.length != 2) {
                            throw new IllegalArgumentException("--worker takes NAME=KUBECONFIG, was " + args[i + 1]);
                        }
                        o.workerConfigs.put(kv[0], Path.of(kv[1]));
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return o;
        }
    }

    static void run(String[] args) throws Exception {
        Options o = Options.parse(args);
        if (o.queues == null || o.workerConfigs.isEmpty()) {
            System.err.println("usage: --config queues.yaml --worker NAME=KUBECONFIG [--worker ...] [--manager-kubeconfig FILE]"
                    + " [--namespace NS] [--grace-seconds 120] [--leader-elect LEASE_NAMESPACE/LEASE_NAME] [--ui-port PORT [--ui-bind ADDRESS]]"
                    + " [--store FILE|jdbc:sqlite:FILE|jdbc:postgresql://... --submit-port PORT [--submit-bind ADDRESS] [--submit-host NAME ...]"
                    + " (--auth-key FILE | --auth-jwks-url URL | --auth-oidc-issuer URL | --auth-token-review ...) [--auth-issuer ISS]"
                    + " [--auth-audience AUD] [--auth-jwks-cache-seconds 300] [--auth-token-review-audience AUD] --permissions FILE]"
                    + " [--lease-duration-ms 15000 --renew-deadline-ms 10000 --retry-period-ms 2000] [--period-ms 1000]");
            System.exit(2);
        }
        KubernetesClient managerClient = o.managerConfig == null ? new KubernetesClientBuilder().build()
                : new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(null, o.managerConfig.toFile())).build();
        Map<String, KubernetesClient> workerClients = new TreeMap<>();
        for (Map.Entry<String, Path> e : o.workerConfigs.entrySet()) {
            workerClients.put(e.getKey(), new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(null, e.getValue().toFile())).build());
        }
        QueuesConfig config = QueuesConfig.parse(o.queues.toString(), Files.readString(o.queues, StandardCharsets.UTF_8));
        String pod = System.getenv().getOrDefault("POD_NAME", System.getenv().getOrDefault("HOSTNAME", "fairway-manager"));
        String[] leaseRef = o.lease == null ? null : o.lease.split("/", 2);
        if (leaseRef != null && (leaseRef.length != 2 || leaseRef[0].isBlank() || leaseRef[1].isBlank())) {
            throw new IllegalArgumentException("--leader-elect takes LEASE_NAMESPACE/LEASE_NAME, was " + o.lease);
        }
        // replicas of one manager share the owner identity on the copies (the Lease name); each is a candidate by its pod name
        MultiClusterManager.Settings settings = new MultiClusterManager.Settings(Duration.ofSeconds(o.grace), Duration.ofSeconds(30), o.namespace,
                leaseRef == null ? System.getenv().getOrDefault("HOSTNAME", "fairway-manager") : leaseRef[1]);
        MultiClusterManager m = new MultiClusterManager(managerClient, workerClients, config, System::currentTimeMillis, settings);
        if (Boolean.getBoolean("fairway.manager.testOnlyNoFencing")) {
            m.withoutFencingForTests(); // a deliberately broken manager, for the failover test's negative case only
        }
        Submission submission = o.storeUrl == null ? new Submission(null, null) : submissionApi(o, m, managerClient);
        io.fairway.store.JobStore store = submission.store();
        io.fairway.submit.SubmitServer submit = submission.server();
        if (leaseRef != null) {
            m.startLeaderElection(new MultiClusterManager.LeaderElection(leaseRef[0], leaseRef[1], pod, Duration.ofMillis(o.leaseMillis),
                    Duration.ofMillis(o.renewMillis), Duration.ofMillis(o.retryMillis)));
        }
        if (leaseRef != null || store != null) {
            exitOnLostLead(m);
        }
        m.runInBackground(Duration.ofMillis(Math.max(10, o.periodMillis)));
        io.fairway.visibility.VisibilityServer api = io.fairway.k8s.UiOptions.of(o.uiPort, o.uiBind).start(m::scheduler, "manager");
        if (api != null) {
            System.out.println("visibility API and UI on " + api.url());
        }
        System.out.println("fairway multi-cluster manager running over workers " + workerClients.keySet());
        io.fairway.store.JobStore storeToClose = store;
        io.fairway.submit.SubmitServer submitToClose = submit;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (submitToClose != null) {
                submitToClose.close();
            }
            m.close();
            if (storeToClose != null) {
                storeToClose.close();
            }
            workerClients.values().forEach(KubernetesClient::close);
            managerClient.close();
        }));
        Thread.currentThread().join();
    }

    /** The job store and the submission API over it that {@code --store} asks for. */
    private record Submission(io.fairway.store.JobStore store, io.fairway.submit.SubmitServer server) {
    }

    /** Opens the job store, attaches it to the manager and serves the submission API with the authenticators asked for. */
    private static Submission submissionApi(Options o, MultiClusterManager m, KubernetesClient managerClient) throws Exception {
        if (o.authKey == null && o.jwksUrl == null && o.oidcIssuer == null && !o.tokenReview || o.permissionsFile == null) {
            throw new IllegalArgumentException("--store needs --permissions FILE and at least one of --auth-key FILE, --auth-jwks-url URL,"
                    + " --auth-oidc-issuer URL, --auth-token-review (the submission API authenticates every request)");
        }
        io.fairway.store.JobStore.Settings ss = io.fairway.store.JobStore.Settings.parse(o.storeUrl);
        if (Boolean.getBoolean("fairway.store.testOnlyAckBeforeDurable")) {
            ss = ss.brokenAckBeforeDurable(); // a deliberately broken store, for the crash test's negative case only
        }
        io.fairway.store.JobStore store = io.fairway.store.JobStore.open(ss);
        io.fairway.submit.JobSets sets = m.attachStore(store, io.fairway.submit.QueuePermissions.parse(
                Files.readString(o.permissionsFile, StandardCharsets.UTF_8)));
        java.util.List<io.fairway.submit.Authenticator> auth = new java.util.ArrayList<>();
        if (o.authKey != null) {
            auth.add(io.fairway.submit.JwtAuthenticator.fromFile(o.authKey, o.authIssuer, o.authAudience));
        }
        if (o.jwksUrl != null) {
            auth.add(io.fairway.submit.JwtAuthenticator.jwksUrl(java.net.URI.create(o.jwksUrl), o.authIssuer, o.authAudience,
                    Duration.ofSeconds(o.jwksCacheSeconds)));
        }
        if (o.oidcIssuer != null) {
            auth.add(io.fairway.submit.JwtAuthenticator.oidc(java.net.URI.create(o.oidcIssuer), o.authAudience, Duration.ofSeconds(o.jwksCacheSeconds)));
        }
        if (o.tokenReview) {
            auth.add(new TokenReviewAuthenticator(managerClient, o.tokenReviewAudience, Duration.ofSeconds(30)));
        }
        io.fairway.submit.SubmitServer submit = io.fairway.submit.SubmitServer.builder(sets, io.fairway.submit.Authenticator.anyOf(auth))
                .bind(java.net.InetAddress.getByName(o.submitBind)).port(Math.max(0, o.submitPort)).allowedHosts(o.submitHosts).build();
        System.out.println("submission API on " + submit.url());
        return new Submission(store, submit);
    }

    /** Exits the process once this manager lost the lead, so that it restarts as a candidate. */
    private static void exitOnLostLead(MultiClusterManager m) {
        // a manager that lost the Lease, or whose store writes were refused (another manager took the lead), exits
        ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fairway-multicluster-lease");
            t.setDaemon(true);
            return t;
        });
        watch.scheduleWithFixedDelay(() -> {
            if (m.lostLeadership()) {
                System.err.println("this manager lost the lead (the Lease, or its term in the job store); exiting so that it restarts as a"
                        + " candidate");
                System.exit(1);
            }
        }, 1, 1, TimeUnit.SECONDS);
    }
}
