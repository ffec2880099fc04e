package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The GPUs of one node and the links between them, with ready-made shapes for common machines.
 *
 * <pre>{@code
 * GpuTopology h100 = GpuTopology.nvSwitch8("H100");          // DGX H100: 8 GPUs, all-to-all NVSwitch
 * GpuTopology v100 = GpuTopology.hybridCubeMesh8("V100");    // DGX-1: NVLink cube-mesh, not every pair linked
 * GpuTopology box  = GpuTopology.pcie4("T4");                // 4 GPUs under one PCIe switch pair
 * GpuTopology numa = GpuTopology.pcieTwoSocket8("A10");      // 2 sockets x 2 switches x 2 GPUs
 * }</pre>
 *
 * <p>A pair of GPUs may be joined by several links (NVLink and PCIe); the best one counts. A pair with no
 * link communicates over the best path, its bottleneck deciding the speed.
 *
 * @param shape a name for the shape ({@code "nvswitch-8"}, {@code "custom"})
 * @param gpus the GPUs, indexes unique
 * @param links the links, each joining two GPUs of this list
 */
public record GpuTopology(String shape, List<Gpu> gpus, List<GpuLink> links) implements java.io.Serializable {
    /** No GPUs. */
    public static final GpuTopology NONE = new GpuTopology("none", List.of(), List.of());

    /** Validates: unique GPU indexes, links only between listed GPUs. */
    public GpuTopology {
        shape = shape == null || shape.isBlank() ? "custom" : shape;
        gpus = List.copyOf(gpus);
        links = List.copyOf(links);
        InvalidSpecException.check(gpus.size() <= 64, "gpus", gpus.size(), "a node holds at most 64 GPUs, was %d", gpus.size());
        Set<Integer> seen = new HashSet<>();
        for (Gpu g : gpus) {
            InvalidSpecException.check(seen.add(g.index()), "gpus.index", g.index(), "gpu index %d appears twice", g.index());
        }
        for (GpuLink l : links) {
            InvalidSpecException.check(seen.contains(l.a()), "links", l.a(), "link %d-%d names gpu %d, which the node does not have", l.a(), l.b(), l.a());
            InvalidSpecException.check(seen.contains(l.b()), "links", l.b(), "link %d-%d names gpu %d, which the node does not have", l.a(), l.b(), l.b());
        }
    }

    /** @return the number of GPUs */
    public int size() {
        return gpus.size();
    }

    /** @return the GPU model of the first GPU, or {@code ""} when there are none */
    public String model() {
        return gpus.isEmpty() ? "" : gpus.get(0).model();
    }

    /**
     * Eight GPUs joined all-to-all through NVSwitch (DGX A100 / DGX H100 style).
     *
     * @param model the GPU product
     * @return the shape
     */
    public static GpuTopology nvSwitch8(String model) {
        List<GpuLink> links = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            for (int j = i + 1; j < 8; j++) {
                links.add(GpuLink.of(i, j, LinkKind.NVSWITCH));
            }
        }
        return new GpuTopology("nvswitch-8", gpus(8, model), links);
    }

    /**
     * Eight GPUs in the DGX-1 (V100) hybrid cube-mesh: two fully linked quads {0,1,2,3} and {4,5,6,7}, plus
     * the links i–(i+4). Other pairs go over PCIe: GPUs 2k and 2k+1 share a PCIe switch, each quad one
     * socket, and the quads talk across the socket interconnect.
     *
     * @param model the GPU product
     * @return the shape
     */
    public static GpuTopology hybridCubeMesh8(String model) {
        List<GpuLink> links = new ArrayList<>();
        int[][] nvlink = {
            {0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3},
            {4, 5}, {4, 6}, {4, 7}, {5, 6}, {5, 7}, {6, 7},
            {0, 4}, {1, 5}, {2, 6}, {3, 7},
        };
        for (int[] p : nvlink) {
            links.add(GpuLink.of(p[0], p[1], LinkKind.NVLINK));
        }
        addPcie(links, 8, 2, 4);
        return new GpuTopology("hybrid-cube-mesh-8", gpus(8, model), links);
    }

    /**
     * Four GPUs in a PCIe box: pairs {0,1} and {2,3} each below one PCIe switch, both switches below one host
     * bridge.
     *
     * @param model the GPU product
     * @return the shape
     */
    public static GpuTopology pcie4(String model) {
        List<GpuLink> links = new ArrayList<>();
        addPcie(links, 4, 2, 4);
        return new GpuTopology("pcie-4", gpus(4, model), links);
    }

    /**
     * Eight GPUs in a two-socket PCIe server with NUMA: per socket two PCIe switches of two GPUs each; GPUs
     * 0–3 on socket 0, 4–7 on socket 1.
     *
     * @param model the GPU product
     * @return the shape
     */
    public static GpuTopology pcieTwoSocket8(String model) {
        List<GpuLink> links = new ArrayList<>();
        addPcie(links, 8, 2, 4);
        return new GpuTopology("pcie-2socket-8", gpus(8, model), links);
    }

    /**
     * GPUs with no known interconnect: every pair is assumed to talk over the PCIe host bridge.
     *
     * @param count number of GPUs
     * @param model the GPU product
     * @return the shape
     */
    public static GpuTopology uniform(int count, String model) {
        InvalidSpecException.check(count >= 0, "gpus", count, "GPU count must be >= 0, was %d", count);
        List<GpuLink> links = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            for (int j = i + 1; j < count; j++) {
                links.add(GpuLink.of(i, j, LinkKind.PCIE_HOST_BRIDGE));
            }
        }
        return new GpuTopology(count == 0 ? "none" : "uniform-" + count, gpus(count, model), links);
    }

    /**
     * A ready-made shape by name: {@code nvswitch-8}, {@code hybrid-cube-mesh-8}, {@code pcie-4},
     * {@code pcie-2socket-8}, or {@code uniform-N}.
     *
     * @param shape the shape name
     * @param model the GPU product
     * @return the shape
     * @throws InvalidSpecException naming the shape when it is unknown
     */
    public static GpuTopology named(String shape, String model) {
        switch (shape) {
            case "nvswitch-8": return nvSwitch8(model);
            case "hybrid-cube-mesh-8": return hybridCubeMesh8(model);
            case "pcie-4": return pcie4(model);
            case "pcie-2socket-8": return pcieTwoSocket8(model);
            default:
                if (shape.startsWith("uniform-")) {
                    try {
                        return uniform(Integer.parseInt(shape.substring("uniform-".length())), model);
                    } catch (NumberFormatException e) {
                        // fall through to the error
                    }
                }
                throw new InvalidSpecException("gpuShape", shape, "unknown GPU shape \"" + shape
                        + "\"; known: nvswitch-8, hybrid-cube-mesh-8, pcie-4, pcie-2socket-8, uniform-N");
        }
    }

    private static List<Gpu> gpus(int n, String model) {
        List<Gpu> g = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            g.add(new Gpu(i, model));
        }
        return g;
    }

    /** PCIe links: {@code perSwitch} GPUs per switch, {@code perSocket} GPUs per socket. */
    private static void addPcie(List<GpuLink> links, int n, int perSwitch, int perSocket) {
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                LinkKind k = i / perSwitch == j / perSwitch ? LinkKind.PCIE_SWITCH
                        : i / perSocket == j / perSocket ? LinkKind.PCIE_HOST_BRIDGE : LinkKind.SOCKET_INTERCONNECT;
                links.add(GpuLink.of(i, j, k));
            }
        }
    }
}
