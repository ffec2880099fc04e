package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A policy's request for a round by time reaches the round's result and {@link Scheduler#nextWakeupMillis}. */
class WakeAtTest {
    /** Asks for rounds at the times it is given, for one round each. */
    static final class WakingPolicy implements SchedulingPolicy {
        final List<Long> asks = new ArrayList<>();

        @Override
        public String name() {
            return "waking";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (long t : asks) {
                ctx.wakeAt(t);
            }
            asks.clear();
        }
    }

    @Test
    void theEarliestFutureRequestCountsForOneRound() {
        AtomicLong now = new AtomicLong(1_000);
        WakingPolicy policy = new WakingPolicy();
        Scheduler s = Scheduler.builder().clock(now::get).policy(policy)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
        assertThat(s.nextWakeupMillis(60_000)).isEmpty();

        policy.asks.addAll(List.of(90_000L, 30_000L, 500L)); // 500 is in the past: ignored
        RoundResult r = s.runRound();
        assertThat(r.wakeAtMillis()).isEqualTo(30_000L);
        assertThat(s.nextWakeupMillis(60_000)).hasValue(30_000L);

        now.set(30_000); // the wakeup is due: it is no longer "next"
        assertThat(s.nextWakeupMillis(60_000)).isEmpty();
        r = s.runRound(); // this round asks for nothing: the earlier request does not linger
        assertThat(r.wakeAtMillis()).isEqualTo(RoundResult.NO_WAKE);
        now.set(20_000);
        assertThat(s.nextWakeupMillis(60_000)).isEmpty();
    }
}
