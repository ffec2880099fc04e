package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A catalogue of bad inputs through the public API: each is refused with an {@link InvalidSpecException} naming
 * the field and quoting the value, and leaves the scheduler exactly as it was (jobs, nodes, whole snapshot).
 */
class BadInputCatalogueTest {

    /** A call on a scheduler that must be refused. */
    @FunctionalInterface
    interface BadCall {
        void apply(Scheduler s);
    }

    private static Resources gpus(long n) {
        return Resources.builder().gpus(n).cpu(1).memoryGiB(1).build();
    }

    private static JobSpec.Builder job(String id) {
        return JobSpec.builder(id).queue("lq0");
    }

    private static Arguments bad(String name, Object value, BadCall call) {
        return Arguments.of(name, value, (BadCall) s -> { }, call);
    }

    /** A case in two steps: a valid {@code setup} applied before the state is recorded, then the refused call. */
    private static Arguments bad(String name, Object value, BadCall setup, BadCall call) {
        return Arguments.of(name, value, setup, call);
    }

    private static ClusterQueue cqWith(String name, ResourceQuota gpuQuota) {
        return ClusterQueue.builder(name).cohort("co0").resourceGroup(new ResourceGroup(List.of(Resources.GPU),
                List.of(new FlavorQuotas("reserved", List.of(gpuQuota))))).build();
    }

    static Stream<Arguments> catalogue() {
        List<Arguments> l = new ArrayList<>();
        // jobs
        l.add(bad("zero members", 0, s -> s.submit(job("x").members(0, gpus(1)).build())));
        l.add(bad("negative members", -3, s -> s.submit(job("x").members(-3, gpus(1)).build())));
        l.add(bad("zero GPUs per member", 0L, s -> s.submit(job("x").members(1, Resources.builder().gpus(0).build()).build())));
        l.add(bad("negative GPUs", -1L, s -> s.submit(job("x").members(1, Resources.builder().gpus(-1).build()).build())));
        l.add(bad("negative memory", -1L, s -> s.submit(job("x").members(1, Resources.builder().put(Resources.MEMORY, -1).build()).build())));
        l.add(bad("negative cpu", -5L, s -> s.submit(job("x").members(1, Resources.builder().put(Resources.CPU, -5).build()).build())));
        l.add(bad("minCount above count", 5, s -> s.submit(job("x").podSet(PodSet.of("w", 4, gpus(1)).withMinCount(5)).build())));
        l.add(bad("minCount zero", 0, s -> s.submit(job("x").podSet(PodSet.of("w", 4, gpus(1)).withMinCount(0)).build())));
        l.add(bad("duplicate job id", "dup", s -> s.submit(job("dup").members(1, gpus(1)).build()),
                s -> s.submit(job("dup").members(1, gpus(1)).build())));
        l.add(bad("duplicate id inside a batch", "b1", s -> s.submitAll(List.of(job("b1").members(1, gpus(1)).build(),
                job("b2").members(1, gpus(1)).build(), job("b1").members(1, gpus(2)).build()))));
        l.add(bad("empty job id", "", s -> s.submit(job("").members(1, gpus(1)).build())));
        l.add(bad("empty pod set name", "", s -> s.submit(job("x").podSet(PodSet.of("", 1, gpus(1))).build())));
        l.add(bad("two pod sets of one name", "w", s -> s.submit(job("x").podSet(PodSet.of("w", 1, gpus(1))).podSet(PodSet.of("w", 2, gpus(1))).build())));
        l.add(bad("empty queue name", "", s -> s.submit(JobSpec.builder("x").queue("").members(1, gpus(1)).build())));
        l.add(bad("negative estimate", -1.0, s -> s.submit(job("x").estimatedSeconds(-1).members(1, gpus(1)).build())));
        l.add(bad("NaN estimate", Double.NaN, s -> s.submit(job("x").estimatedSeconds(Double.NaN).members(1, gpus(1)).build())));
        l.add(bad("required topology without a level", "required", s -> s.submit(job("x").podSet(PodSet.of("w", 2, gpus(1))
                .withTopology(TopologyRequest.required(null))).build())));
        l.add(bad("empty resource name", "", s -> s.submit(job("x").members(1, Resources.builder().put("", 1).build()).build())));
        // nodes
        l.add(bad("node name twice", "n0", s -> s.clusters().addNode(new FairwayArbitraries.NodeTemplate("pcie-4", 8, 64, 0, false).build("n0"))));
        l.add(bad("empty node name", "", s -> s.clusters().addNode(Node.builder("").capacity(gpus(0)).build())));
        l.add(bad("GPU index twice", 0, s -> s.clusters().addNode(Node.builder("n9").gpus(new GpuTopology("custom", List.of(new Gpu(0, "A"), new Gpu(0, "A")),
                List.of())).build())));
        l.add(bad("negative GPU index", -1, s -> s.clusters().addNode(Node.builder("n9").gpus(new GpuTopology("custom", List.of(new Gpu(-1, "A")), List.of())).build())));
        l.add(bad("GPU capacity disagreeing with the GPU list", 4L, s -> s.clusters().addNode(Node.builder("n9").capacity(Resources.builder().gpus(4).build())
                .gpus(GpuTopology.nvSwitch8("H100")).build())));
        l.add(bad("negative node cpu", -8L, s -> s.clusters().addNode(Node.builder("n9").capacity(Resources.builder().put(Resources.CPU, -8).build()).build())));
        l.add(bad("unknown GPU shape", "nvswitch-16", s -> s.clusters().addNode(Node.builder("n9").gpus(GpuTopology.named("nvswitch-16", "A")).build())));
        l.add(bad("cordon of an unknown node", "ghost", s -> s.clusters().cordon("ghost", true)));
        l.add(bad("update of an unknown node", "ghost", s -> s.clusters().updateNode(Node.builder("ghost").build())));
        l.add(bad("drain of an unknown node", "ghost", s -> s.clusters().drainNode("ghost", "maintenance")));
        // queues and cohorts
        l.add(bad("ClusterQueue naming an undefined flavor", "h200-spot", s -> s.queues().addClusterQueue(ClusterQueue.builder("new").quota("h200-spot", gpus(8)).build())));
        l.add(bad("quota of a resource not covered", Resources.GPU, s -> s.queues().addClusterQueue(ClusterQueue.builder("new").resourceGroup(new ResourceGroup(
                List.of(Resources.CPU), List.of(new FlavorQuotas("reserved", List.of(ResourceQuota.of(Resources.CPU, 1000),
                        ResourceQuota.of(Resources.GPU, 8)))))).build())));
        l.add(bad("negative nominal quota", -1L, s -> s.queues().addClusterQueue(cqWith("new", new ResourceQuota(Resources.GPU, -1, ResourceQuota.UNLIMITED,
                ResourceQuota.UNLIMITED)))));
        l.add(bad("lending limit above nominal", 9L, s -> s.queues().addClusterQueue(cqWith("new", new ResourceQuota(Resources.GPU, 8, ResourceQuota.UNLIMITED, 9)))));
        l.add(bad("negative borrowing limit", -2L, s -> s.queues().addClusterQueue(cqWith("new", new ResourceQuota(Resources.GPU, 8, -2, ResourceQuota.UNLIMITED)))));
        l.add(bad("empty ClusterQueue name", "", s -> s.queues().addClusterQueue(ClusterQueue.builder("").quota("reserved", gpus(1)).build())));
        l.add(bad("negative fair-sharing weight", -1.0, s -> s.queues().addClusterQueue(ClusterQueue.builder("new").fairSharingWeight(-1)
                .quota("reserved", gpus(1)).build())));
        l.add(bad("zero priority factor", 0.0, s -> s.queues().addClusterQueue(ClusterQueue.builder("new").priorityFactor(0).quota("reserved", gpus(1)).build())));
        l.add(bad("LocalQueue with an empty name", "", s -> s.queues().addLocalQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "", "cq0"))));
        l.add(bad("cohort quota naming an undefined flavor", "ghost", s -> s.queues().addCohort(new Cohort("rich", null, List.of(new ResourceGroup(
                List.of(Resources.GPU), List.of(new FlavorQuotas("ghost", List.of(ResourceQuota.of(Resources.GPU, 8)))))), 1.0))));
        l.add(bad("cohort that is its own parent", "loop", s -> s.queues().addCohort(Cohort.of("loop", "loop"))));
        l.add(bad("cohort cycle through an update", "co0", s -> s.queues().addCohort(Cohort.of("child", "co0")),
                s -> s.queues().updateCohort(Cohort.of("co0", "child"))));
        l.add(bad("empty cohort name", "", s -> s.queues().addCohort(Cohort.of("", null))));
        l.add(bad("negative cohort weight", -1.0, s -> s.queues().addCohort(new Cohort("w", null, List.of(), -1.0))));
        // clusters
        l.add(bad("cluster with an empty name", "", s -> s.clusters().addCluster(new ClusterSpec("", List.of()))));
        l.add(bad("cluster with a topology level twice", ClusterSpec.RACK_LABEL, s -> s.clusters().addCluster(new ClusterSpec("c2",
                List.of(ClusterSpec.RACK_LABEL, ClusterSpec.RACK_LABEL)))));
        // the same checks reached through other paths: batches (nothing of a bad batch is applied), replacements
        l.add(bad("batch with a zero-member job", 0, s -> s.submitAll(List.of(job("g1").members(1, gpus(1)).build(),
                job("g2").members(0, gpus(1)).build()))));
        l.add(bad("batch with a negative-GPU job", -2L, s -> s.submitAll(List.of(job("g1").members(1, gpus(1)).build(),
                job("g2").members(1, Resources.builder().gpus(-2).build()).build()))));
        l.add(bad("batch with minCount above count", 3, s -> s.submitAll(List.of(job("g1").members(1, gpus(1)).build(),
                job("g2").podSet(PodSet.of("w", 2, gpus(1)).withMinCount(3)).build()))));
        l.add(bad("batch repeating a running job's id", "running", s -> s.submitAll(List.of(job("g1").members(1, gpus(1)).build(),
                job("running").members(1, gpus(1)).build()))));
        l.add(bad("negative minCount", -1, s -> s.submit(job("x").podSet(PodSet.of("w", 2, gpus(1)).withMinCount(-1)).build())));
        l.add(bad("second pod set with zero members", 0, s -> s.submit(job("x").podSet(PodSet.of("a", 1, gpus(1)))
                .podSet(PodSet.of("b", 0, gpus(1))).build())));
        l.add(bad("GPU index 3 twice among four", 3, s -> s.clusters().addNode(Node.builder("n9").gpus(new GpuTopology("custom",
                List.of(new Gpu(0, "A"), new Gpu(1, "A"), new Gpu(3, "A"), new Gpu(3, "A")), List.of())).build())));
        l.add(bad("existing cohort made its own parent", "co1", s -> s.queues().updateCohort(Cohort.of("co1", "co1"))));
        l.add(bad("lending limit 3 above nominal 2", 3L, s -> s.queues().addClusterQueue(cqWith("new", new ResourceQuota(Resources.GPU, 2, ResourceQuota.UNLIMITED, 3)))));
        l.add(bad("nominal quota of -100", -100L, s -> s.queues().addClusterQueue(cqWith("new", new ResourceQuota(Resources.GPU, -100, ResourceQuota.UNLIMITED,
                ResourceQuota.UNLIMITED)))));
        l.add(bad("replacing cq0 with an undefined flavor keeps the old one", "ghost-2", s -> s.queues().addClusterQueue(ClusterQueue.builder("cq0")
                .quota("ghost-2", gpus(1)).build())));
        l.add(bad("cluster with the zone level twice", "zone", s -> s.clusters().addCluster(new ClusterSpec("c3", List.of("zone", "zone")))));
        // null arguments, names that are not names, impossible numbers, a busy queue (issue 17)
        l.add(bad("null job", null, s -> s.submit(null)));
        l.add(bad("null batch", null, s -> s.submitAll(null)));
        l.add(bad("batch with a null job", "batch[1]", s -> s.submitAll(java.util.Arrays.asList(job("g1").members(1, gpus(1)).build(), null))));
        l.add(bad("null node", null, s -> s.clusters().addNode(null)));
        l.add(bad("NUL inside a job id", "a\\u0000b", s -> s.submit(job("a\u0000b").members(1, gpus(1)).build())));
        l.add(bad("newline inside a job id", "U+000A", s -> s.submit(job("x\ny").members(1, gpus(1)).build())));
        l.add(bad("right-to-left override in a node name", "U+202E", s -> s.clusters().addNode(Node.builder("n\u202Egpj.exe").build())));
        l.add(bad("job id of 10 MB", 10 << 20, s -> s.submit(job("j".repeat(10 << 20)).members(1, gpus(1)).build())));
        l.add(bad("namespace that is not a DNS-1123 label", "Team_A", s -> s.submit(job("x").namespace("Team_A").members(1, gpus(1)).build())));
        l.add(bad("infinite cpu", Double.POSITIVE_INFINITY, s -> s.submit(job("x").members(1, Resources.builder().cpu(Double.POSITIVE_INFINITY)
                .build()).build())));
        l.add(bad("NaN cpu", Double.NaN, s -> s.submit(job("x").members(1, Resources.builder().cpu(Double.NaN).build()).build())));
        l.add(bad("1e12 GiB of node memory", 1e12, s -> s.clusters().addNode(Node.builder("n9").capacity(Resources.builder().memoryGiB(1e12).build()).build())));
        l.add(bad("a gang whose cpu total overflows", "18014398509481984", s -> s.submit(job("x").members(2,
                Resources.of(Resources.CPU, Resources.MAX_QUANTITY)).build())));
        l.add(bad("removing a ClusterQueue a job runs in", "running", s -> s.queues().removeClusterQueue("cq0")));
        return l.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogue")
    void refusedWithTheFieldAndValueAndNothingChanges(String name, Object value, BadCall setup, BadCall call) {
        World world = FairPolicyConformance.fairWorld(2);
        Scheduler s = new ConformanceHarness(world, () -> BuiltInPolicies.named("best-effort-fifo"), 3).scheduler;
        s.submit(JobSpec.builder("running").queue("lq0").members(1, gpus(4)).build());
        s.submit(JobSpec.builder("waiting").queue("lq1").members(1, gpus(16)).build());
        s.runRound();
        s.reportStarted("running");
        // the two-step cases have their first, valid step applied before the state is recorded
        setup.apply(s);
        List<JobStatus> jobs = s.jobs().all();
        List<Node> nodes = s.clusters().nodes();
        Snapshot snapshot = s.snapshot();

        assertThatThrownBy(() -> call.apply(s)).as(name).isInstanceOfSatisfying(InvalidSpecException.class, e -> {
            assertThat(e.field()).as("%s: the field is named", name).isNotBlank();
            assertThat(e.getMessage()).as("%s: the message quotes the value", name).contains(String.valueOf(value));
        });
        assertThat(s.jobs().all()).as("%s: jobs unchanged", name).isEqualTo(jobs);
        assertThat(s.clusters().nodes()).as("%s: nodes unchanged", name).isEqualTo(nodes);
        assertThat(s.snapshot()).as("%s: snapshot unchanged", name).isEqualTo(snapshot);
        assertThat(s.checkInvariants()).isEmpty();
    }
}
