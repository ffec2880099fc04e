package io.fairway.api.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.PendingReason.Code;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reasons as of the round that found them: the stamp, and which later reason counts as the same answer. */
class PendingReasonTest {
    private static PendingReason quota(String queue, long unused) {
        return new PendingReason(Code.QUOTA, "needs 8 nvidia.com/gpu of flavor a100; ClusterQueue " + queue + " has " + unused + " unused of 16",
                Map.of("needed", 8L, "unused", unused));
    }

    @Test
    void aReasonWithNumbersIsStampedOnceWithItsRound() {
        PendingReason r = quota("team-a", 2).asOf(41);
        assertThat(r.asOfRound()).isEqualTo(41);
        assertThat(r.asOf(42)).as("stamped already").isSameAs(r);
        PendingReason plain = PendingReason.of(Code.QUEUE_NOT_FOUND, "LocalQueue late not found");
        assertThat(plain.asOf(42)).as("no numbers, no stamp").isSameAs(plain);
        assertThat(plain.asOfRound()).isEqualTo(-1);
    }

    @Test
    void theSameSentenceWithOtherNumbersIsTheSameAnswerButAnotherQueueIsNot() {
        PendingReason then = quota("team-a", 2).asOf(41);
        assertThat(quota("team-a", 4).sameAnswer(then)).isTrue();
        assertThat(quota("team-a", 4).equalsButRound(then)).as("the numbers moved").isFalse();
        assertThat(quota("team-b", 2).sameAnswer(then)).as("a name is not a number").isFalse();
        assertThat(quota("team-7", 2).sameAnswer(quota("team-8", 2))).as("digits that continue a name").isFalse();
        PendingReason otherCode = new PendingReason(Code.GANG_LARGER_THAN_ANY_DOMAIN, then.message(), then.details());
        assertThat(otherCode.sameAnswer(then)).isFalse();
        assertThat(then.sameAnswer(null)).isFalse();
    }

    @Test
    void aNumberIsADigitRunThatDoesNotContinueAName() {
        String s = "needs 12 GPUs of 3.5 on node-12, v1.2 or a100/4";
        assertThat(PendingReason.numberEnd(s, s.indexOf("12"))).isEqualTo(s.indexOf("12") + 2);
        assertThat(PendingReason.numberEnd(s, s.indexOf("3.5"))).as("with its fraction").isEqualTo(s.indexOf("3.5") + 3);
        assertThat(PendingReason.numberEnd(s, s.indexOf("12,"))).as("node-12").isEqualTo(-1);
        assertThat(PendingReason.numberEnd(s, s.indexOf("1.2"))).as("v1.2").isEqualTo(-1);
        assertThat(PendingReason.numberEnd(s, s.indexOf("100"))).as("a100").isEqualTo(-1);
        assertThat(PendingReason.numberEnd(s, s.indexOf("/4") + 1)).as("a100/4").isEqualTo(-1);
        assertThat(PendingReason.numberEnd(s, 0)).as("not a digit").isEqualTo(-1);
        assertThat(PendingReason.numberEnd("7 left", 0)).as("at the start").isEqualTo(1);
    }

    @Test
    void equalButForTheRoundComparesEverythingElse() {
        PendingReason then = quota("team-a", 2).asOf(41);
        assertThat(quota("team-a", 2).asOf(57).equalsButRound(then)).isTrue();
        assertThat(quota("team-a", 2).equalsButRound(then)).as("one stamped, one not").isTrue();
        PendingReason moreDetails = new PendingReason(Code.QUOTA, then.message(), Map.of("needed", 8L, "unused", 2L, "lent", 1L));
        assertThat(moreDetails.equalsButRound(then)).isFalse();
        assertThat(then.equalsButRound(null)).isFalse();
    }
}
