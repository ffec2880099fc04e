package io.fairway.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A group's common answer ({@link PendingIndex.Group#commonAnswer()}), which the engine's index keeps by change, lets a
 * round decide with one comparison whether every job of a group keeps its reason. Compared with the form it replaces
 * (a walk over the group's jobs asking whether each job's reason stands against the round's reason, as the round's
 * reasons do in remembering rounds), on random histories of arrivals, departures, returns and reason changes, with
 * reasons that give the same answer with other numbers or from other rounds, other answers, and no reason at all:
 * the common answer is known exactly when every job gives one answer, and then a reason stands for the whole group
 * exactly when it stands for each of its jobs.
 */
class CommonAnswerShortcutTest {
    /** Reasons in three answers (two with numbers that move), as separate objects, stamped or not, and null. */
    private static PendingReason reason(Random r) {
        long n = r.nextInt(40);
        long round = r.nextInt(1_000);
        return switch (r.nextInt(8)) {
            case 0, 1 -> new PendingReason(PendingReason.Code.QUOTA, "needs " + (n + 1) + " GPUs; " + n + " jobs ahead",
                    Map.of("needed", n + 1, "ahead", n));
            case 2, 3 -> new PendingReason(PendingReason.Code.QUOTA, "needs " + (n + 1) + " GPUs; " + n + " jobs ahead",
                    Map.of("needed", n + 1, "ahead", n)).asOf(round);
            case 4 -> new PendingReason(PendingReason.Code.QUOTA, "needs " + n + " GPUs in team-7", Map.of("needed", n));
            case 5 -> new PendingReason(PendingReason.Code.INSUFFICIENT_CAPACITY, "no node has " + n + " GPUs free",
                    Map.of("needed", n)).asOf(round);
            case 6 -> PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "the jobs ahead go first");
            default -> null;
        };
    }

    /** The form replaced: the jobs one by one (a job keeps its reason when it is the same object or the same answer). */
    private static boolean standsForEveryJob(PendingReason given, List<JobStatus> jobs) {
        for (JobStatus j : jobs) {
            PendingReason had = j.pendingReason();
            if (!(given == had || had != null && given.sameAnswer(had))) {
                return false;
            }
        }
        return true;
    }

    @Property(tries = 300)
    void oneComparisonWithTheCommonAnswerGivesTheWalkOverTheJobs(@ForAll long seed, @ForAll @IntRange(min = 1, max = 300) int operations) {
        Random r = new Random(seed);
        // few answers, and mostly the answer of a pending job again, so that whole groups often share one
        PendingHistory h = new PendingHistory(r);
        PendingIndex.Builder builder = h.builder;
        for (int op = 0; op < operations; op++) {
            int kind = r.nextInt(10);
            PendingReason given = r.nextInt(3) == 0 ? reason(r) : sameAnswerAsFirst(r, h.pending);
            if (kind < 4 || h.pending.isEmpty()) {
                h.arrive(op, given);
            } else if (kind < 6) {
                h.leave();
            } else if (kind < 8) { // a new reason in the job's slot (as a round's reasons are applied), or by replace
                JobStatus j = h.pickPending();
                JobStatus now = new JobStatus(j.spec(), JobState.PENDING, given, null, op, j.preemptions(), j.sequence(), 0, 0, 0);
                h.pending.put(j.id(), now);
                if (r.nextBoolean()) {
                    builder.restate(j, now);
                } else {
                    builder.replace(j, now);
                }
            } else if (kind < 9 && !h.left.isEmpty()) {
                int at = op;
                h.comeBack(j -> new JobStatus(j.spec(), JobState.PENDING, given, null, at, j.preemptions() + 1, j.sequence(), 0, 0, 0));
            } else {
                builder.add(h.pickPending());
            }
            if (r.nextInt(3) == 0 || op == operations - 1) {
                for (PendingIndex.Group g : builder.freeze().groups()) {
                    PendingReason answer = g.commonAnswer();
                    PendingReason first = g.head().pendingReason();
                    boolean oneAnswer = first != null && standsForEveryJob(first, g.jobs());
                    assertThat(answer != null).as("a common answer is known exactly when all jobs give one: %s", g).isEqualTo(oneAnswer);
                    if (answer != null) {
                        for (int k = 0; k < 6; k++) {
                            PendingReason round = k == 0 ? answer : reason(r);
                            if (round != null) {
                                assertThat(round == answer || round.sameAnswer(answer)).as("the round's %s against %s", round, g)
                                        .isEqualTo(standsForEveryJob(round, g.jobs()));
                            }
                        }
                    }
                }
            }
        }
    }

    /** Mostly the answer of some pending job again (another object, other numbers or round), so groups stay uniform. */
    private static PendingReason sameAnswerAsFirst(Random r, Map<String, JobStatus> pending) {
        if (pending.isEmpty()) {
            return reason(r);
        }
        PendingReason p = pending.values().iterator().next().pendingReason();
        if (p == null || p.details().isEmpty()) {
            return p;
        }
        long n = r.nextInt(40);
        if (p.code() == PendingReason.Code.QUOTA && p.message().contains("jobs ahead")) {
            PendingReason q = new PendingReason(PendingReason.Code.QUOTA, "needs " + (n + 1) + " GPUs; " + n + " jobs ahead",
                    Map.of("needed", n + 1, "ahead", n));
            return r.nextBoolean() ? q : q.asOf(r.nextInt(1_000));
        }
        return p.asOf(r.nextInt(1_000));
    }
}
