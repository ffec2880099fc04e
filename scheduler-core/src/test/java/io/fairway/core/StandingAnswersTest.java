package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A policy's walk that skips the groups whose answers stand ({@link PolicyContext#standingAnswer}): on a round after
 * an arrival the bundled walks attempt only what could have changed, a group whose dependency changed is decided
 * again, and the decisions and reasons are those of rounds from scratch.
 */
class StandingAnswersTest {
    private final AtomicLong now = new AtomicLong(1_000);

    private Scheduler scheduler(SchedulingPolicy policy, boolean remember) {
        return RoundFixture.twoNodes(now::get, policy, remember);
    }

    private static void sameStates(Scheduler remembering, Scheduler scratch) {
        Map<String, JobStatus> theirs = new TreeMap<>();
        for (JobStatus j : scratch.jobs().all()) {
            theirs.put(j.id(), j);
        }
        for (JobStatus j : remembering.jobs().all()) {
            JobStatus o = theirs.get(j.id());
            assertThat(o).as("job %s", j.id()).isNotNull();
            assertThat(j.state()).as("state of %s", j.id()).isEqualTo(o.state());
            assertThat(j.admission()).as("admission of %s", j.id()).isEqualTo(o.admission());
            if (j.pendingReason() != null) {
                assertThat(j.pendingReason().sameAnswer(o.pendingReason())).as("reason of %s: %s / %s", j.id(), j.pendingReason(),
                        o.pendingReason()).isTrue();
            }
        }
    }

    @Test
    void afterAnArrivalOnlyTheNewJobIsAttemptedAndTheOthersKeepTheirReasons() {
        for (String policy : List.of("priority", "best-effort-fifo", "fair-sharing")) {
            RoundFixture.Counting remembering = new RoundFixture.Counting(Policies.create(policy, Map.of()));
            RoundFixture.Counting scratch = new RoundFixture.Counting(Policies.create(policy, Map.of()));
            Scheduler a = scheduler(remembering, true);
            Scheduler b = scheduler(scratch, false);
            RoundFixture.fillAndQueue(a);
            RoundFixture.fillAndQueue(b);
            a.runRound(); // every waiting job is attempted and given its reason
            b.runRound();
            JobStatus before = a.status("wait-7").orElseThrow();
            a.submitAll(List.of(RoundFixture.job("late", 2, 50))); // an arrival: the round walks, but no attempt's dependency changed
            b.submitAll(List.of(RoundFixture.job("late", 2, 50)));
            remembering.reset();
            scratch.reset();
            RoundResult ra = a.runRound();
            RoundResult rb = b.runRound();
            assertThat(ra.decisions()).as("%s: decisions", policy).isEqualTo(rb.decisions());
            assertThat(scratch.attempts.get()).as("%s: attempts from scratch", policy).isGreaterThanOrEqualTo(20);
            assertThat(remembering.standing.get()).as("%s: groups left on a standing answer", policy).isEqualTo(20);
            assertThat(remembering.attempts.get()).as("%s: attempts: the new job's only", policy).isBetween(1, 2);
            assertThat(a.status("wait-7").orElseThrow().pendingReason()).as("%s: the reason kept", policy).isSameAs(before.pendingReason());
            assertThat(a.status("late").orElseThrow().pendingReason()).as("%s: the new job is answered", policy).isNotNull();
            sameStates(a, b);
        }
    }

    @Test
    void afterAnAdmissionTheGroupsOfAShapeWhoseSearchFailedStandOnThatFailure() {
        RoundFixture.Counting remembering = new RoundFixture.Counting(Policies.create("priority", Map.of()));
        Scheduler a = scheduler(remembering, true);
        Scheduler b = scheduler(Policies.create("priority", Map.of()), false);
        RoundFixture.fillAndQueue(a); // 20 jobs of priorities 0..19 and 1, 2, 4 and 8 GPUs in turn wait behind two runners
        RoundFixture.fillAndQueue(b);
        a.runRound();
        b.runRound();
        JobStatus before = a.status("wait-6").orElseThrow();
        a.reportFinished("run-2"); // a node frees: every remembered answer is void
        b.reportFinished("run-2");
        remembering.reset();
        RoundResult ra = a.runRound();
        RoundResult rb = b.runRound();
        assertThat(ra.decisions()).isEqualTo(rb.decisions());
        assertThat(ra.decisions()).as("the highest priority takes the node").anyMatch(d -> d instanceof Admit x && x.jobId().equals("wait-19"));
        // walked by priority: wait-19 is admitted, then the first job of each other shape (wait-18, 17, 16, 15) fails to
        // fit and finds no victim; every lower-priority job of those shapes stands on that failure, without attempts
        assertThat(a.roundMemory().answeredByLastRound()).as("nothing answered from memory").isZero();
        assertThat(remembering.standing.get()).as("groups standing on a failure of the round").isEqualTo(15);
        assertThat(remembering.attempts.get()).as("attempts: wait-19's admission, two for each of the four others").isEqualTo(9);
        assertThat(a.status("wait-6").orElseThrow().pendingReason()).as("the reason kept").isSameAs(before.pendingReason());
        sameStates(a, b);
    }

    @Test
    void aGroupWhoseCapacityChangedIsDecidedAgain() {
        for (String policy : List.of("priority", "best-effort-fifo")) {
            RoundFixture.Counting remembering = new RoundFixture.Counting(Policies.create(policy, Map.of()));
            Scheduler a = scheduler(remembering, true);
            Scheduler b = scheduler(Policies.create(policy, Map.of()), false);
            RoundFixture.fillAndQueue(a);
            RoundFixture.fillAndQueue(b);
            a.runRound();
            b.runRound();
            a.submitAll(List.of(RoundFixture.job("late", 2, 50)));
            b.submitAll(List.of(RoundFixture.job("late", 2, 50)));
            a.runRound();
            b.runRound();
            a.reportFinished("run-1"); // 8 GPUs free: every waiting job's capacity changed
            b.reportFinished("run-1");
            remembering.reset();
            RoundResult ra = a.runRound();
            RoundResult rb = b.runRound();
            assertThat(ra.decisions()).as("%s: decisions", policy).isEqualTo(rb.decisions());
            assertThat(ra.decisions()).as("%s: the freed node is used", policy).anyMatch(d -> d instanceof Admit);
            // the remembered answers are all void; a group may still stand on a failure this round found after the
            // freed node was used (a bound of the round, under the preempting policy), never on one from memory
            assertThat(a.roundMemory().answeredByLastRound()).as("%s: no remembered answer stands once the capacity changed", policy)
                    .isZero();
            sameStates(a, b);
        }
    }
}
