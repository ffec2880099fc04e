package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input is refused with an error naming the field and the value, and leaves the scheduler exactly as it was.
 */
class BadInputTest {
    private Scheduler s;

    @BeforeEach
    void busyScheduler() {
        s = cluster("best-effort-fifo", 16, null, h100("n1"), h100("n2"))
                .cohort(Cohort.of("research", null))
                .build();
        s.submit(gpuJob("running", 1, 4));
        s.submit(gpuJob("admitted", 1, 4));
        s.submit(gpuJob("waiting", 1, 16));
        s.runRound();
        s.reportStarted("running");
    }

    /** Runs a bad call and checks the error and that jobs, nodes and the whole snapshot are unchanged. */
    private void refused(ThrowingCallable call, String field, Object value, String... messageParts) {
        List<JobStatus> jobs = s.jobs().all();
        List<Node> nodes = s.clusters().nodes();
        Snapshot snapshot = s.snapshot();
        List<String> invariants = s.checkInvariants();
        assertThat(invariants).isEmpty();

        assertThatThrownBy(call).isInstanceOfSatisfying(InvalidSpecException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.getMessage()).contains(String.valueOf(value));
            for (String p : messageParts) {
                assertThat(e.getMessage()).contains(p);
            }
        });

        assertThat(s.jobs().all()).isEqualTo(jobs);
        assertThat(s.clusters().nodes()).isEqualTo(nodes);
        assertThat(s.snapshot()).isEqualTo(snapshot);
        assertThat(s.checkInvariants()).isEmpty();
    }

    private static Resources gpus(long n) {
        return Resources.builder().gpus(n).build();
    }

    @Test
    void zeroMemberCount() {
        refused(() -> s.submit(JobSpec.builder("x").queue("lq").members(0, gpus(1)).build()), "podSets[main].count", 0, "count must be > 0");
    }

    @Test
    void negativeMemberCount() {
        refused(() -> s.submit(JobSpec.builder("x").queue("lq").members(-2, gpus(1)).build()), "podSets[main].count", -2);
    }

    @Test
    void zeroQuantity() {
        refused(() -> s.submit(JobSpec.builder("x").queue("lq").members(1, gpus(0)).build()),
                "podSets[main].resources.nvidia.com/gpu", 0L, "nvidia.com/gpu must be > 0");
    }

    @Test
    void negativeQuantity() {
        refused(() -> s.submit(JobSpec.builder("x").queue("lq").members(1, Resources.builder().put("memory", -1).build()).build()),
                "resources.memory", -1L, "memory");
    }

    @Test
    void minCountAboveCount() {
        refused(() -> s.submit(JobSpec.builder("x").queue("lq").podSet(PodSet.of("workers", 4, gpus(1)).withMinCount(5)).build()),
                "podSets[workers].minCount", 5, "pod set \"workers\": minCount 5 > count 4");
    }

    @Test
    void duplicateJobId() {
        refused(() -> s.submit(gpuJob("waiting", 1, 1)), "job.id", "waiting", "already exists");
    }

    @Test
    void duplicateJobIdInsideOneBatchAcceptsNone() {
        refused(() -> s.submitAll(List.of(gpuJob("fresh-1", 1, 1), gpuJob("fresh-2", 1, 1), gpuJob("fresh-1", 1, 2))),
                "job.id", "fresh-1");
        assertThat(s.status("fresh-1")).isEmpty();
        assertThat(s.status("fresh-2")).isEmpty();
    }

    @Test
    void batchWithOneExistingIdAcceptsNone() {
        refused(() -> s.submitAll(List.of(gpuJob("fresh", 1, 1), gpuJob("running", 1, 1))), "job.id", "running");
        assertThat(s.status("fresh")).isEmpty();
    }

    @Test
    void flavorQuotingAResourceNotCovered() {
        refused(() -> s.queues().addClusterQueue(ClusterQueue.builder("new").resourceGroup(new ResourceGroup(List.of("cpu"),
                        List.of(new FlavorQuotas("default", List.of(ResourceQuota.of("cpu", 1000), ResourceQuota.of(Resources.GPU, 8))))))
                        .build()),
                "flavors[default].resources", Resources.GPU, "not in coveredResources");
    }

    @Test
    void clusterQueueNamingAnUndefinedFlavor() {
        refused(() -> s.queues().addClusterQueue(ClusterQueue.builder("new").quota("h200-spot", gpus(8)).build()),
                "clusterQueue[new].flavors", "h200-spot", "is not defined");
    }

    @Test
    void replacingAClusterQueueWithAnUndefinedFlavorKeepsTheOldOne() {
        refused(() -> s.queues().addClusterQueue(ClusterQueue.builder(Fixtures.CQ).quota("ghost", gpus(1)).build()),
                "clusterQueue[cq].flavors", "ghost");
    }

    @Test
    void cohortQuotaNamingAnUndefinedFlavor() {
        refused(() -> s.queues().addCohort(new Cohort("rich", null, List.of(new ResourceGroup(List.of(Resources.GPU),
                        List.of(new FlavorQuotas("ghost", List.of(ResourceQuota.of(Resources.GPU, 8)))))), 1.0)),
                "cohort[rich].flavors", "ghost");
    }

    @Test
    void nodeWithAGpuIndexTwice() {
        refused(() -> s.clusters().addNode(Node.builder("n3").gpus(new GpuTopology("custom", List.of(new Gpu(0, "A"), new Gpu(0, "A")), List.of())).build()),
                "gpus.index", 0, "appears twice");
        assertThat(s.clusters().nodes()).extracting(Node::name).containsExactly("n1", "n2");
    }

    @Test
    void nodeWhoseGpuCapacityDisagreesWithItsGpuList() {
        refused(() -> s.clusters().addNode(Node.builder("n3").capacity(gpus(4)).gpus(GpuTopology.nvSwitch8("H100")).build()),
                "node.capacity.nvidia.com/gpu", 4L, "8 GPUs are listed");
    }

    @Test
    void nodeNameTwice() {
        refused(() -> s.clusters().addNode(h100("n1")), "node.name", "n1", "already exists");
    }

    @Test
    void unknownPolicyName() {
        assertThatThrownBy(() -> cluster("fair-fifo", 8, null, h100("n1")).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("policy");
                    assertThat(e.value()).isEqualTo("fair-fifo");
                })
                .hasMessageContaining("\"fair-fifo\"").hasMessageContaining("best-effort-fifo");
    }

    @Test
    void cohortCycle() {
        s.queues().addCohort(Cohort.of("a", "b"));
        refused(() -> s.queues().addCohort(Cohort.of("b", "a")), "cohort[b].parent", "a", "cycle", "b -> a -> b");
    }

    @Test
    void cohortTwice() {
        refused(() -> s.queues().addCohort(Cohort.of("research", null)), "cohort.name", "research", "already exists");
    }

    @Test
    void borrowingLimitOnAQueueWithNoCohort() {
        refused(() -> s.queues().addClusterQueue(ClusterQueue.builder("new").resourceGroup(new ResourceGroup(List.of(Resources.GPU),
                        List.of(new FlavorQuotas("default", List.of(new ResourceQuota(Resources.GPU, 8, 2, ResourceQuota.UNLIMITED))))))
                        .build()),
                "clusterQueue[new].borrowingLimit", 2L, "no cohort");
    }

    @Test
    void negativeQuota() {
        refused(() -> s.queues().addClusterQueue(ClusterQueue.builder("new").quota("default", Resources.of(Map.of("cpu", -4000L))).build()),
                "resources.cpu", -4000L, "quantity must be >= 0");
        refused(() -> s.queues().addClusterQueue(ClusterQueue.builder("new").resourceGroup(new ResourceGroup(List.of(Resources.GPU),
                        List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, -8)))))).build()),
                "nominalQuota", -8L, "nominalQuota must be >= 0");
    }

    @Test
    void localQueueTwice() {
        refused(() -> s.queues().addLocalQueue(new LocalQueue("default", "lq", "cq")), "localQueue", "default/lq", "already exists");
    }

    @Test
    void flavorTwice() {
        refused(() -> s.queues().addFlavor(ResourceFlavor.of("default")), "flavor.name", "default", "already exists");
    }

    @Test
    void unknownNodes() {
        refused(() -> s.clusters().removeNode("n9"), "node", "n9", "does not exist");
        refused(() -> s.clusters().cordon("n9", true), "node", "n9", "does not exist");
        refused(() -> s.clusters().drainNode("n9", "spot"), "node", "n9", "does not exist");
    }

    @Test
    void progressOutsideZeroToOne() {
        refused(() -> s.reportProgress("running", 1.5), "progress", 1.5, "0..1");
    }
}
