package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LinkKind;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Exact GPU ids the topology-aware placement picks on each ready-made shape. */
class GpuShapePlacementTest {
    private static final PlacementStrategy AWARE = PlacementStrategy.TOPOLOGY_AWARE;

    private static PlacementFixture on(GpuTopology shape) {
        return PlacementFixture.single(AWARE, shape);
    }

    private static List<Integer> ids(String csv) {
        List<Integer> l = new ArrayList<>();
        for (String s : csv.trim().split(" ")) {
            l.add(Integer.parseInt(s));
        }
        return l;
    }

    // ---------------------------------------------------------------- NvSwitch8
    @ParameterizedTest(name = "{0} GPUs -> [{1}]")
    @CsvSource({"1, 0", "2, 0 1", "3, 0 1 2", "4, 0 1 2 3", "8, 0 1 2 3 4 5 6 7"})
    void nvSwitch8AnySizeGetsTheLowestIdsAndOneNvlinkDomain(int gpus, String expected) {
        PlacementFixture f = on(GpuTopology.nvSwitch8("H100"));
        Placement p = f.placeOk(1, gpus, TopologyRequest.NONE);
        assertThat(p.members().get(0).gpus()).containsExactlyElementsOf(ids(expected));
        assertThat(p.locality()).isEqualTo(Locality.NVLINK_DOMAIN);
        assertThat(p.throughputFactor()).isEqualTo(1.0);
    }

    @Test
    void nvSwitch8SuccessiveJobsPackFromTheLowestFreeIds() {
        PlacementFixture f = on(GpuTopology.nvSwitch8("H100"));
        assertThat(f.gpusFor(2)).containsExactly(0, 1);
        assertThat(f.gpusFor(4)).containsExactly(2, 3, 4, 5);
        assertThat(f.gpusFor(2)).containsExactly(6, 7);
    }

    // ---------------------------------------------------------------- HybridCubeMesh8
    private final GpuTopology mesh = GpuTopology.hybridCubeMesh8("V100");

    @ParameterizedTest(name = "{0} GPUs -> [{1}]")
    @CsvSource({"1, 0", "2, 0 1", "3, 0 1 2", "4, 0 1 2 3", "8, 0 1 2 3 4 5 6 7"})
    void cubeMeshAnySizeGetsAFullyNvlinkedSet(int gpus, String expected) {
        Placement p = on(mesh).placeOk(1, gpus, TopologyRequest.NONE);
        assertThat(p.members().get(0).gpus()).containsExactlyElementsOf(ids(expected));
        assertThat(p.locality()).isEqualTo(Locality.NVLINK_DOMAIN);
    }

    @Test
    void cubeMeshOneGpuJobsFillOneQuadBeforeTouchingTheOther() {
        PlacementFixture f = on(mesh);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            order.addAll(f.gpusFor(1));
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void cubeMeshAPairLeavesTheOtherQuadIntact() {
        PlacementFixture f = on(mesh);
        f.take("n1", 0, 1);
        assertThat(f.gpusFor(2)).containsExactly(2, 3);
        assertThat(f.gpusFor(4)).containsExactly(4, 5, 6, 7);
    }

    @Test
    void cubeMeshTwoMembersOfFourGetOneQuadEach() {
        Placement p = on(mesh).placeOk(2, 4, TopologyRequest.NONE);
        assertThat(p.members().get(0).gpus()).containsExactly(0, 1, 2, 3);
        assertThat(p.members().get(1).gpus()).containsExactly(4, 5, 6, 7);
    }

    @Test
    void cubeMeshAfterGpus0And5AreTakenNoFullyLinkedQuadRemainsButTheNvlinkRing2376Does() {
        Set<Long> nvlink = new HashSet<>();
        for (GpuLink l : mesh.links()) {
            if (l.kind() == LinkKind.NVLINK) {
                nvlink.add(pair(l.a(), l.b()));
            }
        }
        List<Integer> free = List.of(1, 2, 3, 4, 6, 7);
        // no 4 of the free GPUs are pairwise NVLinked: a directly linked quad is not possible any more
        for (int a = 0; a < 6; a++) {
            for (int b = a + 1; b < 6; b++) {
                for (int c = b + 1; c < 6; c++) {
                    for (int d = c + 1; d < 6; d++) {
                        int[] q = {free.get(a), free.get(b), free.get(c), free.get(d)};
                        assertThat(allLinked(q, nvlink)).as("quad %s fully NVLinked", List.of(q[0], q[1], q[2], q[3])).isFalse();
                    }
                }
            }
        }
        PlacementFixture f = on(mesh);
        f.take("n1", 0, 5);
        Placement p = f.placeOk(1, 4, TopologyRequest.NONE);
        // the best the node still offers: 2-3-7-6-2 is a ring of NVLinks, so a ring all-reduce never leaves NVLink
        assertThat(p.members().get(0).gpus()).containsExactly(2, 3, 6, 7);
        assertThat(nvlink).contains(pair(2, 3), pair(3, 7), pair(7, 6), pair(6, 2));
        assertThat(p.locality()).isEqualTo(Locality.NVLINK_DOMAIN);
    }

    @Test
    void cubeMeshAfterGpus0And5AreTakenThreeGpusGetALinkedTriangle() {
        PlacementFixture f = on(mesh);
        f.take("n1", 0, 5);
        assertThat(f.gpusFor(3)).containsExactly(1, 2, 3);
        assertThat(f.gpusFor(3)).containsExactly(4, 6, 7);
    }

    @Test
    void cubeMeshFirstFitIgnoresTheLinksAndLeavesTheNvlinkDomain() {
        PlacementFixture f = PlacementFixture.single(PlacementStrategy.FIRST_FIT, mesh);
        f.take("n1", 0, 5);
        Placement p = f.placeOk(1, 4, TopologyRequest.NONE);
        assertThat(p.members().get(0).gpus()).containsExactly(1, 2, 3, 4);
        assertThat(p.locality()).isEqualTo(Locality.NODE); // GPU 4 has no NVLink to 1, 2 or 3
    }

    @Test
    void cubeMeshAnNvlinkDomainOfAllEightFitsTheWholeMesh() {
        Placement p = on(mesh).placeOk(1, 8, TopologyRequest.nvlinkDomain());
        assertThat(p.members().get(0).gpus()).hasSize(8);
    }

    private static long pair(int a, int b) {
        return Math.min(a, b) * 64L + Math.max(a, b);
    }

    private static boolean allLinked(int[] q, Set<Long> links) {
        for (int i = 0; i < q.length; i++) {
            for (int j = i + 1; j < q.length; j++) {
                if (!links.contains(pair(q[i], q[j]))) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- Pcie4
    @ParameterizedTest(name = "{0} GPUs -> [{1}] {2}")
    @CsvSource({"1, 0, NVLINK_DOMAIN", "2, 0 1, NODE", "3, 0 1 2, NODE", "4, 0 1 2 3, NODE"})
    void pcie4PairsShareASwitch(int gpus, String expected, Locality locality) {
        Placement p = on(GpuTopology.pcie4("T4")).placeOk(1, gpus, TopologyRequest.NONE);
        assertThat(p.members().get(0).gpus()).containsExactlyElementsOf(ids(expected));
        assertThat(p.locality()).isEqualTo(locality);
    }

    @Test
    void pcie4ASingleGpuCompletesAHalfUsedSwitchAndKeepsTheOtherPairWhole() {
        PlacementFixture f = on(GpuTopology.pcie4("T4"));
        f.take("n1", 0);
        assertThat(f.gpusFor(1)).containsExactly(1);
        assertThat(f.gpusFor(2)).containsExactly(2, 3);
    }

    @Test
    void pcie4APairSkipsTheBrokenSwitch() {
        PlacementFixture f = on(GpuTopology.pcie4("T4"));
        f.take("n1", 0);
        assertThat(f.gpusFor(2)).containsExactly(2, 3);
    }

    @Test
    void pcie4AnNvlinkDomainOfTwoNeverFitsAPcieBox() {
        PendingReason r = on(GpuTopology.pcie4("T4")).reasonFor(1, 2, TopologyRequest.nvlinkDomain());
        assertThat(r.code()).isEqualTo(PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN);
        assertThat(r.message()).contains("NVLink");
    }

    // ---------------------------------------------------------------- PcieTwoSocket8
    @ParameterizedTest(name = "{0} GPUs -> [{1}]")
    @CsvSource({"1, 0", "2, 0 1", "3, 0 1 2", "4, 0 1 2 3", "8, 0 1 2 3 4 5 6 7"})
    void twoSocketSetsStayOnOneSocketAndSwitch(int gpus, String expected) {
        Placement p = on(GpuTopology.pcieTwoSocket8("A10")).placeOk(1, gpus, TopologyRequest.NONE);
        assertThat(p.members().get(0).gpus()).containsExactlyElementsOf(ids(expected));
    }

    @Test
    void twoSocketAPairPrefersAWholeSwitchToCrossingTheHostBridge() {
        PlacementFixture f = on(GpuTopology.pcieTwoSocket8("A10"));
        f.take("n1", 0);
        assertThat(f.gpusFor(2)).containsExactly(2, 3);
        assertThat(f.gpusFor(1)).containsExactly(1);
        assertThat(f.gpusFor(4)).containsExactly(4, 5, 6, 7);
    }

    @Test
    void twoSocketASingleGpuFinishesTheUsedSocketFirst() {
        PlacementFixture f = on(GpuTopology.pcieTwoSocket8("A10"));
        f.take("n1", 0, 1, 2);
        assertThat(f.gpusFor(1)).containsExactly(3);
    }

    @Test
    void twoSocketFourGpusAcrossSocketsAreAvoidedWhileOneSocketIsFree() {
        PlacementFixture f = on(GpuTopology.pcieTwoSocket8("A10"));
        f.take("n1", 0);
        assertThat(f.gpusFor(4)).containsExactly(4, 5, 6, 7);
    }
}
