package io.fairway.core.autoscaling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Provision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodeAffinity;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Provisioning honours a pod set's required node affinity: a pool whose nodes it rules out is not chosen. */
class AffinityProvisioningTest {
    private final AtomicLong now = new AtomicLong();

    private RoundResult firstRound(NodeAffinity affinity) {
        // zone a's pool has the cheaper instance type: without the affinity the job's node comes from it
        NodePool a = new NodePool("zone-a", null, List.of(AutoscalingTest.C32), Resources.builder().cpu(1000).build(), 60_000, 300_000,
                Map.of("zone", "a"), List.of());
        NodePool b = new NodePool("zone-b", null, List.of(AutoscalingTest.C64), Resources.builder().cpu(1000).build(), 60_000, 300_000,
                Map.of("zone", "b"), List.of());
        Scheduler s = Scheduler.builder().clock(now::get).flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(1000).memoryGiB(1000).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq")).nodePool(a).nodePool(b).build();
        s.submit(JobSpec.builder("j").queue("q").podSet(PodSet.of("main", 1, Resources.builder().cpu(16).build()).withAffinity(affinity)).build());
        return s.runRound();
    }

    @Test
    void aJobWhoseAffinityRulesOutAPoolGetsItsNodeFromAnother() {
        assertThat(firstRound(NodeAffinity.NONE).decisions()).filteredOn(d -> d instanceof Provision)
                .extracting(d -> ((Provision) d).nodePool()).containsExactly("zone-a");
        NodeAffinity notA = NodeAffinity.of(NodeAffinity.Term.of(NodeAffinity.Expression.of("zone", NodeAffinity.Operator.NotIn, "a")));
        assertThat(firstRound(notA).decisions()).filteredOn(d -> d instanceof Provision)
                .extracting(d -> ((Provision) d).nodePool()).containsExactly("zone-b");
    }
}
