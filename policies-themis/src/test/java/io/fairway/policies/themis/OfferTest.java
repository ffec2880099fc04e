package io.fairway.policies.themis;

import static io.fairway.policies.themis.FinishTimeEstimatorTest.pending;
import static io.fairway.policies.themis.FinishTimeEstimatorTest.running;
import static io.fairway.policies.themis.FinishTimeEstimatorTest.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.job.JobStatus;
import io.fairway.policies.themis.Bids.Item;
import io.fairway.policies.themis.Offer.Taken;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The market of a Themis plan: what the steps before the auction take from the GPUs on offer and the expired leases
 * that make them up. A step that took a lease twice or gave GPUs back twice would offer the auction GPUs that are not
 * there (or hide some that are): starts that cannot be placed, or GPUs left idle; the offer refuses, naming the job.
 */
class OfferTest {
    /** Expired leases of 4 and 2 GPUs, 3 GPUs free: 9 on offer. */
    private final JobStatus fourGpus = running(spec("a1", "a", 4, 1000, 0), 0, 60_000, -1, 1.0, 4, 60_000);
    private final JobStatus twoGpus = running(spec("b1", "b", 2, 1000, 0), 0, 60_000, -1, 1.0, 2, 60_000);
    /** A running lease that is not on offer (it has not expired). */
    private final JobStatus running = running(spec("c1", "c", 2, 1000, 0), 0, 60_000, -1, 1.0, 2, 600_000);

    private Offer offer() {
        return new Offer(3, List.of(fourGpus, twoGpus));
    }

    /** A waiting job's item that starts at {@code gpus} GPUs. */
    private static Item start(String id, int gpus) {
        JobStatus j = pending(spec(id, "w", gpus, 100, 0), 0, -1);
        return new Item(FinishTimeEstimator.view(j, 0, ThemisPolicy.Estimate.PROGRESS, x -> false), false, null, 0, 0, 0, gpus, 1, 1);
    }

    private static Taken revoked(Item started, JobStatus... leases) {
        return new Taken(List.of(started), List.of(leases), List.of(), List.of());
    }

    private static Taken freed(JobStatus... leases) {
        return new Taken(List.of(), List.of(), List.of(), List.of(leases));
    }

    @Test
    void eachStepsTakeChangesThePoolAndTheLeasesOnOffer() {
        Offer o = offer();
        assertThat(o.pool()).as("3 free + 4 + 2 under expired leases").isEqualTo(9);
        assertThat(o.leases()).containsExactly(fourGpus, twoGpus);

        o.apply(revoked(start("w1", 4), fourGpus)); // revoked for a start: the start takes what the lease freed
        assertThat(o.pool()).isEqualTo(5);
        assertThat(o.has("a1")).isFalse();
        assertThat(o.leases()).containsExactly(twoGpus);

        o.apply(Taken.gathered(List.of(twoGpus))); // gathered: off the offer with its GPUs
        assertThat(o.pool()).isEqualTo(3);
        assertThat(o.leases()).isEmpty();

        o.apply(freed(running)); // a running lease revoked early: its GPUs join the pool
        assertThat(o.pool()).isEqualTo(5);
        o.apply(freed(twoGpus)); // a gathered lease revoked early: its GPUs come back
        assertThat(o.pool()).isEqualTo(7);

        o.apply(Taken.items(List.of(start("w2", 8)))); // a start or a keep may take more than is left, as always
        assertThat(o.pool()).isEqualTo(-1);
    }

    @Test
    void aLeaseTakenOffTwiceIsRefusedNamingTheJobAndLeavesTheOfferAsItWas() {
        Offer o = offer();
        o.apply(revoked(start("w1", 4), fourGpus));
        assertThatThrownBy(() -> o.apply(Taken.gathered(List.of(twoGpus, fourGpus))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job a1's lease (4 GPUs) cannot be gathered: it is not on offer")
                .hasMessageContaining("1 leases and 5 GPUs on offer");
        assertThat(o.pool()).as("nothing of the refused take applied").isEqualTo(5);
        assertThat(o.leases()).containsExactly(twoGpus);

        assertThatThrownBy(() -> o.apply(Taken.gathered(List.of(twoGpus, twoGpus))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("job b1's lease (2 GPUs) cannot be gathered");
        assertThat(o.pool()).isEqualTo(5);
        assertThat(o.leases()).containsExactly(twoGpus);
    }

    @Test
    void aLeaseNeverOfferedCannotBeTakenOff() {
        Offer o = offer();
        assertThatThrownBy(() -> o.apply(revoked(start("w1", 2), running)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job c1's lease (2 GPUs) cannot be revoked: it is not on offer");
        assertThat(o.pool()).isEqualTo(9);
    }

    @Test
    void gpusGivenBackTwiceOrWhileStillOnOfferAreRefused() {
        Offer o = offer();
        assertThatThrownBy(() -> o.apply(freed(fourGpus)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job a1's 4 GPUs cannot be given back: its lease is still on offer (pool 9 GPUs)");
        assertThat(o.pool()).isEqualTo(9);

        o.apply(freed(running));
        assertThat(o.pool()).isEqualTo(11);
        assertThatThrownBy(() -> o.apply(freed(running)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job c1's 2 GPUs were given back already (pool 11 GPUs)");
        assertThatThrownBy(() -> new Offer(3, List.of()).apply(freed(running, running)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("job c1's 2 GPUs were given back already");
        assertThat(o.pool()).isEqualTo(11);
    }

    @Test
    void aJobsGpusAreTakenOncePerPlan() {
        Offer o = offer();
        Item w1 = start("w1", 3);
        o.apply(Taken.items(List.of(w1)));
        assertThat(o.pool()).isEqualTo(6);
        assertThatThrownBy(() -> o.apply(Taken.items(List.of(w1))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job w1 cannot take 3 GPUs: its GPUs were taken already in this plan (pool 6 GPUs)");
        assertThat(o.pool()).isEqualTo(6);
    }

    @Test
    void aLeaseIsOfferedOnce() {
        assertThatThrownBy(() -> new Offer(0, List.of(fourGpus, fourGpus)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("the lease of job a1 is offered twice");
    }

    @Test
    void theLeasesOnOfferCannotBeChangedFromOutside() {
        Offer o = offer();
        assertThatThrownBy(() -> o.leases().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(o.pool()).isEqualTo(9);
    }
}
