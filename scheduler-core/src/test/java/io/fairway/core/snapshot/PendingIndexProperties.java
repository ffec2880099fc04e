package io.fairway.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The engine's incremental pending index ({@link PendingIndex.Builder}) always equals the index built from
 * scratch from the jobs pending at that moment: same groups, same jobs in each, in the same order, whatever the
 * order of arrivals (late arrivals with early submission times included), departures, re-entries and reason
 * changes, and across freezes taken in between.
 */
class PendingIndexProperties {
    private static final PendingReason WAIT = PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "no room");
    private static final PendingReason QUOTA = PendingReason.of(PendingReason.Code.QUOTA, "no quota");

    @Property(tries = 200)
    void incrementalIndexEqualsTheIndexBuiltFromScratch(@ForAll long seed, @ForAll @IntRange(min = 1, max = 400) int operations) {
        Random r = new Random(seed);
        PendingIndex.Builder builder = new PendingIndex.Builder();
        Map<String, JobStatus> pending = new LinkedHashMap<>();
        Map<String, JobStatus> left = new LinkedHashMap<>(); // jobs that left pending and may come back
        long sequence = 0;
        for (int op = 0; op < operations; op++) {
            int kind = r.nextInt(10);
            if (kind < 4 || pending.isEmpty()) { // a new job; a third of them with an early submission time
                int queue = r.nextInt(3);
                long submitted = r.nextInt(3) == 0 ? r.nextInt(50) : 1_000 + op;
                JobSpec spec = JobSpec.builder("job-" + sequence).queue("q" + queue).submitTimeMillis(submitted)
                        .members(1 + r.nextInt(2), Resources.builder().gpus(1).build()).priority(r.nextInt(2)).build();
                JobStatus j = new JobStatus(spec, JobState.PENDING, null, null, 0, 0, sequence++, 0, 0, 0);
                pending.put(j.id(), j);
                builder.add(j);
            } else if (kind < 6) { // one leaves pending (admitted, cancelled)
                JobStatus j = pick(pending, r);
                pending.remove(j.id());
                left.put(j.id(), j);
                builder.remove(j);
            } else if (kind < 8) { // a new reason: the job keeps its place
                JobStatus j = pick(pending, r);
                JobStatus now = new JobStatus(j.spec(), JobState.PENDING, r.nextBoolean() ? WAIT : QUOTA, null, op, j.preemptions(),
                        j.sequence(), 0, 0, 0);
                pending.put(j.id(), now);
                builder.replace(j, now);
            } else if (kind < 9 && !left.isEmpty()) { // one comes back (preempted): its old place in submission order
                JobStatus j = pick(left, r);
                left.remove(j.id());
                JobStatus back = new JobStatus(j.spec(), JobState.PENDING, WAIT, null, op, j.preemptions() + 1, j.sequence(), 0, 0, 0);
                pending.put(j.id(), back);
                builder.add(back);
            } else { // the same status added twice: no duplicate
                JobStatus j = pick(pending, r);
                builder.add(j);
            }
            if (r.nextInt(4) == 0 || op == operations - 1) {
                PendingIndex incremental = builder.freeze();
                PendingIndex scratch = PendingIndex.of(new ArrayList<>(pending.values()));
                assertThat(incremental.groups()).isEqualTo(scratch.groups());
                assertThat(incremental.size()).isEqualTo(pending.size());
                for (int g = 0; g < incremental.groups().size(); g++) {
                    List<JobStatus> a = incremental.groups().get(g).jobs();
                    List<JobStatus> b = scratch.groups().get(g).jobs();
                    for (int i = 0; i < a.size(); i++) {
                        assertThat(a.get(i)).isSameAs(b.get(i)); // the newest status of each job, not an older one
                    }
                }
                assertThat(incremental.inSubmissionOrder()).containsExactlyElementsOf(
                        pending.values().stream().sorted(java.util.Comparator.comparingLong(JobStatus::sequence)).toList());
            }
        }
    }

    /** @return a job of {@code jobs} picked at random */
    static JobStatus pick(Map<String, JobStatus> jobs, Random r) {
        int i = r.nextInt(jobs.size());
        for (JobStatus j : jobs.values()) {
            if (i-- == 0) {
                return j;
            }
        }
        throw new IllegalStateException();
    }
}
