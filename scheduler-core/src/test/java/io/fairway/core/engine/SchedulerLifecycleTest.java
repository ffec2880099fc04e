package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static io.fairway.core.engine.Fixtures.reason;
import static io.fairway.core.engine.Fixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The job state machine as an embedding controller drives it: submit, admit, start, finish, cancel, preempt, lose a node. */
class SchedulerLifecycleTest {

    @Test
    void submitAdmitStartSucceed() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = cluster("best-effort-fifo", 8, rec, h100("n1")).build();

        s.submit(gpuJob("j1", 1, 4));
        assertThat(state(s, "j1")).isEqualTo(JobState.PENDING);
        assertThat(reason(s, "j1")).isNotNull();

        RoundResult r = s.runRound();
        assertThat(r.decisions()).singleElement().isInstanceOfSatisfying(Admit.class, a -> {
            assertThat(a.jobId()).isEqualTo("j1");
            assertThat(a.clusterQueue()).isEqualTo(Fixtures.CQ);
            assertThat(a.flavors()).containsEntry("main", Fixtures.FLAVOR);
            assertThat(a.placement().members()).singleElement().satisfies(m -> {
                assertThat(m.node()).isEqualTo("n1");
                assertThat(m.gpus()).hasSize(4);
            });
        });
        assertThat(rec.decisions).containsExactlyElementsOf(r.decisions());
        assertThat(state(s, "j1")).isEqualTo(JobState.ADMITTED);
        assertThat(s.status("j1").orElseThrow().pendingReason()).isNull();

        assertThat(s.reportStarted("j1")).isTrue();
        assertThat(state(s, "j1")).isEqualTo(JobState.RUNNING);
        assertThat(s.reportFinished("j1")).isTrue();
        assertThat(state(s, "j1")).isEqualTo(JobState.SUCCEEDED);
        assertThat(s.status("j1").orElseThrow().admission()).isNull();

        // a finished job cannot start or finish again
        assertThat(s.reportStarted("j1")).isFalse();
        assertThat(s.reportFinished("j1")).isFalse();
        assertThat(state(s, "j1")).isEqualTo(JobState.SUCCEEDED);

        assertThat(rec.eventsOf("j1")).extracting(SchedulerEvent::type)
                .containsSubsequence(EventType.SUBMITTED, EventType.ADMITTED, EventType.STARTED, EventType.SUCCEEDED)
                .doesNotContain(EventType.FAILED, EventType.CANCELLED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    /** {@code submitTimeMillis} 0 means "at submission": the engine stamps its clock; a given time is kept. */
    @Test
    void aJobWithoutASubmitTimeIsStampedWithTheClockAtSubmission() {
        long[] now = {1_764_000_000_000L};
        Scheduler s = cluster("best-effort-fifo", 16, null, h100("n1")).clock(() -> now[0]).build();
        s.submit(gpuJob("unset", 1, 8));
        s.submit(gpuJob("given", 1, 8).withSubmitTime(42));
        assertThat(s.status("unset").orElseThrow().spec().submitTimeMillis()).isEqualTo(1_764_000_000_000L);
        assertThat(s.status("given").orElseThrow().spec().submitTimeMillis()).isEqualTo(42);
        s.runRound(); // submission order follows the times: the job submitted "at 42" goes first
        assertThat(state(s, "given")).isEqualTo(JobState.ADMITTED);
    }

    @Test
    void finishingReleasesCapacityForTheNextJob() {
        Scheduler s = cluster("best-effort-fifo", 16, null, h100("n1")).build();
        s.submit(gpuJob("a", 1, 8));
        s.submit(gpuJob("b", 1, 8));
        s.runRound();
        assertThat(state(s, "a")).isEqualTo(JobState.ADMITTED);
        assertThat(state(s, "b")).isEqualTo(JobState.PENDING);
        s.reportStarted("a");
        s.reportFailed("a", "OOM");
        assertThat(state(s, "a")).isEqualTo(JobState.FAILED);
        s.runRound();
        assertThat(state(s, "b")).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void reportStartedOnAJobThatIsNotAdmittedIsRefusedAndChangesNothing() {
        Scheduler s = cluster("best-effort-fifo", 8, null, h100("n1")).build();
        s.submit(gpuJob("j1", 1, 16)); // never fits: stays pending
        s.runRound();
        List<?> before = s.jobs().all();
        assertThat(s.reportStarted("j1")).isFalse();
        assertThat(s.reportStarted("no-such-job")).isFalse();
        assertThat(s.reportFinished("j1")).isFalse();
        assertThat(s.jobs().all()).isEqualTo(before);
        assertThat(state(s, "j1")).isEqualTo(JobState.PENDING);
    }

    @Test
    void cancelAPendingJob() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = cluster("best-effort-fifo", 8, rec, h100("n1")).build();
        s.submit(gpuJob("j1", 1, 16));
        assertThat(s.cancel("j1")).isTrue();
        assertThat(state(s, "j1")).isEqualTo(JobState.CANCELLED);
        assertThat(s.jobs().pending()).isEmpty();
        assertThat(s.cancel("j1")).isFalse();
        assertThat(s.cancel("unknown")).isFalse();
        // nothing to stop: it held nothing
        assertThat(rec.decisions).isEmpty();
        assertThat(s.runRound().decisions()).isEmpty();
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void cancelARunningJobStopsItAndFreesItsGpus() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = cluster("best-effort-fifo", 16, rec, h100("n1")).build();
        s.submit(gpuJob("a", 1, 8));
        s.submit(gpuJob("b", 1, 8));
        s.runRound();
        s.reportStarted("a");
        rec.decisions.clear();

        assertThat(s.cancel("a")).isTrue();
        assertThat(rec.decisions).singleElement().isEqualTo(new Preempt("a", "cancelled", false, false));
        assertThat(state(s, "a")).isEqualTo(JobState.CANCELLED);
        assertThat(rec.eventsOf("a")).extracting(SchedulerEvent::type).endsWith(EventType.CANCELLED);

        s.runRound();
        assertThat(state(s, "b")).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void preemptionSendsTheVictimBackToPendingWithItsReason() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = Scheduler.builder()
                .policy("priority")
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(1000).gpus(8).build())
                        .preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null)).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(h100("n1"))
                .clock(() -> 5)
                .actuator(rec.decisions::addAll).listener(rec.events::add)
                .build();
        s.submit(JobSpec.builder("low").queue("lq").priority(0).members(1, Resources.builder().cpu(1).gpus(8).build()).build());
        s.runRound();
        s.reportStarted("low");
        s.submit(JobSpec.builder("high").queue("lq").priority(10).members(1, Resources.builder().cpu(1).gpus(8).build()).build());
        rec.decisions.clear();

        RoundResult r = s.runRound();
        // preemptions come before admissions, so an actuator frees the GPUs before it binds them again
        assertThat(r.decisions()).hasSize(2);
        assertThat(r.decisions().get(0)).isInstanceOfSatisfying(Preempt.class, p -> assertThat(p.jobId()).isEqualTo("low"));
        assertThat(r.decisions().get(1)).isInstanceOfSatisfying(Admit.class, a -> assertThat(a.jobId()).isEqualTo("high"));
        assertThat(rec.decisions).containsExactlyElementsOf(r.decisions());

        assertThat(state(s, "low")).isEqualTo(JobState.PENDING);
        assertThat(reason(s, "low").code()).isEqualTo(PendingReason.Code.PREEMPTED);
        assertThat(s.status("low").orElseThrow().preemptions()).isEqualTo(1);
        assertThat(s.status("low").orElseThrow().admission()).isNull();
        assertThat(rec.eventsOf("low")).extracting(SchedulerEvent::type).contains(EventType.PREEMPTED);
        assertThat(state(s, "high")).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();

        // when the preemptor finishes, the victim runs again
        s.reportStarted("high");
        s.reportFinished("high");
        s.runRound();
        assertThat(state(s, "low")).isEqualTo(JobState.ADMITTED);
    }

    @Test
    void removeNodeRequeuesEveryJobOnItAndTellsTheActuatorToStopThem() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = cluster("best-effort-fifo", 64, rec, h100("n1"), h100("n2"), h100("n3")).build();
        s.submit(gpuJob("gang", 2, 8));   // needs two whole nodes
        s.submit(gpuJob("single", 1, 8)); // a third whole node
        s.runRound();
        s.reportStarted("gang");
        s.reportStarted("single");
        Set<String> gangNodes = s.status("gang").orElseThrow().admission().placement().nodes();
        String lost = gangNodes.iterator().next();
        rec.decisions.clear();

        List<String> requeued = s.clusters().removeNode(lost);

        assertThat(requeued).containsExactly("gang");
        assertThat(rec.decisions).singleElement().isInstanceOfSatisfying(Preempt.class, p -> {
            assertThat(p.jobId()).isEqualTo("gang");
            assertThat(p.reason()).contains(lost);
        });
        assertThat(state(s, "gang")).isEqualTo(JobState.PENDING);
        assertThat(reason(s, "gang").code()).isEqualTo(PendingReason.Code.PREEMPTED);
        assertThat(reason(s, "gang").message()).contains(lost);
        assertThat(state(s, "single")).isEqualTo(JobState.RUNNING);
        assertThat(rec.eventsOf("gang")).extracting(SchedulerEvent::type).contains(EventType.REQUEUED);
        assertThat(s.clusters().nodes()).extracting(n -> n.name()).doesNotContain(lost);
        assertThat(s.checkInvariants()).isEmpty();

        // two nodes are left, one of them busy: the gang of two whole nodes must wait
        s.runRound();
        assertThat(state(s, "gang")).isEqualTo(JobState.PENDING);
        // a replacement node comes up: the gang runs again, on nodes that exist
        s.clusters().addNode(h100("n4"));
        s.runRound();
        assertThat(state(s, "gang")).isEqualTo(JobState.ADMITTED);
        Set<String> names = new HashSet<>();
        s.clusters().nodes().forEach(n -> names.add(n.name()));
        assertThat(s.status("gang").orElseThrow().admission().placement().members()).extracting(MemberPlacement::node)
                .allMatch(names::contains).doesNotContain(lost);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void cordonedNodesTakeNothingNewButKeepWhatRuns() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).build();
        s.submit(gpuJob("a", 1, 4));
        s.runRound();
        s.reportStarted("a");
        s.clusters().cordon("n1", true);
        s.submit(gpuJob("b", 1, 4));
        s.runRound();
        assertThat(state(s, "a")).isEqualTo(JobState.RUNNING);
        assertThat(state(s, "b")).isEqualTo(JobState.PENDING);
        s.clusters().cordon("n1", false);
        s.runRound();
        assertThat(state(s, "b")).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void listenersSeeEveryEventAndJobSetListenersOnlyTheirSet() {
        Scheduler s = cluster("best-effort-fifo", 16, null, h100("n1")).build();
        List<SchedulerEvent> all = new ArrayList<>();
        List<SchedulerEvent> sweep = new ArrayList<>();
        s.addListener(all::add);
        s.addJobSetListener("sweep", sweep::add);

        s.submit(JobSpec.builder("a").queue("lq").jobSet("sweep").members(1, Resources.builder().gpus(2).build()).build());
        s.submit(JobSpec.builder("b").queue("lq").jobSet("other").members(1, Resources.builder().gpus(2).build()).build());
        s.submit(JobSpec.builder("c").queue("lq").jobSet("sweep").members(1, Resources.builder().gpus(64).build()).build());
        s.runRound();
        s.reportStarted("a");
        s.cancel("b");

        assertThat(all).extracting(SchedulerEvent::jobId).contains("a", "b", "c");
        assertThat(all).filteredOn(e -> "a".equals(e.jobId())).extracting(SchedulerEvent::type)
                .containsExactly(EventType.SUBMITTED, EventType.ADMITTED, EventType.STARTED);
        assertThat(all).filteredOn(e -> "b".equals(e.jobId())).extracting(SchedulerEvent::type)
                .containsExactly(EventType.SUBMITTED, EventType.ADMITTED, EventType.CANCELLED);
        assertThat(all).filteredOn(e -> "c".equals(e.jobId())).extracting(SchedulerEvent::type)
                .startsWith(EventType.SUBMITTED).contains(EventType.PENDING);
        assertThat(sweep).isNotEmpty().allMatch(e -> "sweep".equals(e.jobSet())).extracting(SchedulerEvent::jobId).containsOnly("a", "c");
        assertThat(sweep).isEqualTo(all.stream().filter(e -> "sweep".equals(e.jobSet())).toList());
        assertThat(all).allMatch(e -> e.timeMillis() == 1_000);

        // a listener that throws does not break the scheduler or the other listeners
        s.addListener(e -> {
            throw new IllegalStateException("boom");
        });
        int seen = all.size();
        s.submit(gpuJob("d", 1, 1));
        assertThat(all).hasSize(seen + 1);
        assertThat(state(s, "d")).isEqualTo(JobState.PENDING);

        List<SchedulerEvent> late = new ArrayList<>();
        s.addListener(late::add);
        s.runRound();
        assertThat(late).extracting(SchedulerEvent::jobId).contains("d");
    }

    @Test
    void everyDecisionTheActuatorGetsIsAnAdmitOrPreemptOfAKnownJob() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = cluster("best-effort-fifo", 64, rec, h100("n1"), h100("n2")).build();
        for (int i = 0; i < 6; i++) {
            s.submit(gpuJob("j" + i, 1, 4));
        }
        s.runRound();
        assertThat(rec.decisions).hasSize(4).allMatch(d -> d instanceof Admit);
        for (Decision d : rec.decisions) {
            assertThat(s.status(d.jobId())).isPresent();
        }
        assertThat(s.jobs().all()).filteredOn(j -> j.state() == JobState.PENDING).hasSize(2);
    }
}
