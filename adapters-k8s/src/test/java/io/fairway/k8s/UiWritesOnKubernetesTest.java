package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fairway.visibility.VisibilityServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The visibility API's writes under the controller ({@code --ui-write}) act on the Kubernetes objects, on the
 * rule-enforcing test API server: cancel deletes the Job, priority labels it, stop-queue and resume-queue set the
 * ClusterQueue's stopPolicy in the configuration ConfigMap, and the engine follows each at its next reconcile. Each
 * needs the token and is audited; every request the writes make is allowed by {@code deploy/rbac.yaml} with
 * {@code deploy/ui-writes-rbac.yaml}, and every verb the latter grants is used.
 */
class UiWritesOnKubernetesTest {
    private static final String TOKEN = "ui-write-token-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final MockCluster cluster = new MockCluster();
    private final Set<RbacTest.Access> accesses = ConcurrentHashMap.newKeySet();
    private FairwayAdapter adapter;
    private VisibilityServer api;

    @AfterEach
    void stop() {
        if (api != null) {
            api.close();
        }
        if (adapter != null) {
            adapter.close();
        }
        cluster.close();
    }

    private HttpResponse<String> post(String path, String token) throws Exception {
        java.net.http.HttpRequest.Builder r = java.net.http.HttpRequest.newBuilder(URI.create(api.url() + "api/v1" + path))
                .timeout(Duration.ofSeconds(20)).POST(java.net.http.HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> r = HTTP.send(java.net.http.HttpRequest.newBuilder(URI.create(api.url() + "api/v1" + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private String idOf(String name) throws Exception {
        for (JsonNode j : get("/jobs?q=" + name).get("items")) {
            if (j.get("jobSet").asText().equals(name)) {
                // a path segment: the adapter's ids hold a '/'
                return java.net.URLEncoder.encode(j.get("id").asText(), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no job " + name);
    }

    @Test
    void writesActOnTheObjectsBehindTheTokenTheAuditAndTheRbac() throws Exception {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general"));
        cluster.client.configMaps().inNamespace("fairway-system").resource(new ConfigMapBuilder().withNewMetadata().withName("fairway-queues")
                .endMetadata().addToData("queues.yaml", JobLifecycleTest.PREEMPTING).build()).create();
        KubernetesClient audited = cluster.server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("audit",
                new Interceptor() {
                    @Override
                    public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
                        accesses.add(RbacTest.access(request));
                    }
                })));
        adapter = new FairwayAdapter(audited, AdapterOptions.builder().configMap("fairway-system", "fairway-queues", null).build(), null).start();
        api = VisibilityServer.builder(adapter::scheduler).port(0).mode("controller").writes(TOKEN, s -> adapter.operatorWrites()).build();
        cluster.createJob(cluster.jobBuilder("default", "first", "q", 1, "16", 0, true).build());
        cluster.createJob(cluster.jobBuilder("default", "second", "q", 1, "16", 0, true).build());
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "first")), "first is admitted");
        String first = idOf("first");
        String second = idOf("second");

        // Without the token nothing is written.
        accesses.clear();
        HttpResponse<String> refused = post("/jobs/" + first + "/cancel", null);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
        assertThat(cluster.job("default", "first")).isNotNull();

        // cancel: the Job is deleted; the engine forgets it at its next reconcile.
        assertThat(post("/jobs/" + first + "/cancel", TOKEN).statusCode()).isEqualTo(200);
        assertThat(cluster.job("default", "first")).as("the Job object is deleted").isNull();
        reconcileUntil(adapter, () -> adapter.status("default", "first").isEmpty(), "the cancelled job is forgotten");

        // priority: the label lowers second's priority (no PriorityClass: 0 is its ceiling).
        assertThat(post("/jobs/" + second + "/priority?value=-5", TOKEN).statusCode()).isEqualTo(200);
        assertThat(cluster.job("default", "second").getMetadata().getLabels()).containsEntry(Keys.PRIORITY_LABEL, "-5");
        String secondId = java.net.URLDecoder.decode(second, java.nio.charset.StandardCharsets.UTF_8);
        reconcileUntil(adapter, () -> adapter.scheduler().status(secondId).map(j -> j.spec().priority() == -5).orElse(false),
                "the engine reads the new priority");

        // stop-queue and resume-queue: the ConfigMap's ClusterQueue, then the engine.
        String cq = get("/jobs/" + second).get("clusterQueue").asText();
        assertThat(post("/clusterqueues/" + cq + "/stop", TOKEN).statusCode()).isEqualTo(200);
        assertThat(configYaml()).contains("stopPolicy: \"Hold\"");
        reconcileUntil(adapter, () -> adapter.scheduler().snapshot().clusterQueues().get(cq).stopped(), "the engine sees the queue stopped");
        assertThat(post("/clusterqueues/" + cq + "/resume", TOKEN).statusCode()).isEqualTo(200);
        assertThat(configYaml()).doesNotContain("stopPolicy");
        reconcileUntil(adapter, () -> !adapter.scheduler().snapshot().clusterQueues().get(cq).stopped(), "the engine sees it resumed");

        // Audited, in the events ring (and on the audit logger).
        List<String> audits = new ArrayList<>();
        get("/events?type=AUDIT&limit=1000").get("items").forEach(e -> audits.add(e.get("reason").asText()));
        String firstId = java.net.URLDecoder.decode(first, java.nio.charset.StandardCharsets.UTF_8);
        assertThat(audits).containsExactly("cancel " + firstId, "priority=-5 " + secondId, "stop " + cq, "resume " + cq);

        // RBAC: every request allowed by the two files; every verb of ui-writes-rbac.yaml used by the writes.
        List<RbacTest.Rule> writesRules = RbacTest.rules(Path.of("..", "deploy", "ui-writes-rbac.yaml"), Map.of());
        List<RbacTest.Rule> all = new ArrayList<>(RbacTest.rules());
        all.addAll(writesRules);
        List<String> denied = new ArrayList<>();
        for (RbacTest.Access a : accesses) {
            if (all.stream().noneMatch(r -> r.allows(a))) {
                denied.add(a.toString());
            }
        }
        assertThat(denied).as("requests no RBAC rule allows").isEmpty();
        Set<String> granted = new TreeSet<>();
        writesRules.forEach(r -> r.groups().forEach(g -> r.resources().forEach(res -> r.verbs().forEach(v ->
                granted.add((g.isEmpty() ? "core" : g) + "/" + res + ":" + v)))));
        Set<String> used = new TreeSet<>();
        accesses.forEach(a -> used.add(a.rule()));
        assertThat(used).as("ui-writes-rbac.yaml grants only what the writes use").containsAll(granted);
    }

    private String configYaml() {
        return cluster.client.configMaps().inNamespace("fairway-system").withName("fairway-queues").get().getData().get("queues.yaml");
    }
}
