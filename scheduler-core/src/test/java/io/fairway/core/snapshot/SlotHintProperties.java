package io.fairway.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The engine writes a waiting job's new reason in its group's slot, told where the job stood at the index's last
 * freeze (the round walked that index). Between that freeze and the write, jobs may have arrived before it in its
 * group (a preempted job keeps its early place), left, or changed: whatever the hint — right, stale, wrong or absent —
 * the index after the writes holds exactly the jobs waiting, with their latest statuses, as an index built from them
 * from scratch does.
 */
class SlotHintProperties {
    @Property(tries = 300)
    void writesWithSlotHintsLeaveTheIndexOfTheJobsWaiting(@ForAll long seed, @ForAll @IntRange(min = 1, max = 400) int operations) {
        Random r = new Random(seed);
        PendingHistory h = new PendingHistory(r);
        PendingIndex frozen = h.builder.freeze();
        for (int op = 0; op < operations; op++) {
            int kind = r.nextInt(10);
            if (kind < 3 || h.pending.isEmpty()) {
                h.arrive(op, PendingReason.of(PendingReason.Code.QUOTA, "no quota"));
            } else if (kind < 4) {
                h.leave();
            } else if (kind < 5) {
                h.comeBack(j -> j);
            } else {
                JobStatus j = h.pickPending();
                JobStatus now = j.waitingFor(PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "no room " + op));
                h.pending.put(j.id(), now);
                h.builder.restate(j, now, hint(r, frozen, j));
            }
            if (r.nextInt(8) == 0) {
                frozen = h.builder.freeze(); // a round's snapshot: the slots are its positions again
            }
            List<JobStatus> waiting = new ArrayList<>(h.pending.values());
            waiting.sort(JobOrder.SEQUENCE);
            PendingIndex idx = h.builder.freeze();
            assertThat(idx).as("operation %d", op).isEqualTo(PendingIndex.of(waiting));
            assertThat(idx.inSubmissionOrder()).as("operation %d: the latest statuses, in order", op).containsExactlyElementsOf(waiting);
        }
    }

    /** The job's position in its group of {@code frozen} (stale when jobs arrived before it since), a wrong one, or -1. */
    private static int hint(Random r, PendingIndex frozen, JobStatus j) {
        int kind = r.nextInt(4);
        if (kind == 0) {
            return -1;
        }
        if (kind == 1) {
            return r.nextInt(64);
        }
        for (PendingIndex.Group g : frozen.groups()) {
            List<JobStatus> jobs = g.jobs();
            for (int i = 0; i < jobs.size(); i++) {
                if (jobs.get(i).id().equals(j.id())) {
                    return i;
                }
            }
        }
        return -1;
    }
}
