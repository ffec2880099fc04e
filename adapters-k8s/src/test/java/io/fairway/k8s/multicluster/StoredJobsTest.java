package io.fairway.k8s.multicluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobState;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs submitted through the submission API (HTTP, JWT, per-queue permissions) into the job store: the manager
 * copies them into a worker once admitted, records each state as a job-set event, and a manager started again on
 * the same store (the first one gone) recovers every job that has not ended without copying a running one again.
 */
class StoredJobsTest {
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef-test".getBytes(StandardCharsets.UTF_8);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String QUEUES = MultiClusterManagerTest.queues("best-effort-fifo", 64);
    private static final String PERMISSIONS = """
            queues:
              - name: gpu
                permissions:
                  - subjects: [{kind: Group, name: ml}]
                    verbs: [submit, cancel, reprioritize, watch]
                  - subjects: [{kind: User, name: viewer}]
                    verbs: [watch]
            """;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final MockApi managerApi = new MockApi();
    private final MockApi worker = new MockApi();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        worker.close();
        managerApi.close();
    }

    private record Running(MultiClusterManager manager, JobStore store, SubmitServer api) {
    }

    private Running start() throws Exception {
        return start(worker, Duration.ofSeconds(60));
    }

    private Running start(MockApi workerApi, Duration grace) throws Exception {
        MultiClusterManager m = new MultiClusterManager(managerApi.client, Map.of("eu", workerApi.client), QueuesConfig.parse("q", QUEUES), now::get,
                new MultiClusterManager.Settings(grace, Duration.ofSeconds(10), null, "test-manager"));
        JobStore store = JobStore.open(JobStore.Settings.sqlite(dir.resolve("jobs.db")));
        JobSets sets = m.attachStore(store, QueuePermissions.parse(PERMISSIONS));
        SubmitServer api = SubmitServer.builder(sets, JwtAuthenticator.hmac(SECRET, "fairway-test", null)).port(0).build();
        open.add(store);
        open.add(m);
        open.add(api);
        return new Running(m, store, api);
    }

    private static String token(String user, String... groups) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject(user).issuer("fairway-test")
                .claim("groups", List.of(groups)).expirationTime(new Date(System.currentTimeMillis() + 600_000)).build());
        jwt.sign(new MACSigner(SECRET));
        return jwt.serialize();
    }

    private HttpResponse<String> post(Running r, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.api().url() + path.substring(1))).POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode events(Running r, String token, long from, int waitSeconds) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(r.api().url() + "api/v1/jobsets/gpu/run-1/events?from=" + from
                + "&wait=" + waitSeconds)).header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
        return JSON.readTree(res.body());
    }

    private static String jobSet(int jobs, int gpus) {
        StringBuilder b = new StringBuilder("queue: gpu\njobSetId: run-1\njobs:\n");
        for (int i = 0; i < jobs; i++) {
            b.append("""
                      - priority: 0
                        namespace: ml
                        parallelism: 2
                        annotations: {fairway.io/podset-preferred-topology: kubernetes.io/hostname}
                        podSpec:
                          containers:
                            - name: main
                              image: busybox
                              resources:
                                requests: {cpu: "2"}
                                limits: {nvidia.com/gpu: "%d"}
                    """.formatted(gpus));
        }
        return b.toString();
    }

    private static void pass(MultiClusterManager m) {
        m.reconcileOnce();
        m.workers().forEach(WorkerExecutor::pollOnce);
    }

    @Test
    void submittedJobsRunInAWorkerTheirHistoryIsWatchedAndARestartRecoversThemWithoutASecondCopy() throws Exception {
        worker.node("gpu-1", 8);
        Running r = start();
        String ml = token("alice", "ml");
        // 3 gangs of 2 pods x 2 GPUs on one 8-GPU node: two run, the third waits for room
        HttpResponse<String> res = post(r, "/api/v1/jobsets", ml, jobSet(3, 2));
        assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        JSON.readTree(res.body()).get("jobIds").forEach(n -> ids.add(n.asText()));
        assertThat(ids).hasSize(3).allMatch(id -> id.startsWith("ml/fw-"));
        // acknowledged means stored
        assertThat(r.store().jobSet("gpu", "run-1")).extracting(JobStore.StoredJob::id).containsExactlyElementsOf(ids);

        pass(r.manager());
        pass(r.manager());
        List<Job> copies = worker.jobs();
        assertThat(copies).hasSize(2);
        assertThat(copies.get(0).getSpec().getParallelism()).isEqualTo(2);
        String first = ids.get(0).substring(3);
        worker.client.batch().v1().jobs().inNamespace("ml").withName(first).edit(j -> new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder(j)
                .withStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder().withActive(2).build()).build()); // both pods of the gang run
        pass(r.manager());
        assertThat(r.manager().status("ml", first).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        pass(r.manager()); // the manager's next pass records the state the executor reported
        r.store().sync();

        JsonNode ev = events(r, ml, 0, 0);
        List<String> types = new ArrayList<>();
        ev.get("events").forEach(e -> types.add(e.get("jobId").asText().equals(ids.get(0)) ? e.get("type").asText() : ""));
        assertThat(types).containsSubsequence("SUBMITTED", "LEASED", "RUNNING");
        long next = ev.get("next").asLong();
        // resumable: nothing new after "next" (a 1 s wait returns empty)
        assertThat(events(r, ml, next, 1).get("events")).isEmpty();

        // the manager goes away; another starts on the same store and worker
        r.api().close();
        r.manager().close();
        r.store().close();
        open.clear();
        Running r2 = start();
        pass(r2.manager());
        pass(r2.manager());
        assertThat(r2.manager().storedJobs()).isEqualTo(3);
        assertThat(r2.manager().status("ml", first).orElseThrow().state()).as("the running copy is adopted").isIn(JobState.RUNNING, JobState.ADMITTED);
        assertThat(worker.jobs()).hasSize(2); // no second copy, the third still waits
        // the copy completes: recorded as SUCCEEDED, and the third job gets the room
        worker.complete("ml", first);
        pass(r2.manager());
        pass(r2.manager());
        pass(r2.manager());
        r2.store().sync();
        assertThat(r2.store().job(ids.get(0)).orElseThrow().state()).isEqualTo("SUCCEEDED");
        assertThat(worker.jobs()).extracting(j -> j.getMetadata().getName()).contains(ids.get(2).substring(3));
        assertThat(r2.store().events("gpu", "run-1", 0, 1000)).filteredOn(e -> e.jobId().equals(ids.get(0)))
                .extracting(JobStore.Event::type).containsSubsequence("SUBMITTED", "LEASED", "RUNNING", "SUCCEEDED");
    }

    @Test
    void onePassCopiesEveryJobTheRoundAdmittedNotAHundredAtATime() throws Exception {
        for (int n = 0; n < 3; n++) {
            worker.node("cpu-" + n, 0); // 3 x 96 CPUs
        }
        Running r = start();
        StringBuilder body = new StringBuilder("{\"queue\":\"gpu\",\"jobSetId\":\"wide\",\"jobs\":[");
        for (int i = 0; i < 250; i++) {
            body.append(i == 0 ? "" : ",").append("{\"namespace\":\"ml\",\"podSpec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\","
                    + "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
        }
        HttpResponse<String> res = post(r, "/api/v1/jobsets", token("alice", "ml"), body.append("]}").toString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
        pass(r.manager()); // the worker answers: the manager recovers (nothing) from here on
        pass(r.manager()); // one round admits all 250; the executor's pass copies them all
        assertThat(worker.jobs()).hasSize(250).allSatisfy(j -> assertThat(j.getMetadata().getAnnotations())
                .containsKey(MultiClusterManager.JOB_ID_ANNOTATION));
        pass(r.manager());
        assertThat(worker.jobs()).as("no second copy of any").hasSize(250);
    }

    @Test
    void aPassLongerThanTheGracePeriodDoesNotHaveItsWorkerDeclaredLostAndItsCopiesMadeAgain() throws Exception {
        // a worker whose API server takes 40 ms (on the manager's clock) for each create: one pass copying 250 jobs
        // takes 10 s, twice the 5 s grace period, while the worker answers every call
        java.util.concurrent.atomic.AtomicInteger creates = new java.util.concurrent.atomic.AtomicInteger();
        MockApi slow = new MockApi(new io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher() {
            @Override
            public io.fabric8.mockwebserver.http.MockResponse handleCreate(io.fabric8.mockwebserver.http.RecordedRequest request) {
                io.fabric8.mockwebserver.http.MockResponse res = super.handleCreate(request);
                if (res.code() / 100 == 2 && request.getPath().contains("/jobs")) {
                    now.addAndGet(40);
                    creates.incrementAndGet();
                }
                return res;
            }
        });
        open.add(slow);
        for (int n = 0; n < 3; n++) {
            slow.node("cpu-" + n, 0); // 3 x 96 CPUs
        }
        Running r = start(slow, Duration.ofSeconds(5));
        StringBuilder body = new StringBuilder("{\"queue\":\"gpu\",\"jobSetId\":\"slow\",\"jobs\":[");
        for (int i = 0; i < 250; i++) {
            body.append(i == 0 ? "" : ",").append("{\"namespace\":\"ml\",\"podSpec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\","
                    + "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
        }
        HttpResponse<String> res = post(r, "/api/v1/jobsets", token("alice", "ml"), body.append("]}").toString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
        long before = now.get();
        pass(r.manager());
        pass(r.manager()); // one executor pass copies all 250
        assertThat(creates.get()).isEqualTo(250);
        assertThat(now.get() - before).as("the pass outlasted the grace period").isGreaterThan(5_000);
        for (int i = 0; i < 3; i++) {
            pass(r.manager());
        }
        assertThat(r.manager().workers()).allMatch(WorkerExecutor::reachable);
        assertThat(slow.jobs()).as("every copy still there").hasSize(250);
        assertThat(creates.get()).as("each job copied once, none deleted and copied again")
                .isEqualTo(250);
    }

    @Test
    void tokensAndQueuePermissionsDecideWhoMayDoWhat() throws Exception {
        worker.node("gpu-1", 8);
        Running r = start();
        assertThat(post(r, "/api/v1/jobsets", null, jobSet(1, 1)).statusCode()).isEqualTo(401);
        assertThat(post(r, "/api/v1/jobsets", "not.a.jwt", jobSet(1, 1)).statusCode()).isEqualTo(401);
        String forged = token("mallory", "ml");
        forged = forged.substring(0, forged.lastIndexOf('.') + 1) + "AAAA" + forged.substring(forged.lastIndexOf('.') + 5);
        assertThat(post(r, "/api/v1/jobsets", forged, jobSet(1, 1)).statusCode()).isEqualTo(401);
        HttpResponse<String> viewer = post(r, "/api/v1/jobsets", token("viewer"), jobSet(1, 1));
        assertThat(viewer.statusCode()).isEqualTo(403);
        assertThat(viewer.body()).contains("viewer may not submit in queue gpu");
        assertThat(r.store().jobSet("gpu", "run-1")).isEmpty();

        HttpResponse<String> ok = post(r, "/api/v1/jobsets", token("alice", "ml"), jobSet(2, 1));
        assertThat(ok.statusCode()).isEqualTo(200);
        String id = JSON.readTree(ok.body()).get("jobIds").get(0).asText();
        // the viewer may watch but not cancel
        assertThat(events(r, token("viewer"), 0, 0).get("events")).hasSize(2);
        assertThat(post(r, "/api/v1/jobsets/cancel", token("viewer"), "{\"queue\":\"gpu\",\"jobSetId\":\"run-1\"}").statusCode()).isEqualTo(403);
        HttpResponse<String> re = post(r, "/api/v1/jobsets/reprioritize", token("bob", "ml"),
                "{\"queue\":\"gpu\",\"jobSetId\":\"run-1\",\"jobIds\":[\"" + id + "\"],\"priority\":5}");
        assertThat(re.statusCode()).as(re.body()).isEqualTo(200);
        HttpResponse<String> c = post(r, "/api/v1/jobsets/cancel", token("bob", "ml"), "{\"queue\":\"gpu\",\"jobSetId\":\"run-1\"}");
        assertThat(JSON.readTree(c.body()).get("jobIds")).hasSize(2);
        pass(r.manager());
        r.store().sync();
        assertThat(r.store().job(id).orElseThrow()).satisfies(j -> {
            assertThat(j.state()).isEqualTo("CANCELLED");
            assertThat(j.priority()).isEqualTo(5);
        });
        assertThat(r.manager().storedJobs()).isZero();
        assertThat(worker.jobs()).isEmpty();
    }

    @Test
    void aJobTheEngineWouldRefuseIsRefusedWithItsFieldAndNothingIsStored() throws Exception {
        Running r = start();
        String ml = token("alice", "ml");
        HttpResponse<String> noQueue = post(r, "/api/v1/jobsets", ml, jobSet(1, 1).replace("namespace: ml", "namespace: other"));
        assertThat(noQueue.statusCode()).isEqualTo(400);
        assertThat(noQueue.body()).contains("jobs[0]").contains("queue must be a LocalQueue of namespace other");
        HttpResponse<String> unknown = post(r, "/api/v1/jobsets", ml, jobSet(1, 1).replace("parallelism: 2", "paralelism: 2"));
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("jobs[0].paralelism");
        HttpResponse<String> noRequests = post(r, "/api/v1/jobsets", ml, jobSet(1, 1).replace("requests: {cpu: \"2\"}", "requests: {}")
                .replace("limits: {nvidia.com/gpu: \"1\"}", "limits: {}"));
        assertThat(noRequests.statusCode()).isEqualTo(400);
        assertThat(noRequests.body()).contains("requests no resources");
        assertThat(r.store().lastSeq()).isZero();
    }
}
