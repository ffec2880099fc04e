package io.fairway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Several managers sharing one store: each {@link JobStore} here is opened separately on the same database, as two
 * processes would. A leader's writes are refused once a later term was claimed; the leader reads every change any of
 * them committed, by sequence number.
 */
class JobStoreLeadershipTest extends StoreTestBase {
    private static List<JobStore.NewJob> jobs(String prefix, int n) {
        return jobs("ml", prefix, n, i -> 0);
    }

    @Test
    void aStaleLeadersWritesAreRefusedAndStoreNothingOnceAnotherTookTheLead() {
        JobStore.Settings db = settings("shared");
        try (JobStore one = JobStore.open(db); JobStore two = JobStore.open(db)) {
            one.submit("batch", "s", "alice", 1000, jobs("a", 2));
            assertThat(one.leaderTerm()).isZero();
            long t1 = one.claimLeadership("replica-1", 1100);
            assertThat(t1).isEqualTo(1);
            one.recordAsLeader(t1, List.of(new JobStore.Transition("ml/a0", "LEASED", 1200, "to eu"))).join();
            one.confirmLeadership(t1);

            long t2 = two.claimLeadership("replica-2", 1300);
            assertThat(t2).isEqualTo(2);
            assertThat(one.leaderTerm()).isEqualTo(2);

            // the first leader, not knowing: each write is refused whole, naming the term that took over
            assertThatThrownBy(() -> one.recordAsLeader(t1, List.of(new JobStore.Transition("ml/a0", "SUCCEEDED", 1400, "done"),
                    new JobStore.Transition("ml/a1", "LEASED", 1400, "to us"))).join())
                    .isInstanceOf(CompletionException.class).satisfies(e -> assertThat(LeadershipLostException.in(e)).isTrue())
                    .hasMessageContaining("term 2").hasMessageContaining("replica-2");
            assertThatThrownBy(() -> one.confirmLeadership(t1)).satisfies(e -> assertThat(LeadershipLostException.in(e)).isTrue());
            assertThat(two.job("ml/a0").orElseThrow().state()).isEqualTo("LEASED");
            assertThat(two.job("ml/a1").orElseThrow().state()).isEqualTo("QUEUED");

            // the new leader writes; its events carry its term
            two.recordAsLeader(t2, List.of(new JobStore.Transition("ml/a1", "LEASED", 1500, "to eu"))).join();
            List<JobStore.Event> ev = two.events("batch", "s", 0, 100);
            assertThat(ev).extracting(JobStore.Event::type).containsExactly("SUBMITTED", "SUBMITTED", "LEASED", "LEASED");
            // the APIs still write whoever leads
            one.submit("batch", "s2", "bob", 1600, jobs("b", 1));
            assertThat(two.job("ml/b0")).isPresent();
        }
    }

    @Test
    void theLeaderReadsEveryChangeAnyProcessCommittedInOrderAndOnlyOnce() {
        JobStore.Settings db = settings("changes");
        try (JobStore leader = JobStore.open(db); JobStore standby = JobStore.open(db)) {
            JobStore.Changes none = leader.changesAfter(0, 100);
            assertThat(none.changes()).isEmpty();
            leader.submit("batch", "own", "alice", 1000, jobs("own", 2));
            standby.submit("batch", "other", "bob", 1100, jobs("other", 3));
            standby.cancel("batch", "other", List.of("ml/other1"), "bob", 1200);
            standby.reprioritize("batch", "other", List.of("ml/other2"), 9, "bob", 1300);
            leader.recordAsLeader(leader.claimLeadership("l", 1350), List.of(new JobStore.Transition("ml/own0", "LEASED", 1400, "x"))).join();

            JobStore.Changes all = leader.changesAfter(0, 100);
            assertThat(all.changes()).extracting(c -> c.type() + " " + c.job().id()).containsExactly("SUBMITTED ml/own0", "SUBMITTED ml/own1",
                    "SUBMITTED ml/other0", "SUBMITTED ml/other1", "SUBMITTED ml/other2", "CANCELLED ml/other1", "REPRIORITIZED ml/other2");
            // each change comes with the job as it is now, and a submission with its template
            assertThat(all.changes().get(3).job().state()).isEqualTo("CANCELLED");
            assertThat(all.changes().get(6).job().priority()).isEqualTo(9);
            assertThat(all.changes().get(2).template()).isEqualTo("{\"n\":0}");
            assertThat(all.next()).isEqualTo(leader.committedSeq()); // the LEASED event is passed over too

            // in pages, from where the last read stopped: nothing twice, nothing missed
            List<String> paged = new ArrayList<>();
            long from = 0;
            for (int i = 0; i < 10; i++) {
                JobStore.Changes page = leader.changesAfter(from, 2);
                page.changes().forEach(c -> paged.add(c.type() + " " + c.job().id()));
                if (page.next() == from) {
                    break;
                }
                from = page.next();
            }
            assertThat(paged).containsExactlyElementsOf(all.changes().stream().map(c -> c.type() + " " + c.job().id()).toList());
            standby.submit("batch", "late", "bob", 1500, jobs("late", 1));
            assertThat(leader.changesAfter(all.next(), 100).changes()).extracting(c -> c.job().id()).containsExactly("ml/late0");
            assertThatThrownBy(() -> leader.changesAfter(0, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
        }
    }

    @Test
    void aStandbysWatchersWakeOnTheLeadersEvents() throws Exception {
        JobStore.Settings db = settings("watch");
        try (JobStore leader = JobStore.open(db); JobStore standby = JobStore.open(db)) {
            long seen = standby.lastSeq();
            leader.submit("batch", "s", "alice", 1000, jobs("w", 1));
            assertThat(standby.awaitAfter(seen, 1)).as("the standby's own writer wrote nothing").isFalse();
            standby.refreshCommitted();
            assertThat(standby.awaitAfter(seen, 1)).isTrue();
        }
    }
}
