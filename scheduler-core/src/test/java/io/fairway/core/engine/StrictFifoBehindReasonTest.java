package io.fairway.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Under StrictFIFO the jobs behind a head that does not fit wait with a reason that quotes the head's: "waiting
 * behind big, ..., which does not fit: ... 6 GPUs are free". A round that remembers earlier answers may give the head
 * the answer an earlier round found, with that round's numbers; the jobs behind it must then say the same answer as
 * of that same round, not a sentence with old numbers presented as this round's.
 */
class StrictFifoBehindReasonTest {
    private static final Resources QUOTA = Resources.builder().cpu(1_000).memoryGiB(10_000).gpus(64).build();

    private static Scheduler scheduler(boolean remember) {
        return Scheduler.builder().policy("strict-fifo").rememberRounds(remember).clock(() -> 1_000)
                .flavor(ResourceFlavor.of(Fixtures.FLAVOR))
                .clusterQueue(ClusterQueue.builder("strict").quota(Fixtures.FLAVOR, QUOTA).build())
                .clusterQueue(ClusterQueue.builder("other").quota(Fixtures.FLAVOR, QUOTA).build())
                .localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "strict", "strict"))
                .localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "other", "other"))
                .nodes(List.of(Fixtures.h100("n0"), Fixtures.h100("n1"))).build();
    }

    private static JobSpec job(String id, String queue, int gpus) {
        return JobSpec.builder(id).queue(queue).members(1, Resources.builder().cpu(1).gpus(gpus).build()).build();
    }

    /** Each round's reasons of the head ("big") and of the job behind it. */
    private static PendingReason[][] history(Scheduler s) {
        s.submit(job("fill-a", "strict", 5));
        s.submit(job("fill-b", "strict", 5));
        s.submit(job("big", "strict", 8));
        s.submit(job("behind", "strict", 1));
        PendingReason[][] out = new PendingReason[5][];
        for (int round = 0; round < out.length; round++) {
            if (round == 1 || round == 3) {
                s.submit(job("small-" + round, "other", 1)); // takes one more GPU: the head still does not fit
            }
            s.runRound();
            out[round] = new PendingReason[] {Fixtures.reason(s, "big"), Fixtures.reason(s, "behind")};
        }
        return out;
    }

    @Test
    void jobsBehindAStrictHeadQuoteItsAnswerAsOfTheRoundThatFoundIt() {
        PendingReason[][] scratch = history(scheduler(false));
        PendingReason[][] remembering = history(scheduler(true));
        // after small-1 took a GPU, the remembering round gives the head the answer of an earlier round (6 GPUs free)
        assertThat(remembering[2][0].asOfRound()).as("the head's answer is remembered").isLessThan(scratch[2][0].asOfRound());
        assertThat(scratch[2][1].message()).contains("waiting behind big").contains("5 GPUs are free");
        for (int round = 0; round < scratch.length; round++) {
            for (int k = 0; k < 2; k++) {
                PendingReason ours = remembering[round][k];
                PendingReason theirs = scratch[round][k];
                assertThat(ours.equalsButRound(theirs) || ours.sameAnswer(theirs) && ours.asOfRound() < theirs.asOfRound())
                        .as("round %d, %s: %s / %s", round + 1, k == 0 ? "head" : "behind", ours, theirs).isTrue();
            }
        }
    }
}
