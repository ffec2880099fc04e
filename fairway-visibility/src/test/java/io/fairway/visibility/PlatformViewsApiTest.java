package io.fairway.visibility;

import static io.fairway.visibility.Fixture.error;
import static io.fairway.visibility.Fixture.get;
import static io.fairway.visibility.Fixture.items;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The views a platform team reads beyond one queue: every job (search, filters, sorting, paging), ResourceFlavors,
 * the overview, fairness, history, events paged back and filtered, and the whole scheduler's event stream.
 */
class PlatformViewsApiTest extends ServedFixture {
    @Override
    VisibilityServer.Builder configure(VisibilityServer.Builder builder) {
        return builder.history(8, Duration.ofSeconds(10));
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("items").forEach(i -> out.add(i.get("id").asText()));
        return out;
    }

    @Test
    void everyJobCanBeSearchedFilteredSortedAndPaged() throws Exception {
        // search by id (case-insensitive) or job set
        assertThat(ids(get(api + "/jobs?q=W0"))).containsExactly("w00", "w01", "w02", "w03", "w04", "w05", "w06", "w07", "w08", "w09");
        assertThat(ids(get(api + "/jobs?q=swe"))).containsExactly("gang", "borrower");
        // filters: several states at once, LocalQueue, namespace
        JsonNode holding = get(api + "/jobs?state=admitted,running,quota_reserved");
        assertThat(ids(holding)).containsExactlyInAnyOrder("gang", "borrower");
        assertThat(get(api + "/jobs?localQueue=team-a/batch").get("total").asInt()).isEqualTo(10);
        assertThat(get(api + "/jobs?namespace=team-b").get("total").asInt()).isZero();
        // counts by state come with the page, before the state filter: what the table's filter chips show
        JsonNode counts = get(api + "/jobs?q=w&state=running").get("counts");
        assertThat(counts.get("PENDING").asInt()).isEqualTo(30);
        // sorting by priority, highest first, ties in submission order; pages do not overlap
        List<String> expected = f.scheduler.jobs().all().stream()
                .sorted(Comparator.comparingInt((JobStatus j) -> j.spec().priority()).reversed().thenComparingLong(JobStatus::sequence))
                .map(JobStatus::id).toList();
        List<String> paged = new ArrayList<>();
        for (int offset = 0; offset < 32; offset += 7) {
            JsonNode p = get(api + "/jobs?sort=priority&order=desc&limit=7&offset=" + offset);
            assertThat(p.get("sort").asText()).isEqualTo("priority");
            assertThat(p.get("total").asInt()).isEqualTo(32);
            paged.addAll(ids(p));
        }
        assertThat(paged).isEqualTo(expected);
        assertThat(ids(get(api + "/jobs?sort=id&limit=2"))).containsExactly("borrower", "gang");
        assertThat(get(api + "/jobs?sort=gpus&order=desc&limit=1").get("items").get(0).get("gpus").asLong()).isEqualTo(8);
        assertThat(ids(get(api + "/jobs?sort=owner&limit=2"))).as("alice before bob").containsExactly("gang", "borrower");
    }

    @Test
    void flavorsShowTheirNodesGpusAndQuota() throws Exception {
        JsonNode h100 = items(api + "/flavors", 1).get(0);
        assertThat(h100.get("name").asText()).isEqualTo("h100");
        assertThat(h100.get("nodes").asInt()).isEqualTo(2);
        assertThat(h100.get("gpus").asLong()).isEqualTo(16);
        assertThat(h100.get("gpusUsed").asLong()).isEqualTo(12);
        JsonNode detail = get(api + "/flavors/h100");
        assertThat(detail.get("clusterQueues")).hasSize(3);
        assertThat(detail.get("clusterQueues").get(0).get("clusterQueue").asText()).isEqualTo("team-a");
        assertThat(detail.get("clusterQueues").get(0).get("used").asLong()).isEqualTo(12);
        assertThat(detail.get("jobIds").toString()).contains("gang").contains("borrower");
        assertThat(error("GET", api + "/flavors/none", null, 404).get("message").asText()).contains("none");
    }

    @Test
    void theOverviewCountsJobsByStateAndGpusByFlavorAndNvlinkDomain() throws Exception {
        JsonNode o = get(api + "/overview");
        assertThat(o.get("jobs").get("PENDING").asInt()).isEqualTo(30);
        assertThat(o.get("jobs").get("SUCCEEDED").asInt()).isZero();
        assertThat(o.get("jobsTotal").asInt()).isEqualTo(32);
        assertThat(o.get("gpus").get("total").asLong()).isEqualTo(16);
        assertThat(o.get("gpus").get("used").asLong()).isEqualTo(12);
        assertThat(o.get("gpus").get("free").asLong()).isEqualTo(4);
        JsonNode d = o.get("byNvlinkDomain").get(0);
        assertThat(d.get("gpusPerDomain").asInt()).isEqualTo(8);
        assertThat(d.get("kind").asText()).isEqualTo("NVSWITCH");
        assertThat(d.get("domains").asInt()).isEqualTo(2);
        assertThat(d.get("gpusUsed").asLong()).isEqualTo(12);
        assertThat(d.get("wholeDomainsFree").asInt()).as("the gang spans both nodes; the borrower sits on one").isZero();
    }

    @Test
    void fairnessComparesActualWithNominalAndWeightedShareAndGivesTheDominantResourceShare() throws Exception {
        JsonNode fair = get(api + "/fairness");
        JsonNode a = null;
        JsonNode b = null;
        for (JsonNode q : fair.get("clusterQueues")) {
            if (q.get("name").asText().equals("team-a")) {
                a = q;
            } else if (q.get("name").asText().equals("team-b")) {
                b = q;
            }
        }
        // team-a uses 12 of the cohort's 16 GPUs against a nominal 8: actual 0.75, nominal 0.5; team-b is idle.
        assertThat(a.get("dominantResource").asText()).isEqualTo("nvidia.com/gpu");
        assertThat(a.get("actualShare").asDouble()).isEqualTo(0.75);
        assertThat(a.get("nominalShare").asDouble()).isEqualTo(0.5);
        assertThat(a.get("weightedShare").asDouble()).as("the only queue with work").isEqualTo(1.0);
        // Kueue's dominant resource share: 4 GPUs above nominal over the 16 the cohort could lend, weight 1.
        assertThat(a.get("dominantResourceShare").asDouble()).isEqualTo(0.25);
        assertThat(b.get("active").asBoolean()).isFalse();
        assertThat(b.get("weightedShare").asDouble()).isZero();
        JsonNode research = fair.get("cohorts").get(0);
        assertThat(research.get("name").asText()).isEqualTo("research");
        assertThat(research.get("maxDominantResourceShare").asDouble()).isEqualTo(0.25);
        assertThat(fair.get("apps").isNull()).as("best-effort FIFO reports no apps").isTrue();
    }

    @Test
    void historyIsBoundedAndReachesBackToTheStart() throws Exception {
        // 40 points' worth of time in a history of 8: it thins itself and still starts near t = 1 s.
        for (int i = 0; i < 40; i++) {
            f.now += 10_000;
            f.scheduler.runRound();
            server.recordHistory(f.now);
        }
        JsonNode h = get(api + "/history");
        assertThat(h.get("timeMillis").size()).isLessThan(8).isGreaterThan(2);
        assertThat(h.get("timeMillis").get(0).asLong()).isLessThan(f.now / 4);
        assertThat(h.get("spacingMillis").asLong()).isGreaterThan(10_000);
        JsonNode team = get(api + "/history?clusterQueue=team-a").get("clusterQueues");
        assertThat(team).hasSize(1);
        JsonNode last = team.get(0).get("gpusUsed");
        assertThat(last.get(last.size() - 1).asLong()).isEqualTo(12);
        assertThat(team.get(0).get("pending").get(last.size() - 1).asLong()).isEqualTo(30);
        int admitted = 0;
        for (JsonNode n : h.get("admitted")) {
            admitted += n.asInt();
        }
        assertThat(admitted).as("every admission counted once, across thinning").isEqualTo(2);
    }

    @Test
    void eventsPageBackwardsAndFilterByType() throws Exception {
        JsonNode newest = get(api + "/events?limit=5");
        assertThat(newest.get("items")).hasSize(5);
        assertThat(newest.get("more").asBoolean()).isTrue();
        long first = newest.get("items").get(0).get("seq").asLong();
        JsonNode older = get(api + "/events?limit=5&before=" + first);
        assertThat(older.get("items").get(4).get("seq").asLong()).isEqualTo(first - 1);
        JsonNode admitted = get(api + "/events?type=admitted");
        assertThat(admitted.get("items")).hasSize(2).allSatisfy(e -> assertThat(e.get("type").asText()).isEqualTo("ADMITTED"));
        assertThat(admitted.get("more").asBoolean()).isFalse();
    }

    @Test
    void theEventStreamSendsEachNewEventAndStateChanges() throws Exception {
        HttpResponse<InputStream> r = Fixture.HTTP.send(HttpRequest.newBuilder(URI.create(api + "/events/watch")).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            assertThat(in.readLine()).isEqualTo("event: hello");
            in.readLine();
            f.scheduler.cancel("w05");
            String line;
            boolean sawCancel = false;
            while ((line = in.readLine()) != null && !sawCancel) {
                sawCancel = line.startsWith("data:") && line.contains("\"CANCELLED\"") && line.contains("w05");
            }
            assertThat(sawCancel).as("the cancellation arrives on the stream").isTrue();
        }
        assertThat(f.scheduler.status("w05").orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    }
}
