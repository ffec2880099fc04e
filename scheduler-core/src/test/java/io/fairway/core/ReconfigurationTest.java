package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import org.junit.jupiter.api.Test;

/** Changing a live scheduler in place, as a controller does when its cluster and configuration change. */
class ReconfigurationTest {
    private Scheduler running() {
        Scheduler s = Scheduler.builder().clock(() -> 0)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"))
                .node(Node.builder("n").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
        s.submit(JobSpec.builder("j").queue("q").members(1, Resources.builder().gpus(2).build()).build());
        s.runRound();
        s.reportStarted("j");
        return s;
    }

    @Test
    void updatingANodeKeepsWhatRunsOnItUnlessItsGpusAreGone() {
        Scheduler s = running();
        assertThat(s.clusters().updateNode(Node.builder("n").label("zone", "a").gpus(GpuTopology.nvSwitch8("H100")).build())).isEmpty();
        assertThat(s.status("j").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.clusters().nodes().get(0).labels()).containsEntry("zone", "a");
        // the node comes back with 4 GPUs only: the job held 0 and 1, still there
        assertThat(s.clusters().updateNode(Node.builder("n").gpus(GpuTopology.pcie4("H100")).build())).isEmpty();
        // and with none: the job goes back to pending
        assertThat(s.clusters().updateNode(Node.builder("n").capacity(Resources.builder().cpu(8).build()).build())).containsExactly("j");
        assertThat(s.status("j").orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(s.checkInvariants()).isEmpty();
        assertThatThrownBy(() -> s.clusters().updateNode(Node.builder("ghost").build())).isInstanceOf(InvalidSpecException.class).hasMessageContaining("ghost");
    }

    @Test
    void endedJobsCanBeForgottenAndTheirIdReused() {
        Scheduler s = running();
        assertThat(s.jobs().forget("j")).isFalse(); // still running
        s.reportFinished("j");
        assertThat(s.jobs().forget("j")).isTrue();
        assertThat(s.status("j")).isEmpty();
        s.submit(JobSpec.builder("j").queue("q").members(1, Resources.builder().gpus(1).build()).build());
        assertThat(s.status("j").orElseThrow().state()).isEqualTo(JobState.PENDING);
    }

    @Test
    void aPendingJobsSpecCanChange() {
        Scheduler s = running();
        s.submit(JobSpec.builder("big").queue("q").members(1, Resources.builder().gpus(8).build()).build());
        s.runRound();
        assertThat(s.status("big").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(s.jobs().updateSpec(JobSpec.builder("big").queue("q").members(1, Resources.builder().gpus(4).build()).build())).isTrue();
        s.runRound();
        assertThat(s.status("big").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(s.jobs().updateSpec(JobSpec.builder("big").queue("q").members(1, Resources.builder().gpus(1).build()).build())).isFalse();
    }

    @Test
    void queuesAndFlavorsChangeInPlaceAndRefuseWhatWouldBreak() {
        Scheduler s = running();
        assertThatThrownBy(() -> s.queues().removeFlavor("default")).isInstanceOf(InvalidSpecException.class).hasMessageContaining("ClusterQueue cq");
        s.queues().addCohort(Cohort.of("a", null));
        s.queues().addCohort(Cohort.of("b", "a"));
        assertThatThrownBy(() -> s.queues().updateCohort(Cohort.of("a", "b"))).hasMessageContaining("cycle");
        assertThat(s.snapshot().cohorts().get("a").parent()).isNull(); // unchanged
        s.queues().updateFlavor(new ResourceFlavor("default", java.util.Map.of("gpu", "h100"), java.util.List.of(), java.util.List.of()));
        assertThat(s.snapshot().flavors().get("default").nodeLabels()).containsEntry("gpu", "h100");
        assertThat(s.queues().removeLocalQueue("default", "q")).isTrue();
        s.submit(JobSpec.builder("orphan").queue("q").members(1, Resources.builder().gpus(1).build()).build());
        s.runRound();
        assertThat(s.status("orphan").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUEUE_NOT_FOUND);
    }
}
