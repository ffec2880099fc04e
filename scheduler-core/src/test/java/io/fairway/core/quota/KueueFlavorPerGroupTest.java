package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import io.fairway.api.model.Toleration;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Kueue's common layout: a ClusterQueue with cpu and memory in one resource group and GPUs in another. Kueue assigns
 * a flavor per resource group (each group's flavors tried in order, by the queue's flavor fungibility), and the pod
 * set runs on nodes matching every flavor it was given (Kueue's TestSchedule "multiple resource groups" cases).
 */
class KueueFlavorPerGroupTest {
    private static final long CPU = 1000; // millicores per core

    /** cpu/memory: flavor on-demand (capacity=on-demand); GPUs: a100 then h100 (h100 nodes are tainted). */
    private static Scheduler.Builder layout(FlavorFungibility fungibility, long a100Quota, long h100Quota) {
        Taint h100Taint = new Taint("gpu", "h100", "NoSchedule");
        Scheduler.Builder b = Scheduler.builder().policy("best-effort-fifo")
                .flavor(new ResourceFlavor("on-demand", Map.of("capacity", "on-demand"), List.of(), List.of()))
                .flavor(new ResourceFlavor("a100", Map.of("gpu", "a100"), List.of(), List.of()))
                .flavor(new ResourceFlavor("h100", Map.of("gpu", "h100"), List.of(h100Taint),
                        List.of(new Toleration("gpu", "Equal", "h100", "NoSchedule"))));
        // an a100 node on spot capacity: it matches the GPU flavor but not the cpu flavor, so nothing may land there
        b.node(Node.builder("a100-spot").label("gpu", "a100").label("capacity", "spot")
                .capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(GpuTopology.nvSwitch8("A100")).build());
        b.node(Node.builder("a100-od").label("gpu", "a100").label("capacity", "on-demand")
                .capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(GpuTopology.nvSwitch8("A100")).build());
        b.node(Node.builder("h100-od").label("gpu", "h100").label("capacity", "on-demand").taints(List.of(h100Taint))
                .capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        b.node(Node.builder("cpu-od").label("capacity", "on-demand")
                .capacity(Resources.builder().cpu(64).memoryGiB(512).build()).build());
        ClusterQueue cq = ClusterQueue.builder("team-a").flavorFungibility(fungibility)
                .resourceGroup(new ResourceGroup(List.of(Resources.CPU, Resources.MEMORY), List.of(new FlavorQuotas("on-demand",
                        List.of(ResourceQuota.of(Resources.CPU, 256 * CPU), ResourceQuota.of(Resources.MEMORY, 2048L << 30))))))
                .resourceGroup(new ResourceGroup(List.of(Resources.GPU), List.of(
                        new FlavorQuotas("a100", List.of(ResourceQuota.of(Resources.GPU, a100Quota))),
                        new FlavorQuotas("h100", List.of(ResourceQuota.of(Resources.GPU, h100Quota))))))
                .build();
        return b.clusterQueue(cq).localQueue(new LocalQueue("ns", "a", "team-a"));
    }

    private static JobSpec gpuJob(String id, int members, int gpus) {
        return JobSpec.builder(id).namespace("ns").queue("a").submitTimeMillis(0)
                .members(members, Resources.builder().cpu(8).memoryGiB(64).gpus(gpus).build()).build();
    }

    private static Admit admission(RoundResult r, String id) {
        return r.decisions().stream().filter(d -> d instanceof Admit a && a.jobId().equals(id)).map(d -> (Admit) d).findFirst().orElse(null);
    }

    private static Set<String> nodes(Admit a) {
        return a.placement().members().stream().map(MemberPlacement::node).collect(Collectors.toSet());
    }

    @Test
    void aGpuPodTakesItsCpuFlavorFromOneGroupAndItsGpuFlavorFromTheOther() {
        Scheduler s = layout(FlavorFungibility.BORROW_FIRST, 8, 8).build();
        s.submit(gpuJob("train", 1, 4));
        RoundResult r = s.runRound();
        Admit a = admission(r, "train");
        assertThat(a).as("admitted, not refused with RESOURCE_NOT_IN_QUOTA: %s", r.pendingReasons()).isNotNull();
        assertThat(a.flavorOf("main", Resources.CPU)).isEqualTo("on-demand");
        assertThat(a.flavorOf("main", Resources.MEMORY)).isEqualTo("on-demand");
        assertThat(a.flavorOf("main", Resources.GPU)).isEqualTo("a100");
        // placement matches both flavors: an a100 node on on-demand capacity, never the spot one
        assertThat(nodes(a)).containsExactly("a100-od");
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void eachGroupFallsBackToItsNextFlavorOnItsOwn() {
        Scheduler s = layout(FlavorFungibility.BORROW_FIRST, 8, 8).build();
        s.submit(gpuJob("first", 1, 6));
        s.submit(gpuJob("second", 1, 4));
        RoundResult r = s.runRound();
        assertThat(admission(r, "first").flavorOf("main", Resources.GPU)).isEqualTo("a100");
        Admit second = admission(r, "second");
        assertThat(second).as("%s", r.pendingReasons()).isNotNull();
        // a100 has 2 of 8 left: the GPU group falls to h100; the cpu group keeps on-demand
        assertThat(second.flavorOf("main", Resources.GPU)).isEqualTo("h100");
        assertThat(second.flavorOf("main", Resources.CPU)).isEqualTo("on-demand");
        // the h100 flavor's toleration lets it onto the tainted h100 node
        assertThat(nodes(second)).containsExactly("h100-od");
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aJobThatFitsNoGpuFlavorWaitsForQuotaNamingTheGpuFlavor() {
        Scheduler s = layout(FlavorFungibility.BORROW_FIRST, 4, 4).build();
        s.submit(gpuJob("big", 1, 8));
        RoundResult r = s.runRound();
        assertThat(admission(r, "big")).isNull();
        PendingReason why = r.pendingReasons().get("big");
        assertThat(why.code()).isEqualTo(PendingReason.Code.QUOTA);
        assertThat(why.message()).contains("nvidia.com/gpu").contains("a100");
    }

    @Test
    void aJobOfSeveralPodSetsGetsAFlavorPerPodSetAndGroup() {
        Scheduler s = layout(FlavorFungibility.BORROW_FIRST, 8, 8).build();
        // a launcher (cpu only) and 2 workers of 4 GPUs: the workers' GPUs take a100, the launcher only the cpu flavor
        s.submit(JobSpec.builder("mpi").namespace("ns").queue("a").submitTimeMillis(0)
                .podSet(PodSet.of("launcher", 1, Resources.builder().cpu(2).memoryGiB(8).build()))
                .podSet(PodSet.of("worker", 2, Resources.builder().cpu(8).memoryGiB(64).gpus(4).build())).build());
        RoundResult r = s.runRound();
        Admit a = admission(r, "mpi");
        assertThat(a).as("%s", r.pendingReasons()).isNotNull();
        assertThat(a.flavorOf("launcher", Resources.CPU)).isEqualTo("on-demand");
        assertThat(a.flavorOf("worker", Resources.CPU)).isEqualTo("on-demand");
        assertThat(a.flavorOf("worker", Resources.GPU)).isEqualTo("a100");
        assertThat(a.placement().members().stream().filter(m -> m.podSet().equals("worker")).map(MemberPlacement::node))
                .containsOnly("a100-od");
        assertThat(s.checkInvariants()).isEmpty();
    }
}
