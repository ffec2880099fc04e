package io.fairway.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The engine's pending index knows, per group, which jobs do not give the answer it counts the group against, kept by
 * change: at every freeze those positions are exactly the jobs whose reason does not give that answer
 * ({@link PendingReason#sameAnswer}), whatever the arrivals, departures, returns and reason changes before. A round
 * visits only those jobs to tell which reasons changed, so a wrong position would leave a user a stale reason.
 */
class OddPositionsProperties {
    @Property(tries = 300)
    void oddPositionsAreTheJobsThatDoNotGiveTheCountedAnswer(@ForAll long seed, @ForAll @IntRange(min = 1, max = 400) int operations) {
        Random r = new Random(seed);
        PendingHistory h = new PendingHistory(r);
        PendingIndex.Builder builder = h.builder;
        for (int op = 0; op < operations; op++) {
            int kind = r.nextInt(10);
            if (kind < 4 || h.pending.isEmpty()) {
                h.arrive(op, reason(r, op));
            } else if (kind < 6) {
                h.leave();
            } else if (kind < 9) { // a new reason in place, as the engine writes one
                JobStatus j = h.pickPending();
                JobStatus now = j.waitingFor(reason(r, op));
                h.pending.put(j.id(), now);
                builder.restate(j, now);
            } else {
                int at = op;
                h.comeBack(j -> j.waitingFor(reason(r, at)));
            }
            if (r.nextInt(3) == 0 || op == operations - 1) {
                for (PendingIndex.Group g : builder.freeze().groups()) {
                    PendingReason counted = g.countedAnswer();
                    if (counted == null) {
                        continue;
                    }
                    List<Integer> expected = new ArrayList<>();
                    List<JobStatus> jobs = g.jobs();
                    for (int i = 0; i < jobs.size(); i++) {
                        PendingReason had = jobs.get(i).pendingReason();
                        if (had == null || had != counted && !counted.sameAnswer(had)) {
                            expected.add(i);
                        }
                    }
                    assertThat(g.oddPositions()).as("group %s", g).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
                }
            }
        }
    }

    /** A reason of three answers, the numbered one with numbers that move from one operation to the next. */
    private static PendingReason reason(Random r, int op) {
        return switch (r.nextInt(4)) {
            case 0 -> PendingReason.of(PendingReason.Code.INSUFFICIENT_CAPACITY, "no room");
            case 1 -> new PendingReason(PendingReason.Code.QUOTA, "needs " + (1 + r.nextInt(4)) + " GPUs; " + op + " free",
                    Map.of("needed", 1L, "free", (long) op));
            case 2 -> new PendingReason(PendingReason.Code.QUOTA, "needs 2 GPUs; " + op + " free",
                    Map.of("needed", 2L, "free", (long) op, PendingReason.AS_OF_ROUND, (long) op));
            default -> r.nextBoolean() ? null : PendingReason.of(PendingReason.Code.QUOTA, "no quota");
        };
    }
}
