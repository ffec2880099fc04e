package io.fairway.visibility;

import static io.fairway.visibility.Fixture.assertBadParameters;
import static io.fairway.visibility.Fixture.error;
import static io.fairway.visibility.Fixture.get;
import static io.fairway.visibility.Fixture.items;
import static io.fairway.visibility.Fixture.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.core.SchedulerState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every read path against an embedded scheduler: the answers the schema documents, equal to the engine's own. */
class VisibilityApiContractTest extends ServedFixture {

    @Test
    void infoNamesTheVersionModeAndCounts() throws Exception {
        JsonNode i = get(api);
        assertThat(i.get("version").asText()).isEqualTo("v1");
        assertThat(i.get("mode").asText()).isEqualTo("embedded");
        assertThat(i.get("writes").asBoolean()).isFalse();
        assertThat(i.get("pending").asInt()).isEqualTo(30);
        assertThat(i.get("holding").asInt()).isEqualTo(2);
        assertThat(i.get("round").asLong()).isEqualTo(f.scheduler.round());
    }

    @Test
    void clusterQueuesShowUsageAgainstNominalWithBorrowing() throws Exception {
        JsonNode items = items(api + "/clusterqueues", 3);
        JsonNode a = items.get(0);
        assertThat(a.get("name").asText()).isEqualTo("team-a");
        assertThat(a.get("pending").asInt()).isEqualTo(30);
        assertThat(a.get("holding").asInt()).isEqualTo(2);
        JsonNode gpu = row(a, "nvidia.com/gpu");
        assertThat(gpu.get("flavor").asText()).isEqualTo("h100");
        assertThat(gpu.get("nominal").asLong()).isEqualTo(8);
        assertThat(gpu.get("used").asLong()).isEqualTo(12);
        assertThat(gpu.get("borrowed").asLong()).isEqualTo(4);
        assertThat(gpu.get("borrowingLimit").isNull()).isTrue();
        JsonNode b = row(items.get(1), "nvidia.com/gpu");
        assertThat(b.get("used").asLong()).isZero();
        assertThat(b.get("lendable").asLong()).isEqualTo(8);
        assertThat(row(items.get(2), "nvidia.com/gpu").get("lendable").asLong()).as("no cohort: nothing to lend to").isZero();

        JsonNode detail = get(api + "/clusterqueues/team-a");
        assertThat(detail.get("localQueues")).hasSize(2);
        assertThat(detail.get("resources")).isEqualTo(a.get("resources"));
    }

    private static JsonNode row(JsonNode queue, String resource) {
        for (JsonNode r : queue.get("resources")) {
            if (r.get("resource").asText().equals(resource)) {
                return r;
            }
        }
        throw new AssertionError("no row for " + resource + " in " + queue);
    }

    @Test
    void cohortsSumTheirMembers() throws Exception {
        JsonNode c = get(api + "/cohorts").get("items").get(0);
        assertThat(c.get("name").asText()).isEqualTo("research");
        assertThat(c.get("clusterQueues").toString()).isEqualTo("[\"team-a\",\"team-b\"]");
        JsonNode gpu = row(c, "nvidia.com/gpu");
        assertThat(gpu.get("nominal").asLong()).isEqualTo(16);
        assertThat(gpu.get("used").asLong()).isEqualTo(12);
        assertThat(gpu.get("borrowed").asLong()).isEqualTo(4);
    }

    @Test
    void localQueuesCountTheirJobs() throws Exception {
        JsonNode items = items(api + "/localqueues", 3);
        assertThat(items.get(0).get("name").asText()).isEqualTo("batch");
        assertThat(items.get(0).get("pending").asInt()).isEqualTo(10);
        assertThat(items.get(1).get("pending").asInt()).isEqualTo(20);
        assertThat(items.get(1).get("holding").asInt()).isEqualTo(2);
    }

    @Test
    void pendingPagesFollowTheEnginesOrderWithPositionsAndReasons() throws Exception {
        List<String> viaApi = new ArrayList<>();
        int[] offsets = {0, 7, 14, 21, 28};
        for (int off : offsets) {
            JsonNode page = get(api + "/clusterqueues/team-a/pending?offset=" + off + "&limit=7");
            assertThat(page.get("total").asInt()).isEqualTo(30);
            assertThat(page.get("offset").asInt()).isEqualTo(off);
            assertThat(page.get("items")).hasSize(Math.min(7, 30 - off));
            int pos = off;
            for (JsonNode item : page.get("items")) {
                String id = item.get("id").asText();
                assertThat(item.get("position").asInt()).isEqualTo(++pos);
                var e = f.scheduler.jobs().explain(id).orElseThrow();
                assertThat(item.get("position").asInt()).as(id).isEqualTo(e.jobsAhead() + 1);
                assertThat(item.get("reason").get("code").asText()).isEqualTo(e.reason().code().name());
                assertThat(item.get("reason").get("message").asText()).isEqualTo(e.reason().message());
                viaApi.add(id);
            }
        }
        List<String> engine = f.scheduler.jobs().pending().stream().sorted(JobOrder.PRIORITY).map(JobStatus::id).toList();
        assertThat(viaApi).containsExactlyElementsOf(engine);
        assertThat(get(api + "/clusterqueues/team-a/pending?offset=30").get("items")).isEmpty();
        assertThat(get(api + "/clusterqueues/team-b/pending").get("total").asInt()).isZero();
    }

    @Test
    void localQueuePagesGiveBothPositions() throws Exception {
        int pos = 0;
        for (JsonNode item : items(api + "/localqueues/team-a/batch/pending?limit=100", 10)) {
            assertThat(item.get("position").asInt()).isEqualTo(++pos);
            var e = f.scheduler.jobs().explain(item.get("id").asText()).orElseThrow();
            assertThat(item.get("positionInClusterQueue").asInt()).isEqualTo(e.jobsAhead() + 1);
        }
    }

    @Test
    void runningJobsCarryTheirPlacementDownToGpus() throws Exception {
        JsonNode gang = items(api + "/running", 2).get(0);
        assertThat(gang.get("id").asText()).isEqualTo("gang");
        JsonNode members = gang.get("placement").get("members");
        assertThat(members).hasSize(2);
        var admitted = f.scheduler.status("gang").orElseThrow().admission().placement().members();
        for (int i = 0; i < 2; i++) {
            assertThat(members.get(i).get("node").asText()).isEqualTo(admitted.get(i).node());
            List<Integer> gpus = new ArrayList<>();
            members.get(i).get("gpus").forEach(g -> gpus.add(g.asInt()));
            assertThat(gpus).isEqualTo(admitted.get(i).gpus());
        }
        String node = members.get(0).get("node").asText();
        assertThat(get(api + "/running?node=" + node).get("total").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(get(api + "/running?clusterQueue=team-b").get("total").asInt()).isZero();
    }

    @Test
    void aJobInFullWithHistoryPodSetsAndReason() throws Exception {
        JsonNode gang = get(api + "/jobs/gang");
        assertThat(gang.get("state").asText()).isEqualTo("ADMITTED");
        assertThat(gang.get("jobSet").asText()).isEqualTo("sweep");
        assertThat(gang.get("reason").isNull()).isTrue();
        assertThat(gang.get("podSets").get(0).get("count").asInt()).isEqualTo(2);
        assertThat(gang.get("podSets").get(0).get("resources").get("nvidia.com/gpu").asLong()).isEqualTo(4);
        List<String> types = new ArrayList<>();
        gang.get("history").forEach(h -> types.add(h.get("type").asText()));
        assertThat(types).containsExactly("SUBMITTED", "ADMITTED");

        String first = get(api + "/clusterqueues/team-a/pending?limit=1").get("items").get(0).get("id").asText();
        JsonNode p = get(api + "/jobs/" + first);
        assertThat(p.get("state").asText()).isEqualTo("PENDING");
        assertThat(p.get("position").asInt()).isEqualTo(1);
        assertThat(p.get("reason").get("message").asText()).isEqualTo(f.scheduler.jobs().explain(first).orElseThrow().reason().message());
        assertThat(p.get("placement").isNull()).isTrue();
    }

    @Test
    void jobsListFiltersAndPages() throws Exception {
        assertThat(get(api + "/jobs").get("total").asInt()).isEqualTo(32);
        assertThat(get(api + "/jobs?state=pending").get("total").asInt()).isEqualTo(30);
        assertThat(get(api + "/jobs?jobSet=sweep").get("total").asInt()).isEqualTo(2);
        assertThat(get(api + "/jobs?clusterQueue=team-a&offset=30&limit=5").get("items")).hasSize(2);
    }

    @Test
    void nodesShowGpusTheirHoldersAndNvlinkDomains() throws Exception {
        int used = 0;
        for (JsonNode n : items(api + "/nodes", 2)) {
            used += n.get("gpusUsed").asInt();
        }
        assertThat(used).isEqualTo(12);
        var m = f.scheduler.status("gang").orElseThrow().admission().placement().members().get(0);
        JsonNode n = get(api + "/nodes/" + m.node());
        assertThat(n.get("nvlinkDomains")).hasSize(1);
        assertThat(n.get("nvlinkDomains").get(0)).hasSize(8);
        assertThat(n.get("links").get(0).get("kind").asText()).isEqualTo("NVSWITCH");
        for (int g : m.gpus()) {
            JsonNode gpu = n.get("gpus").get(g);
            assertThat(gpu.get("index").asInt()).isEqualTo(g);
            assertThat(gpu.get("job").asText()).isEqualTo("gang");
            assertThat(gpu.get("member").asInt()).isEqualTo(m.index());
        }
        assertThat(n.get("allocated").get("nvidia.com/gpu").asLong()).isEqualTo(
                f.scheduler.snapshot().holding().stream().flatMap(j -> j.admission().placement().members().stream())
                        .filter(x -> x.node().equals(m.node())).mapToLong(x -> x.gpus().size()).sum());
    }

    @Test
    void eventsPageForwardFromASequenceNumber() throws Exception {
        JsonNode all = get(api + "/events?limit=1000");
        int n = all.get("items").size();
        assertThat(n).isGreaterThan(32); // 32 submissions, 2 admissions
        long third = all.get("items").get(2).get("seq").asLong();
        JsonNode after = get(api + "/events?after=" + third + "&limit=5");
        assertThat(after.get("items")).hasSize(5);
        assertThat(after.get("items").get(0).get("seq").asLong()).isEqualTo(third + 1);
        assertThat(get(api + "/events?job=gang").get("items")).hasSize(2);
        assertThat(get(api + "/events?jobSet=sweep&limit=1000").get("items")).hasSize(4);
    }

    @Test
    void jobSetsCountTheirJobsStates() throws Exception {
        JsonNode s = get(api + "/jobsets/sweep");
        assertThat(s.get("done").asBoolean()).isFalse();
        assertThat(s.get("counts").get("ADMITTED").asInt()).isEqualTo(2);
        error("GET", api + "/jobsets/nope", null, 404);
    }

    @Test
    void badParametersAre400NamingTheParameterAndTheValue() throws Exception {
        String[][] cases = {
            {"/jobs?sort=size", "sort", "size"},
            {"/jobs?order=up", "order", "up"},
            {"/jobs?state=pending,sleeping", "state", "pending,sleeping"},
            {"/jobs?limit=1001", "limit", "1001"},
            {"/jobs?q=", "q", ""},
            {"/jobs?queue=team-a", "queue", "team-a"},
            {"/events?type=EXPLODED", "type", "EXPLODED"},
            {"/events?after=1&before=5", "before", "5"},
            {"/clusterqueues/team-a/pending?limit=0", "limit", "0"},
            {"/clusterqueues/team-a/pending?limit=abc", "limit", "abc"},
            {"/clusterqueues/team-a/pending?limit=1001", "limit", "1001"},
            {"/clusterqueues/team-a/pending?offset=-1", "offset", "-1"},
            {"/jobs?state=SLEEPING", "state", "SLEEPING"},
            {"/events?after=x", "after", "x"},
            {"/nodes?colour=red", "colour", "red"},
            {"/jobs?jobSet=", "jobSet", ""},
            {"/jobs?jobSet=" + "x".repeat(300), "jobSet", "x".repeat(64) + "..."},
        };
        assertBadParameters(api, cases);
    }

    @Test
    void unknownThingsAre404AndWrongMethods405() throws Exception {
        assertThat(error("GET", api + "/jobs/nope", null, 404).get("message").asText()).contains("nope");
        error("GET", api + "/clusterqueues/nope", null, 404);
        error("GET", api + "/clusterqueues/nope/pending", null, 404);
        error("GET", api + "/localqueues/team-a/nope/pending", null, 404);
        error("GET", api + "/nodes/nope", null, 404);
        error("GET", api + "/frobnicate", null, 404);
        error("GET", server.url() + "api/v2/jobs", null, 404);
        error("GET", api + "/simulation", null, 404);
        error("POST", api + "/clusterqueues", null, 405);
        error("GET", api + "/jobs/gang/cancel", null, 405);
        error("DELETE", api + "/jobs/gang", null, 405);
    }

    @Test
    void readsAndRefusedWritesChangeNothing() throws Exception {
        SchedulerState before = f.scheduler.exportState();
        String[] reads = {"", "/cohorts", "/clusterqueues", "/clusterqueues/team-a", "/clusterqueues/team-a/pending", "/localqueues",
            "/localqueues/team-a/gpu/pending", "/running", "/jobs", "/jobs/gang", "/nodes", "/nodes/n1", "/events", "/jobsets/sweep"};
        for (int round = 0; round < 5; round++) {
            for (String r : reads) {
                get(api + r);
            }
        }
        error("POST", api + "/jobs/gang/cancel", "whatever-token-123", 403);
        error("POST", api + "/jobs/w01/priority?value=99", null, 403);
        error("POST", api + "/clusterqueues/team-a/stop", null, 403);
        assertThat(f.scheduler.exportState()).isEqualTo(before);
        assertThat(f.scheduler.status("gang").orElseThrow().state().isTerminal()).isFalse();
    }

    @Test
    void answersCarryTheSecurityHeaders() throws Exception {
        var r = send("GET", api, null);
        assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'").contains("object-src 'none'");
        assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        assertThat(r.headers().firstValue("Cache-Control")).contains("no-store");
    }
}
