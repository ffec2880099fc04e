package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.suspended;
import static io.fairway.k8s.MockCluster.until;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The runnable controller against the mock API server: a kubeconfig, the configuration from a watched ConfigMap
 * (reloaded when it changes, an invalid one refused with an Event), leader election, the background loop, and
 * Prometheus metrics over HTTP.
 */
class ControllerTest {
    private final MockCluster cluster = new MockCluster();
    private FairwayController controller;
    private Thread thread;

    @AfterEach
    void stop() throws InterruptedException {
        if (controller != null) {
            controller.stop.countDown();
            thread.join(20_000);
        }
        cluster.close();
    }

    private static String queues(int cores) {
        return CedanaScenarioTest.QUEUES.replace("nominalQuota: 64", "nominalQuota: " + cores);
    }

    private void configMap(String yaml) {
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("fairway-queues").withNamespace("fairway-system").endMetadata()
                .addToData("queues.yaml", yaml).build();
        cluster.client.configMaps().inNamespace("fairway-system").resource(cm).createOr(c -> c.update());
    }

    @Test
    void runsFromAKubeconfigReloadsItsConfigMapAndServesMetrics(@TempDir Path dir) throws Exception {
        for (String n : List.of("node-a", "node-b", "node-c")) {
            cluster.node(n, 48, 192, 0, Map.of());
        }
        for (String j : List.of("job-1", "job-2", "job-3")) {
            cluster.createJob(cluster.jobBuilder("default", j, "user-queue", 1, "32", 0, true).build());
        }
        configMap(queues(32));
        Path kubeconfig = cluster.kubeconfig(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        controller = new FairwayController();
        String[] args = {"--kubeconfig", kubeconfig.toString(), "--config-map", "fairway-system/fairway-queues",
            "--lease-namespace", "fairway-system", "--identity", "controller-test", "--metrics-port", Integer.toString(port),
            "--interval-millis", "200"};
        thread = new Thread(() -> new CommandLine(controller).execute(args), "controller-under-test");
        thread.start();
        assertThat(controller.running.await(30, TimeUnit.SECONDS)).isTrue();

        until(() -> !suspended(cluster.job("default", "job-1")), "job-1 is admitted under 32 cores");
        until(() -> cluster.job("default", "job-2").getMetadata().getAnnotations() != null
                && cluster.job("default", "job-2").getMetadata().getAnnotations().get(Keys.PENDING_REASON_ANNOTATION) != null, "job-2 waits");
        assertThat(suspended(cluster.job("default", "job-2"))).isTrue();

        configMap(queues(64));
        until(() -> !suspended(cluster.job("default", "job-2")), "job-2 is admitted once the quota is raised to 64 cores");
        assertThat(suspended(cluster.job("default", "job-3"))).isTrue();

        configMap("clusterQueues: [{name: broken, resourceGroups: [{coveredResources: [cpu], flavors: [{name: nowhere, resources: []}]}]}]");
        until(() -> cluster.client.v1().events().inNamespace("fairway-system").list().getItems().stream()
                .anyMatch(e -> Keys.REASON_INVALID_CONFIG.equals(e.getReason())), "the invalid configuration is refused with an Event");
        Event refused = cluster.client.v1().events().inNamespace("fairway-system").list().getItems().stream()
                .filter(e -> Keys.REASON_INVALID_CONFIG.equals(e.getReason())).findFirst().orElseThrow();
        assertThat(refused.getInvolvedObject().getKind()).isEqualTo("ConfigMap");
        assertThat(refused.getMessage()).contains("nowhere");

        String metrics = get("http://localhost:" + port + "/metrics");
        assertThat(metrics).contains("fairway_pending_jobs{cluster_queue=\"cluster-queue\",local_queue=\"user-queue\",namespace=\"default\"} 1.0");
        assertThat(metrics).contains("fairway_admitted_jobs{cluster_queue=\"cluster-queue\"} 2.0");
        assertThat(metrics).contains("fairway_round_duration_seconds_count").contains("fairway_admission_wait_seconds_count 2");
        assertThat(metrics).contains("fairway_leader 1.0");
        assertThat(get("http://localhost:" + port + "/readyz")).isEqualTo("leader\n");
        assertThat(cluster.client.leases().inNamespace("fairway-system").withName("fairway-controller").get().getSpec().getHolderIdentity())
                .isEqualTo("controller-test");
    }

    /** The controller's {@code --ui-port}: the visibility API over the engine it runs, read-only. */
    @Test
    void servesTheEnginesQueuesAndPendingReasonsOnTheUiPort(@TempDir Path dir) throws Exception {
        for (String n : List.of("node-a", "node-b")) {
            cluster.node(n, 48, 192, 0, Map.of());
        }
        for (String j : List.of("job-1", "job-2")) {
            cluster.createJob(cluster.jobBuilder("default", j, "user-queue", 1, "32", 0, true).build());
        }
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("fairway-queues").withNamespace("fairway-system").endMetadata()
                .addToData("queues.yaml", CedanaScenarioTest.QUEUES.replace("nominalQuota: 64", "nominalQuota: 32")).build();
        cluster.client.configMaps().inNamespace("fairway-system").resource(cm).create();
        Path kubeconfig = cluster.kubeconfig(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        controller = new FairwayController();
        String[] args = {"--kubeconfig", kubeconfig.toString(), "--config-map", "fairway-system/fairway-queues", "--no-leader-elect",
            "--metrics-port", "0", "--ui-port", Integer.toString(port), "--interval-millis", "200"};
        thread = new Thread(() -> new CommandLine(controller).execute(args), "controller-under-test");
        thread.start();
        assertThat(controller.running.await(30, TimeUnit.SECONDS)).isTrue();
        until(() -> !suspended(cluster.job("default", "job-1")), "job-1 is admitted under 32 cores");

        String api = "http://127.0.0.1:" + port + "/api/v1";
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        JsonNode info = json.readTree(http.send(HttpRequest.newBuilder(URI.create(api)).build(), HttpResponse.BodyHandlers.ofString()).body());
        assertThat(info.get("mode").asText()).isEqualTo("controller");
        assertThat(info.get("writes").asBoolean()).isFalse();
        JsonNode page = json.readTree(http.send(HttpRequest.newBuilder(URI.create(api + "/clusterqueues/cluster-queue/pending")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertThat(page.get("total").asInt()).isEqualTo(1);
        JsonNode pending = page.get("items").get(0);
        assertThat(pending.get("reason").get("code").asText()).isEqualTo("QUOTA");
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(api + "/jobs/" + java.net.URLEncoder.encode(pending.get("id").asText(), java.nio.charset.StandardCharsets.UTF_8) + "/cancel"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(suspended(cluster.job("default", "job-2"))).isTrue();
    }

    @Test
    void refusesAMissingConfiguration() {
        assertThat(new CommandLine(new FairwayController()).execute("--no-leader-elect")).isNotZero();
        assertThat(FairwayController.usage()).contains("--config-map").contains("--kubeconfig").contains("--namespace");
    }

    private static String get(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }
}
