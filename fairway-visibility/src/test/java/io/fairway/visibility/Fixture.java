package io.fairway.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An embedded scheduler for the API's tests: cohort "research" with team-a and team-b (8 H100 each), team-c alone;
 * two NVSwitch nodes. team-a runs a 2 x 4-GPU gang (job set "sweep") and a 4-GPU job borrowing from team-b; 30 more
 * jobs of team-a wait at three priorities, in two LocalQueues.
 */
final class Fixture {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    long now = 1_000;
    final Scheduler scheduler;

    Fixture() {
        Resources gpus8 = Resources.builder().gpus(8).build();
        scheduler = Scheduler.builder()
                .clock(() -> now)
                .flavor(ResourceFlavor.of("h100"))
                .cohort(Cohort.of("research", null))
                .clusterQueue(ClusterQueue.builder("team-a").cohort("research").quota("h100", gpus8).build())
                .clusterQueue(ClusterQueue.builder("team-b").cohort("research").quota("h100", gpus8).build())
                .clusterQueue(ClusterQueue.builder("team-c").quota("h100", gpus8).build())
                .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
                .localQueue(new LocalQueue("team-a", "batch", "team-a"))
                .localQueue(new LocalQueue("team-b", "gpu", "team-b"))
                .node(Node.builder("n1").capacity(Resources.builder().cpu(96).gpus(8).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("n2").capacity(Resources.builder().cpu(96).gpus(8).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
    }

    /** Submits the jobs and runs a round. */
    Fixture populated() {
        List<JobSpec> jobs = new ArrayList<>();
        jobs.add(job("gang", "gpu", 0, 2, 4).jobSet("sweep").owner("alice").build());
        jobs.add(job("borrower", "gpu", 0, 1, 4).jobSet("sweep").owner("alice").build());
        scheduler.submitAll(jobs);
        scheduler.runRound();
        jobs.clear();
        for (int i = 0; i < 30; i++) {
            now += 10;
            jobs.add(job(String.format("w%02d", i), i % 3 == 0 ? "batch" : "gpu", (i % 5) * 10, 1, 8).owner("bob").submitTimeMillis(now).build());
        }
        scheduler.submitAll(jobs);
        scheduler.runRound();
        return this;
    }

    static JobSpec.Builder job(String id, String lq, int priority, int members, int gpus) {
        return JobSpec.builder(id).namespace("team-a").queue(lq).priority(priority).members(members, Resources.builder().gpus(gpus).build());
    }

    static HttpResponse<String> send(String method, String url, String token) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode get(String url) throws Exception {
        HttpResponse<String> r = send("GET", url, null);
        assertThat(r.statusCode()).as(url + " -> " + r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/json; charset=utf-8");
        return JSON.readTree(r.body());
    }

    /**
     * @return the items of the list at {@code url}, after checking that it holds {@code count} items, all of them
     *     (a paged list's {@code total} says the same)
     */
    static JsonNode items(String url, int count) throws Exception {
        JsonNode list = get(url);
        assertThat(list.get("items")).as(url).hasSize(count);
        if (list.has("total")) {
            assertThat(list.get("total").asInt()).as(url).isEqualTo(count);
        }
        return list.get("items");
    }

    /** @return the error body, after checking the status */
    static JsonNode error(String method, String url, String token, int status) throws Exception {
        HttpResponse<String> r = send(method, url, token);
        assertThat(r.statusCode()).as(method + " " + url + " -> " + r.body()).isEqualTo(status);
        JsonNode e = JSON.readTree(r.body());
        assertThat(e.get("status").asInt()).isEqualTo(status);
        assertThat(e.get("message").asText()).isNotBlank();
        return e;
    }

    /**
     * Checks that each GET of {@code api} + a case's path is refused with 400 and an error naming the parameter and
     * its value.
     *
     * @param cases each {path, parameter, value}
     */
    static void assertBadParameters(String api, String[][] cases) throws Exception {
        for (String[] c : cases) {
            JsonNode e = error("GET", api + c[0], null, 400);
            assertThat(e.get("parameter").asText()).as(c[0]).isEqualTo(c[1]);
            assertThat(e.get("value").asText()).as(c[0]).isEqualTo(c[2]);
            assertThat(e.get("message").asText()).as(c[0]).contains(c[1]);
        }
    }
}
