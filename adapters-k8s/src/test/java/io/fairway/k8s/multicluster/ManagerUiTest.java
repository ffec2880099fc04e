package io.fairway.k8s.multicluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.config.QueuesConfig;
import io.fairway.k8s.UiOptions;
import io.fairway.visibility.VisibilityServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The multi-cluster manager's {@code --ui-port}: its own view (its scheduler over the worker clusters), read-only. */
class ManagerUiTest {
    private static final String QUEUES = """
            flavors: [{name: h100}]
            clusterQueues:
              - name: research
                resourceGroups:
                  - coveredResources: [cpu, nvidia.com/gpu]
                    flavors: [{name: h100, resources: [{name: cpu, nominalQuota: 64}, {name: nvidia.com/gpu, nominalQuota: 8}]}]
            localQueues: [{name: gpu, namespace: ml, clusterQueue: research}]
            """;

    @Test
    void servesWhereTheManagerPlacedAJobAndWhyAnotherWaits() throws Exception {
        MockApi manager = new MockApi();
        MockApi worker = new MockApi();
        worker.node("gpu-1", 8);
        MultiClusterManager m = new MultiClusterManager(manager.client, Map.of("eu", worker.client), QueuesConfig.parse("test", QUEUES),
                () -> 1_000_000L, new MultiClusterManager.Settings(Duration.ofSeconds(60), Duration.ofSeconds(10), null, "ui-test"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (VisibilityServer api = UiOptions.of(port, "127.0.0.1").start(m::scheduler, "manager")) {
            manager.submit("ml", "train", "gpu", 8, false);
            manager.submit("ml", "second", "gpu", 8, false);
            m.reconcileOnce();
            HttpClient http = HttpClient.newHttpClient();
            ObjectMapper json = new ObjectMapper();
            String base = "http://127.0.0.1:" + port + "/api/v1";
            JsonNode info = json.readTree(http.send(HttpRequest.newBuilder(URI.create(base)).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(info.get("mode").asText()).isEqualTo("manager");
            JsonNode running = json.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/running")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertThat(running.get("total").asInt()).isEqualTo(1);
            assertThat(running.get("items").get(0).get("placement").get("members").get(0).get("gpus")).hasSize(8);
            JsonNode pending = json.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/clusterqueues/research/pending")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertThat(pending.get("total").asInt()).isEqualTo(1);
            assertThat(pending.get("items").get(0).get("reason").get("message").asText()).isNotBlank();
        } finally {
            m.close();
            worker.close();
            manager.close();
        }
    }
}
