package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.until;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one leader-election helper of the adapter and the multi-cluster manager: holding, losing, and clocks that disagree. */
class LeaseElectionTest {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private final MockCluster cluster = new MockCluster();

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static Lease lease(String holder, ZonedDateTime renewed) {
        return new LeaseBuilder().withNewMetadata().withNamespace("ns").withName("lock").endMetadata()
                .withNewSpec().withHolderIdentity(holder).withRenewTime(renewed).endSpec().build();
    }

    @Test
    void aLeaseProvesTheHoldOnlyWithARecentRenewTimeOurClockCanVouchFor() {
        ZonedDateTime now = ZonedDateTime.now();
        assertThat(LeaseElection.holds(lease("me", now.minusSeconds(1)), "me", LEASE, now)).isTrue();
        assertThat(LeaseElection.holds(lease("me", null), "me", LEASE, now)).as("a null renewTime proves nothing").isFalse();
        assertThat(LeaseElection.holds(lease("other", now), "me", LEASE, now)).isFalse();
        assertThat(LeaseElection.holds(lease("me", now.minusSeconds(4)), "me", LEASE, now)).as("expired").isFalse();
        // clock skew: a renewTime far ahead of this replica's clock (written by a clock that runs ahead) is not trusted
        assertThat(LeaseElection.holds(lease("me", now.plusSeconds(60)), "me", LEASE, now)).isFalse();
        assertThat(LeaseElection.holds(lease("me", now.plusSeconds(2)), "me", LEASE, now)).as("within one lease duration").isTrue();
        assertThat(LeaseElection.holds(null, "me", LEASE, now)).isFalse();
    }

    @Test
    void holdsNowReadsTheLeaseFromTheApiServer() {
        KubernetesClient c = cluster.newClient();
        LeaseElection e = new LeaseElection(c, "ns", "lock", "me", LEASE, Duration.ofSeconds(2), Duration.ofMillis(200));
        assertThat(e.holdsNow()).as("no Lease").isFalse();
        c.leases().inNamespace("ns").resource(lease("me", ZonedDateTime.now())).create();
        assertThat(e.holdsNow()).isTrue();
        c.leases().inNamespace("ns").withName("lock").edit(l -> new LeaseBuilder(l).editSpec().withHolderIdentity("other").endSpec().build());
        assertThat(e.holdsNow()).as("taken over").isFalse();
        c.leases().inNamespace("ns").withName("lock").edit(l -> new LeaseBuilder(l).editSpec().withHolderIdentity("me")
                .withRenewTime(ZonedDateTime.now().plusMinutes(5)).endSpec().build());
        assertThat(e.holdsNow()).as("renewed by a clock far ahead of ours").isFalse();
    }

    @Test
    void theElectedCandidateLeadsAndTheOtherTakesOverWhenItLeaves() {
        AtomicInteger oneLeads = new AtomicInteger();
        AtomicInteger oneStopped = new AtomicInteger();
        AtomicInteger twoLeads = new AtomicInteger();
        LeaseElection one = new LeaseElection(cluster.newClient(), "ns", "lock", "one", LEASE, Duration.ofSeconds(2), Duration.ofMillis(200))
                .start("test", oneLeads::incrementAndGet, oneStopped::incrementAndGet);
        until(() -> oneLeads.get() == 1, "one leads");
        assertThat(one.holdsNow()).isTrue();
        LeaseElection two = new LeaseElection(cluster.newClient(), "ns", "lock", "two", LEASE, Duration.ofSeconds(2), Duration.ofMillis(200))
                .start("test", twoLeads::incrementAndGet, () -> { });
        assertThat(two.holdsNow()).as("the Lease is one's").isFalse();
        one.close();
        until(() -> oneStopped.get() == 1, "one stops leading");
        until(() -> twoLeads.get() == 1, "two takes over");
        assertThat(two.holdsNow()).isTrue();
        assertThat(one.holdsNow()).as("one lost it").isFalse();
        two.close();
    }
}
