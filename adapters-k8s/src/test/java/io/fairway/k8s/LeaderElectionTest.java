package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.suspended;
import static io.fairway.k8s.MockCluster.until;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two replicas with a coordination.k8s.io Lease: only the leader acts; when it goes, the other takes over without admitting anything twice. */
class LeaderElectionTest {
    private final MockCluster cluster = new MockCluster();
    private FairwayAdapter one;
    private FairwayAdapter two;

    @AfterEach
    void stop() {
        if (one != null) {
            one.close();
        }
        if (two != null) {
            two.close();
        }
        cluster.close();
    }

    private FairwayAdapter replica(String identity) {
        return new FairwayAdapter(cluster.newClient(), AdapterOptions.builder()
                .queues(MockCluster.config(CedanaScenarioTest.QUEUES))
                .leaderElection("fairway-system", "fairway-controller", identity)
                .leaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200))
                .build(), null).start();
    }

    @Test
    void onlyTheLeaderActsAndTheOtherTakesOver() {
        for (String n : List.of("node-a", "node-b", "node-c")) {
            cluster.node(n, 48, 192, 0, Map.of());
        }
        for (String j : List.of("job-1", "job-2", "job-3")) {
            cluster.createJob(cluster.jobBuilder("default", j, "user-queue", 1, "32", 0, true).build());
        }
        one = replica("replica-one");
        until(one::isLeader, "replica-one leads");
        two = replica("replica-two");

        for (int i = 0; i < 20; i++) {
            boolean a = one.reconcileOnce().acted();
            boolean b = two.reconcileOnce().acted();
            assertThat(a && b).as("both replicas acted in pass %d", i).isFalse();
            assertThat(b).isFalse();
        }
        assertThat(two.isLeader()).isFalse();
        assertThat(suspended(cluster.job("default", "job-1"))).isFalse();
        assertThat(suspended(cluster.job("default", "job-2"))).isFalse();
        assertThat(suspended(cluster.job("default", "job-3"))).isTrue();
        Set<String> actors = cluster.client.v1().events().inNamespace("default").list().getItems().stream()
                .map(Event::getReportingInstance).collect(Collectors.toSet());
        assertThat(actors).containsExactly("replica-one");
        String admission1 = cluster.job("default", "job-1").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION);

        // The leader stops and gives up the Lease; the other replica takes over and rebuilds from the API server.
        one.close();
        one = null;
        until(two::isLeader, "replica-two leads");
        Lease lease = cluster.client.leases().inNamespace("fairway-system").withName("fairway-controller").get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("replica-two");
        until(() -> two.reconcileOnce().acted(), "replica-two acts");
        for (int i = 0; i < 3; i++) {
            two.reconcileOnce();
        }
        assertThat(suspended(cluster.job("default", "job-3"))).isTrue();
        assertThat(cluster.job("default", "job-1").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION)).isEqualTo(admission1);
        assertThat(cluster.events("default", "job-1")).filteredOn(e -> Keys.REASON_ADMITTED.equals(e.getReason())).hasSize(1);
        assertThat(two.checkInvariants()).isEmpty();

        cluster.createPods("default", "job-1");
        cluster.setPhase("default", "job-1", "Succeeded");
        MockCluster.reconcileUntil(two, () -> !suspended(cluster.job("default", "job-3")), "the new leader admits job-3");
        assertThat(cluster.events("default", "job-3")).filteredOn(e -> Keys.REASON_ADMITTED.equals(e.getReason()))
                .extracting(Event::getReportingInstance).containsExactly("replica-two");
    }
}
