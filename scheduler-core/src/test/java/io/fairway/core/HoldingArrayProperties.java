package io.fairway.core;

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
import java.util.SplittableRandom;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The holding jobs a round is handed are made from the last array handed out with the changes since patched in:
 * after any mix of starts, ends and replacements (a renewed lease, a resize), the patched array is exactly the
 * holding jobs in submission order, as a copy of them all would be; and a set of changes that does not add up to
 * the jobs holding now is refused rather than patched wrongly. The ids' hash codes, which a lookup by id scans, are
 * patched along with the jobs.
 */
class HoldingArrayProperties {
    private static JobStatus held(long seq) {
        JobSpec spec = JobSpec.builder("j" + seq).queue("lq").podSet(PodSet.of("main", 1, Resources.builder().cpu(1).build())).build();
        Admit a = new Admit(spec.id(), "cq", Map.of("main", "f"), Map.of(), new Placement(List.of(), null, 1.0), 0, Admit.NO_LEASE, seq);
        return new JobStatus(spec, JobState.RUNNING, null, a, 0, 0, seq, 0, 0, 0);
    }

    @Property(tries = 300)
    void aPatchedArrayIsTheHoldingJobsInOrder(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        TreeMap<Long, JobStatus> holding = new TreeMap<>();
        long next = 0;
        for (int i = r.nextInt(60); i > 0; i--) {
            next += 1 + r.nextInt(3);
            holding.put(next, held(next));
        }
        JobStatus[] last = holding.values().toArray(new JobStatus[0]);
        int[] lastHashes = new io.fairway.core.snapshot.HeldJobs.Stored(last).idHashes();
        for (int round = 0; round < 20; round++) {
            TreeMap<Long, JobStatus> edits = new TreeMap<>();
            for (int c = r.nextInt(8); c > 0; c--) {
                List<Long> seqs = new ArrayList<>(holding.keySet());
                int what = r.nextInt(3);
                if (what == 0 || seqs.isEmpty()) { // a start: a new job, or one submitted earlier between two holding ones
                    long seq = r.nextBoolean() ? (next += 1 + r.nextInt(3)) : r.nextLong(Math.max(1, next));
                    JobStatus j = held(seq);
                    holding.put(seq, j);
                    edits.put(seq, j);
                } else if (what == 1) { // an end
                    long seq = seqs.get(r.nextInt(seqs.size()));
                    holding.remove(seq);
                    edits.put(seq, null);
                } else { // the same job holding differently
                    long seq = seqs.get(r.nextInt(seqs.size()));
                    JobStatus j = held(seq);
                    holding.put(seq, j);
                    edits.put(seq, j);
                }
            }
            int[] hashes = new int[holding.size()];
            JobStatus[] patched = JobBook.patched(last, lastHashes, edits, holding.size(), hashes);
            // the very statuses (a replaced job's status is equal to the one it replaces)
            assertThat(patched).usingElementComparator((a, b) -> a == b ? 0 : 1).containsExactly(holding.values().toArray(new JobStatus[0]));
            // and the hash codes a lookup by id scans patched along: each position's id's
            assertThat(hashes).containsExactly(holding.values().stream().mapToInt(j -> j.id().hashCode()).toArray());
            if (!edits.isEmpty()) { // the changes do not give one job more or less than hold now
                assertThat(JobBook.patched(last, edits, holding.size() + 1)).isNull();
                if (holding.size() > 0) {
                    assertThat(JobBook.patched(last, edits, holding.size() - 1)).isNull();
                }
            }
            last = patched;
            lastHashes = hashes;
        }
    }
}
