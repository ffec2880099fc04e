package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the tests and the load driver that run a multi-cluster manager share: its queues and permissions (YAML), the
 * kubeconfigs of its mock clusters, a client's token, the worker's record of the copies made in it, and — for a
 * manager run as a process of its own — waiting for its API, reading its store's LEASED events and waiting until
 * every acknowledged job was dispatched.
 */
final class ManagerRuns {
    /** The line a manager logs when its submission API listens, with the API's URL. */
    private static final Pattern API = Pattern.compile("submission API on (http://\\S+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ManagerRuns() {
    }

    /**
     * @param cpuQuota the cores of the one ClusterQueue {@code all} (flavor {@code default}, policy best-effort FIFO)
     * @param localQueues the LocalQueues of namespace {@code ml}, all feeding {@code all}
     * @return the queues' YAML
     */
    static String queues(long cpuQuota, List<String> localQueues) {
        StringBuilder b = new StringBuilder("""
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
                              - {name: cpu, nominalQuota: %d}
                localQueues:
                """.formatted(cpuQuota));
        for (String q : localQueues) {
            b.append("  - {name: ").append(q).append(", namespace: ml, clusterQueue: all}\n");
        }
        return b.toString();
    }

    /**
     * @param queues the queues
     * @param verbs what group {@code ml} may do on each, e.g. {@code submit, watch}
     * @return the permissions' YAML
     */
    static String permissions(List<String> queues, String verbs) {
        StringBuilder b = new StringBuilder("queues:\n");
        for (String q : queues) {
            b.append("  - name: ").append(q).append("\n    permissions:\n      - subjects: [{kind: Group, name: ml}]\n        verbs: [")
                    .append(verbs).append("]\n");
        }
        return b.toString();
    }

    /** The files a manager process is started with: one queue {@code batch}, group {@code ml} allowed all on it, the JWT key. */
    record ProcessFiles(Path queues, Path permissions, Path key) {
        static ProcessFiles write(Path dir, String secret) throws IOException {
            return new ProcessFiles(Files.writeString(dir.resolve("queues.yaml"), ManagerRuns.queues(100_000, List.of("batch"))),
                    Files.writeString(dir.resolve("permissions.yaml"), ManagerRuns.permissions(List.of("batch"), "submit, cancel, reprioritize, watch")),
                    Files.writeString(dir.resolve("jwt.key"), secret));
        }
    }

    /** The kubeconfigs of a manager process's cluster and of its one worker. */
    record Kubeconfigs(Path manager, Path worker) {
        /** Gives the worker {@code nodes} nodes without GPUs and writes both kubeconfigs into {@code dir}. */
        static Kubeconfigs write(Path dir, MockApi manager, MockApi worker, int nodes) throws IOException {
            for (int n = 0; n < nodes; n++) {
                worker.node("node-" + n, 0);
            }
            return new Kubeconfigs(kubeconfig(dir, manager, "manager"), kubeconfig(dir, worker, "worker"));
        }
    }

    /** @return a kubeconfig {@code name.kubeconfig} in {@code dir} for this mock cluster, namespace {@code ml} */
    static Path kubeconfig(Path dir, MockApi api, String name) throws IOException {
        return Files.writeString(dir.resolve(name + ".kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "%s"}}]
                users: [{name: u, user: {token: test}}]
                contexts: [{name: c, context: {cluster: c, user: u, namespace: ml}}]
                current-context: c
                """.formatted(api.url()));
    }

    /** @return a token for {@code subject} in group {@code ml}, signed with {@code secret} (HS256), valid for an hour */
    static String token(byte[] secret, String subject) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject(subject).claim("groups", List.of("ml"))
                .expirationTime(new Date(System.currentTimeMillis() + 3_600_000)).build());
        jwt.sign(new MACSigner(secret));
        return jwt.serialize();
    }

    /** A worker's API server that tells each successful create of a copy (a Job), by the engine's job id. */
    abstract static class CopyWatch extends KubernetesCrudDispatcher {
        /** @param jobId the engine's id of the job a copy was just created for */
        abstract void copied(String jobId);

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            String body = request.getBody() == null ? "" : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
            MockResponse r = super.handleCreate(request);
            if (r.code() / 100 == 2 && request.getPath().contains("/jobs")) {
                try {
                    String id = JSON.readTree(body).path("metadata").path("annotations").path(MultiClusterManager.JOB_ID_ANNOTATION).asText("");
                    if (!id.isEmpty()) {
                        copied(id);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            return r;
        }
    }

    /** @return the jobs copied more than once, with how many times */
    static Map<String, Integer> copiedTwice(Map<String, Integer> creates) {
        Map<String, Integer> twice = new TreeMap<>();
        creates.forEach((id, n) -> {
            if (n > 1) {
                twice.put(id, n);
            }
        });
        return twice;
    }

    /**
     * @param who the process, in words (the manager, the replica)
     * @return the URL of the submission API the process logs, once it does
     * @throws AssertionError when the process exits or does not start its API in {@code seconds}
     */
    static String awaitApi(Process p, Path log, int seconds, String who) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String out = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            Matcher m = API.matcher(out);
            if (m.find()) {
                return m.group(1);
            }
            if (!p.isAlive()) {
                throw new AssertionError(who + " exited: " + out);
            }
            Thread.sleep(100);
        }
        throw new AssertionError(who + " did not start its API in " + seconds + " s: " + Files.readString(log, StandardCharsets.UTF_8));
    }

    /** @return the jobs with a LEASED event in the store at this JDBC URL */
    static Set<String> leased(String jdbcUrl) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT DISTINCT job_id FROM events WHERE type = 'LEASED'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /**
     * Waits until every acknowledged job has a copy in the worker and its LEASED event in the store (read beside the
     * running manager at {@code jdbcUrl}), or no copy came for {@code quietSeconds} (at most 120 s).
     */
    static void awaitDispatched(MockApi worker, Set<String> acked, String jdbcUrl, int quietSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int seen = -1;
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Set<String> names = new HashSet<>();
            worker.jobs().forEach(j -> names.add(j.getMetadata().getNamespace() + "/" + j.getMetadata().getName()));
            if (names.containsAll(acked) && leased(jdbcUrl).containsAll(acked)) {
                return;
            }
            if (names.size() != seen) {
                seen = names.size();
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(quietSeconds)) {
                return;
            }
            Thread.sleep(250);
        }
    }

    /** @return the start of a command that runs a class of the test class path in a small JVM, with these JVM options */
    static List<String> java(String heap, List<String> options) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx" + heap,
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
        return cmd;
    }
}
