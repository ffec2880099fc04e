package io.fairway.sim.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.visibility.VisibilityServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Keys;

/**
 * The views a platform team lives in, in a real headless browser over an embedded scheduler under Themis: 70 jobs of
 * three apps (job sets) in two ClusterQueues of one cohort, on an H100 node (NVSwitch) and a V100 node (hybrid cube
 * mesh). Every view is checked against the API's own answer and for accessibility (labels, names, header cells, text
 * alternatives, unique ids, one heading), and the page follows the server's event stream instead of polling.
 */
class UiPlatformViewsBrowserTest extends BrowserTest {
    private static VisibilityServer server;
    private static Scheduler scheduler;
    private static final AtomicLong NOW = new AtomicLong(1_000);

    @BeforeAll
    static void start() throws Exception {
        if (noBrowser()) {
            return;
        }
        scheduler = Scheduler.builder()
                .policy("themis")
                .clock(NOW::get)
                .flavor(new ResourceFlavor("h100", Map.of("gpu", "h100"), List.of(), List.of()))
                .flavor(new ResourceFlavor("v100", Map.of("gpu", "v100"), List.of(), List.of()))
                .cohort(Cohort.of("research", null))
                .clusterQueue(ClusterQueue.builder("team-a").cohort("research").resourceGroup(group(8, 4)).build())
                .clusterQueue(ClusterQueue.builder("team-b").cohort("research").resourceGroup(group(0, 4)).build())
                .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
                .localQueue(new LocalQueue("team-b", "gpu", "team-b"))
                .node(Node.builder("h100-1").label("gpu", "h100").capacity(Resources.builder().cpu(96).memoryGiB(1024).build())
                        .gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("v100-1").label("gpu", "v100").capacity(Resources.builder().cpu(96).memoryGiB(1024).build())
                        .gpus(GpuTopology.hybridCubeMesh8("V100")).build())
                .actuator(decisions -> { })
                .build();
        server = VisibilityServer.builder(scheduler).port(0).history(720, Duration.ofSeconds(10)).build();
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            jobs.add(job(String.format("sweep-1-%02d", i), "team-a", "sweep-1", 1 + i % 2, 600 + 60 * i));
            jobs.add(job(String.format("sweep-2-%02d", i), "team-b", "sweep-2", 1, 900));
        }
        for (int i = 0; i < 10; i++) {
            jobs.add(job(String.format("solo-%02d", i), "team-a", "solo", 4, 3600));
        }
        scheduler.submitAll(jobs);
        for (int r = 0; r < 6; r++) {
            scheduler.runRound();
            server.recordHistory(NOW.get());
            NOW.addAndGet(60_000);
        }
        // The admitted jobs start; four finish, and the next round auctions their GPUs among the worst-off apps.
        scheduler.snapshot().holding().forEach(j -> scheduler.reportStarted(j.id()));
        scheduler.snapshot().holding().stream().limit(4).forEach(j -> scheduler.reportFinished(j.id()));
        scheduler.runRound();
        server.recordHistory(NOW.get());
        serve(server.url(), server);
    }

    /** cpu and GPUs of both flavors in one resource group: h100 first, then v100. */
    private static ResourceGroup group(int h100Gpus, int v100Gpus) {
        return new ResourceGroup(List.of("cpu", Resources.GPU), List.of(
                new FlavorQuotas("h100", List.of(ResourceQuota.of("cpu", 64_000), ResourceQuota.of(Resources.GPU, h100Gpus))),
                new FlavorQuotas("v100", List.of(ResourceQuota.of("cpu", 64_000), ResourceQuota.of(Resources.GPU, v100Gpus)))));
    }

    private static JobSpec job(String id, String ns, String set, int gpus, int seconds) {
        return JobSpec.builder(id).namespace(ns).queue("gpu").jobSet(set).owner("alice").estimatedSeconds(seconds)
                .members(1, Resources.builder().cpu(4).gpus(gpus).build()).build();
    }

    private static void accessible() {
        assertThat(pages.accessibilityProblems()).as("accessibility problems on " + browser.driver.getCurrentUrl()).isEmpty();
    }

    @Test
    void theJobsTableSearchesFiltersSortsAndPages() {
        pages.open("#/jobs", "jobs");
        assertThat(pages.text("[data-field=range]")).isEqualTo("1–50 of 70");
        assertThat(pages.findAll("table[data-jobs] tbody tr")).hasSize(50);
        accessible();
        pages.shot("ui-jobs.png");

        // Search from the keyboard: type into the search field and press Enter; the focus stays in the form.
        pages.find("input[name=q]").sendKeys("solo", Keys.ENTER);
        pages.waitUntil("the search applied", () -> browser.driver.getCurrentUrl().contains("q=solo")
                && pages.texts("table[data-jobs] tbody tr").size() == 10);
        pages.awaitView("jobs");
        assertThat(pages.texts("[data-row] a[data-job]")).allSatisfy(id -> assertThat(id).startsWith("solo-"));

        // Filter by a state chip, then sort by GPUs, largest first (second click on the heading).
        JsonNode running = pages.api("/jobs?q=solo&state=RUNNING");
        pages.open("#/jobs?q=solo", "jobs");
        if (running.get("total").asInt() > 0) {
            pages.find("button.chip[data-state=RUNNING]").click();
            pages.waitUntil("the state filter", () -> browser.driver.getCurrentUrl().contains("state=RUNNING"));
            pages.awaitView("jobs");
            assertThat(pages.findAll("table[data-jobs] tbody tr")).hasSize(running.get("total").asInt());
            assertThat(pages.find("button.chip[data-state=RUNNING]").getAttribute("aria-pressed")).isEqualTo("true");
        }
        pages.open("#/jobs?clusterQueue=team-b", "jobs");
        pages.find("button[data-sort=id]").click();
        pages.waitUntil("sorted by id", () -> browser.driver.getCurrentUrl().contains("sort=id"));
        pages.awaitView("jobs");
        pages.find("button[data-sort=id]").click();
        pages.waitUntil("sorted by id, descending", () -> browser.driver.getCurrentUrl().contains("order=desc"));
        pages.awaitView("jobs");
        assertThat(pages.text("th[aria-sort=descending]")).startsWith("Job");
        assertThat(browser.driver.switchTo().activeElement().getAttribute("data-sort")).as("the focus stays on the heading's button").isEqualTo("id");
        JsonNode api = pages.api("/jobs?clusterQueue=team-b&sort=id&order=desc");
        assertThat(pages.texts("[data-row] a[data-job]").get(0)).isEqualTo(api.get("items").get(0).get("id").asText()).isEqualTo("sweep-2-29");

        // The last page.
        pages.open("#/jobs", "jobs");
        pages.find("button[data-key='page:last']").click();
        pages.waitUntil("the last page", () -> pages.text("[data-field=range]").equals("51–70 of 70"));
        accessible();
    }

    @Test
    void aJobSetHasItsOwnPage() {
        pages.open("#/jobsets/sweep-2", "jobset");
        JsonNode set = pages.api("/jobsets/sweep-2");
        assertThat(pages.findAll("table[data-jobs] tbody tr")).hasSize(set.get("jobs").size());
        set.get("counts").fields().forEachRemaining(e ->
                assertThat(pages.text("[data-count=" + e.getKey() + "] strong")).isEqualTo(e.getValue().asText()));
        accessible();
        pages.shot("ui-jobset.png");
    }

    @Test
    void flavorsAndTheOverviewCountGpusByFlavorAndNvlinkDomain() {
        JsonNode o = pages.api("/overview");
        pages.open("#/overview", "overview");
        assertThat(pages.text("[data-state=PENDING] [data-field=count]")).isEqualTo(o.get("jobs").get("PENDING").asText());
        assertThat(pages.text("[data-flavor-free=v100]")).isEqualTo(o.get("byFlavor").get(1).get("gpusFree").asText());
        assertThat(pages.texts("table[data-domains] tbody tr")).as("8-GPU NVSwitch, 4-GPU NVLink (cube mesh halves)...").hasSize(o.get("byNvlinkDomain").size());
        accessible();
        pages.shot("ui-overview.png");

        pages.find("a[data-key='ovf:h100']").click();
        pages.awaitView("flavor");
        JsonNode h100 = pages.api("/flavors/h100");
        assertThat(pages.text("[data-field=gpus-used]")).isEqualTo(h100.get("gpusUsed").asText() + " of 8");
        assertThat(pages.texts("table[data-quota] tbody tr")).hasSize(h100.get("clusterQueues").size());
        accessible();
        pages.open("#/flavors", "flavors");
        assertThat(pages.findAll("a[data-flavor]")).hasSize(2);
        accessible();
    }

    @Test
    void fairnessShowsSharesAndUnderThemisEachAppsRhoAndBid() {
        JsonNode f = pages.api("/fairness");
        pages.open("#/fairness", "fairness");
        for (JsonNode q : f.get("clusterQueues")) {
            assertThat(pages.text("[data-field=drs][data-queue='" + q.get("name").asText() + "']"))
                    .isEqualTo(String.valueOf(Math.round(q.get("dominantResourceShare").asDouble() * 100) / 100.0).replaceAll("\\.0$", ""));
        }
        JsonNode apps = f.get("apps");
        assertThat(apps).as("Themis reports its apps").hasSize(3);
        assertThat(pages.findAll("[data-apps] tbody tr")).hasSize(3);
        String worst = apps.get(0).get("name").asText();
        assertThat(pages.texts("[data-apps] tbody tr a[data-app]").get(0)).as("worst rho first").isEqualTo(worst);
        assertThat(pages.text("[data-apps] tbody tr [data-field=rho]")).isNotBlank();
        assertThat(pages.texts("[data-apps] [data-field=bid]")).as("the worst-off apps bid for the freed GPUs")
                .anySatisfy(t -> assertThat(t).matches("\\d+(–\\d+)? GPUs"));
        accessible();
        pages.shot("ui-fairness.png");
    }

    @Test
    void historyChartsUsageAndPendingPerQueueAndAdmissions() {
        JsonNode h = pages.api("/history");
        assertThat(h.get("timeMillis").size()).isGreaterThanOrEqualTo(6);
        pages.open("#/history", "history");
        assertThat(pages.findAll("figure[data-chart] svg[role=img]")).hasSize(3);
        assertThat(pages.findAll("figure[data-chart=gpus] polyline")).hasSize(2);
        assertThat(pages.find("figure[data-chart=churn] svg").getAttribute("aria-label")).contains(admissions(h) + " admissions");
        accessible();
        pages.shot("ui-history.png");
    }

    @Test
    void eventsArePagedBackAndFiltered() {
        pages.open("#/events", "events");
        JsonNode newest = pages.api("/events?limit=50");
        assertThat(pages.findAll("table[data-events] tbody tr")).hasSize(newest.get("items").size());
        if (newest.get("more").asBoolean()) {
            pages.find("button[data-key='ev:older']").click();
            pages.waitUntil("the older page", () -> browser.driver.getCurrentUrl().contains("before="));
            pages.awaitView("events");
            long before = newest.get("items").get(0).get("seq").asLong();
            assertThat(pages.texts("table[data-events] tbody tr td:first-child"))
                    .allSatisfy(seq -> assertThat(Long.parseLong(seq)).isLessThan(before));
        }
        pages.open("#/events", "events");
        pages.select("select[data-key='ef:type']", "ADMITTED");
        pages.waitUntil("the type filter", () -> browser.driver.getCurrentUrl().contains("type=ADMITTED"));
        pages.awaitView("events");
        assertThat(pages.texts("table[data-events] tbody tr td:nth-child(3)")).isNotEmpty().allSatisfy(t -> assertThat(t).isEqualTo("ADMITTED"));
        accessible();
        pages.shot("ui-events.png");
    }

    @Test
    void thePageFollowsTheEventStreamAndDoesNotPoll() throws Exception {
        pages.open("#/jobs?q=sweep-2-29", "jobs");
        pages.waitUntil("the stream connected", () -> "live".equals(pages.find("#stream").getAttribute("data-stream")));
        long before = pages.settledApiRequests(); // the page's first loads may complete after the stream connects
        Thread.sleep(5_000); // what a polling page would use for two refreshes; not a timing assertion
        assertThat(pages.apiRequests()).as("requests to the API while nothing changed").isEqualTo(before);
        scheduler.cancel("sweep-2-29");
        pages.waitUntil("the cancellation shown without a reload", () -> pages.text("table[data-jobs] tbody tr").contains("cancelled"));
        assertThat(pages.apiRequests()).isGreaterThan(before);
        assertThat(browser.severeConsoleMessages()).as("errors in the browser's console").isEmpty();
    }

    @Test
    void refusedAStreamThePageLooksEveryFewSecondsInstead() throws Exception {
        // A server with one stream, which another client holds: the page's stream is refused (503).
        try (VisibilityServer one = VisibilityServer.builder(scheduler).port(0).maxStreams(1).build()) {
            java.net.http.HttpResponse<java.io.InputStream> held = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(one.url() + "api/v1/events/watch")).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofInputStream());
            try {
                assertThat(held.statusCode()).isEqualTo(200);
                UiPages refused = new UiPages(browser, one.url());
                refused.open("#/jobs?q=solo-09", "jobs");
                refused.waitUntil("the page to fall back", () -> "fallback".equals(refused.find("#stream").getAttribute("data-stream")));
                scheduler.cancel("solo-09");
                refused.waitUntil("the cancellation shown all the same", () -> refused.text("table[data-jobs] tbody tr").contains("cancelled"));
                assertThat(browser.severeConsoleMessages()).as("the console's errors: the refused stream only")
                        .allSatisfy(m -> assertThat(m).contains("/api/v1/events/watch").contains("503"));
            } finally {
                held.body().close();
            }
        }
    }

    private static int admissions(JsonNode h) {
        int n = 0;
        for (JsonNode a : h.get("admitted")) {
            n += a.asInt();
        }
        return n;
    }
}
