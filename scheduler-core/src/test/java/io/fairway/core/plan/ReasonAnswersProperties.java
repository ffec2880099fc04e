package io.fairway.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.PendingReason;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The shared answers a round compares reasons by say exactly what {@link PendingReason#sameAnswer} says: a job keeps
 * its reason in the same cases (and so the same reasons and events reach users) whichever way it is compared.
 */
class ReasonAnswersProperties {
    private static final String ALPHABET = "ab-_./ 0123456789\u0000\u0001";
    private static final String[] NAMES = {"needed", "unused", "cohortLends", PendingReason.AS_OF_ROUND};
    private static final PendingReason.Code[] CODES = {PendingReason.Code.QUOTA, PendingReason.Code.INSUFFICIENT_CAPACITY};

    @Property(tries = 2000)
    void sameAnswerIffSameSharedAnswer(@ForAll long seed) {
        Random r = new Random(seed);
        PendingReason a = reason(r, sentence(r));
        // b: often a's sentence with its digits changed, so that both outcomes are common
        PendingReason b = r.nextBoolean() ? reason(r, sentence(r)) : reason(r, renumbered(r, a.message()));
        assertThat(ReasonAnswers.same(a, b)).as("%s vs %s", a, b).isEqualTo(a.sameAnswer(b));
        assertThat(ReasonAnswers.same(b, a)).as("%s vs %s", b, a).isEqualTo(b.sameAnswer(a));
    }

    @Example
    void numbersMovedGiveTheSameAnswerButNamesAndTextDoNot() {
        PendingReason before = new PendingReason(PendingReason.Code.QUOTA, "needs 16 GPUs; team-7 has 4 unused",
                Map.of("needed", 16L, "unused", 4L, PendingReason.AS_OF_ROUND, 3L));
        PendingReason after = new PendingReason(PendingReason.Code.QUOTA, "needs 16 GPUs; team-7 has 2 unused",
                Map.of("needed", 16L, "unused", 2L, PendingReason.AS_OF_ROUND, 9L));
        PendingReason otherTeam = new PendingReason(PendingReason.Code.QUOTA, "needs 16 GPUs; team-8 has 2 unused",
                Map.of("needed", 16L, "unused", 2L));
        PendingReason otherNames = new PendingReason(PendingReason.Code.QUOTA, "needs 16 GPUs; team-7 has 2 unused",
                Map.of("needed", 16L, "free", 2L));
        assertThat(ReasonAnswers.same(after, before)).isTrue();
        assertThat(ReasonAnswers.same(after, otherTeam)).isFalse();
        assertThat(ReasonAnswers.same(after, otherNames)).isFalse();
        assertThat(ReasonAnswers.same(after, null)).isFalse();
        // a mark character in the text is not a number
        assertThat(ReasonAnswers.same(PendingReason.of(PendingReason.Code.QUOTA, "x"),
                new PendingReason(PendingReason.Code.QUOTA, "x", Map.of("n", 1L)))).isFalse();
        assertThat(ReasonAnswers.same(new PendingReason(PendingReason.Code.QUOTA, "a 1 b", Map.of("n", 1L)),
                new PendingReason(PendingReason.Code.QUOTA, "a \u0000 b", Map.of("n", 1L)))).isFalse();
    }

    private static String sentence(Random r) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(8);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    private static String renumbered(Random r, String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (Character.isDigit(c) && r.nextInt(3) == 0) {
                int k = r.nextInt(3);
                for (int i = 0; i < k; i++) {
                    b.append((char) ('0' + r.nextInt(10)));
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static PendingReason reason(Random r, String message) {
        Map<String, Long> d = new LinkedHashMap<>();
        for (String n : NAMES) {
            if (r.nextInt(3) == 0) {
                d.put(n, (long) r.nextInt(3));
            }
        }
        return new PendingReason(CODES[r.nextInt(r.nextInt(4) == 0 ? 2 : 1)], message, d);
    }
}
