package io.fairway.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/** The holding jobs a snapshot carries: service up to the round's clock, read lazily, one object per job. */
class HeldJobsTest {
    private static JobStatus held(long seq, JobState state, long since) {
        JobSpec spec = JobSpec.builder("j" + seq).queue("lq").podSet(PodSet.of("main", 1, Resources.builder().cpu(1).build())).build();
        Admit a = new Admit(spec.id(), "cq", Map.of("main", "f"), Map.of(), new Placement(List.of(), null, 1.0), since, Admit.NO_LEASE, seq);
        return new JobStatus(spec, state, null, a, since, 0, seq, 100 * seq, 10 * seq, 0);
    }

    private static JobStatus[] jobs(Random r, int n) {
        JobStatus[] s = new JobStatus[n];
        long seq = 0;
        for (int i = 0; i < n; i++) {
            seq += 1 + r.nextInt(3);
            s[i] = held(seq, r.nextInt(4) == 0 ? JobState.QUOTA_RESERVED : JobState.RUNNING, r.nextInt(1_000));
        }
        return s;
    }

    @Test
    void everyJobIsAsOfTheRoundsClockAndKeepsWhatItHolds() {
        Random r = new Random(7);
        for (int trial = 0; trial < 50; trial++) {
            JobStatus[] stored = jobs(r, r.nextInt(40));
            long now = 2_000 + r.nextInt(1_000);
            List<JobStatus> held = new HeldJobs(stored.clone(), now);
            Snapshot s = new Snapshot(1, now, 0, Map.of(), List.of(), Map.of(), Map.of(), Map.of(), Map.of(), List.of(), held);
            List<JobStatus> expected = new ArrayList<>();
            for (JobStatus j : stored) {
                expected.add(j.asOf(now));
            }
            assertThat(s.holding()).isEqualTo(expected); // service brought up to now, as a copied list would be
            for (int i = 0; i < stored.length; i++) {
                JobStatus stale = HeldJobs.stored(s.holding(), i);
                assertThat(stale).isSameAs(stored[i]);
                assertThat(stale.spec()).isSameAs(s.holding().get(i).spec());
                assertThat(stale.admission()).isSameAs(s.holding().get(i).admission());
                assertThat(stale.state()).isEqualTo(s.holding().get(i).state());
                // every path to a job gives the same object
                assertThat(HeldJobs.current(s.holding(), stale)).isSameAs(s.holding().get(i));
            }
        }
    }

    @Test
    void threadsReadingOneSnapshotSeeTheSameObjects() throws Exception {
        JobStatus[] stored = jobs(new Random(11), 500);
        HeldJobs held = new HeldJobs(stored, 5_000);
        ConcurrentLinkedQueue<List<JobStatus>> seen = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int start = t;
            Thread th = new Thread(() -> {
                List<JobStatus> mine = new ArrayList<>();
                for (int i = 0; i < stored.length; i++) {
                    mine.add(held.get((i * 7 + start * 131) % stored.length));
                }
                List<JobStatus> ordered = new ArrayList<>(java.util.Collections.nCopies(stored.length, (JobStatus) null));
                for (int i = 0; i < stored.length; i++) {
                    ordered.set((i * 7 + start * 131) % stored.length, mine.get(i));
                }
                seen.add(ordered);
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        List<JobStatus> first = seen.peek();
        for (List<JobStatus> l : seen) {
            for (int i = 0; i < stored.length; i++) {
                assertThat(l.get(i)).isSameAs(first.get(i));
            }
        }
    }

    @Test
    void aLookupByIdFindsTheHoldingJobWhetherItScansOrUsesTheIndex() {
        Random r = new Random(5);
        JobStatus[] stored = jobs(r, 300);
        HeldJobs.Stored kept = new HeldJobs.Stored(stored);
        // the first lookups scan the hash codes; after them the jobs are indexed; every answer is the same
        for (int ask = 0; ask < 3 * HeldJobs.Stored.SCANS_BEFORE_INDEX; ask++) {
            JobStatus j = stored[r.nextInt(stored.length)];
            assertThat(kept.find(j.id())).isSameAs(j);
            assertThat(kept.find(j.id() + "x")).isNull();
            assertThat(kept.indexed()).isEqualTo(ask >= HeldJobs.Stored.SCANS_BEFORE_INDEX / 2);
        }
        // an id whose hash code another id shares: only the id itself is found
        JobStatus aa = held(1, JobState.RUNNING, 0);
        JobStatus withAa = new JobStatus(JobSpec.builder("Aa").queue("lq").podSet(PodSet.of("main", 1, Resources.builder().cpu(1).build())).build(),
                JobState.RUNNING, null, aa.admission(), 0, 0, 2, 0, 0, 0);
        HeldJobs.Stored one = new HeldJobs.Stored(new JobStatus[] {withAa}, new int[] {"Aa".hashCode()});
        assertThat("BB".hashCode()).isEqualTo("Aa".hashCode());
        assertThat(one.find("BB")).isNull();
        assertThat(one.find("Aa")).isSameAs(withAa);
    }

    @Test
    void hashCodesThatDoNotMatchTheJobsAreRefused() {
        JobStatus[] stored = jobs(new Random(3), 4);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new HeldJobs.Stored(stored, new int[3]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idHashes");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new HeldJobs.Stored(stored, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("idHashes");
    }

    @Test
    void aListNotKeptByTheEngineIsReadAsItIs() {
        JobStatus j = held(3, JobState.RUNNING, 10);
        List<JobStatus> plain = List.of(j);
        assertThat(HeldJobs.stored(plain, 0)).isSameAs(j);
        assertThat(HeldJobs.current(plain, j)).isSameAs(j);
    }
}
