package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.Gpu;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LinkKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link GpuShape#choose}: which GPUs of one node a member gets, straight from the masks. */
class GpuShapeChooseTest {
    private static final GpuTopology MESH = GpuTopology.hybridCubeMesh8("V100");
    private static final GpuTopology PCIE_2S = GpuTopology.pcieTwoSocket8("A10");

    private static long mask(int... positions) {
        long m = 0;
        for (int p : positions) {
            m |= 1L << p;
        }
        return m;
    }

    private static boolean directLink(GpuTopology t, int a, int b, LinkKind kind) {
        for (GpuLink l : t.links()) {
            if (l.a() == Math.min(a, b) && l.b() == Math.max(a, b) && l.kind() == kind) {
                return true;
            }
        }
        return false;
    }

    @Test
    void cubeMeshFourOnAFreeNodeIsOneFullyNvlinkedQuad() {
        GpuShape s = GpuShape.of(MESH);
        List<Integer> got = s.indexes(s.choose(s.fullMask(), 4, false));
        assertThat(got).isIn(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7));
        for (int a : got) {
            for (int b : got) {
                if (a < b) {
                    assertThat(directLink(MESH, a, b, LinkKind.NVLINK)).as("%d-%d NVLinked", a, b).isTrue();
                }
            }
        }
        assertThat(s.inOneNvlinkDomain(s.maskOf(got))).isTrue();
    }

    @Test
    void cubeMeshFourWithTheQuadsBrokenPicksTheNvlinkRingThatIsLeft() {
        GpuShape s = GpuShape.of(MESH);
        // 0,1 and 4,5 are taken: {2,3,6,7} is a ring 2-3-7-6-2 of NVLinks although 2-7 and 3-6 are not linked
        long chosen = s.choose(mask(2, 3, 6, 7), 4, true);
        assertThat(s.indexes(chosen)).containsExactly(2, 3, 6, 7);
        assertThat(s.inOneNvlinkDomain(chosen)).isTrue();
    }

    @Test
    void cubeMeshPairPrefersANvlinkedPairOverACrossSocketOne() {
        GpuShape s = GpuShape.of(MESH);
        // free: 0, which has no NVLink to any other free GPU, and 5, 6, 7, NVLinked among themselves
        List<Integer> pair = s.indexes(s.choose(mask(0, 5, 6, 7), 2, false));
        assertThat(pair).doesNotContain(0).hasSize(2);
        assertThat(directLink(MESH, pair.get(0), pair.get(1), LinkKind.NVLINK)).isTrue();
    }

    @Test
    void pcieTwoSocketPairIsTwoGpusUnderOneSwitch() {
        GpuShape s = GpuShape.of(PCIE_2S);
        List<Integer> got = s.indexes(s.choose(s.fullMask(), 2, false));
        assertThat(got).hasSize(2);
        assertThat(got.get(0) / 2).isEqualTo(got.get(1) / 2);
        assertThat(directLink(PCIE_2S, got.get(0), got.get(1), LinkKind.PCIE_SWITCH)).isTrue();
    }

    @Test
    void pcieTwoSocketPairAvoidsBreakingAnIntactSwitchWhenAHalfUsedOneExists() {
        GpuShape s = GpuShape.of(PCIE_2S);
        // GPU 0 is busy: a one-GPU job takes 1, its switch partner, and leaves the pairs {2,3},{4,5},{6,7} whole
        assertThat(s.indexes(s.choose(s.fullMask() & ~mask(0), 1, false))).containsExactly(1);
        // free: 1 | 2,3 | 4 | 6,7 -> a pair gets a whole switch, never 1 and 4 across sockets
        List<Integer> pair = s.indexes(s.choose(mask(1, 2, 3, 4, 6, 7), 2, false));
        assertThat(Set.of(List.of(2, 3), List.of(6, 7))).contains(pair);
    }

    @Test
    void pcieTwoSocketFourStaysOnOneSocket() {
        GpuShape s = GpuShape.of(PCIE_2S);
        List<Integer> got = s.indexes(s.choose(s.fullMask(), 4, false));
        assertThat(got).isIn(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7));
    }

    @Test
    void nvlinkRequirementOnAPcieMachineCannotBeMet() {
        GpuShape s = GpuShape.of(PCIE_2S);
        assertThat(s.choose(s.fullMask(), 2, true)).isZero();
        assertThat(s.choose(s.fullMask(), 1, true)).isNotZero(); // one GPU is trivially its own domain
    }

    @Test
    void moreGpusThanFreeOrNoneAtAllYieldNothing() {
        GpuShape s = GpuShape.of(GpuTopology.nvSwitch8("H100"));
        assertThat(s.choose(mask(0, 1, 2), 4, false)).isZero();
        assertThat(s.choose(s.fullMask(), 0, false)).isZero();
        assertThat(s.choose(s.fullMask(), 9, false)).isZero();
        assertThat(s.choose(mask(3, 5), 2, false)).isEqualTo(mask(3, 5));
    }

    @Test
    void chosenGpusAreAlwaysFreeAndExactlyAsMany() {
        for (GpuTopology t : List.of(MESH, PCIE_2S, GpuTopology.nvSwitch8("H100"), GpuTopology.pcie4("T4"))) {
            GpuShape s = GpuShape.of(t);
            for (long free = 0; free <= s.fullMask(); free += 7) {
                for (int count = 1; count <= Long.bitCount(free); count++) {
                    long c = s.choose(free, count, false);
                    assertThat(Long.bitCount(c)).as("%s free=%s count=%d", t.shape(), Long.toBinaryString(free), count).isEqualTo(count);
                    assertThat(c & ~free).isZero();
                }
            }
        }
    }

    @Test
    void firstFitTakesTheLowestFreeGpus() {
        GpuShape s = GpuShape.of(MESH);
        assertThat(s.indexes(s.chooseFirstFit(mask(1, 3, 5, 6), 2, false))).containsExactly(1, 3);
    }

    @Test
    void gpuIndexesNeedNotStartAtZero() {
        List<Gpu> gpus = new ArrayList<>();
        List<GpuLink> links = new ArrayList<>();
        for (int i = 4; i < 8; i++) {
            gpus.add(new Gpu(i, "L4"));
        }
        links.add(GpuLink.of(4, 5, LinkKind.NVLINK));
        links.add(GpuLink.of(6, 7, LinkKind.NVLINK));
        links.add(GpuLink.of(5, 6, LinkKind.PCIE_HOST_BRIDGE));
        GpuShape s = GpuShape.of(new GpuTopology("custom", gpus, links));
        assertThat(s.size()).isEqualTo(4);
        List<Integer> pair = s.indexes(s.choose(s.fullMask(), 2, true));
        assertThat(Set.of(List.of(4, 5), List.of(6, 7))).contains(pair);
        assertThat(s.indexes(s.maskOf(List.of(7, 4)))).containsExactly(4, 7);
        assertThat(s.positionOf(2)).isEqualTo(-1);
        assertThat(s.largestNvlinkDomain()).isEqualTo(2);
    }
}
