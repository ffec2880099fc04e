package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.RoundResult;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import io.fairway.testkit.FairwayArbitraries.NodeTemplate;
import io.fairway.testkit.FairwayArbitraries.QueueTemplate;
import io.fairway.testkit.FairwayArbitraries.QuotaTemplate;
import io.fairway.testkit.FairwayArbitraries.RunRound;
import io.fairway.testkit.FairwayArbitraries.Submit;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Minimal reproductions of engine bugs the conformance suite found in {@code scheduler-core}, kept as regression
 * tests now that the core is fixed (a resize checks the whole gang's cluster and topology before it succeeds).
 */
class CoreBugReproductionTest {

    /** Admits every pending job at one member, then asks the core to grow every running job to two. */
    static final class GrowToTwo implements SchedulingPolicy {
        final List<Attempt> resizes = new ArrayList<>();

        @Override
        public String name() {
            return "grow-to-two";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus j : ctx.holding()) {
                resizes.add(ctx.resize(j, "ps0", 2));
            }
            for (JobStatus j : ctx.pending()) {
                ctx.tryAdmit(j, Map.of("ps0", 1));
            }
        }
    }

    /**
     * Found by {@code everyInvariantHoldsAfterEveryRoundUnderFaults} for fair-sharing and fair-share-over-time on
     * multi-cluster worlds (shrunk sample: no fault needed). {@code PolicyContext.resize} places the new members of an
     * elastic pod set with the placement search over every node, not only the job's cluster, and reports success;
     * the round's validation then refuses the resize. Expected: the new member lands in the job's cluster, or
     * {@code resize} fails with a reason; actual: {@code resize} succeeds and {@code RoundResult.refused()} holds
     * "resize j0: a gang must land in one cluster; members are in default and east".
     */
    @Test
    void resizePlacesNewMembersInTheJobsOwnClusterOrFails() {
        Node n0 = new NodeTemplate("nvswitch-8", 64, 512, 0, false).build("n0");
        Node east = new NodeTemplate("nvswitch-8", 64, 512, 0, false).build("n1");
        east = new Node(east.name(), "east", east.labels(), east.taints(), east.capacity(), east.gpus(), east.unschedulable());
        List<QuotaTemplate> plenty = List.of(new QuotaTemplate(256_000, 0, 0), new QuotaTemplate(2048L << 30, 0, 0), new QuotaTemplate(64, 0, 0));
        World world = new World(List.of(n0, east), List.of(Cohort.of("co0", null), Cohort.of("co1", null)),
                List.of(new QueueTemplate(-1, false, false, plenty, plenty, PreemptionPolicy.NEVER).build("cq0")),
                List.of(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq0", "cq0")));
        // one elastic pod set of up to two members, 8 GPUs each: one member fills n0, the second fits only on n1 (east)
        JobTemplate elastic = new JobTemplate(0, 0, List.of(PodSet.of("ps0", 2, Resources.builder().gpus(8).cpu(4).memoryGiB(16).build()).withMinCount(1)));
        GrowToTwo policy = new GrowToTwo();
        ConformanceHarness h = new ConformanceHarness(world, () -> policy, 7);
        h.apply(new Submit(elastic));
        h.apply(new RunRound());
        h.scheduler.reportStarted("j0");
        assertThat(h.scheduler.status("j0").orElseThrow().admission().placement().nodes()).containsExactly("n0");

        h.apply(new RunRound());
        RoundResult second = h.rounds.get(1).result();

        assertThat(policy.resizes).hasSize(1);
        assertThat(second.refused()).as("the core refused a resize it had placed itself").isEmpty();
        assertThat(policy.resizes.get(0).admitted()).as("resize reported success, though no node of the job's cluster has room").isFalse();
    }

    /**
     * Found while reducing the bug above, by reading {@code PlanContext.resize}: the new members of an elastic pod set
     * are placed with {@code TopologyRequest.NONE} instead of the pod set's own request. A pod set that requires one
     * rack, admitted with one member on n0 (rack r0) while only n1 (rack r1) has room, is grown onto n1; validation
     * then refuses it. Expected: {@code resize} fails with a reason; actual: it succeeds and
     * {@code RoundResult.refused()} holds "resize j0: pod set "ps0" must be in one fairway.io/rack; members span
     * several". (FairwayArbitraries never makes an elastic pod set with a topology request, so the random suite
     * cannot reach this yet; once the core is fixed, let it.)
     */
    @Test
    void resizeKeepsARequiredRack() {
        Node r0 = new NodeTemplate("nvswitch-8", 64, 512, 0, false).build("n0");
        Node r1 = new NodeTemplate("nvswitch-8", 64, 512, 1, false).build("n1");
        List<QuotaTemplate> plenty = List.of(new QuotaTemplate(256_000, 0, 0), new QuotaTemplate(2048L << 30, 0, 0), new QuotaTemplate(64, 0, 0));
        World world = new World(List.of(r0, r1), List.of(Cohort.of("co0", null), Cohort.of("co1", null)),
                List.of(new QueueTemplate(-1, false, false, plenty, plenty, PreemptionPolicy.NEVER).build("cq0")),
                List.of(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq0", "cq0")));
        JobTemplate elastic = new JobTemplate(0, 0, List.of(PodSet.of("ps0", 2, Resources.builder().gpus(8).cpu(4).memoryGiB(16).build())
                .withMinCount(1).withTopology(io.fairway.api.job.TopologyRequest.required(io.fairway.api.model.ClusterSpec.RACK_LABEL))));
        GrowToTwo policy = new GrowToTwo();
        ConformanceHarness h = new ConformanceHarness(world, () -> policy, 7);
        h.apply(new Submit(elastic));
        h.apply(new RunRound());
        h.scheduler.reportStarted("j0");
        h.apply(new RunRound());

        assertThat(h.rounds.get(1).result().refused()).as("the core refused a resize it had placed itself").isEmpty();
        assertThat(policy.resizes.get(0).admitted()).as("resize reported success, though the job's rack has no room").isFalse();
    }
}
