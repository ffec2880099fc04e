package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The embedding example of README.md, verbatim between the markers, so the README cannot rot. */
class ReadmeExampleTest {
    private static final Logger log = LoggerFactory.getLogger(ReadmeExampleTest.class);

    @Test
    void readmeExampleAdmitsTheGangOnOneNode() {
        List<Decision> seen = new ArrayList<>();
        // --- README example ---
        Scheduler scheduler = Scheduler.builder()
                .policy("best-effort-fifo")
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("team-a")
                        .quota("default", Resources.builder().cpu(64).gpus(16).build())
                        .build())
                .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
                .node(Node.builder("node-1")
                        .capacity(Resources.builder().cpu(96).memoryGiB(1024).build())
                        .gpus(GpuTopology.nvSwitch8("H100"))
                        .build())
                .actuator(decisions -> decisions.forEach(d -> log.info("do {}", d)))
                .build();

        scheduler.submit(JobSpec.builder("train-1")
                .namespace("team-a").queue("gpu")
                .members(2, Resources.builder().cpu(8).gpus(4).build())
                .build());

        RoundResult round = scheduler.runRound();          // Admit train-1: node-1, GPUs [0-3] and [4-7]
        scheduler.reportStarted("train-1");                // what your actuator reports back
        JobStatus status = scheduler.status("train-1").orElseThrow();
        // --- end ---
        seen.addAll(round.decisions());

        assertThat(seen).singleElement().isInstanceOf(Admit.class);
        Admit admit = (Admit) seen.get(0);
        assertThat(admit.placement().members()).extracting(m -> m.node() + m.gpus())
                .containsExactly("node-1[0, 1, 2, 3]", "node-1[4, 5, 6, 7]");
        assertThat(status.state()).isEqualTo(JobState.RUNNING);
    }
}
