package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.suspended;
import static io.fairway.k8s.MockCluster.until;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.ZonedDateTime;
import java.util.ArrayList;
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

    /** Writes the Lease over to replica-two, retrying while replica-one's elector renews it concurrently. */
    private void takeOverForReplicaTwo() {
        for (int attempt = 0; ; attempt++) {
            try {
                cluster.client.leases().inNamespace("fairway-system").withName("fairway-controller").edit(l -> new LeaseBuilder(l).editSpec()
                        .withHolderIdentity("replica-two").withRenewTime(ZonedDateTime.now()).endSpec().build());
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException conflict) {
                if (conflict.getCode() != 409 || attempt > 50) {
                    throw conflict;
                }
            }
        }
    }

    @Test
    void aLeaseTakenOverMidPassStopsTheOldLeadersWritesAndNoJobIsAdmittedTwice() {
        for (String n : List.of("node-a", "node-b", "node-c")) {
            cluster.node(n, 48, 192, 0, Map.of());
        }
        for (String j : List.of("job-1", "job-2", "job-3", "job-4")) {
            cluster.createJob(cluster.jobBuilder("default", j, "user-queue", 1, "32", 0, true).build());
        }
        one = replica("replica-one");
        until(one::isLeader, "replica-one leads");
        // another replica (with a clock ahead, say) takes the Lease after replica-one checked it at the start of its pass
        one.state.beforeWrites = this::takeOverForReplicaTwo;
        one.reconcileOnce();
        assertThat(one.state.fencedWrites).as("admissions dropped after the takeover").isPositive();
        for (String j : List.of("job-1", "job-2", "job-3", "job-4")) {
            assertThat(suspended(cluster.job("default", j))).as("%s was not started by the deposed leader", j).isTrue();
            assertThat(cluster.events("default", j)).filteredOn(e -> Keys.REASON_ADMITTED.equals(e.getReason())).isEmpty();
        }
        one.state.beforeWrites = () -> { };

        two = replica("replica-two");
        until(two::isLeader, "replica-two leads");
        MockCluster.reconcileUntil(two, () -> !suspended(cluster.job("default", "job-2")), "the new leader admits");
        for (int i = 0; i < 10; i++) {
            assertThat(one.reconcileOnce().acted()).as("the deposed leader acts in pass %d", i).isFalse();
            two.reconcileOnce();
        }
        List<String> nodes = new ArrayList<>();
        for (String j : List.of("job-1", "job-2", "job-3", "job-4")) {
            List<Event> admitted = cluster.events("default", j).stream().filter(e -> Keys.REASON_ADMITTED.equals(e.getReason())).toList();
            assertThat(admitted).as("admissions of %s", j).hasSizeLessThanOrEqualTo(1);
            admitted.forEach(e -> assertThat(e.getReportingInstance()).isEqualTo("replica-two"));
            String ann = cluster.job("default", j).getMetadata().getAnnotations() == null ? null
                    : cluster.job("default", j).getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION);
            if (ann != null) {
                AdmissionRecord.parse(ann).members().forEach(m -> nodes.add(m.node()));
            }
        }
        assertThat(nodes).as("32-core jobs on 48-core nodes: at most one per node (the quota admits two)").hasSize(2).doesNotHaveDuplicates();
        assertThat(two.checkInvariants()).isEmpty();
    }
}
