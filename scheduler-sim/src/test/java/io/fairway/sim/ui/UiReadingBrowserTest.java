package io.fairway.sim.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.visibility.VisibilityServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How the UI's words read to a person, in a real headless browser over an embedded scheduler: team-z has no quota
 * of its own and borrows all it uses from its cohort (as the bundled Philly queues do), team-a uses its own quota,
 * team-b lends its idle quota. Quota bars show only what a queue has or uses, and say "borrowed" plainly; the
 * cohort's bar does not contradict itself; jobs on one page have colours that do not look alike; a GPU wiring name
 * stays on one line; the footer's API link answers; a page for a job that does not exist says "Not found" and
 * nothing about failed updates.
 */
class UiReadingBrowserTest extends BrowserTest {
    @BeforeAll
    static void start() throws Exception {
        if (noBrowser()) {
            return;
        }
        Scheduler scheduler = twoTeams()
                .clusterQueue(ClusterQueue.builder("team-z").cohort("research")
                        .quota("default", Resources.builder().cpu(0).memoryGiB(0).gpus(0).build()).build())
                .localQueue(new LocalQueue("team-z", "gpu", "team-z"))
                .build();
        scheduler.submit(JobSpec.builder("a-1").namespace("team-a").queue("gpu")
                .members(1, Resources.builder().cpu(8).gpus(4).build()).build());
        scheduler.submit(JobSpec.builder("a-2").namespace("team-a").queue("gpu")
                .members(1, Resources.builder().cpu(8).gpus(4).build()).build());
        scheduler.submit(JobSpec.builder("z-1").namespace("team-z").queue("gpu")
                .members(1, Resources.builder().cpu(8).gpus(8).build()).build());
        scheduler.runRound();
        VisibilityServer server = VisibilityServer.builder(scheduler).port(0).build();
        serve(server.url(), server);
    }

    @Test
    void quotaBarsShowWhatAQueueHasOrUsesAndSayBorrowedPlainly() {
        assertThat(pages.api("/clusterqueues/team-z").get("holding").asInt()).as("z-1 holds borrowed quota").isEqualTo(1);
        pages.open("#/queues", "queues");
        String z = "[data-queue='team-z'] ";
        assertThat(pages.text(z + "[data-resource='nvidia.com/gpu'] [data-field=usage]"))
                .isEqualTo("8 borrowed from the cohort (no quota of its own)");
        assertThat(pages.findAll(z + "[data-resource='memory']")).as("team-z neither has nor uses memory").isEmpty();
        assertThat(pages.texts("[data-field=usage]")).as("no bar says it uses nothing of nothing")
                .noneMatch(t -> t.matches("0 (\\w+ )?of 0.*")).noneMatch(t -> t.matches(".* of 0( \\w+)? used.*"));
        // The cohort: 16 of 16 GPUs used, 8 of them team-b's idle quota that team-z borrows. Not "8 borrowed, 8 lendable".
        assertThat(pages.text("[data-cohort='research'] > [data-resource='nvidia.com/gpu'] [data-field=usage]"))
                .isEqualTo("16 of 16 used, 8 of it lent from one of its queues to another");
        pages.shot("ui-queues-borrowing.png");

        pages.open("#/queues/team-z", "queue");
        assertThat(pages.texts("[data-field=usage]")).isNotEmpty()
                .allSatisfy(t -> assertThat(t).endsWith("borrowed from the cohort (no quota of its own)"));
        // (the browser logs the 404s of the not-found test, which may run first in this browser)
        assertThat(browser.severeConsoleMessages()).filteredOn(m -> !m.contains("no-such-job"))
                .as("errors in the browser's console").isEmpty();
    }

    @Test
    void jobsOnOnePageHaveColoursThatDoNotLookAlikeAndTheWiringStaysOnOneLine() {
        pages.open("#/nodes", "nodes");
        Map<String, String> colours = new TreeMap<>();
        for (var gpu : pages.findAll("li.gpu[data-holder]:not([data-holder=''])")) {
            String previous = colours.put(gpu.getAttribute("data-holder"), gpu.getCssValue("background-color"));
            assertThat(previous == null || previous.equals(colours.get(gpu.getAttribute("data-holder"))))
                    .as("one job, one colour").isTrue();
        }
        assertThat(colours).containsOnlyKeys("a-1", "a-2", "z-1");
        List<String> jobs = new ArrayList<>(colours.keySet());
        for (int i = 0; i < jobs.size(); i++) {
            for (int k = i + 1; k < jobs.size(); k++) {
                assertThat(distance(colours.get(jobs.get(i)), colours.get(jobs.get(k))))
                        .as("colours of %s (%s) and %s (%s)", jobs.get(i), colours.get(jobs.get(i)), jobs.get(k), colours.get(jobs.get(k)))
                        .isGreaterThan(40);
            }
        }
        assertThat(lines("[data-node='node-2'] .usage .label span")).as("'V100 · hybrid-cube-mesh-8' on one line").isEqualTo(1);
        pages.shot("ui-nodes-colours.png");
        pages.open("#/nodes/node-2", "node");
        assertThat(pages.text("ul.facts")).contains("hybrid-cube-mesh-8");
        assertThat(lines("ul.facts strong.nowrap")).isEqualTo(1);
    }

    @Test
    void theFooterLinksToAnApiPathThatAnswers() throws Exception {
        pages.open("#/queues", "queues");
        String href = pages.find("#api-link").getAttribute("href");
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(href)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET " + href).isEqualTo(200);
        assertThat(r.body()).contains("team-a");
    }

    @Test
    void aPageForAJobThatDoesNotExistSaysNotFoundAndNothingAboutUpdates() {
        pages.open("#/jobs/no-such-job", "error");
        assertThat(pages.text("#main")).contains("Not found");
        // The page refreshes itself every few seconds; the refresh fails the same way and must not add "update failed".
        pages.script("document.dispatchEvent(new Event('visibilitychange'));");
        try {
            Thread.sleep(4_500); // two refresh ticks of the page (every 2 s); not a timing assertion
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertThat(pages.text("#updated")).doesNotContain("failed");
        assertThat(pages.text("#main")).contains("Not found");
    }

    private static long lines(String css) {
        return ((Number) pages.script("const e = document.querySelector(arguments[0]);"
                + "const r = document.createRange(); r.selectNodeContents(e);"
                + "return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size;", css)).longValue();
    }

    /** Euclidean distance of two CSS colours "rgb(r, g, b)" / "rgba(r, g, b, a)". */
    private static double distance(String a, String b) {
        int[] x = rgb(a);
        int[] y = rgb(b);
        return Math.sqrt(Math.pow(x[0] - y[0], 2) + Math.pow(x[1] - y[1], 2) + Math.pow(x[2] - y[2], 2));
    }

    private static int[] rgb(String css) {
        String[] p = css.replaceAll("[^0-9,]", "").split(",");
        return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2])};
    }
}
