package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Fragmentation-aware preemption: to make room for a gang that must sit in one rack, the victims are chosen so
 * that one rack becomes free — the gang is then placed, not merely admitted under quota (the failure mode Kueue
 * users report: workloads admitted by quota-only preemption that then cannot be scheduled).
 */
class TopologyPreemptionTest {
    @Test
    void victimsFreeOneWholeRackAndTheGangIsPlacedThere() {
        AtomicLong now = new AtomicLong();
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy("priority")
                .cluster(ClusterSpec.withRacks("default"))
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null))
                        .quota("default", Resources.builder().gpus(32).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"));
        for (int i = 0; i < 4; i++) {
            b.node(Node.builder("n" + i).label(ClusterSpec.RACK_LABEL, i < 2 ? "r0" : "r1").gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = b.build();
        // 32 one-GPU low-priority jobs fill both racks
        for (int i = 0; i < 32; i++) {
            s.submit(JobSpec.builder("low-" + i).queue("q").priority(i % 3).members(1, Resources.builder().gpus(1).build()).build());
        }
        java.util.Map<String, String> nodeOf = new java.util.HashMap<>();
        RoundResult fill = s.runRound();
        assertThat(fill.decisions()).hasSize(32);
        fill.decisions().forEach(d -> nodeOf.put(d.jobId(), ((Admit) d).placement().members().get(0).node()));
        s.jobs().all().forEach(j -> s.reportStarted(j.id()));
        // a 16-GPU gang that must sit in one rack
        s.submit(JobSpec.builder("gang").queue("q").priority(10)
                .podSet(PodSet.of("workers", 2, Resources.builder().gpus(8).build()).withTopology(TopologyRequest.required(ClusterSpec.RACK_LABEL)))
                .build());
        RoundResult r = s.runRound();
        List<Decision> preempts = r.decisions().stream().filter(d -> d instanceof Preempt).toList();
        Admit gang = r.decisions().stream().filter(d -> d instanceof Admit).map(d -> (Admit) d).findFirst().orElseThrow();
        // exactly one rack's worth of victims, all from the rack the gang lands in
        assertThat(preempts).hasSize(16);
        Set<String> gangNodes = gang.placement().nodes();
        String rack = gangNodes.contains("n0") ? "r0" : "r1";
        Set<String> rackNodes = rack.equals("r0") ? Set.of("n0", "n1") : Set.of("n2", "n3");
        assertThat(gangNodes).isEqualTo(rackNodes);
        // every victim ran in the rack the gang now occupies: the other rack was not disturbed
        for (Decision d : preempts) {
            assertThat(rackNodes).contains(nodeOf.get(d.jobId()));
        }
        assertThat(s.checkInvariants()).isEmpty();
    }
}
