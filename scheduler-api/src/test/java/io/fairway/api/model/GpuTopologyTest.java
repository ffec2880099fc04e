package io.fairway.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The ready-made GPU shapes are wired as the machines they describe, and bad topologies are refused. */
class GpuTopologyTest {

    /** The best link kind of each pair, "a-b" -> kind. */
    private static Map<String, LinkKind> best(GpuTopology t) {
        return t.links().stream().collect(Collectors.toMap(l -> l.a() + "-" + l.b(), GpuLink::kind,
                (x, y) -> x.compareTo(y) <= 0 ? x : y));
    }

    @Test
    void nvSwitch8JoinsEveryPairThroughNvSwitch() {
        GpuTopology t = GpuTopology.nvSwitch8("H100");
        assertThat(t.shape()).isEqualTo("nvswitch-8");
        assertThat(t.size()).isEqualTo(8);
        assertThat(t.model()).isEqualTo("H100");
        assertThat(t.links()).hasSize(28).allMatch(l -> l.kind() == LinkKind.NVSWITCH && l.bandwidthGBps() == 900);
    }

    @Test
    void hybridCubeMeshLinksTwoQuadsAndTheirCounterpartsByNvlinkOnly() {
        Map<String, LinkKind> k = best(GpuTopology.hybridCubeMesh8("V100"));
        // inside each quad: NVLink
        for (int[] p : new int[][] {{0, 1}, {0, 3}, {1, 2}, {2, 3}, {4, 7}, {5, 6}, {6, 7}}) {
            assertThat(k.get(p[0] + "-" + p[1])).as("%d-%d", p[0], p[1]).isEqualTo(LinkKind.NVLINK);
        }
        // i -- i+4: NVLink
        for (int i = 0; i < 4; i++) {
            assertThat(k.get(i + "-" + (i + 4))).isEqualTo(LinkKind.NVLINK);
        }
        // the cube's diagonals have no NVLink: 0-5 crosses the sockets over PCIe/QPI only
        assertThat(k.get("0-5")).isEqualTo(LinkKind.SOCKET_INTERCONNECT);
        assertThat(k.get("2-7")).isEqualTo(LinkKind.SOCKET_INTERCONNECT);
        long nvlinkPairs = k.values().stream().filter(LinkKind::isNvlink).count();
        assertThat(nvlinkPairs).isEqualTo(16);
    }

    @Test
    void pcie4HasTwoSwitchPairsUnderOneHostBridge() {
        GpuTopology t = GpuTopology.pcie4("T4");
        Map<String, LinkKind> k = best(t);
        assertThat(t.size()).isEqualTo(4);
        assertThat(k).containsEntry("0-1", LinkKind.PCIE_SWITCH).containsEntry("2-3", LinkKind.PCIE_SWITCH)
                .containsEntry("0-2", LinkKind.PCIE_HOST_BRIDGE).containsEntry("1-3", LinkKind.PCIE_HOST_BRIDGE);
        assertThat(k.values()).noneMatch(LinkKind::isNvlink);
    }

    @Test
    void pcieTwoSocket8SeparatesSwitchesBridgesAndSockets() {
        Map<String, LinkKind> k = best(GpuTopology.pcieTwoSocket8("A10"));
        assertThat(k).containsEntry("0-1", LinkKind.PCIE_SWITCH).containsEntry("6-7", LinkKind.PCIE_SWITCH)
                .containsEntry("0-2", LinkKind.PCIE_HOST_BRIDGE).containsEntry("5-7", LinkKind.PCIE_HOST_BRIDGE)
                .containsEntry("0-4", LinkKind.SOCKET_INTERCONNECT).containsEntry("3-4", LinkKind.SOCKET_INTERCONNECT);
        assertThat(k).hasSize(28);
    }

    @Test
    void namedBuildsEveryReadyMadeShapeAndUniformOfAnySize() {
        for (String s : List.of("nvswitch-8", "hybrid-cube-mesh-8", "pcie-4", "pcie-2socket-8")) {
            assertThat(GpuTopology.named(s, "X").shape()).isEqualTo(s);
        }
        GpuTopology u = GpuTopology.named("uniform-3", "L4");
        assertThat(u.size()).isEqualTo(3);
        assertThat(u.links()).hasSize(3).allMatch(l -> l.kind() == LinkKind.PCIE_HOST_BRIDGE);
        assertThat(GpuTopology.uniform(0, "x").shape()).isEqualTo("none");
    }

    @Test
    void unknownShapeNameIsRefusedListingTheKnownOnes() {
        assertThatThrownBy(() -> GpuTopology.named("dgx-9000", "X"))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("gpuShape");
                    assertThat(e.value()).isEqualTo("dgx-9000");
                })
                .hasMessageContaining("\"dgx-9000\"").hasMessageContaining("nvswitch-8");
        assertThatThrownBy(() -> GpuTopology.named("uniform-x", "X")).hasMessageContaining("uniform-x");
    }

    @Test
    void aGpuIndexListedTwiceIsRefused() {
        assertThatThrownBy(() -> new GpuTopology("custom", List.of(new Gpu(0, "A"), new Gpu(1, "A"), new Gpu(1, "A")), List.of()))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("gpus.index");
                    assertThat(e.value()).isEqualTo(1);
                })
                .hasMessageContaining("gpu index 1 appears twice");
    }

    @Test
    void aLinkToAGpuTheNodeLacksIsRefused() {
        assertThatThrownBy(() -> new GpuTopology("custom", List.of(new Gpu(0, "A"), new Gpu(1, "A")),
                List.of(GpuLink.of(0, 5, LinkKind.NVLINK))))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo(5))
                .hasMessageContaining("link 0-5").hasMessageContaining("gpu 5");
    }

    @Test
    void gpuIndexesAndLinksAreValidated() {
        assertThatThrownBy(() -> new Gpu(64, "A")).isInstanceOfSatisfying(InvalidSpecException.class,
                e -> assertThat(e.value()).isEqualTo(64)).hasMessageContaining("64");
        assertThatThrownBy(() -> new Gpu(-1, "A")).hasMessageContaining("-1");
        assertThatThrownBy(() -> GpuLink.of(3, 3, LinkKind.NVLINK)).isInstanceOfSatisfying(InvalidSpecException.class,
                e -> assertThat(e.value()).isEqualTo("3-3")).hasMessageContaining("3-3");
        assertThatThrownBy(() -> new GpuLink(0, 1, LinkKind.NVLINK, -5)).hasMessageContaining("bandwidth").hasMessageContaining("-5");
        assertThat(new GpuTopology("big", GpuTopology.uniform(64, "A").gpus(), List.of()).size()).isEqualTo(64);
    }

    @Test
    void linksAreNormalisedAndDefaultTheirBandwidth() {
        GpuLink l = new GpuLink(5, 2, LinkKind.PCIE_SWITCH, 0);
        assertThat(l.a()).isEqualTo(2);
        assertThat(l.b()).isEqualTo(5);
        assertThat(l.bandwidthGBps()).isEqualTo(LinkKind.PCIE_SWITCH.defaultBandwidthGBps());
        assertThat(new GpuLink(0, 1, LinkKind.NVLINK, 25).bandwidthGBps()).isEqualTo(25);
    }

    @Test
    void nodeAddsItsGpusToItsCapacity() {
        Node n = Node.builder("n1").capacity(Resources.builder().cpu(96).build()).gpus(GpuTopology.nvSwitch8("H100")).build();
        assertThat(n.capacity().gpus()).isEqualTo(8);
        assertThat(n.capacity().get(Resources.CPU)).isEqualTo(96_000);
    }

    @Test
    void nodeWithAGpuCountButNoListGetsUniformGpus() {
        Node n = Node.builder("n1").capacity(Resources.builder().gpus(4).build()).build();
        assertThat(n.gpus().size()).isEqualTo(4);
        assertThat(n.gpus().shape()).isEqualTo("uniform-4");
    }

    @Test
    void nodeWhoseGpuCapacityDisagreesWithItsGpuListIsRefused() {
        assertThatThrownBy(() -> Node.builder("n1").capacity(Resources.builder().gpus(4).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("node.capacity.nvidia.com/gpu");
                    assertThat(e.value()).isEqualTo(4L);
                })
                .hasMessageContaining("n1").hasMessageContaining("4 GPUs").hasMessageContaining("8 GPUs are listed");
    }

    @Test
    void nodeWithMoreThan64GpusIsRefused() {
        assertThatThrownBy(() -> Node.builder("huge").capacity(Resources.builder().gpus(65).build()).build())
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("huge").hasMessageContaining("65");
    }

    @Test
    void nodeNeedsAName() {
        assertThatThrownBy(() -> Node.builder(" ").build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.field()).isEqualTo("node.name"))
                .hasMessageContaining("node.name").hasMessageContaining("\" \"");
    }

    @Test
    void hostnameLabelDefaultsToTheNodeName() {
        Node n = Node.builder("n7").label(ClusterSpec.RACK_LABEL, "r1").build();
        assertThat(n.label(Node.HOSTNAME_LABEL)).isEqualTo("n7");
        assertThat(n.label(ClusterSpec.RACK_LABEL)).isEqualTo("r1");
        assertThat(n.label("missing")).isNull();
        assertThat(n.withUnschedulable(true).unschedulable()).isTrue();
        assertThat(n.cluster()).isEqualTo(Node.DEFAULT_CLUSTER);
    }
}
