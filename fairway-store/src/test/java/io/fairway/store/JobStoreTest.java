package io.fairway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class JobStoreTest extends StoreTestBase {
    private static List<JobStore.NewJob> jobs(String prefix, int n) {
        return jobs("default", prefix, n, i -> i % 3);
    }

    @Test
    void aSubmittedJobSetAndItsHistoryAreThereAfterReopening() {
        JobStore.Settings db = settings("jobs");
        try (JobStore s = JobStore.open(db)) {
            s.submit("team-a", "run-1", "alice", 1000, jobs("a", 5));
            s.record(List.of(new JobStore.Transition("default/a0", "LEASED", 1100, "to eu"),
                    new JobStore.Transition("default/a0", "RUNNING", 1200, "runs"))).join();
            assertThat(s.cancel("team-a", "run-1", List.of("default/a1"), "alice", 1300)).containsExactly("default/a1");
            assertThat(s.reprioritize("team-a", "run-1", List.of(), 7, "bob", 1400)).hasSize(4); // a1 is cancelled
        }
        try (JobStore s = JobStore.open(db)) {
            Map<String, String> states = new TreeMap<>();
            s.forEach(j -> states.put(j.id(), j.state()));
            assertThat(states).containsEntry("default/a0", "RUNNING").containsEntry("default/a1", "CANCELLED").containsEntry("default/a4", "QUEUED");
            List<String> live = new ArrayList<>();
            assertThat(s.forEachLive((j, t) -> live.add(j.id() + "@" + j.priority() + " " + t))).isEqualTo(4);
            assertThat(live).contains("default/a0@7 {\"n\":0}").doesNotContain("default/a1@1 {\"n\":1}");
            List<JobStore.Event> ev = s.events("team-a", "run-1", 0, 100);
            assertThat(ev).extracting(JobStore.Event::type).containsSubsequence("SUBMITTED", "LEASED", "RUNNING", "CANCELLED", "REPRIORITIZED");
            assertThat(ev).hasSize(5 + 2 + 1 + 4);
            // resumable: after the 7th event only the rest come
            long seventh = ev.get(6).seq();
            assertThat(s.events("team-a", "run-1", seventh, 100)).containsExactlyElementsOf(ev.subList(7, ev.size()));
            assertThat(s.lastSeq()).isEqualTo(ev.get(ev.size() - 1).seq());
        }
    }

    @Test
    void anEndedJobKeepsItsEnd() {
        try (JobStore s = JobStore.open(settings("j"))) {
            s.submit("q", "s", "u", 1, jobs("x", 1));
            s.cancel("q", "s", List.of(), "u", 2);
            s.record(List.of(new JobStore.Transition("default/x0", "RUNNING", 3, "late"))).join();
            assertThat(s.job("default/x0").orElseThrow().state()).isEqualTo("CANCELLED");
            assertThat(s.events("q", "s", 0, 10)).extracting(JobStore.Event::type).containsExactly("SUBMITTED", "CANCELLED");
        }
    }

    @Test
    void aDuplicateIdStoresNothingOfTheSetAndOtherWritesGoOn() {
        try (JobStore s = JobStore.open(settings("d"))) {
            s.submit("q", "s", "u", 1, jobs("x", 2));
            List<JobStore.NewJob> clash = new ArrayList<>(jobs("y", 2));
            clash.add(new JobStore.NewJob("default/x0", 0, "{}"));
            assertThatThrownBy(() -> s.submit("q", "s2", "u", 2, clash)).isInstanceOf(StoreException.class).hasMessageContaining("stored already");
            assertThat(s.job("default/y0")).isEmpty();
            assertThat(s.events("q", "s2", 0, 10)).isEmpty();
            s.submit("q", "s3", "u", 3, jobs("z", 1));
            assertThat(s.job("default/z0")).isPresent();
        }
    }

    @Test
    void jobsSharingATemplateStoreItOnceAndEachReadsBackItsOwn() throws Exception {
        JobStore.Settings db = settings("shared");
        String shared = "{\"metadata\":{\"name\":\"" + JobStore.NAME_MARK + "\",\"uid\":\"" + JobStore.NAME_MARK + "\"}}";
        try (JobStore s = JobStore.open(db)) {
            List<JobStore.NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                jobs.add(JobStore.NewJob.shared("default/fw-" + i, 0, shared, "fw-" + i));
            }
            jobs.add(new JobStore.NewJob("default/own", 0, "{\"own\":true}"));
            s.submit("q", "set-1", "u", 1, jobs);
        }
        try (JobStore s = JobStore.open(db)) {
            assertThat(s.template("default/fw-7")).contains("{\"metadata\":{\"name\":\"fw-7\",\"uid\":\"fw-7\"}}");
            assertThat(s.template("default/own")).contains("{\"own\":true}");
            Map<String, String> own = new TreeMap<>();
            s.forEachLive((j, t) -> own.put(j.id(), t));
            assertThat(own).hasSize(101).containsEntry("default/fw-42", "{\"metadata\":{\"name\":\"fw-42\",\"uid\":\"fw-42\"}}");
            // recovery reads the shared template once: one number and one string for all 100 jobs
            List<JobStore.LiveJob> live = new ArrayList<>();
            s.forEachLiveJob(live::add);
            List<JobStore.LiveJob> sharing = live.stream().filter(l -> l.fill() != null).toList();
            assertThat(sharing).hasSize(100).extracting(JobStore.LiveJob::templateId).containsOnly(sharing.get(0).templateId());
            assertThat(sharing).allSatisfy(l -> assertThat(l.template()).isSameAs(sharing.get(0).template()));
            assertThat(live).extracting(l -> l.job().id()).startsWith("default/fw-0", "default/fw-1").endsWith("default/own");
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.jdbcUrl());
             java.sql.ResultSet rs = c.createStatement().executeQuery(
                     "SELECT (SELECT COUNT(*) FROM templates), (SELECT COUNT(*) FROM jobs WHERE template <> '')")) {
            rs.next();
            assertThat(rs.getInt(1)).as("shared templates stored").isEqualTo(1);
            assertThat(rs.getInt(2)).as("jobs holding a whole template").isEqualTo(1);
        }
    }

    @Test
    void aSharedTemplateNeedsAFillWithoutTheMark() {
        assertThatThrownBy(() -> JobStore.NewJob.shared("default/a", 0, "{}", null)).hasMessageContaining("fill");
        assertThatThrownBy(() -> JobStore.NewJob.shared("default/a", 0, "{}", "a" + JobStore.NAME_MARK)).hasMessageContaining("fill");
    }

    @Test
    void badSettingsNameTheField() {
        assertThatThrownBy(() -> JobStore.Settings.parse("jdbc:mysql://x")).hasMessageContaining("store.url").hasMessageContaining("jdbc:mysql://x");
    }
}
