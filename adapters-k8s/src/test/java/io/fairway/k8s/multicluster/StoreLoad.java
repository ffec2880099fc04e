package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.config.QueuesConfig;
import io.fairway.store.JobStore;
import io.fairway.submit.JobSets;
import io.fairway.submit.JwtAuthenticator;
import io.fairway.submit.QueuePermissions;
import io.fairway.submit.SubmitServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded load program (not a unit test; loopback only) for the job store and the submission API, printing figures:
 * <ul>
 *   <li>{@code ingest JOBS CLIENTS SETSIZE}: job sets through the HTTP API into the embedded store (the manager's own
 *       validation included), jobs per second;</li>
 *   <li>{@code latency RATE SECONDS}: with room free in one mock worker, a job set of 10 every {@code 10/RATE}
 *       seconds; for each job the time from the API's answer to its copy's creation in the worker (p50, p99);</li>
 *   <li>{@code fleet CLUSTERS NODES JOBS ROUNDS}: the multi-cluster engine (one executor per cluster through the
 *       executor hub, as the multi-cluster simulation runs it) driven through the store: JOBS queued jobs across 100
 *       queues are stored, recovered from the store into the engine, and ROUNDS rounds run over CLUSTERS clusters of
 *       NODES 8-GPU nodes (one GPU a job); each admission and end is recorded in the store as the manager records
 *       them; prints each phase's time and the memory;</li>
 *   <li>{@code recover JOBS QUEUES}: fills a store with queued jobs across queues, then times a manager's start
 *       (recovery from the store and its first round) and reports its resident memory.</li>
 * </ul>
 * Run with the test classpath: {@code java -cp ... io.fairway.k8s.multicluster.StoreLoad ingest 100000 4 500}.
 */
public final class StoreLoad {
    private static final byte[] SECRET = "store-load-secret-0123456789abcdef-012".getBytes(StandardCharsets.UTF_8);
    private static final ObjectMapper JSON = new ObjectMapper();

    private StoreLoad() {
    }

    static String queues(int n) {
        return ManagerRuns.queues(10_000_000, names(n));
    }

    static String permissions(int n) {
        return ManagerRuns.permissions(names(n), "submit, watch");
    }

    /** @return the LocalQueues {@code q-0} to {@code q-(n-1)} */
    private static List<String> names(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add("q-" + i);
        }
        return out;
    }

    static String jobSet(String queue, String set, int size) {
        if (Boolean.getBoolean("load.json")) {
            StringBuilder b = new StringBuilder("{\"queue\":\"").append(queue).append("\",\"jobSetId\":\"").append(set).append("\",\"jobs\":[");
            for (int j = 0; j < size; j++) {
                b.append(j == 0 ? "" : ",").append("{\"namespace\":\"ml\",\"podSpec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\","
                        + "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
            }
            return b.append("]}").toString();
        }
        StringBuilder b = new StringBuilder("queue: ").append(queue).append("\njobSetId: ").append(set).append("\njobs:\n");
        for (int j = 0; j < size; j++) {
            b.append("  - {namespace: ml, podSpec: {containers: [{name: main, image: busybox, resources: {requests: {cpu: \"1\"}}}]}}\n");
        }
        return b.toString();
    }

    static String token() throws Exception {
        return ManagerRuns.token(SECRET, "load");
    }

    /** Records when each copy is created in the worker. */
    static final class Stamping extends ManagerRuns.CopyWatch {
        final Map<String, Long> created = new ConcurrentHashMap<>();

        @Override
        void copied(String jobId) {
            created.put(jobId, System.nanoTime());
        }
    }

    /**
     * @param args the mode and its numbers (see the class comment)
     * @throws Exception when it fails
     */
    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("io.fabric8").setLevel(java.util.logging.Level.WARNING);
        Path dir = Files.createTempDirectory("fairway-store-load");
        switch (args[0]) {
            case "ingest" -> ingest(dir, Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            case "latency" -> latency(dir, Integer.parseInt(args[1]), Integer.parseInt(args[2]), args.length > 3 ? Integer.parseInt(args[3]) : 1000);
            case "recover" -> recover(dir, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "store" -> store(dir, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "fleet" -> fleet(dir, Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            default -> throw new IllegalArgumentException("mode must be ingest, latency or recover, was " + args[0]);
        }
        System.exit(0);
    }

    private static void ingest(Path dir, int jobs, int clients, int setSize) throws Exception {
        try (MockApi manager = new MockApi(); MockApi worker = new MockApi();
             MultiClusterManager m = new MultiClusterManager(manager.client, Map.of("eu", worker.client), QueuesConfig.parse("q", queues(100)),
                     System::currentTimeMillis, MultiClusterManager.Settings.defaults());
             JobStore store = JobStore.open(System.getProperty("load.url") == null ? JobStore.Settings.sqlite(dir.resolve("jobs.db"))
                     : JobStore.Settings.parse(System.getProperty("load.url")))) {
            JobSets sets = m.attachStore(store, QueuePermissions.parse(permissions(100)));
            try (SubmitServer api = SubmitServer.builder(sets, JwtAuthenticator.hmac(SECRET, null, null)).port(0).threads(Math.max(4, clients * 2)).build()) {
                String token = token();
                int perClient = jobs / clients / setSize;
                // warm up: one set per client
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                post(http, api, token, jobSet("q-0", "warm", setSize));
                AtomicLong done = new AtomicLong();
                List<Thread> ts = new ArrayList<>();
                com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                for (int c = 0; c < clients; c++) {
                    int client = c;
                    Thread t = new Thread(() -> {
                        HttpClient h = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                        for (int i = 0; i < perClient; i++) {
                            try {
                                String body = jobSet("q-" + ((client * perClient + i) % 100), "s-" + client + "-" + i, setSize);
                                done.addAndGet(post(h, api, token, body));
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    });
                    t.start();
                    ts.add(t);
                }
                for (Thread t : ts) {
                    t.join();
                }
                double s = (System.nanoTime() - t0) / 1e9;
                double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
                System.out.printf("ingest (%s): %d jobs in sets of %d from %d clients in %.2f s = %.0f jobs/s; process CPU %.1f s = %.0f us a job "
                                + "(clients included)%n", System.getProperty("load.url") == null ? "sqlite" : "postgresql", done.get(), setSize, clients, s,
                        done.get() / s, cpu, cpu * 1e6 / done.get());
            }
        }
    }

    private static void store(Path dir, int jobs, int setSize) {
        String url = System.getProperty("load.url");
        try (JobStore store = JobStore.open(url == null ? JobStore.Settings.sqlite(dir.resolve("jobs.db")) : JobStore.Settings.parse(url))) {
            String t = jobTemplate("q-0", "fw-x");
            long t0 = System.nanoTime();
            for (int i = 0; i < jobs / setSize; i++) {
                List<JobStore.NewJob> batch = new ArrayList<>(setSize);
                for (int j = 0; j < setSize; j++) {
                    batch.add(new JobStore.NewJob("ml/s" + i + "-" + j, 0, t));
                }
                store.submit("q-" + (i % 100), "set-" + i, "load", i, batch);
            }
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("store only (%s): %d jobs in sets of %d, one writer, in %.2f s = %.0f jobs/s%n", url == null ? "sqlite" : "postgresql",
                    jobs, setSize, s, jobs / s);
        }
    }

    private static int post(HttpClient http, SubmitServer api, String token, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api.url() + "api/v1/jobsets")).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body()).get("jobIds").size();
    }

    private static void latency(Path dir, int rate, int seconds, int periodMillis) throws Exception {
        // fabric8's CRUD mock scans every object it holds on each request: with thousands of copies it, not the
        // executor, set the pace; -Dload.crudMock=true measures against it as before
        Stamping crud = Boolean.getBoolean("load.crudMock") ? new Stamping() : null;
        IndexedWorkerApi indexed = crud == null ? new IndexedWorkerApi() : null;
        Map<String, Long> created = crud != null ? crud.created : indexed.created;
        try (MockApi manager = new MockApi(); MockApi worker = new MockApi(crud != null ? crud : indexed);
             JobStore store = JobStore.open(JobStore.Settings.sqlite(dir.resolve("jobs.db")))) {
            int nodes = Math.max(1, rate * seconds / 90 + 1);
            for (int n = 0; n < nodes; n++) {
                worker.node("node-" + n, 0);
            }
            MultiClusterManager m = new MultiClusterManager(manager.client, Map.of("eu", worker.client), QueuesConfig.parse("q", queues(100)),
                    System::currentTimeMillis, new MultiClusterManager.Settings(Duration.ofSeconds(30), Duration.ofSeconds(30), "ml", "load"));
            JobSets sets = m.attachStore(store, QueuePermissions.parse(permissions(100)));
            m.runInBackground(Duration.ofMillis(periodMillis));
            try (SubmitServer api = SubmitServer.builder(sets, JwtAuthenticator.hmac(SECRET, null, null)).port(0).build()) {
                String token = token();
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                Map<String, Long> acked = new ConcurrentHashMap<>();
                List<java.util.concurrent.CompletableFuture<Void>> inflight = new ArrayList<>();
                java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newFixedThreadPool(4);
                long intervalNanos = 10L * 1_000_000_000L / rate;
                long t0 = System.nanoTime();
                int n = 0;
                while (System.nanoTime() - t0 < seconds * 1_000_000_000L) {
                    long due = t0 + n * intervalNanos;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                    // sent on schedule by 4 senders, without waiting for the answer before (an answer waits for its commit)
                    String body = jobSet("q-" + (n % 100), "l-" + n, 10);
                    inflight.add(java.util.concurrent.CompletableFuture.runAsync(() -> {
                        try {
                            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api.url() + "api/v1/jobsets"))
                                    .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            long at = System.nanoTime();
                            for (JsonNode id : JSON.readTree(r.body()).get("jobIds")) {
                                acked.put(id.asText(), at);
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }, senders));
                    n++;
                }
                double sentSeconds = (System.nanoTime() - t0) / 1e9;
                for (java.util.concurrent.CompletableFuture<Void> f : inflight) {
                    f.join();
                }
                senders.shutdown();
                long end = System.nanoTime() + 60_000_000_000L;
                while (created.size() < acked.size() && System.nanoTime() < end) {
                    Thread.sleep(100);
                }
                long[] lat = acked.entrySet().stream().filter(e -> created.containsKey(e.getKey()))
                        .mapToLong(e -> created.get(e.getKey()) - e.getValue()).sorted().toArray();
                System.out.printf("latency: %d jobs at %d jobs/s for %d s (sent in %.1f s), pass period %d ms, %d dispatched: submit->copy p50 %.0f ms, "
                                + "p99 %.0f ms, max %.0f ms%n", acked.size(), rate, seconds, sentSeconds, periodMillis, lat.length, pct(lat, 50), pct(lat, 99), lat.length == 0 ? 0 : lat[lat.length - 1] / 1e6);
            } finally {
                m.close();
            }
        }
    }

    private static double pct(long[] sorted, int p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)] / 1e6;
    }

    private static void recover(Path dir, int jobs, int queues) throws Exception {
        Path db = dir.resolve("jobs.db");
        long t0 = System.nanoTime();
        try (JobStore store = JobStore.open(JobStore.Settings.sqlite(db))) {
            int perSet = 1000;
            boolean whole = Boolean.getBoolean("load.wholeTemplates"); // the form stored before templates were shared
            for (int i = 0; i < jobs / perSet; i++) {
                List<JobStore.NewJob> batch = new ArrayList<>(perSet);
                String queue = "q-" + (i % queues);
                String shared = jobTemplate(queue, JobStore.NAME_MARK);
                for (int j = 0; j < perSet; j++) {
                    String name = String.format("fw-%08d%04d", i, j);
                    batch.add(whole ? new JobStore.NewJob("ml/" + name, 0, jobTemplate(queue, name)) : JobStore.NewJob.shared("ml/" + name, 0, shared, name));
                }
                store.submit(queue, "set-" + i, "load", 1_000_000L + i, batch);
            }
        }
        System.out.printf("fill: %d jobs across %d queues in %.1f s (db %d MB)%n", jobs, queues, (System.nanoTime() - t0) / 1e9, Files.size(db) >> 20);
        System.gc();
        long rssBefore = rss();
        try (MockApi manager = new MockApi(); MockApi worker = new MockApi();
             JobStore store = JobStore.open(JobStore.Settings.sqlite(db))) {
            worker.node("node-0", 0);
            MultiClusterManager m = new MultiClusterManager(manager.client, Map.of("eu", worker.client), QueuesConfig.parse("q", queues(queues)),
                    System::currentTimeMillis, new MultiClusterManager.Settings(Duration.ofSeconds(30), Duration.ofSeconds(30), "ml", "load"));
            m.attachStore(store, QueuePermissions.parse(permissions(queues)));
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long t1 = System.nanoTime();
            MultiClusterManager.ReconcileResult r = m.reconcileOnce();
            double s = (System.nanoTime() - t1) / 1e9;
            double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            Runtime rt = Runtime.getRuntime();
            System.out.printf("recover: %d jobs queued in the engine after the first pass (acted %s, %d admitted) in %.1f s (process CPU %.1f s); "
                            + "heap used %d MB, resident %d MB (before the manager: %d MB)%n", m.storedJobs(), r.acted(), r.admitted().size(), s, cpu,
                    (rt.totalMemory() - rt.freeMemory()) >> 20, rss() >> 20, rssBefore >> 20);
            m.close();
        }
    }

    private static void fleet(Path dir, int clusters, int nodesPer, int jobs, int rounds) throws Exception {
        Path db = dir.resolve("fleet.db");
        int queues = 100;
        long t0 = System.nanoTime();
        try (JobStore store = JobStore.open(JobStore.Settings.sqlite(db))) {
            int perSet = 1000;
            for (int i = 0; i < jobs / perSet; i++) {
                List<JobStore.NewJob> batch = new ArrayList<>(perSet);
                String queue = "q-" + (i % queues);
                String shared = "{\"queue\":\"" + queue + "\",\"gpus\":1,\"name\":\"" + JobStore.NAME_MARK + "\"}";
                for (int j = 0; j < perSet; j++) {
                    String name = String.format("fw-%08d%04d", i, j);
                    batch.add(JobStore.NewJob.shared("default/" + name, 0, shared, name));
                }
                store.submit(queue, "set-" + i, "load", 1_000_000L + i, batch);
            }
        }
        double fill = (System.nanoTime() - t0) / 1e9;
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(2_000_000L);
        io.fairway.core.ExecutorHub hub = new io.fairway.core.ExecutorHub(now::get, 600_000, 1_000_000, 600_000);
        io.fairway.core.Scheduler.Builder b = io.fairway.core.Scheduler.builder().clock(now::get).actuator(hub).seed(7)
                .policy("best-effort-fifo").flavor(io.fairway.api.model.ResourceFlavor.of("default"));
        for (int c = 0; c < clusters; c++) {
            String cl = "c" + c;
            b.cluster(new io.fairway.api.model.ClusterSpec(cl, List.of(io.fairway.api.model.ClusterSpec.RACK_LABEL)));
            List<io.fairway.api.model.Node> ns = new ArrayList<>();
            for (int n = 0; n < nodesPer; n++) {
                ns.add(io.fairway.api.model.Node.builder(cl + "-n" + n).cluster(cl).label(io.fairway.api.model.ClusterSpec.RACK_LABEL, cl + "-r" + n / 32)
                        .capacity(io.fairway.api.model.Resources.builder().cpu(128).memoryGiB(1024).build())
                        .gpus(io.fairway.api.model.GpuTopology.nvSwitch8("H100")).build());
            }
            b.nodes(ns);
        }
        for (int q = 0; q < queues; q++) {
            b.clusterQueue(io.fairway.api.model.ClusterQueue.builder("q-" + q).quota("default", io.fairway.api.model.Resources.builder()
                    .gpus(10_000_000).cpu(100_000_000).memoryGiB(8_000_000).build()).build());
            b.localQueue(new io.fairway.api.model.LocalQueue(io.fairway.api.job.JobSpec.DEFAULT_NAMESPACE, "q-" + q, "q-" + q));
        }
        io.fairway.core.Scheduler s = b.build();
        hub.attach(s);
        for (int c = 0; c < clusters; c++) {
            hub.register("c" + c);
        }
        System.gc();
        long rss0 = rss();
        long t1 = System.nanoTime();
        long n;
        try (JobStore store = JobStore.open(JobStore.Settings.sqlite(db))) {
            // recovery: the store's live jobs into the engine, each shared template turned into a spec once
            Map<Long, io.fairway.api.job.JobSpec> protos = new java.util.HashMap<>();
            List<io.fairway.api.job.JobSpec> batch = new ArrayList<>();
            n = store.forEachLiveJob(l -> {
                io.fairway.api.job.JobSpec p = protos.computeIfAbsent(l.templateId(), k -> {
                    JsonNode t;
                    try {
                        t = JSON.readTree(JobStore.expand(l.template(), "proto"));
                    } catch (java.io.IOException e) {
                        throw new IllegalStateException(e);
                    }
                    return io.fairway.api.job.JobSpec.builder("default/proto").queue(t.get("queue").asText())
                            .members(1, io.fairway.api.model.Resources.builder().gpus(t.get("gpus").asInt()).cpu(4).memoryGiB(32).build()).build();
                });
                JobStore.StoredJob j = l.job();
                batch.add(new io.fairway.api.job.JobSpec(j.id(), p.namespace(), p.queue(), j.jobSet(), j.owner(), j.priority(), j.submittedMillis(),
                        p.podSets(), p.estimatedSeconds(), p.sensitivity(), p.checkpointing()));
                if (batch.size() >= 10_000) {
                    s.submitAll(batch);
                    batch.clear();
                }
            });
            s.submitAll(batch);
            double recover = (System.nanoTime() - t1) / 1e9;
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            Runtime rt = Runtime.getRuntime();
            System.out.printf("fleet: %d clusters x %d nodes (%d GPUs), %d jobs: fill %.1f s (%.0f jobs/s, db %d MB), recovery %.1f s; "
                            + "heap used %d MB, resident %d MB (before %d MB)%n", clusters, nodesPer, clusters * nodesPer * 8L, n, fill, jobs / fill,
                    Files.size(db) >> 20, recover, (rt.totalMemory() - rt.freeMemory()) >> 20, rss() >> 20, rss0 >> 20);
            Map<String, long[]> running = new java.util.HashMap<>();
            for (int r = 1; r <= rounds; r++) {
                now.addAndGet(60_000);
                long a = System.nanoTime();
                s.runRound();
                long roundNs = System.nanoTime() - a;
                long d = System.nanoTime();
                List<JobStore.Transition> out = new ArrayList<>();
                int admitted = 0;
                for (int c = 0; c < clusters; c++) {
                    String cl = "c" + c;
                    for (io.fairway.core.ExecutorHub.WorkItem w : hub.poll(cl, 1_000_000).items()) {
                        if (w.decision() instanceof io.fairway.api.decision.Admit && s.reportStarted(w.jobId(), w.epoch())) {
                            running.put(w.jobId(), new long[] {w.epoch(), r + 2});
                            out.add(new JobStore.Transition(w.jobId(), "LEASED", now.get(), "admitted into " + cl));
                            admitted++;
                        }
                        hub.ack(cl, w.id());
                    }
                }
                int ended = 0;
                for (java.util.Iterator<Map.Entry<String, long[]>> it = running.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<String, long[]> e = it.next();
                    if (e.getValue()[1] <= r && s.reportFinished(e.getKey(), e.getValue()[0])) {
                        out.add(new JobStore.Transition(e.getKey(), "SUCCEEDED", now.get(), "finished"));
                        it.remove();
                        ended++;
                    }
                }
                long dispatchNs = System.nanoTime() - d;
                long w0 = System.nanoTime();
                store.record(out).join();
                for (JobStore.Transition t : out) {
                    if (t.state().equals("SUCCEEDED")) {
                        s.jobs().forget(t.jobId());
                    }
                }
                System.out.printf("fleet round %d: round %.2f s, %d admitted, %d ended, dispatch %.2f s, store record %.2f s (%d transitions)%n", r,
                        roundNs / 1e9, admitted, ended, dispatchNs / 1e9, (System.nanoTime() - w0) / 1e9, out.size());
            }
        }
    }

    private static String jobTemplate(String queue, String name) {
        return "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"ml\",\"uid\":\"" + name
                + "\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"labels\":{\"fairway.io/queue-name\":\"" + queue + "\"},\"annotations\":{}},"
                + "\"spec\":{\"parallelism\":1,\"completions\":1,\"suspend\":true,\"backoffLimit\":0,\"template\":{\"metadata\":{},\"spec\":"
                + "{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],\"restartPolicy\":\"Never\"}}}}";
    }

    private static long rss() throws java.io.IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(Arrays.stream(l.split("\\s+")).filter(x -> x.matches("\\d+")).findFirst().orElse("0")) * 1024;
            }
        }
        return 0;
    }
}
