package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
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
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Restore refuses what the engine could not have written (naming the job and the field), repairs what has a
 * documented rule, and accepts what the live engine does write — work running above a lowered quota included.
 */
class RestoreValidationTest {
    private final AtomicLong now = new AtomicLong();

    private Scheduler.Builder builder() {
        return Scheduler.builder().clock(now::get).policy("best-effort-fifo");
    }

    private static JobSpec job(String id, int gpus) {
        return TwoRunningOneWaiting.job(id, gpus);
    }

    /** a and b run (8 GPUs each, one per node), p waits; a second queue "other" exists and has usage history. */
    private SchedulerState runningState() {
        Scheduler.Builder b = builder().flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).gpus(16).build()).build())
                .clusterQueue(ClusterQueue.builder("other").quota("default", Resources.builder().cpu(64).gpus(16).build()).build())
                .localQueue(new LocalQueue("ns", "q", "cq"));
        for (int i = 0; i < 2; i++) {
            b.node(Node.builder("n" + i).capacity(Resources.builder().cpu(32).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = b.build();
        TwoRunningOneWaiting.start(s);
        now.addAndGet(60_000);
        s.runRound();
        return s.exportState();
    }

    private static SchedulerState with(SchedulerState st, long round, long nextSequence, List<ClusterQueue> queues, List<Node> nodes,
                                       List<JobStatus> jobs, Map<String, Double> usage) {
        return new SchedulerState(st.seed(), st.placement(), st.usageHalfLifeMillis(), round, nextSequence, st.usageUpdatedAt(), st.clusters(),
                st.flavors(), st.cohorts(), queues, st.localQueues(), nodes, st.nodePools(), jobs, usage, st.provisioning());
    }

    private static SchedulerState withJob(SchedulerState st, String id, UnaryOperator<JobStatus> change) {
        List<JobStatus> jobs = new ArrayList<>();
        for (JobStatus j : st.jobs()) {
            jobs.add(j.id().equals(id) ? change.apply(j) : j);
        }
        return with(st, st.round(), st.nextSequence(), st.clusterQueues(), st.nodes(), jobs, st.decayedUsage());
    }

    private static JobStatus values(JobStatus j, long stateSince, int preemptions, long attained, long running, double progress) {
        return new JobStatus(j.spec(), j.state(), j.pendingReason(), j.admission(), stateSince, preemptions, j.sequence(), attained, running, progress);
    }

    private void refused(SchedulerState bad, String... parts) {
        var thrown = assertThatThrownBy(() -> Scheduler.restore(bad, builder())).isInstanceOfSatisfying(InvalidSpecException.class,
                e -> assertThat(e.field()).isEqualTo("state"));
        for (String p : parts) {
            thrown.hasMessageContaining(p);
        }
    }

    @Test
    void aNodeCommittedBeyondItsCapacityInAnyResourceIsRefused() {
        SchedulerState st = runningState();
        // the same nodes with half a core: each job asks for one
        List<Node> small = new ArrayList<>();
        for (Node n : st.nodes()) {
            small.add(Node.builder(n.name()).capacity(Resources.builder().cpu(0.5).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        refused(with(st, st.round(), st.nextSequence(), st.clusterQueues(), small, st.jobs(), st.decayedUsage()),
                "is committed 1000 cpu, beyond its capacity 500 (jobs a)", "(jobs b)");
        // the live engine never gets there: a node that shrinks sends back what no longer fits
        Scheduler s = Scheduler.restore(st, builder());
        String nodeOfA = st.jobs().get(0).admission().placement().members().get(0).node();
        assertThat(s.clusters().updateNode(small.stream().filter(n -> n.name().equals(nodeOfA)).findFirst().orElseThrow())).containsExactly("a");
        assertThat(s.checkInvariants()).isEmpty();
        assertThatCode(() -> Scheduler.restore(s.exportState(), builder())).doesNotThrowAnyException();
    }

    @Test
    void runningWorkAboveItsQueuesQuotaRestoresAndRoundsGoOn() {
        SchedulerState st = runningState();
        List<ClusterQueue> lowered = new ArrayList<>();
        for (ClusterQueue q : st.clusterQueues()) {
            lowered.add(q.name().equals("cq") ? ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).gpus(8).build()).build() : q);
        }
        Scheduler s = Scheduler.restore(with(st, st.round(), st.nextSequence(), lowered, st.nodes(), st.jobs(), st.decayedUsage()), builder());
        assertThat(s.checkInvariants()).isEmpty();
        assertThatCode(s::runRound).doesNotThrowAnyException();
        assertThat(s.status("a").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.status("p").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.QUOTA);
        s.reportFinished("a");
        s.reportFinished("b");
        s.runRound();
        assertThat(s.status("p").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void countersThatWouldOverflowAreRefused() {
        SchedulerState st = runningState();
        refused(with(st, st.round(), Long.MAX_VALUE, st.clusterQueues(), st.nodes(), st.jobs(), st.decayedUsage()),
                "nextSequence is 9223372036854775807");
        refused(with(st, Long.MAX_VALUE, st.nextSequence(), st.clusterQueues(), st.nodes(), st.jobs(), st.decayedUsage()),
                "round is 9223372036854775807");
    }

    @Test
    void meaninglessJobValuesAreRefusedNamingTheJobAndTheField() {
        SchedulerState st = runningState();
        refused(withJob(st, "a", j -> values(j, j.stateSinceMillis(), 0, 0, 0, Double.NaN)), "job a: progress is NaN");
        refused(withJob(st, "a", j -> values(j, j.stateSinceMillis(), 0, 0, 0, -5)), "job a: progress is -5.0");
        refused(withJob(st, "a", j -> values(j, j.stateSinceMillis(), -7, 0, 0, 0)), "job a: preemptions is -7");
        refused(withJob(st, "a", j -> values(j, j.stateSinceMillis(), 0, 0, -1, 0)), "job a: runningMillis is -1");
        refused(withJob(st, "b", j -> values(j, j.stateSinceMillis(), 0, 1_000_000_000_000_000_000L, 0, 0)),
                "job b: attainedGpuMillis is 1000000000000000000");
        refused(withJob(st, "b", j -> values(j, j.stateSinceMillis(), 0, -1_000_000_000_000_000_000L, 0, 0)),
                "job b: attainedGpuMillis is -1000000000000000000");
        refused(withJob(st, "p", j -> values(j, Long.MIN_VALUE, 0, 0, 0, -1)), "job p: stateSinceMillis is -9223372036854775808");
    }

    @Test
    void restoreAndTheLiveCheckShareOneOwnerForAJobsStateAndForReservations() {
        SchedulerState st = runningState();
        JobStatus a = st.jobs().stream().filter(j -> j.id().equals("a")).findFirst().orElseThrow();
        SchedulerState bad = withJob(st, "p", j -> new JobStatus(j.spec(), JobState.PENDING, j.pendingReason(), a.admission(), j.stateSinceMillis(), 0,
                j.sequence(), 0, 0, -1));
        JobStatus p = bad.jobs().stream().filter(j -> j.id().equals("p")).findFirst().orElseThrow();
        String why = "pending job p must have a reason and no admission";
        assertThat(io.fairway.core.validation.Invariants.state(p)).containsExactly(why);
        assertThat(StateCheck.problems(bad)).contains(why);
        refused(bad, why);

        io.fairway.core.snapshot.Provisioning.Reservation r = new io.fairway.core.snapshot.Provisioning.Reservation("a", "cq",
                Map.of("main", "default"), Map.of("main", 1), 1, 0);
        assertThat(io.fairway.core.validation.Invariants.reservations(List.of(r), java.util.Set.of(), java.util.Set.of("cq")))
                .containsExactly("quota is reserved for job a, which is not pending");
        assertThat(io.fairway.core.validation.Invariants.reservations(List.of(r), java.util.Set.of("a"), java.util.Set.of("other")))
                .containsExactly("quota is reserved for job a in ClusterQueue cq, which the state does not have");
        assertThat(io.fairway.core.validation.Invariants.reservations(List.of(r), java.util.Set.of("a"), java.util.Set.of("cq"))).isEmpty();
    }

    @Test
    void anEndedJobHoldingAnAdmissionIsRefused() {
        SchedulerState st = runningState();
        refused(withJob(st, "a", j -> new JobStatus(j.spec(), JobState.SUCCEEDED, null, j.admission(), j.stateSinceMillis(), 0, j.sequence(),
                j.attainedGpuMillis(), j.runningMillis(), 1.0)), "job a is SUCCEEDED but still holds an admission (field admission)");
    }

    @Test
    void usageHistoryOfAQueueThatDoesNotExistIsDroppedAndTheEngineDropsItWithTheQueue() {
        SchedulerState st = runningState();
        assertThat(st.decayedUsage()).containsKeys("cq", "other");
        Map<String, Double> withGhost = new TreeMap<>(st.decayedUsage());
        withGhost.put("ghost", 0.5);
        Scheduler s = Scheduler.restore(with(st, st.round(), st.nextSequence(), st.clusterQueues(), st.nodes(), st.jobs(), withGhost), builder());
        assertThat(s.queues().decayedUsage()).doesNotContainKey("ghost").containsKeys("cq", "other");
        assertThat(s.queues().removeClusterQueue("other")).isTrue();
        assertThat(s.exportState().decayedUsage()).doesNotContainKey("other");
    }

    @Test
    void aUsageMapOutOfKeyOrderIsRefused() throws Exception {
        // a tree map read from bytes written out of key order: its own get() no longer finds its keys
        TreeMap<String, Double> m = new TreeMap<>(Map.of("qa", 1.0, "qb", 2.0));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(m);
        }
        byte[] b = bytes.toByteArray();
        swapLastChar(b, "qa", "qb");
        @SuppressWarnings("unchecked")
        TreeMap<String, Double> outOfOrder = (TreeMap<String, Double>) new ObjectInputStream(new ByteArrayInputStream(b)).readObject();
        assertThat(outOfOrder.keySet()).containsExactly("qb", "qa");
        assertThat(outOfOrder.get("qa")).as("why it matters").isNull();
        SchedulerState st = runningState();
        assertThatThrownBy(() -> with(st, st.round(), st.nextSequence(), st.clusterQueues(), st.nodes(), st.jobs(), outOfOrder))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("decayedUsage"))
                .hasMessageContaining("decayedUsage is not in key order: qa comes after qb");
    }

    /** Swaps the last characters of two serialised strings of the same length (their first occurrences). */
    private static void swapLastChar(byte[] b, String x, String y) {
        int i = indexOf(b, x.getBytes());
        int j = indexOf(b, y.getBytes());
        byte t = b[i + x.length() - 1];
        b[i + x.length() - 1] = b[j + y.length() - 1];
        b[j + y.length() - 1] = t;
    }

    private static int indexOf(byte[] b, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= b.length; i++) {
            for (int k = 0; k < what.length; k++) {
                if (b[i + k] != what[k]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    @Test
    void whatTheEngineExportsRestoresAndExportsTheSame() {
        SchedulerState st = runningState();
        Scheduler s = Scheduler.restore(st, builder());
        assertThat(s.exportState()).isEqualTo(st);
    }
}
