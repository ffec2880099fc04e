package io.fairway.bench.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** On a small copy of the workload, both sides hold the same nodes, queues and containers and do the same work. */
class YarnComparisonTest {
    private static final Workload SMALL = new Workload(8, 4, 32, 4, 20, 4);

    @Test
    void bothSidesAreGivenTheSameWorkloadAndFillTheCluster() {
        try (FairwaySide f = new FairwaySide(SMALL); YarnSide y = new YarnSide(SMALL)) {
            f.prepareFill();
            y.prepareFill();
            Side.Shape expected = new Side.Shape(8, 4, 4 * 20);
            assertThat(f.shape()).isEqualTo(expected);
            assertThat(y.shape()).isEqualTo(expected);
            assertThat(f.fill().allocations()).isEqualTo(SMALL.slots());
            assertThat(y.fill().allocations()).isEqualTo(SMALL.slots());
        }
    }

    @Test
    void bothSidesReclaimTheNewcomersShareByPreemption() {
        try (FairwaySide f = new FairwaySide(SMALL); YarnSide y = new YarnSide(SMALL)) {
            f.preparePreemption();
            y.preparePreemption();
            // settled as YARN's side is: the fill's round, then one that decides nothing, before the newcomer arrives
            assertThat(f.settledRounds).as("rounds until one decided nothing").isBetween(2, 9);
            assertThat(f.shape()).isEqualTo(y.shape());
            Side.Outcome fo = f.preempt();
            Side.Outcome yo = y.preempt();
            assertThat(fo.newcomerHolds()).isEqualTo(SMALL.reclaimable());
            assertThat(yo.newcomerHolds()).isEqualTo(SMALL.reclaimable());
            assertThat(fo.preemptions()).isEqualTo(SMALL.reclaimable());
            assertThat(yo.preemptions()).isEqualTo(SMALL.reclaimable());
        }
    }
}
