package io.fairway.k8s.multicluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fairway.store.JobStore;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manager as a process of its own (its store a local SQLite file, its worker a mock API server on loopback in
 * this process), killed with SIGKILL at random points while clients submit job sets, and started again, many times.
 * After the last start: every job whose submission was acknowledged is in the store once, none was copied into the
 * worker twice (every create of a copy is counted), and each job's history starts with its one SUBMITTED event and
 * reaches LEASED. The same loop over a store that acknowledges before it commits (a test-only switch) must lose
 * acknowledged jobs — which shows the check can fail.
 */
class ManagerCrashTest {
    private static final String SECRET = "crash-test-secret-0123456789abcdef-0123";
    private static final Pattern API = Pattern.compile("submission API on (http://\\S+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Job sets each client submits at most per start; each set holds {@link #JOBS_PER_SET} one-CPU jobs. */
    private static final int SETS_PER_CLIENT = 40;
    private static final int JOBS_PER_SET = 4;
    /**
     * Worker nodes of 96 CPUs: room for every job the loop can submit (jobs never end in the mock worker, so with less
     * room a fast machine acknowledges more jobs than fit, and those rightly stay queued without a LEASED event).
     */
    private static final int NODES = 70;
    /** Answers other than 200 (there should be none: a killed manager drops the connection). */
    private static final List<String> REFUSED = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Requests that failed (the manager was killed under them). */
    private static final List<String> FAILED = java.util.Collections.synchronizedList(new ArrayList<>());

    @TempDir
    Path dir;

    /** Counts each successful create of a Job (a copy) in the worker, by the engine's job id. */
    static final class CountingDispatcher extends KubernetesCrudDispatcher {
        final Map<String, Integer> creates = new ConcurrentHashMap<>();

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            String body = request.getBody() == null ? "" : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
            MockResponse r = super.handleCreate(request);
            if (r.code() / 100 == 2 && request.getPath().contains("/jobs")) {
                try {
                    String id = JSON.readTree(body).path("metadata").path("annotations").path(MultiClusterManager.JOB_ID_ANNOTATION).asText("");
                    if (!id.isEmpty()) {
                        creates.merge(id, 1, Integer::sum);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            return r;
        }
    }

    /** What one crash loop found. */
    record Report(int acknowledged, List<String> missing, Map<String, Integer> copiedTwice, List<String> incompleteHistories, int copies) {
    }

    @Test
    void everyAcknowledgedJobSurvivesTwentyKillsOnceAndIsDispatchedOnce() throws Exception {
        Report r = crashLoop(Integer.getInteger("fairway.crash.iterations", 20), false, 20260127L);
        System.out.println("crash loop: " + r.acknowledged() + " jobs acknowledged, " + r.copies() + " copies created, missing " + r.missing().size()
                + ", copied twice " + r.copiedTwice().size() + ", incomplete histories " + r.incompleteHistories().size());
        assertThat(r.acknowledged()).as("jobs acknowledged over the run; refused: " + REFUSED).isGreaterThan(100);
        assertThat(r.missing()).as("acknowledged jobs lost").isEmpty();
        assertThat(r.copiedTwice()).as("jobs copied into the worker more than once").isEmpty();
        assertThat(r.incompleteHistories()).as("job histories without their SUBMITTED then LEASED events").isEmpty();
        assertThat(r.copies()).as("every acknowledged job dispatched").isGreaterThanOrEqualTo(r.acknowledged());
    }

    @Test
    void theSameLoopCatchesAStoreThatAcknowledgesBeforeItIsDurable() throws Exception {
        Report r = crashLoop(4, true, 7L);
        System.out.println("crash loop over a store that acknowledges before it commits: " + r.acknowledged() + " acknowledged, "
                + r.missing().size() + " of them lost");
        assertThat(r.acknowledged()).as("refused: " + REFUSED + ", failed: " + FAILED).isGreaterThan(0);
        assertThat(r.missing()).as("the broken store loses acknowledged jobs, and the check sees it").isNotEmpty();
    }

    private Report crashLoop(int iterations, boolean broken, long seed) throws Exception {
        Path queues = Files.writeString(dir.resolve("queues.yaml"), """
                policy: best-effort-fifo
                flavors:
                  - name: default
                clusterQueues:
                  - name: all
                    resourceGroups:
                      - coveredResources: [cpu]
                        flavors:
                          - name: default
                            resources:
                              - {name: cpu, nominalQuota: 100000}
                localQueues:
                  - {name: batch, namespace: ml, clusterQueue: all}
                """);
        Path perms = Files.writeString(dir.resolve("permissions.yaml"), """
                queues:
                  - name: batch
                    permissions:
                      - subjects: [{kind: Group, name: ml}]
                        verbs: [submit, cancel, reprioritize, watch]
                """);
        Path key = Files.writeString(dir.resolve("jwt.key"), SECRET);
        Path db = dir.resolve("jobs.db");
        assertThat(NODES * 96).as("room in the worker for every job the loop can submit")
                .isGreaterThanOrEqualTo(iterations * (1 + 2 * SETS_PER_CLIENT) * JOBS_PER_SET);
        CountingDispatcher counting = new CountingDispatcher();
        Random random = new Random(seed);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        try (MockApi manager = new MockApi(); MockApi worker = new MockApi(counting)) {
            for (int n = 0; n < NODES; n++) {
                worker.node("node-" + n, 0);
            }
            Path managerConfig = kubeconfig(manager, "manager");
            Path workerConfig = kubeconfig(worker, "worker");
            List<String> cmd = command(queues, perms, key, db, managerConfig, workerConfig, broken);
            String token = token();
            for (int i = 0; i <= iterations; i++) {
                boolean last = i == iterations;
                Path log = dir.resolve("manager-" + i + ".log");
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                try {
                    String url = awaitApi(p, log);
                    if (last) {
                        awaitDispatched(worker, acked, db);
                        p.destroy(); // SIGTERM: the shutdown hook closes the store
                        p.waitFor(30, TimeUnit.SECONDS);
                        break;
                    }
                    // one job set first (a cold JVM answers its first request slowly), then a burst of job sets from two
                    // clients, killed with SIGKILL at a random point of it
                    AtomicBoolean stop = new AtomicBoolean();
                    submit(HttpClient.newHttpClient(), url, token, acked, Duration.ofSeconds(60));
                    List<Thread> clients = new ArrayList<>();
                    for (int c = 0; c < 2; c++) {
                        Thread t = new Thread(() -> submitUntilStopped(url, token, stop, acked));
                        t.start();
                        clients.add(t);
                    }
                    Thread.sleep(150 + random.nextInt(1200));
                    p.destroyForcibly(); // SIGKILL
                    p.waitFor(30, TimeUnit.SECONDS);
                    stop.set(true);
                    for (Thread t : clients) {
                        t.join(30_000);
                    }
                } finally {
                    if (p.isAlive()) {
                        p.destroyForcibly();
                        p.waitFor(30, TimeUnit.SECONDS);
                    }
                }
            }
            int copies = counting.creates.size();
            Map<String, Integer> twice = new TreeMap<>();
            counting.creates.forEach((id, n) -> {
                if (n > 1) {
                    twice.put(id, n);
                }
            });
            List<String> missing = new ArrayList<>();
            List<String> incomplete = new ArrayList<>();
            try (JobStore store = JobStore.open(JobStore.Settings.sqlite(db))) {
                Map<String, List<String>> histories = new TreeMap<>();
                Set<String> sets = new java.util.TreeSet<>();
                store.forEach(j -> sets.add(j.jobSet()));
                for (String s : sets) {
                    long last = 0;
                    for (JobStore.Event e : store.events("batch", s, 0, 10_000)) {
                        assertThat(e.seq()).isGreaterThan(last);
                        last = e.seq();
                        histories.computeIfAbsent(e.jobId(), k -> new ArrayList<>()).add(e.type());
                    }
                }
                for (String id : acked) {
                    if (store.job(id).isEmpty()) {
                        missing.add(id);
                        continue;
                    }
                    List<String> h = histories.getOrDefault(id, List.of());
                    if (h.isEmpty() || !h.get(0).equals("SUBMITTED") || h.stream().filter("SUBMITTED"::equals).count() != 1 || !h.contains("LEASED")) {
                        incomplete.add(id + " " + h);
                    }
                }
            }
            return new Report(acked.size(), missing, twice, incomplete, copies);
        }
    }

    private static void submitUntilStopped(String url, String token, AtomicBoolean stop, Set<String> acked) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int n = 0; n < SETS_PER_CLIENT && !stop.get(); n++) {
            try {
                if (!submit(http, url, token, acked, Duration.ofSeconds(5))) {
                    return;
                }
            } catch (IOException e) {
                FAILED.add(String.valueOf(e));
                return; // the manager died under the request: not acknowledged
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** @return true when the job set was acknowledged (its jobs are then in {@code acked}) */
    private static boolean submit(HttpClient http, String url, String token, Set<String> acked, Duration timeout)
            throws IOException, InterruptedException {
        return JobSetPosts.post(http, url, token, JOBS_PER_SET, acked, REFUSED, timeout);
    }

    /**
     * Waits until every acknowledged job has a copy in the worker and its LEASED event in the store (read beside the
     * running manager), or no copy came for 10 s (at most 120 s).
     */
    private static void awaitDispatched(MockApi worker, Set<String> acked, Path db) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int seen = -1;
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Set<String> names = new java.util.HashSet<>();
            worker.jobs().forEach(j -> names.add(j.getMetadata().getNamespace() + "/" + j.getMetadata().getName()));
            if (names.containsAll(acked) && leased(db).containsAll(acked)) {
                return;
            }
            if (names.size() != seen) {
                seen = names.size();
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(10)) {
                return;
            }
            Thread.sleep(250);
        }
    }

    /** @return the jobs with a LEASED event in the store, read-only while the manager writes it */
    private static Set<String> leased(Path db) throws java.sql.SQLException {
        Set<String> out = new java.util.HashSet<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:file:" + db + "?mode=ro");
             java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT DISTINCT job_id FROM events WHERE type = 'LEASED'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static String awaitApi(Process p, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String out = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            Matcher m = API.matcher(out);
            if (m.find()) {
                return m.group(1);
            }
            if (!p.isAlive()) {
                throw new AssertionError("the manager exited: " + out);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the manager did not start its API in 60 s: " + Files.readString(log, StandardCharsets.UTF_8));
    }

    private List<String> command(Path queues, Path perms, Path key, Path db, Path managerConfig, Path workerConfig, boolean broken) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path")));
        if (broken) {
            cmd.add("-Dfairway.store.testOnlyAckBeforeDurable=true");
        }
        cmd.addAll(List.of(MultiClusterManager.class.getName(), "--config", queues.toString(), "--manager-kubeconfig", managerConfig.toString(),
                "--worker", "eu=" + workerConfig, "--namespace", "ml", "--grace-seconds", "5", "--period-ms", "100",
                "--store", db.toString(), "--submit-port", "0", "--auth-key", key.toString(), "--permissions", perms.toString()));
        return cmd;
    }

    private Path kubeconfig(MockApi api, String name) throws IOException {
        return Files.writeString(dir.resolve(name + ".kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "%s"}}]
                users: [{name: u, user: {token: test}}]
                contexts: [{name: c, context: {cluster: c, user: u, namespace: ml}}]
                current-context: c
                """.formatted(api.url()));
    }

    private static String token() throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject("crash-client").claim("groups", List.of("ml"))
                .expirationTime(new Date(System.currentTimeMillis() + 3_600_000)).build());
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
