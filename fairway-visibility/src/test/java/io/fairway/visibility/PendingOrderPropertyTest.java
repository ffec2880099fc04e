package io.fairway.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The API's pending pages against the engine's own order, for random queues: jobs of two ClusterQueues in three
 * LocalQueues at random priorities and submission times (many ties); every page and position must agree with
 * sorting the engine's pending jobs in Kueue order and with {@code explain}'s jobs ahead.
 */
class PendingOrderPropertyTest {
    private static final String[] LQ = {"a", "b", "c"}; // a and b feed cq-1, c feeds cq-2

    @Property(tries = 60)
    void pagesAndPositionsFollowTheEnginesOrder(@ForAll @Size(max = 60) List<@IntRange(max = 3) Integer> priorities,
                                                @ForAll @IntRange(max = 70) int offset, @ForAll @IntRange(min = 1, max = 25) int limit) {
        Scheduler s = Scheduler.builder().clock(() -> 0)
                .flavor(ResourceFlavor.of("f"))
                .clusterQueue(ClusterQueue.builder("cq-1").quota("f", Resources.builder().gpus(1).build()).build())
                .clusterQueue(ClusterQueue.builder("cq-2").quota("f", Resources.builder().gpus(1).build()).build())
                .localQueue(new LocalQueue("ns", "a", "cq-1")).localQueue(new LocalQueue("ns", "b", "cq-1")).localQueue(new LocalQueue("ns", "c", "cq-2"))
                .build();
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < priorities.size(); i++) {
            jobs.add(JobSpec.builder("j" + i).namespace("ns").queue(LQ[(i * 7) % 3]).priority(priorities.get(i)).submitTimeMillis((i * 5L) % 4)
                    .members(1, Resources.builder().gpus(4).build()).build());
        }
        s.submitAll(jobs);
        StateView view = new StateView(s.snapshot());
        PendingPages pages = new PendingPages(view);
        for (String cq : List.of("cq-1", "cq-2")) {
            List<String> engine = s.jobs().pending().stream().filter(j -> cq.equals(view.clusterQueueOf(j))).sorted(JobOrder.PRIORITY)
                    .map(JobStatus::id).toList();
            JsonNode page = pages.clusterQueuePage(cq, offset, limit);
            assertThat(page.get("total").asInt()).isEqualTo(engine.size());
            List<String> got = new ArrayList<>();
            page.get("items").forEach(i -> got.add(i.get("id").asText()));
            assertThat(got).containsExactlyElementsOf(engine.subList(Math.min(offset, engine.size()), Math.min(offset + limit, engine.size())));
            for (JsonNode i : page.get("items")) {
                assertThat(i.get("position").asInt()).isEqualTo(s.jobs().explain(i.get("id").asText()).orElseThrow().jobsAhead() + 1);
            }
        }
        for (String lq : LQ) {
            List<String> engine = s.jobs().pending().stream().filter(j -> j.spec().queue().equals(lq)).sorted(JobOrder.PRIORITY)
                    .map(JobStatus::id).toList();
            JsonNode page = pages.localQueuePage("ns", lq, 0, 1000);
            List<String> got = new ArrayList<>();
            page.get("items").forEach(i -> {
                got.add(i.get("id").asText());
                assertThat(i.get("positionInClusterQueue").asInt()).isEqualTo(s.jobs().explain(i.get("id").asText()).orElseThrow().jobsAhead() + 1);
            });
            assertThat(got).containsExactlyElementsOf(engine);
        }
    }
}
