package io.fairway.core.plan;

import io.fairway.api.job.PendingReason;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Which pending reasons a round changes, and how it stamps the ones it gives. A reason is as of the round that found
 * it ({@link PendingReason#asOfRound()}): a round lists a job's reason as changed only when its answer differs from
 * the one the job carries. Deciding every round from scratch, "differs" means any difference but the stamp; in the
 * engine's remembering rounds with an unchanged configuration, it means a different answer
 * ({@link PendingReason#sameAnswer}): a job whose answer is the same but whose numbers moved keeps the reason object
 * it carries, with the numbers of the round that gave it. Decisions are never affected: the answer (admitted or not,
 * and the reason's code) is the round's own; only the numbers quoted may be older.
 */
final class KeptReasons {
    private final long round;
    private final boolean keep;
    private final Map<PendingReason, PendingReason> stamped = new IdentityHashMap<>();

    /**
     * @param round the round's number (the stamp of the reasons it gives)
     * @param keep true when a job keeps a reason that gives the same answer with older numbers
     */
    KeptReasons(long round, boolean keep) {
        this.round = round;
        this.keep = keep;
    }

    /** @return true when a job keeps a reason that gives the same answer ({@link PendingReason#sameAnswer}) */
    boolean keepsSameAnswer() {
        return keep;
    }

    /**
     * @param given the reason the round gives (stamped or not)
     * @param carried the reason the job carries, or null
     * @return true when the job keeps the reason it carries
     */
    boolean stands(PendingReason given, PendingReason carried) {
        if (given == carried) {
            return true;
        }
        if (carried == null) {
            return false;
        }
        if (!keep) {
            return given.equalsButRound(carried);
        }
        if (given.code() != carried.code()) {
            return false;
        }
        if (!memo) {
            return compared(given, carried);
        }
        // many groups are given one reason object and carry one (the previous round's): each pair is compared once
        Compared last = lastCompared.get(given);
        if (last != null && last.carried == carried) {
            return last.same;
        }
        boolean same = compared(given, carried);
        if (last == null) {
            lastCompared.put(given, new Compared(carried, same));
        } else {
            last.carried = carried;
            last.same = same;
        }
        return same;
    }

    /**
     * Per reason given this round, the carried reason it was last compared with and the outcome: a round gives one
     * reason object to many groups (a failure answered for a ClusterQueue and shape, a bound's answer) whose jobs
     * carry one object (the reason of the previous round that gave the same answer), so most comparisons repeat one.
     */
    private final Map<PendingReason, Compared> lastCompared = new IdentityHashMap<>();

    /** Off only to compare with: each comparison made anew ({@code KeptReasonsMemoProperties}). */
    static volatile boolean memo = true;

    /** One comparison's operands' second half and outcome. */
    private static final class Compared {
        private PendingReason carried;
        private boolean same;

        Compared(PendingReason carried, boolean same) {
            this.carried = carried;
            this.same = same;
        }
    }

    /** {@link PendingReason#sameAnswer}, for two reasons of one code, two different objects. */
    private boolean compared(PendingReason given, PendingReason carried) {
        // a reason given to many groups (a failure answered for a whole ClusterQueue and shape), compared with carried
        // sentences whose numbers moved: once it has been compared so often, its answer is worked out once and each
        // later comparison is an identity check ({@link ReasonAnswers}); working out a fresh reason's answer costs more
        // than a few direct comparisons. Equal sentences (or codes that differ) are compared directly and not counted.
        if (given.message().equals(carried.message())
                || seen.merge(given, 1, Integer::sum) < SHARED_ANSWER_AFTER) {
            return given.sameAnswer(carried);
        }
        return ReasonAnswers.same(given, carried);
    }

    /** How often {@link #stands} compared each reason given so far with a sentence whose numbers moved. */
    private final Map<PendingReason, Integer> seen = new IdentityHashMap<>();

    /** The comparisons of one given reason after which its shared answer is used. */
    private static final int SHARED_ANSWER_AFTER = 8;

    /**
     * As {@link #stands}, for a reason compared with many jobs' (a run's walk): the carried reasons' answers are
     * looked up once per object ({@link ReasonAnswers}) instead of compared text by text. A one-off comparison (a
     * group's head, its common reason) compares directly: working out a fresh reason's answer costs more than one
     * comparison.
     */
    boolean standsForMany(PendingReason given, PendingReason carried) {
        if (given == carried) {
            return true;
        }
        if (carried == null) {
            return false;
        }
        return keep ? ReasonAnswers.same(given, carried) : given.equalsButRound(carried);
    }

    /** @return the reason stamped with this round (one stamped object per reason object) */
    PendingReason stamp(PendingReason r) {
        if (r.details().isEmpty() || r.details().containsKey(PendingReason.AS_OF_ROUND)) {
            return r;
        }
        return stamped.computeIfAbsent(r, x -> x.asOf(round));
    }
}
