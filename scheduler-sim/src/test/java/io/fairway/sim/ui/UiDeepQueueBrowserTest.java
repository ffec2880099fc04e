package io.fairway.sim.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.visibility.VisibilityServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The UI over a scheduler with 100,000 pending jobs in one ClusterQueue (served by the visibility API the way any
 * embedding serves it): the queues page shows the count, the queue's pending list pages to its last job without
 * ever loading the whole queue, and the load times for docs/guides/ui.md are recorded (not asserted).
 */
class UiDeepQueueBrowserTest extends BrowserTest {
    private static final int PENDING = 100_000;

    @BeforeAll
    static void start() throws Exception {
        if (noBrowser()) {
            return;
        }
        Scheduler scheduler = twoTeams().build();
        // Both queues use their whole quota, so the cohort has nothing to lend: every job submitted after waits.
        scheduler.submit(JobSpec.builder("gang-1").namespace("team-a").queue("gpu")
                .members(2, Resources.builder().cpu(8).gpus(4).build()).build());
        scheduler.submit(JobSpec.builder("b-1").namespace("team-b").queue("gpu")
                .members(1, Resources.builder().cpu(8).gpus(8).build()).build());
        scheduler.runRound();
        List<JobSpec> deep = new ArrayList<>(PENDING);
        for (int i = 0; i < PENDING; i++) {
            deep.add(JobSpec.builder(String.format("train-%06d", i)).namespace("team-a").queue("gpu")
                    .members(1, Resources.builder().cpu(8).gpus(8).build()).build());
        }
        scheduler.submitAll(deep);
        scheduler.runRound();
        VisibilityServer server = VisibilityServer.builder(scheduler).port(0).build();
        serve(server.url(), server);
    }

    @Test
    void aQueueOf100000PendingJobsPagesToItsLastJob() {
        assertThat(pages.api("/clusterqueues/team-a").get("pending").asInt()).isEqualTo(PENDING);
        pages.open("#/queues", "queues");
        assertThat(pages.text("[data-queue='team-a'] [data-field=pending]")).isEqualTo("100,000");

        pages.open("#/queues/team-a", "queue");
        assertThat(pages.text("[data-field=range]")).isEqualTo("1–50 of 100,000");
        assertThat(pages.findAll("table[data-pending] tbody tr")).hasSize(50);
        pages.find("button[data-key='page:last']").click();
        pages.waitUntil("the last page", () -> pages.text("[data-field=range]").equals("99,951–100,000 of 100,000"));
        List<String> positions = pages.texts("table[data-pending] [data-field=position]");
        assertThat(positions).last().isEqualTo("100,000");
        assertThat(pages.text("table[data-pending] tbody tr:last-child a[data-job]")).isEqualTo("train-099999");
        pages.shot("ui-deep-queue.png");
        assertThat(browser.severeConsoleMessages()).as("errors in the browser's console").isEmpty();
    }

    @Test
    void loadTimesAt100000Pending() {
        List<Double> queues = new ArrayList<>();
        List<Double> queue = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            queues.add(pages.loadMillis("#/queues", "queues"));
            queue.add(pages.loadMillis("#/queues/team-a", "queue"));
        }
        assertThat(queues).allSatisfy(m -> assertThat(m).isPositive());
        assertThat(queue).allSatisfy(m -> assertThat(m).isPositive());
        pages.record("deep-queues", "queues page, 100,000 pending (embedded scheduler)", queues);
        pages.record("deep-queue", "team-a's page with its first 50 pending, 100,000 pending (embedded scheduler)", queue);
    }
}
