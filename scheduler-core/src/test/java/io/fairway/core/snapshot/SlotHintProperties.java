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
 * freeze (the round walked that index): its group's position and its own. Between that freeze and the write, groups
 * and jobs may have arrived before it (a preempted job keeps its early place), left, or changed: whatever the hint —
 * right, stale, wrong or absent — the index after the writes holds exactly the jobs waiting, with their latest
 * statuses, as an index built from them from scratch does.
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
                int[] at = hint(r, frozen, j);
                h.builder.restate(j, now, at[0], at[1]);
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

    /**
     * The positions of the job's group in {@code frozen} and of the job in it (stale when groups or jobs arrived before
     * them since), wrong ones, or -1.
     */
    private static int[] hint(Random r, PendingIndex frozen, JobStatus j) {
        int kind = r.nextInt(5);
        if (kind == 0) {
            return new int[] {-1, -1};
        }
        if (kind == 1) {
            return new int[] {r.nextInt(8), r.nextInt(64)};
        }
        List<PendingIndex.Group> groups = frozen.groups();
        for (int at = 0; at < groups.size(); at++) {
            List<JobStatus> jobs = groups.get(at).jobs();
            for (int i = 0; i < jobs.size(); i++) {
                if (jobs.get(i).id().equals(j.id())) {
                    return kind == 2 ? new int[] {-1, i} : new int[] {at, i};
                }
            }
        }
        return new int[] {r.nextInt(8), -1};
    }
}
