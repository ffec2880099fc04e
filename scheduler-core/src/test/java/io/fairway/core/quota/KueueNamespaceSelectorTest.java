package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LabelSelector;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A ClusterQueue's {@code namespaceSelector}, as in Kueue: only workloads of namespaces whose labels match it are
 * admitted through it; the others wait with a reason that says so (Kueue: "namespace doesn't match ClusterQueue
 * selector"), and are admitted once the selector or the namespace's labels change.
 */
class KueueNamespaceSelectorTest {
    @Test
    void onlyNamespacesMatchingTheSelectorAreAdmitted() {
        LabelSelector teamA = new LabelSelector(Map.of("team", "a"),
                List.of(new LabelSelector.Requirement("tier", LabelSelector.Operator.NOT_IN, List.of("frozen"))));
        Scheduler s = Scheduler.builder().policy("best-effort-fifo").flavor(ResourceFlavor.of("default"))
                .node(Node.builder("n0").capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
                .clusterQueue(ClusterQueue.builder("team-a").namespaceSelector(teamA).quota("default", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("ns-a", "gpu", "team-a", Map.of("team", "a")))
                .localQueue(new LocalQueue("ns-b", "gpu", "team-a", Map.of("team", "b")))
                .localQueue(new LocalQueue("ns-c", "gpu", "team-a", Map.of("team", "a", "tier", "frozen")))
                .build();
        for (String ns : List.of("ns-a", "ns-b", "ns-c")) {
            s.submit(JobSpec.builder("job-" + ns).namespace(ns).queue("gpu").members(1, Resources.builder().gpus(1).build()).build());
        }
        RoundResult r = s.runRound();
        assertThat(r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId)).containsExactly("job-ns-a");
        PendingReason b = s.status("job-ns-b").orElseThrow().pendingReason();
        assertThat(b.code()).isEqualTo(PendingReason.Code.NAMESPACE_NOT_ALLOWED);
        assertThat(b.message()).contains("namespace ns-b").contains("namespaceSelector of ClusterQueue team-a");
        assertThat(s.status("job-ns-c").orElseThrow().pendingReason().code()).isEqualTo(PendingReason.Code.NAMESPACE_NOT_ALLOWED);
        // the selector widened: ns-b is admitted
        s.queues().addClusterQueue(ClusterQueue.builder("team-a").namespaceSelector(LabelSelector.EVERYTHING)
                .quota("default", Resources.builder().gpus(8).build()).build());
        r = s.runRound();
        assertThat(r.decisions().stream().filter(d -> d instanceof Admit).map(Decision::jobId)).contains("job-ns-b", "job-ns-c");
    }
}
