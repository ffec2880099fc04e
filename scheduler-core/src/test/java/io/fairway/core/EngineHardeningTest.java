package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import io.fairway.core.snapshot.Snapshot;

/** Null arguments, removing a busy ClusterQueue, and restoring an inconsistent state. */
class EngineHardeningTest {
    private final AtomicLong now = new AtomicLong();

    private Scheduler.Builder builder() {
        return Scheduler.builder().clock(now::get).policy("best-effort-fifo");
    }

    private Scheduler twoNodes() {
        Scheduler.Builder b = builder().flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).gpus(16).build()).build())
                .localQueue(new LocalQueue("ns", "q", "cq"));
        for (int i = 0; i < 2; i++) {
            b.node(Node.builder("n" + i).capacity(Resources.builder().cpu(32).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b.build();
    }

    private static JobSpec job(String id, int gpus) {
        return TwoRunningOneWaiting.job(id, gpus);
    }

    @Test
    void nullArgumentsAreRefusedByNameAndChangeNothing() {
        Scheduler s = twoNodes();
        s.submit(job("a", 1));
        Snapshot before = s.snapshot();
        assertThatThrownBy(() -> s.submit(null)).isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("job"))
                .hasMessage("job must not be null");
        assertThatThrownBy(() -> s.submitAll(null)).isInstanceOf(InvalidSpecException.class).hasMessage("batch must not be null");
        List<JobSpec> withNull = new ArrayList<>();
        withNull.add(job("b", 1));
        withNull.add(null);
        assertThatThrownBy(() -> s.submitAll(withNull)).isInstanceOf(InvalidSpecException.class).hasMessage("batch[1] must not be null");
        assertThatThrownBy(() -> s.clusters().addNode(null)).isInstanceOf(InvalidSpecException.class).hasMessage("node must not be null");
        assertThatThrownBy(() -> s.queues().removeClusterQueue(null)).isInstanceOf(InvalidSpecException.class).hasMessage("name must not be null");
        assertThatThrownBy(() -> Scheduler.builder().node(null)).isInstanceOf(InvalidSpecException.class).hasMessage("node must not be null");
        assertThatThrownBy(() -> Scheduler.restore(null, builder())).isInstanceOf(InvalidSpecException.class).hasMessage("state must not be null");
        assertThat(s.snapshot()).isEqualTo(before);
        assertThat(s.status("b")).isEmpty();
    }

    @Test
    void aClusterQueueWithRunningJobsIsNotRemovedUntilTheyEnd() {
        Scheduler s = twoNodes();
        s.submit(job("runs", 8));
        s.runRound();
        s.reportStarted("runs");
        s.submit(job("waits", 1));
        Snapshot before = s.snapshot();

        assertThatThrownBy(() -> s.queues().removeClusterQueue("cq"))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo("cq"))
                .hasMessageContaining("ClusterQueue cq still holds resources for 1 job(s) [runs]");
        assertThat(s.snapshot()).as("nothing changed").isEqualTo(before);
        assertThat(s.status("runs").orElseThrow().state()).isEqualTo(JobState.RUNNING);

        s.queues().stopClusterQueue("cq", true);
        s.reportFinished("runs");
        assertThat(s.queues().removeClusterQueue("cq")).isTrue();
        assertThat(s.queues().removeClusterQueue("cq")).isFalse();
        s.runRound();
        assertThat(s.status("waits").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.CLUSTER_QUEUE_NOT_FOUND);
        assertThat(s.checkInvariants()).isEmpty();
    }

    private SchedulerState runningState() {
        Scheduler s = twoNodes();
        TwoRunningOneWaiting.start(s);
        assertThat(s.status("p").orElseThrow().state()).isEqualTo(JobState.PENDING);
        return s.exportState();
    }

    private static SchedulerState withJobs(SchedulerState st, List<JobStatus> jobs, List<Node> nodes) {
        return new SchedulerState(st.seed(), st.placement(), st.usageHalfLifeMillis(), st.round(), st.nextSequence(), st.usageUpdatedAt(),
                st.clusters(), st.flavors(), st.cohorts(), st.clusterQueues(), st.localQueues(), nodes, st.nodePools(), jobs,
                st.decayedUsage(), st.provisioning());
    }

    @Test
    void restoreRefusesAJobOnANodeTheStateDoesNotHave() {
        SchedulerState st = runningState();
        String nodeOfA = st.jobs().get(0).admission().placement().members().get(0).node();
        List<Node> fewer = st.nodes().stream().filter(n -> !n.name().equals(nodeOfA)).toList();
        assertThatThrownBy(() -> Scheduler.restore(withJobs(st, st.jobs(), fewer), builder()))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("state"))
                .hasMessageContaining("job a (RUNNING) is placed on node " + nodeOfA + ", which the state does not have");
    }

    @Test
    void restoreRefusesTwoRunningJobsOnTheSameGpus() {
        SchedulerState st = runningState();
        JobStatus a = st.jobs().get(0);
        JobStatus b = st.jobs().get(1);
        Admit ab = b.admission();
        Admit onA = new Admit(ab.jobId(), ab.clusterQueue(), ab.flavors(), ab.counts(), a.admission().placement(), ab.admittedAtMillis(),
                ab.leaseExpiresAtMillis(), ab.admissionOrder());
        JobStatus bOnA = new JobStatus(b.spec(), b.state(), b.pendingReason(), onA, b.stateSinceMillis(), b.preemptions(), b.sequence(),
                b.attainedGpuMillis(), b.runningMillis(), b.progress());
        List<JobStatus> jobs = new ArrayList<>(st.jobs());
        jobs.set(1, bOnA);
        assertThatThrownBy(() -> Scheduler.restore(withJobs(st, jobs, st.nodes()), builder()))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("is given to both a and b").hasMessageContaining("9 problems");
        // the untouched state restores, and runs
        Scheduler ok = Scheduler.restore(st, builder());
        assertThat(ok.checkInvariants()).isEmpty();
    }

    @Test
    void restoreRefusesStatesWhoseJobsDisagreeWithTheirAdmission() {
        SchedulerState st = runningState();
        JobStatus a = st.jobs().get(0);
        JobStatus p = st.jobs().get(2);
        List<JobStatus> jobs = new ArrayList<>(st.jobs());
        jobs.set(0, new JobStatus(a.spec(), JobState.RUNNING, null, null, a.stateSinceMillis(), a.preemptions(), a.sequence(), 0, 0, 0));
        jobs.set(2, new JobStatus(p.spec(), JobState.PENDING, p.pendingReason(), p.admission(), p.stateSinceMillis(), p.preemptions(),
                a.sequence(), 0, 0, 0));
        assertThatThrownBy(() -> Scheduler.restore(withJobs(st, jobs, st.nodes()), builder()))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("job a is RUNNING without an admission")
                .hasMessageContaining("job p has sequence 0, repeated");
    }
}
