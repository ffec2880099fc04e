package io.fairway.k8s.multicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.store.JobStore;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
    static final class CountingDispatcher extends ManagerRuns.CopyWatch {
        final Map<String, Integer> creates = new ConcurrentHashMap<>();

        @Override
        void copied(String jobId) {
            creates.merge(jobId, 1, Integer::sum);
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
        // A kill loses jobs only when it lands between an acknowledgement and the commit, and how often a kill does
        // depends on the machine's load: up to three loops of four kills, each over a fresh store, until one loses some.
        Report r = null;
        for (int attempt = 0; attempt < 3 && (r == null || r.missing().isEmpty()); attempt++) {
            r = crashLoop(dir.resolve("attempt-" + attempt), 4, true, 7L + attempt);
            System.out.println("crash loop over a store that acknowledges before it commits (loop " + (attempt + 1) + "): " + r.acknowledged()
                    + " acknowledged, " + r.missing().size() + " of them lost");
        }
        assertThat(r.acknowledged()).as("refused: " + REFUSED + ", failed: " + FAILED).isGreaterThan(0);
        assertThat(r.missing()).as("the broken store loses acknowledged jobs, and the check sees it").isNotEmpty();
    }

    private Report crashLoop(int iterations, boolean broken, long seed) throws Exception {
        return crashLoop(dir, iterations, broken, seed);
    }

    private Report crashLoop(Path at, int iterations, boolean broken, long seed) throws Exception {
        java.nio.file.Files.createDirectories(at);
        ManagerRuns.ProcessFiles files = ManagerRuns.ProcessFiles.write(at, SECRET);
        Path db = at.resolve("jobs.db");
        assertThat(NODES * 96).as("room in the worker for every job the loop can submit")
                .isGreaterThanOrEqualTo(iterations * (1 + 2 * SETS_PER_CLIENT) * JOBS_PER_SET);
        CountingDispatcher counting = new CountingDispatcher();
        Random random = new Random(seed);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        try (MockApi manager = new MockApi(); MockApi worker = new MockApi(counting)) {
            List<String> cmd = command(files, db, ManagerRuns.Kubeconfigs.write(at, manager, worker, NODES), broken);
            String token = ManagerRuns.token(SECRET.getBytes(StandardCharsets.UTF_8), "crash-client");
            for (int i = 0; i <= iterations; i++) {
                boolean last = i == iterations;
                Path log = at.resolve("manager-" + i + ".log");
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                try {
                    String url = ManagerRuns.awaitApi(p, log, 60, "the manager");
                    if (last) {
                        ManagerRuns.awaitDispatched(worker, acked, "jdbc:sqlite:file:" + db + "?mode=ro", 10);
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
                        Thread t = new Thread(() -> JobSetPosts.postUntilStopped(url, token, JOBS_PER_SET, SETS_PER_CLIENT, 0, stop, acked, REFUSED, FAILED));
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
            Map<String, Integer> twice = ManagerRuns.copiedTwice(counting.creates);
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

    /** @return true when the job set was acknowledged (its jobs are then in {@code acked}) */
    private static boolean submit(HttpClient http, String url, String token, Set<String> acked, Duration timeout)
            throws IOException, InterruptedException {
        return JobSetPosts.post(http, url, token, JOBS_PER_SET, acked, REFUSED, timeout);
    }

    private List<String> command(ManagerRuns.ProcessFiles files, Path db, ManagerRuns.Kubeconfigs clusters, boolean broken) {
        List<String> cmd = ManagerRuns.java("512m", List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        if (broken) {
            cmd.add("-Dfairway.store.testOnlyAckBeforeDurable=true");
        }
        cmd.addAll(List.of(MultiClusterManager.class.getName(), "--config", files.queues().toString(), "--manager-kubeconfig", clusters.manager().toString(),
                "--worker", "eu=" + clusters.worker(), "--namespace", "ml", "--grace-seconds", "5", "--period-ms", "100",
                "--store", db.toString(), "--submit-port", "0", "--auth-key", files.key().toString(), "--permissions", files.permissions().toString()));
        return cmd;
    }
}
