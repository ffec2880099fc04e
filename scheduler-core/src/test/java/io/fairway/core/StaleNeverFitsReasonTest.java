package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A job whose pod sets all require one rack is placed whole in one rack, and the racks it tries are those with room
 * for all its GPUs counted over every node of the cluster, whatever flavor each carries. So when its own flavor has
 * no node there, its answer follows what other flavors' jobs hold: with a rack free it is tried there and "never fits"
 * (its flavor's largest rack holds 0), with every rack full "none can hold it now". A round that remembers earlier
 * answers must see that room change, and give the answer a round from scratch gives, not the "never fits" answer of
 * an earlier round.
 */
class StaleNeverFitsReasonTest {
    private static final TopologyRequest RACK = TopologyRequest.required(ClusterSpec.RACK_LABEL);

    /** One rack of two 8-GPU nodes of flavor "reserved"; ClusterQueue "spot-only" has quota of flavor "spot" alone. */
    private static Scheduler scheduler(boolean remember) {
        AtomicLong now = new AtomicLong(1_000);
        Resources quota = Resources.builder().cpu(256).memoryGiB(2048).gpus(32).build();
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy("best-effort-fifo").rememberRounds(remember)
                .cluster(ClusterSpec.withRacks("default"))
                .flavor(new ResourceFlavor("reserved", Map.of("tier", "reserved"), List.of(), List.of()))
                .flavor(new ResourceFlavor("spot", Map.of("tier", "spot"), List.of(), List.of()))
                .clusterQueue(ClusterQueue.builder("reserved-only").quota("reserved", quota).build())
                .clusterQueue(ClusterQueue.builder("spot-only").quota("spot", quota).build())
                .localQueue(new LocalQueue("default", "reserved", "reserved-only"))
                .localQueue(new LocalQueue("default", "spot", "spot-only"));
        for (int i = 0; i < 2; i++) {
            b.node(Node.builder("n" + i).label(ClusterSpec.RACK_LABEL, "r0").label("tier", "reserved")
                    .gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        return b.build();
    }

    /** Round 1: the spot job alone (the rack free); round 2: two jobs fill the rack; round 3: the rack is full. */
    private static PendingReason[] history(Scheduler s) {
        PendingReason[] reasons = new PendingReason[3];
        s.submit(JobSpec.builder("launcher-and-workers").queue("spot")
                .podSet(PodSet.of("launcher", 2, Resources.builder().gpus(1).build()).withTopology(RACK))
                .podSet(PodSet.of("workers", 2, Resources.builder().gpus(1).build()).withTopology(RACK)).build());
        s.runRound();
        reasons[0] = s.status("launcher-and-workers").orElseThrow().pendingReason();
        s.submit(JobSpec.builder("fill-0").queue("reserved").members(1, Resources.builder().gpus(8).build()).build());
        s.submit(JobSpec.builder("fill-1").queue("reserved").members(1, Resources.builder().gpus(8).build()).build());
        assertThat(s.runRound().decisions()).as("the rack is filled").hasSize(2);
        reasons[1] = s.status("launcher-and-workers").orElseThrow().pendingReason();
        s.runRound();
        reasons[2] = s.status("launcher-and-workers").orElseThrow().pendingReason();
        return reasons;
    }

    @Test
    void aNeverFitsAnswerGoesWhenTheRoomOfOtherFlavorsChangesTheAnswer() {
        PendingReason[] scratch = history(scheduler(false));
        PendingReason[] remembering = history(scheduler(true));
        // from scratch: tried in the free rack, where no spot node is; then no rack has room for 4 GPUs now
        assertThat(scratch[0].code()).isEqualTo(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN);
        assertThat(scratch[2].code()).isEqualTo(PendingReason.Code.NO_FITTING_TOPOLOGY);
        for (int round = 0; round < 3; round++) {
            PendingReason ours = remembering[round];
            PendingReason theirs = scratch[round];
            assertThat(ours.equalsButRound(theirs) || ours.sameAnswer(theirs) && ours.asOfRound() < theirs.asOfRound())
                    .as("round %d: %s / %s", round + 1, ours, theirs).isTrue();
        }
        assertThat(remembering[2].code()).as("after the rack filled up").isEqualTo(PendingReason.Code.NO_FITTING_TOPOLOGY);
    }
}
