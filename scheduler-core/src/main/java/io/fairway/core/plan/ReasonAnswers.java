package io.fairway.core.plan;

import com.google.common.collect.Interner;
import com.google.common.collect.Interners;
import com.google.common.collect.MapMaker;
import io.fairway.api.job.PendingReason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentMap;

/**
 * The answer a pending reason gives ({@link PendingReason#sameAnswer}), as one shared object per answer: two reasons
 * give the same answer exactly when their answers are the same object. A job waiting in a long queue carries the
 * reason object of the round that first gave it its answer, so the jobs of one group carry many objects, and a round
 * that tells which jobs keep their reasons would otherwise compare texts and details once per job and round; here
 * each reason object's answer is worked out once (kept weakly, by identity: it goes with the last job that carries
 * the reason) and every later comparison is an identity check.
 *
 * <p>The answer of a reason with numbers is its code, the names of its numbers (the round stamp
 * {@link PendingReason#AS_OF_ROUND} aside), and its sentence with every number (as {@code sameAnswer} reads one)
 * replaced by one mark; of a reason without numbers, its code and its exact sentence. Equal answers are
 * {@code sameAnswer}, and only those: see {@code ReasonAnswersProperties}.
 */
final class ReasonAnswers {
    /** The answer of a reason: see the class comment. */
    record Answer(PendingReason.Code code, boolean numbers, List<String> names, String sentence) {
    }

    private static final ConcurrentMap<PendingReason, Answer> OF = new MapMaker().weakKeys().makeMap();
    private static final Interner<Answer> ANSWERS = Interners.newWeakInterner();

    /** Marks a number in an answer's sentence. */
    private static final char NUMBER = '\u0000';
    /** Escapes a sentence's own {@link #NUMBER} or {@code ESCAPE} character. */
    private static final char ESCAPE = '\u0001';

    private ReasonAnswers() {
    }

    /**
     * @param a a reason
     * @param b another reason, or null
     * @return {@code a.sameAnswer(b)}, by identity once each object's answer is known
     */
    static boolean same(PendingReason a, PendingReason b) {
        if (a == b) {
            return true;
        }
        if (b == null || a.code() != b.code()) {
            return false;
        }
        return of(a) == of(b);
    }

    /** @return the reason's answer, one object per answer */
    static Answer of(PendingReason r) {
        Answer a = OF.get(r);
        if (a == null) {
            a = ANSWERS.intern(answer(r));
            OF.put(r, a);
        }
        return a;
    }

    private static Answer answer(PendingReason r) {
        List<String> names = new ArrayList<>(r.details().size());
        for (String k : r.details().keySet()) {
            if (!k.equals(PendingReason.AS_OF_ROUND)) {
                names.add(k);
            }
        }
        if (names.isEmpty()) {
            return new Answer(r.code(), false, List.of(), r.message());
        }
        Collections.sort(names);
        return new Answer(r.code(), true, List.copyOf(names), marked(r.message()));
    }

    /** The sentence with each number replaced by {@link #NUMBER} (and the two marks of its own escaped). */
    static String marked(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int end = PendingReason.numberEnd(s, i);
            if (end >= 0) {
                b.append(NUMBER);
                i = end;
                continue;
            }
            if (c == NUMBER || c == ESCAPE) {
                b.append(ESCAPE);
            }
            b.append(c);
            i++;
        }
        return b.toString();
    }
}
