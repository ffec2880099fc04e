package io.fairway.sim.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.sim.serve.ServedSimulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Keys;
import org.openqa.selenium.interactions.Actions;

/**
 * The web UI in a real headless browser over a simulated run of {@code examples/scenarios/borrow-and-reclaim.yaml}
 * (team-a borrows team-b's idle GPUs; at t = 100 s team-b reclaims them by preempting a2), served by the same entry
 * point as {@code ./fairway simulate --serve} and held at t = 50 s.
 *
 * <p>What a person does to answer "why is this job pending, and where did that gang land": read the queues and
 * their usage, step the simulation past the reclaim, open team-a with the keyboard, read a2's reason, open the
 * node b1 landed on and see its GPUs. Every figure on the page is checked against the API's own answer, and the
 * scenario's facts (team-a borrowing 8 GPUs, a2 preempted and pending) are checked against that. A screenshot of
 * each page goes to {@code target/ui-screenshots/}; {@code docs/images/ui-*.png} are copies of the key ones.
 */
class UiBrowserTest extends BrowserTest {
    private static final Path SCENARIO = Path.of("../examples/scenarios/borrow-and-reclaim.yaml");
    private static final String GPU = "nvidia.com/gpu";

    @BeforeAll
    static void start() throws Exception {
        if (noBrowser()) {
            return;
        }
        ServedSimulation run = ServedSimulation.scenario(SCENARIO, 0, 50);
        serve(run.url(), run);
    }

    @Test
    void aPersonSeesWhyAJobIsPendingAndWhereTheGangLanded() throws Exception {
        // 1. The queues at t = 50 s: team-a runs a1 and a2 on 16 GPUs against a nominal 8: it borrows team-b's 8.
        pages.open("#/queues", "queues");
        JsonNode teamA = gpuRow(pages.api("/clusterqueues/team-a"));
        assertThat(teamA.get("used").asLong()).as("team-a's GPUs in use at t=50 s").isEqualTo(16);
        assertThat(teamA.get("borrowed").asLong()).as("team-a borrows team-b's idle quota").isEqualTo(8);
        assertThat(pages.text("[data-queue='team-a'] [data-resource='nvidia.com/gpu'] [data-field=usage]"))
                .isEqualTo("16 of 8 used, 8 borrowed" + lendable(teamA));
        JsonNode teamB = gpuRow(pages.api("/clusterqueues/team-b"));
        assertThat(pages.text("[data-queue='team-b'] [data-resource='nvidia.com/gpu'] [data-field=usage]"))
                .isEqualTo(teamB.get("used").asLong() + " of 8 used" + lendable(teamB));
        JsonNode research = gpuRow(pages.api("/cohorts").get("items").get(0));
        assertThat(pages.text("[data-cohort='research'] > [data-resource='nvidia.com/gpu'] [data-field=usage]"))
                .startsWith(research.get("used").asLong() + " of 16 used, 8 of it lent from one of its queues to another");
        assertThat(pages.findAll("[data-queue='team-a'] [data-resource='nvidia.com/gpu'] .bar .fill.borrowed"))
                .as("the borrowed part of team-a's bar").hasSize(1);
        pages.shot("ui-queues.png");

        // 2. Live updates: another client steps the simulation to t = 110 s, past team-b's reclaim at t = 100 s; the
        //    open page shows it by itself (polling) and says so to screen readers (aria-live).
        assertThat(pages.text("#sim-state")).startsWith("paused at");
        pages.post("/simulation/step?seconds=60");
        pages.waitUntil("the open page to show a2 pending in team-a", () ->
                pages.text("[data-queue='team-a'] [data-field=pending]").equals("1"));
        pages.waitUntil("the update announced", () -> pages.text("#announce").startsWith("Updated: team-a 1 pending"));

        // ... and the page's own time control, from the keyboard, steps one more minute.
        pages.select("#sim-step-size", "60");
        long before = pages.api("/simulation").get("timeMillis").asLong();
        pages.find("#sim-step").sendKeys(Keys.ENTER);
        pages.waitUntil("the step to move simulated time", () -> pages.simMillis() >= before + 60_000);
        assertThat(pages.simMillis()).isBetween(100_000L, 400_000L);

        // 3. Keyboard: the first Tab reaches "Skip to content", whose Enter puts the focus on the page's heading
        //    without leaving the page; then Tab to team-a's link and press Enter.
        String queuesUrl = browser.driver.getCurrentUrl();
        pages.tabTo("skip");
        new Actions(browser.driver).sendKeys(Keys.ENTER).perform();
        assertThat(browser.driver.switchTo().activeElement().getText()).isEqualTo("Queues and cohorts");
        assertThat(browser.driver.getCurrentUrl()).isEqualTo(queuesUrl);
        pages.tabTo("cq:team-a");
        new Actions(browser.driver).sendKeys(Keys.ENTER).perform();
        pages.awaitView("queue");
        assertThat(browser.driver.getCurrentUrl()).endsWith("#/queues/team-a");
        assertThat(browser.driver.switchTo().activeElement().getTagName())
                .as("focus moves to the new page's heading").isEqualTo("h2");

        // 4. team-a's pending list: a2, first in line, with the engine's reason.
        JsonNode pending = pages.api("/clusterqueues/team-a/pending");
        assertThat(pending.get("total").asInt()).isEqualTo(1);
        JsonNode a2 = pending.get("items").get(0);
        assertThat(a2.get("id").asText()).isEqualTo("a2");
        assertThat(pages.texts("table[data-pending] tbody tr")).hasSize(1);
        assertThat(pages.texts("table[data-pending] [data-field=position]")).containsExactly("1");
        // The reason's message starts "preempted: preempted by b1": the page does not repeat the code's word.
        assertThat(a2.get("reason").get("message").asText()).startsWith("preempted: preempted by b1");
        assertThat(pages.text("table[data-pending] [data-field=reason]")).startsWith("PREEMPTED preempted by b1")
                .doesNotContain("preempted: preempted");
        pages.shot("ui-queue.png");

        // 5. a2's page: why it waits, and its history (admitted, then preempted when team-b reclaimed its quota).
        pages.find("a[data-job='a2']").click();
        pages.awaitView("job");
        JsonNode job = pages.api("/jobs/a2");
        assertThat(job.get("state").asText()).isEqualTo("PENDING");
        assertThat(pages.text("[data-field=reason-code]")).isEqualTo(job.get("reason").get("code").asText());
        assertThat(pages.text("[data-field=reason]")).startsWith("preempted by b1").doesNotContain("preempted: preempted");
        assertThat(pages.text("[data-field=position]")).isEqualTo("1");
        assertThat(pages.text("table[data-history]")).contains("ADMITTED").contains("PREEMPTED");
        pages.shot("ui-job-pending.png");

        // 6. Where b1 landed: the node page, from the Nodes section, outlines b1's GPUs — the API's GPU ids.
        pages.find("nav a[data-section=nodes]").click();
        pages.awaitView("nodes");
        JsonNode b1 = pages.api("/jobs/b1");
        assertThat(b1.get("state").asText()).isIn("ADMITTED", "RUNNING");
        JsonNode member = b1.get("placement").get("members").get(0);
        String node = member.get("node").asText();
        Set<Integer> b1Gpus = new TreeSet<>();
        member.get("gpus").forEach(g -> b1Gpus.add(g.asInt()));
        assertThat(b1Gpus).hasSize(8);
        pages.shot("ui-nodes.png");
        pages.find("[data-node='" + node + "'] a[data-key='node-job:" + node + ":b1']").click();
        pages.awaitView("node");
        Set<Integer> shown = pages.texts("li.gpu[data-holder='b1'] .idx").stream()
                .map(t -> Integer.parseInt(t.replace("GPU", "").trim())).collect(Collectors.toCollection(TreeSet::new));
        assertThat(shown).as("the GPUs the map shows for b1 on " + node).isEqualTo(b1Gpus);
        assertThat(pages.findAll("li.gpu.mine")).hasSize(b1Gpus.size());
        assertThat(pages.text("[data-field=highlight]")).contains("holds GPUs " + joined(b1Gpus));
        assertThat(pages.findAll("fieldset.domain.nvswitch")).as("nvswitch-8: one NVSwitch domain").hasSize(1);
        pages.shot("ui-node.png");

        // 7. b1's own page: its placement, down to the node and the GPU ids.
        pages.find("[data-field=highlight] a").click();
        pages.awaitView("job");
        assertThat(pages.text("[data-placement] [data-node='" + node + "'][data-field=gpus]")).isEqualTo(joined(b1Gpus));
        pages.shot("ui-job-running.png");
        assertThat(browser.severeConsoleMessages()).as("errors in the browser's console").isEmpty();
    }

    @Test
    void theQueuesPageRecordsWhenItRendered() {
        // The mark the load-time figures in docs/guides/ui.md come from; the times themselves are not asserted.
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            millis.add(pages.loadMillis("#/queues", "queues"));
        }
        assertThat(millis).allSatisfy(m -> assertThat(m).isPositive());
        pages.record("borrow-and-reclaim", "queues page, borrow-and-reclaim served held at t=50 s", millis);
    }

    private static JsonNode gpuRow(JsonNode queue) {
        for (JsonNode r : queue.get("resources")) {
            if (r.get("resource").asText().equals(GPU)) {
                return r;
            }
        }
        throw new AssertionError("no " + GPU + " row in " + queue);
    }

    /** The page's words for a row's lendable quota (", 8 lendable"), or none. */
    private static String lendable(JsonNode row) {
        long lendable = row.get("lendable").asLong();
        return lendable > 0 ? ", " + lendable + " lendable" : "";
    }

    private static String joined(Set<Integer> gpus) {
        return gpus.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
