package io.fairway.k8s;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Chooses a node's ready-made GPU interconnect shape from what NVIDIA GPU feature discovery reports
 * ({@code nvidia.com/gpu.product}, {@code nvidia.com/gpu.count}).
 *
 * <ul>
 *   <li>8 SXM-class A100/A800/H100/H800/H200/B100/B200 GPUs: {@code nvswitch-8} (all-to-all NVSwitch, DGX style)</li>
 *   <li>8 V100 SXM2 GPUs: {@code hybrid-cube-mesh-8} (DGX-1)</li>
 *   <li>any other 4 GPUs: {@code pcie-4}; any other 8: {@code pcie-2socket-8}</li>
 *   <li>other counts, or no product label: {@code uniform-N} (every pair over the PCIe host bridge)</li>
 * </ul>
 *
 * <p>The node label {@value Keys#GPU_SHAPE_LABEL} overrides the choice with any named shape.
 *
 * <pre>{@code
 * GpuTopology t = GpuShapes.forProduct("NVIDIA-H100-80GB-HBM3", 8);   // nvswitch-8
 * }</pre>
 */
public final class GpuShapes {
    private static final List<String> NVSWITCH_FAMILIES = List.of("A100", "A800", "H100", "H800", "H200", "H20", "B100", "B200", "GB200");

    private GpuShapes() {
    }

    /**
     * @param product the GPU product as feature discovery labels it (may be null or empty)
     * @param count the GPU count (the node's allocatable {@code nvidia.com/gpu})
     * @return the GPUs and their links
     */
    public static GpuTopology forProduct(String product, int count) {
        String model = product == null || product.isBlank() ? "gpu" : product;
        return GpuTopology.named(shapeName(product, count), model);
    }

    /**
     * @param product the GPU product (may be null)
     * @param count the GPU count
     * @return the name of the shape {@link #forProduct} chooses
     */
    public static String shapeName(String product, int count) {
        InvalidSpecException.check(count >= 0, "nvidia.com/gpu", count, "GPU count must be >= 0, was %d", count);
        String p = product == null ? "" : product.toUpperCase(Locale.ROOT);
        if (p.isEmpty()) {
            return "uniform-" + count;
        }
        boolean pcie = p.contains("PCIE");
        if (count == 8 && !pcie) {
            if (p.contains("V100") && p.contains("SXM")) {
                return "hybrid-cube-mesh-8";
            }
            for (String f : NVSWITCH_FAMILIES) {
                if (p.contains(f)) {
                    return "nvswitch-8";
                }
            }
        }
        if (count == 4) {
            return "pcie-4";
        }
        if (count == 8) {
            return "pcie-2socket-8";
        }
        return "uniform-" + count;
    }

    /**
     * The shape less the GPUs that pods Fairway does not manage already hold. Which ones they hold is not known; the
     * highest indexes are taken away, and the links among the rest are kept.
     *
     * @param topology the node's GPUs
     * @param used how many are in use by others
     * @return the GPUs left for Fairway
     */
    public static GpuTopology without(GpuTopology topology, int used) {
        if (used <= 0) {
            return topology;
        }
        int keep = Math.max(0, topology.size() - used);
        List<Gpu> gpus = new ArrayList<>(topology.gpus().subList(0, keep));
        Set<Integer> kept = new HashSet<>();
        gpus.forEach(g -> kept.add(g.index()));
        List<GpuLink> links = new ArrayList<>();
        for (GpuLink l : topology.links()) {
            if (kept.contains(l.a()) && kept.contains(l.b())) {
                links.add(l);
            }
        }
        return keep == 0 ? GpuTopology.NONE : new GpuTopology(topology.shape() + "-less-" + used, gpus, links);
    }
}
