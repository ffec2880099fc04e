package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import org.junit.jupiter.api.Test;

class SchedulerSmokeTest {
    @Test
    void cedanaQuotaAdmitsTwoOfThree() {
        Scheduler s = Scheduler.builder()
                .policy("best-effort-fifo")
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n1").capacity(Resources.builder().cpu(128).build()).build())
                .clock(() -> 0)
                .build();
        for (int i = 1; i <= 3; i++) {
            s.submit(JobSpec.builder("j" + i).queue("lq").members(1, Resources.builder().cpu(32).build()).build());
        }
        RoundResult r = s.runRound();
        assertThat(r.decisions()).hasSize(2).allMatch(d -> d instanceof Admit);
        assertThat(s.status("j3").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
        s.reportStarted("j1");
        s.reportFinished("j1");
        r = s.runRound();
        assertThat(r.decisions()).singleElement().extracting(d -> d.jobId()).isEqualTo("j3");
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void gpuGangOnNvSwitch() {
        Scheduler s = Scheduler.builder()
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(64).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("n2").gpus(GpuTopology.hybridCubeMesh8("V100")).build())
                .clock(() -> 0)
                .build();
        s.submit(JobSpec.builder("big").queue("lq").members(2, Resources.builder().gpus(4).build()).build());
        s.submit(JobSpec.builder("four").queue("lq").members(1, Resources.builder().gpus(4).build()).build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).hasSize(2);
        System.out.println(r.decisions());
        assertThat(s.status("big").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }
}
