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

    static void run(String[] args) throws Exception {
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
        long periodMillis = 1000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--manager-kubeconfig" -> managerConfig = Path.of(args[i + 1]);
                case "--config" -> queues = Path.of(args[i + 1]);
                case "--namespace" -> namespace = args[i + 1];
                case "--leader-elect" -> lease = args[i + 1];
                case "--grace-seconds" -> grace = Long.parseLong(args[i + 1]);
                case "--ui-port" -> uiPort = Integer.parseInt(args[i + 1]);
                case "--ui-bind" -> uiBind = args[i + 1];
                case "--store" -> storeUrl = args[i + 1];
                case "--submit-port" -> submitPort = Integer.parseInt(args[i + 1]);
                case "--submit-bind" -> submitBind = args[i + 1];
                case "--submit-host" -> submitHosts.add(args[i + 1]);
                case "--auth-key" -> authKey = Path.of(args[i + 1]);
                case "--auth-issuer" -> authIssuer = args[i + 1];
                case "--auth-audience" -> authAudience = args[i + 1];
                case "--permissions" -> permissionsFile = Path.of(args[i + 1]);
                case "--period-ms" -> periodMillis = Long.parseLong(args[i + 1]);
                case "--worker" -> {
                    String[] kv = args[i + 1].split("=", 2);
                    if (kv.length != 2) {
                        throw new IllegalArgumentException("--worker takes NAME=KUBECONFIG, was " + args[i + 1]);
                    }
                    workerConfigs.put(kv[0], Path.of(kv[1]));
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (queues == null || workerConfigs.isEmpty()) {
            System.err.println("usage: --config queues.yaml --worker NAME=KUBECONFIG [--worker ...] [--manager-kubeconfig FILE]"
                    + " [--namespace NS] [--grace-seconds 120] [--leader-elect LEASE_NAMESPACE/LEASE_NAME] [--ui-port PORT [--ui-bind ADDRESS]]"
                    + " [--store FILE|jdbc:sqlite:FILE|jdbc:postgresql://... --submit-port PORT [--submit-bind ADDRESS] [--submit-host NAME ...]"
                    + " --auth-key FILE [--auth-issuer ISS]"
                    + " [--auth-audience AUD] --permissions FILE] [--period-ms 1000]");
            System.exit(2);
        }
        KubernetesClient managerClient = managerConfig == null ? new KubernetesClientBuilder().build()
                : new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(null, managerConfig.toFile())).build();
        Map<String, KubernetesClient> workerClients = new TreeMap<>();
        for (Map.Entry<String, Path> e : workerConfigs.entrySet()) {
            workerClients.put(e.getKey(), new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(null, e.getValue().toFile())).build());
        }
        QueuesConfig config = QueuesConfig.parse(queues.toString(), Files.readString(queues, StandardCharsets.UTF_8));
        String pod = System.getenv().getOrDefault("POD_NAME", System.getenv().getOrDefault("HOSTNAME", "fairway-manager"));
        String[] leaseRef = lease == null ? null : lease.split("/", 2);
        if (leaseRef != null && (leaseRef.length != 2 || leaseRef[0].isBlank() || leaseRef[1].isBlank())) {
            throw new IllegalArgumentException("--leader-elect takes LEASE_NAMESPACE/LEASE_NAME, was " + lease);
        }
        // replicas of one manager share the owner identity on the copies (the Lease name); each is a candidate by its pod name
        MultiClusterManager.Settings settings = new MultiClusterManager.Settings(Duration.ofSeconds(grace), Duration.ofSeconds(30), namespace,
                leaseRef == null ? System.getenv().getOrDefault("HOSTNAME", "fairway-manager") : leaseRef[1]);
        MultiClusterManager m = new MultiClusterManager(managerClient, workerClients, config, System::currentTimeMillis, settings);
        io.fairway.store.JobStore store = null;
        io.fairway.submit.SubmitServer submit = null;
        if (storeUrl != null) {
            if (authKey == null || permissionsFile == null) {
                throw new IllegalArgumentException("--store needs --auth-key FILE and --permissions FILE (the submission API authenticates every request)");
            }
            io.fairway.store.JobStore.Settings ss = io.fairway.store.JobStore.Settings.parse(storeUrl);
            if (Boolean.getBoolean("fairway.store.testOnlyAckBeforeDurable")) {
                ss = ss.brokenAckBeforeDurable(); // a deliberately broken store, for the crash test's negative case only
            }
            store = io.fairway.store.JobStore.open(ss);
            io.fairway.submit.JobSets sets = m.attachStore(store, io.fairway.submit.QueuePermissions.parse(
                    Files.readString(permissionsFile, StandardCharsets.UTF_8)));
            submit = io.fairway.submit.SubmitServer.builder(sets, io.fairway.submit.JwtAuthenticator.fromFile(authKey, authIssuer, authAudience))
                    .bind(java.net.InetAddress.getByName(submitBind)).port(Math.max(0, submitPort)).allowedHosts(submitHosts).build();
            System.out.println("submission API on " + submit.url());
        }
        if (leaseRef != null) {
            m.startLeaderElection(MultiClusterManager.LeaderElection.of(leaseRef[0], leaseRef[1], pod));
            ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fairway-multicluster-lease");
                t.setDaemon(true);
                return t;
            });
            watch.scheduleWithFixedDelay(() -> {
                if (m.lostLeadership()) {
                    System.err.println("this manager lost the Lease; exiting so that it restarts as a candidate");
                    System.exit(1);
                }
            }, 1, 1, TimeUnit.SECONDS);
        }
        m.runInBackground(Duration.ofMillis(Math.max(10, periodMillis)));
        io.fairway.visibility.VisibilityServer api = io.fairway.k8s.UiOptions.of(uiPort, uiBind).start(m::scheduler, "manager");
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
}
