package io.fairway.core.placement;

import static io.fairway.core.placement.PlacementFixture.BLOCK;
import static io.fairway.core.placement.PlacementFixture.RACK;
import static io.fairway.core.placement.PlacementFixture.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PendingReason.Code;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Placement across nodes: topology levels (block → rack → host), required and preferred constraints, reasons,
 * locality, fragmentation, and the first-fit baseline.
 */
class TopologyPlacementTest {
    private static final PlacementStrategy AWARE = PlacementStrategy.TOPOLOGY_AWARE;
    private static final PlacementStrategy FIRST_FIT = PlacementStrategy.FIRST_FIT;

    /** 2 blocks × 2 racks × 2 nodes of 8 NVSwitch GPUs: b1/r1 = n1,n2; b1/r2 = n3,n4; b2/r3 = n5,n6; b2/r4 = n7,n8. */
    private static PlacementFixture blocksAndRacks(PlacementStrategy strategy) {
        List<Node> nodes = new ArrayList<>();
        int i = 1;
        for (int b = 1; b <= 2; b++) {
            for (int r = 1; r <= 2; r++) {
                for (int k = 0; k < 2; k++) {
                    nodes.add(node("n" + i++, GpuTopology.nvSwitch8("H100"), BLOCK, "b" + b, RACK, "r" + ((b - 1) * 2 + r)));
                }
            }
        }
        return new PlacementFixture(strategy, List.of(BLOCK, RACK), nodes);
    }

    private static Set<String> distinct(List<String> values) {
        return new HashSet<>(values);
    }

    @Test
    void requiredRackPutsEveryMemberInOneRack() {
        PlacementFixture f = blocksAndRacks(AWARE);
        f.take("n1", 0, 1, 2, 3); // r1 has 12 free, every other rack 16
        Placement p = f.placeOk(12, 1, TopologyRequest.required(RACK));
        assertThat(distinct(f.labelOfMembers(p, RACK))).containsExactly("r1"); // the best fit: nothing left over in r1
        assertThat(p.locality()).isEqualTo(Locality.RACK);
        assertThat(p.throughputFactor()).isEqualTo(0.72); // vgg16 across machines of one rack
    }

    /** A launcher of 1 GPU and 2 workers of 7 GPUs, every pod set requiring one rack. */
    private static io.fairway.api.job.JobSpec launcherAndWorkers(String id) {
        io.fairway.api.model.Resources one = io.fairway.api.model.Resources.builder().gpus(1).build();
        io.fairway.api.model.Resources seven = io.fairway.api.model.Resources.builder().gpus(7).build();
        return io.fairway.api.job.JobSpec.builder(id).queue("q")
                .podSet(io.fairway.api.job.PodSet.of("launcher", 1, one).withTopology(TopologyRequest.required(RACK)))
                .podSet(io.fairway.api.job.PodSet.of("workers", 2, seven).withTopology(TopologyRequest.required(RACK)))
                .build();
    }

    @Test
    void aLauncherAndItsWorkersThatAllRequireARackShareOneRack() {
        PlacementFixture f = blocksAndRacks(AWARE);
        f.take("n1", 0, 1, 2, 3, 4, 5, 6, 7);
        f.take("n2", 0, 1, 2, 3, 4, 5, 6); // r1 has 1 GPU free: the best fit for the launcher on its own
        f.take("n5", 0, 1, 2, 3);          // r3 has 12: too few for the workers
        Placer.Outcome o = f.place(launcherAndWorkers("mpi"));
        assertThat(o.reason()).as("pending reason").isNull();
        List<String> racks = f.labelOfMembers(o.result().placement(), RACK);
        assertThat(racks).hasSize(3);
        assertThat(distinct(racks)).as("launcher and workers in one rack, not the launcher in r1's last GPU").containsExactly("r2");
    }

    @Test
    void aWholeJobRequiringOneRackWaitsWhenNoRackHoldsAllOfItEvenIfEachPodSetFitsSomewhere() {
        PlacementFixture f = blocksAndRacks(AWARE);
        for (String n : List.of("n1", "n3", "n5", "n7")) {
            f.take(n, 0, 1); // 14 free in every rack: the launcher fits anywhere, the workers (14) too, not both
        }
        PendingReason r = f.place(launcherAndWorkers("mpi")).reason();
        assertThat(r).isNotNull();
        assertThat(r.code()).isEqualTo(Code.NO_FITTING_TOPOLOGY);
        assertThat(r.message()).contains("15 GPUs", "one " + RACK);
    }

    @Test
    void requiredRackLargerThanAnyRackNeverFits() {
        PendingReason r = blocksAndRacks(AWARE).reasonFor(3, 8, TopologyRequest.required(RACK));
        assertThat(r.code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
        assertThat(r.message()).contains("24 GPUs", "the largest " + RACK, "holds 2");
    }

    @Test
    void requiredRackThatFitsAnEmptyRackWaitsWithNoFittingTopology() {
        PlacementFixture f = blocksAndRacks(AWARE);
        for (String n : List.of("n1", "n3", "n5", "n7")) {
            f.take(n, 0); // 15 GPUs free in every rack, 60 in all
        }
        PendingReason r = f.reasonFor(16, 1, TopologyRequest.required(RACK));
        assertThat(r.code()).isEqualTo(Code.NO_FITTING_TOPOLOGY);
        assertThat(r.details()).containsEntry("neededGpus", 16L).containsEntry("largestFreeInDomain", 15L);
    }

    @Test
    void preferredRackUsesOneRackWhenOneHasRoom() {
        PlacementFixture f = blocksAndRacks(AWARE);
        f.take("n1", 0);
        f.take("n5", 0);
        Placement p = f.placeOk(16, 1, TopologyRequest.preferred(RACK));
        assertThat(distinct(f.labelOfMembers(p, RACK))).hasSize(1).doesNotContain("r1", "r3");
        assertThat(p.locality()).isEqualTo(Locality.RACK);
    }

    @Test
    void preferredRackSpillsOverTheFewestRacksOfOneBlock() {
        PlacementFixture f = blocksAndRacks(AWARE);
        for (String n : List.of("n1", "n3", "n5", "n7")) {
            f.take(n, 0);
        }
        Placement p = f.placeOk(16, 1, TopologyRequest.preferred(RACK));
        assertThat(p.members()).hasSize(16);
        assertThat(distinct(f.labelOfMembers(p, RACK))).hasSize(2);
        assertThat(distinct(f.labelOfMembers(p, BLOCK))).hasSize(1);
        assertThat(p.locality()).isEqualTo(Locality.CLUSTER);
        assertThat(p.throughputFactor()).isEqualTo(0.52);
    }

    static Stream<Arguments> requiredDomains() {
        return Stream.of(
                // four whole nodes: b1 has a GPU taken, so only b2 holds the gang
                Arguments.of(AWARE, "n2", 4, 8, BLOCK, "b2", List.of("n5", "n6", "n7", "n8")),
                // first fit still honours a required rack: r1 has a GPU taken, r2 is the first rack with 16 free
                Arguments.of(FIRST_FIT, "n1", 16, 1, RACK, "r2", List.of("n3", "n4")));
    }

    @ParameterizedTest(name = "{0}: {2} x {3} GPUs requiring one {4}")
    @MethodSource("requiredDomains")
    void aRequiredDomainKeepsTheGangInTheFirstDomainThatHoldsItWhole(PlacementStrategy strategy, String partlyUsed, int members,
                                                                      int gpus, String level, String domain, List<String> nodes) {
        PlacementFixture f = blocksAndRacks(strategy);
        f.take(partlyUsed, 0);
        Placement p = f.placeOk(members, gpus, TopologyRequest.required(level));
        assertThat(distinct(f.labelOfMembers(p, level))).containsExactly(domain);
        assertThat(p.nodes()).containsExactlyInAnyOrderElementsOf(nodes);
    }

    @Test
    void aSmallGangGoesToTheFullestRackToKeepEmptyRacksWhole() {
        PlacementFixture f = blocksAndRacks(AWARE);
        f.take("n3", 0, 1, 2, 3, 4, 5); // r2: 10 free
        Placement p = f.placeOk(2, 4, TopologyRequest.NONE);
        assertThat(p.nodes()).containsExactly("n4"); // one node, in the rack with least room left
        assertThat(p.locality()).isEqualTo(Locality.NVLINK_DOMAIN);
    }

    @Test
    void requiredHostPutsAllMembersOnOneNodeOrSaysItNeverCan() {
        PlacementFixture f = blocksAndRacks(AWARE);
        Placement p = f.placeOk(4, 2, TopologyRequest.required(Node.HOSTNAME_LABEL));
        assertThat(p.nodes()).hasSize(1);
        assertThat(f.reasonFor(3, 4, TopologyRequest.required(Node.HOSTNAME_LABEL)).code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
    }

    @Test
    void nvlinkDomainWaitsWhileEveryNodeIsPartlyUsed() {
        PlacementFixture f = blocksAndRacks(AWARE);
        for (int i = 1; i <= 8; i++) {
            f.take("n" + i, 7);
        }
        PendingReason r = f.reasonFor(1, 8, TopologyRequest.nvlinkDomain());
        assertThat(r.code()).isEqualTo(Code.NO_FITTING_TOPOLOGY);
        assertThat(f.reasonFor(2, 8, TopologyRequest.nvlinkDomain()).code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
    }

    @Test
    void aRequiredLevelTheClusterDoesNotDefineNeverFits() {
        PendingReason r = blocksAndRacks(AWARE).reasonFor(2, 1, TopologyRequest.required("topology.kubernetes.io/zone"));
        assertThat(r.code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
        assertThat(r.message()).contains("topology.kubernetes.io/zone", "does not define");
    }

    @Test
    void aGangLargerThanTheClusterNeverFitsButOneThatFitsWhenFreeWaits() {
        PlacementFixture f = blocksAndRacks(AWARE);
        assertThat(f.reasonFor(65, 1, TopologyRequest.NONE).code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
        f.take("n1", 0);
        assertThat(f.reasonFor(64, 1, TopologyRequest.NONE).code()).isEqualTo(Code.INSUFFICIENT_CAPACITY);
    }

    @Test
    void spreadPutsEachMemberOnAnotherNode() {
        Placement p = blocksAndRacks(AWARE).placeOk(6, 1, TopologyRequest.spreadAcrossNodes());
        assertThat(p.nodes()).hasSize(6);
    }

    @Test
    void localityIsRackWithinTheNarrowestLevelAndClusterBeyond() {
        PlacementFixture f = blocksAndRacks(AWARE);
        Placement rack = f.placeOk(2, 8, TopologyRequest.NONE);
        assertThat(distinct(f.labelOfMembers(rack, RACK))).hasSize(1);
        assertThat(rack.locality()).isEqualTo(Locality.RACK);
        Placement wide = f.placeOk(3, 8, TopologyRequest.NONE);
        assertThat(distinct(f.labelOfMembers(wide, RACK))).hasSize(2);
        assertThat(distinct(f.labelOfMembers(wide, BLOCK))).hasSize(1);
        assertThat(wide.locality()).isEqualTo(Locality.CLUSTER);
    }

    @Test
    void nodesWithoutARackLabelAreNeverAssumedToShareARack() {
        List<Node> nodes = List.of(node("a", GpuTopology.nvSwitch8("H100")), node("b", GpuTopology.nvSwitch8("H100")));
        PlacementFixture f = new PlacementFixture(AWARE, List.of(RACK), nodes);
        assertThat(f.reasonFor(2, 8, TopologyRequest.required(RACK)).code()).isEqualTo(Code.GANG_LARGER_THAN_ANY_DOMAIN);
        Placement p = f.placeOk(2, 8, TopologyRequest.NONE);
        assertThat(p.locality()).isEqualTo(Locality.CLUSTER);
    }

    // ---------------------------------------------------------------- fragmentation: topology-aware vs first fit

    /** Arrivals of 4, 6, 2 and 4 GPUs on three 8-GPU nodes, then a job of 8 GPUs on one node. */
    private static PendingReason eightAfterSmallJobs(PlacementStrategy strategy) {
        List<Node> nodes = List.of(node("n1", GpuTopology.nvSwitch8("H100")), node("n2", GpuTopology.nvSwitch8("H100")),
                node("n3", GpuTopology.nvSwitch8("H100")));
        PlacementFixture f = new PlacementFixture(strategy, List.of(), nodes);
        for (int gpus : new int[] {4, 6, 2, 4}) {
            f.placeOk(1, gpus, TopologyRequest.NONE);
        }
        Placer.Outcome eight = f.place(PlacementFixture.gang("eight", 1, 8, TopologyRequest.NONE));
        return eight.reason();
    }

    @Test
    void bestFitKeepsAWholeNodeForAnEightGpuJobWhereFirstFitCannot() {
        assertThat(eightAfterSmallJobs(AWARE)).isNull();
        PendingReason ff = eightAfterSmallJobs(FIRST_FIT);
        assertThat(ff).isNotNull();
        assertThat(ff.code()).isEqualTo(Code.INSUFFICIENT_CAPACITY);
        assertThat(ff.details()).containsEntry("freeGpus", 8L).containsEntry("largestFreeOnOneNode", 4L);
    }

    /** Racks interleaved in node order (n1 r1, n2 r2, n3 r1, n4 r2); jobs of 6, 4 and 2 GPUs; then 2 × 8 in one rack. */
    private static PendingReason rackAfterSmallJobs(PlacementStrategy strategy) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            nodes.add(node("n" + i, GpuTopology.nvSwitch8("H100"), RACK, i % 2 == 1 ? "r1" : "r2"));
        }
        PlacementFixture f = new PlacementFixture(strategy, List.of(RACK), nodes);
        for (int gpus : new int[] {6, 4, 2}) {
            f.placeOk(1, gpus, TopologyRequest.NONE);
        }
        return f.place(PlacementFixture.gang("rack-gang", 2, 8, TopologyRequest.required(RACK))).reason();
    }

    @Test
    void rackAwareBestFitKeepsAWholeRackForARackGangWhereFirstFitCannot() {
        assertThat(rackAfterSmallJobs(AWARE)).isNull();
        PendingReason ff = rackAfterSmallJobs(FIRST_FIT);
        assertThat(ff.code()).isEqualTo(Code.NO_FITTING_TOPOLOGY);
    }

    @Test
    void firstFitFillsNodesInOrderWithTheLowestIds() {
        PlacementFixture f = blocksAndRacks(FIRST_FIT);
        f.take("n1", 1);
        Placement p = f.placeOk(10, 1, TopologyRequest.preferred(RACK));
        List<String> where = new ArrayList<>();
        for (MemberPlacement m : p.members()) {
            where.add(m.node() + ":" + m.gpus().get(0));
        }
        assertThat(where).containsExactly("n1:0", "n1:2", "n1:3", "n1:4", "n1:5", "n1:6", "n1:7", "n2:0", "n2:1", "n2:2");
    }
}
