package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A round writes the pending reasons it changed and nothing else: a round in which no waiting job's reason changed
 * writes no reason (each job keeps its status object), lists none in {@link RoundResult#pendingReasons()} and sends
 * no {@code PENDING} event; a job whose answer is the same with other numbers keeps the reason it carries (reasons
 * are as of the round that found them); a round that changes answers writes exactly those, with one event each whose
 * text is the new reason.
 */
class ReasonsByChangeTest {
    private static final List<String> WAITING = List.of("w0", "w1", "w2", "w3", "w4", "wide");

    private static List<SchedulerEvent> pendingEvents(Fixtures.Recorder rec) {
        List<SchedulerEvent> l = new ArrayList<>();
        for (SchedulerEvent e : rec.events) {
            if (e.type() == EventType.PENDING) {
                l.add(e);
            }
        }
        return l;
    }

    private static Map<String, JobStatus> statuses(Scheduler s) {
        Map<String, JobStatus> m = new HashMap<>();
        for (String id : WAITING) {
            m.put(id, s.status(id).orElseThrow());
        }
        return m;
    }

    private static Scheduler fullClusterWithWaitingJobs(Fixtures.Recorder rec) {
        Scheduler s = cluster("best-effort-fifo", 10, rec, h100("n1")).build();
        s.submit(gpuJob("big", 1, 8));
        s.runRound();
        for (int i = 0; i < 5; i++) {
            s.submit(gpuJob("w" + i, 1, 2));
        }
        s.submit(gpuJob("wide", 2, 4));
        return s;
    }

    @Test
    void aRoundInWhichNoReasonChangedWritesNoneAndSendsNoPendingEvent() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = fullClusterWithWaitingJobs(rec);
        RoundResult first = s.runRound();
        assertThat(first.pendingReasons()).containsOnlyKeys(WAITING);
        assertThat(pendingEvents(rec)).extracting(SchedulerEvent::jobId).containsExactlyInAnyOrderElementsOf(WAITING);

        Map<String, JobStatus> before = statuses(s);
        rec.events.clear();
        for (int round = 0; round < 3; round++) {
            RoundResult same = s.runRound();
            assertThat(same.decisions()).isEmpty();
            assertThat(same.pendingReasons()).as("round %d lists no reason", round).isEmpty();
            assertThat(pendingEvents(rec)).as("round %d sends no PENDING event", round).isEmpty();
            Map<String, JobStatus> after = statuses(s);
            for (String id : WAITING) {
                assertThat(after.get(id)).as("%s's status is not rewritten", id).isSameAs(before.get(id));
            }
        }
    }

    @Test
    void aRoundThatChangesSomeReasonsWritesExactlyThoseWithOnePendingEventEach() {
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = fullClusterWithWaitingJobs(rec);
        s.runRound();
        PendingReason wideBefore = s.status("wide").orElseThrow().pendingReason();
        JobStatus w4Before = s.status("w4").orElseThrow();
        // jobs given equal reasons carry one object: the next rounds compare them by identity
        assertThat(s.status("w0").orElseThrow().pendingReason()).isSameAs(w4Before.pendingReason());

        // the big job leaves: w0..w3 take its GPUs; w4 (no GPU free) and wide (2 GPUs of quota left) keep their reasons
        rec.events.clear();
        s.cancel("big");
        RoundResult admitting = s.runRound();
        assertThat(admitting.decisions()).hasSize(4);
        assertThat(admitting.pendingReasons()).isEmpty();
        assertThat(pendingEvents(rec)).isEmpty();
        assertThat(s.status("w4").orElseThrow()).isSameAs(w4Before);

        // two of them leave: w4 is admitted, and wide has 4 GPUs of quota left, not 2 — the same answer with other
        // numbers, so wide keeps the reason it carries (as of the round that found it): nothing written, no event
        rec.events.clear();
        s.cancel("w0");
        s.cancel("w1");
        RoundResult sameAnswer = s.runRound();
        assertThat(sameAnswer.decisions()).hasSize(1);
        assertThat(sameAnswer.pendingReasons()).isEmpty();
        assertThat(pendingEvents(rec)).isEmpty();
        assertThat(s.status("wide").orElseThrow().pendingReason()).isSameAs(wideBefore);

        // two more leave: quota is no longer short, but 6 free GPUs on one node cannot hold two 4-GPU members — a
        // new answer, written to wide alone with one PENDING event
        rec.events.clear();
        s.cancel("w2");
        s.cancel("w3");
        RoundResult changed = s.runRound();
        assertThat(changed.decisions()).isEmpty();
        assertThat(changed.pendingReasons()).containsOnlyKeys("wide");
        PendingReason wideNow = s.status("wide").orElseThrow().pendingReason();
        assertThat(wideNow).isEqualTo(changed.pendingReasons().get("wide"));
        assertThat(wideNow.code()).isNotEqualTo(wideBefore.code());
        assertThat(pendingEvents(rec)).singleElement().satisfies(e -> {
            assertThat(e.jobId()).isEqualTo("wide");
            assertThat(e.reason()).isEqualTo(wideNow.code() + ": " + wideNow.message());
        });

        rec.events.clear();
        assertThat(s.runRound().pendingReasons()).isEmpty();
        assertThat(pendingEvents(rec)).isEmpty();
    }

    @Test
    void aRoundsReasonsAreReadOnly() {
        Scheduler s = fullClusterWithWaitingJobs(null);
        RoundResult r = s.runRound();
        assertThatThrownBy(() -> r.pendingReasons().put("w0", PendingReason.of(PendingReason.Code.QUOTA, "x")))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.pendingReasons().remove("w0")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(s.status("w0").orElseThrow().pendingReason()).isEqualTo(r.pendingReasons().get("w0"));
    }
}
