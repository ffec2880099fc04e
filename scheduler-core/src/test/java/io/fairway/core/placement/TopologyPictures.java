package io.fairway.core.placement;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LinkKind;
import io.fairway.api.model.Node;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Draws the pictures of docs/concepts/topology.md as SVG text: each ready-made GPU shape with its links, the
 * GPUs a scenario leaves busy and the GPUs the real {@link Placer} then gives a new job; and a small cluster of
 * blocks and racks with a gang placed on it. {@code TopologyPicturesTest} checks the committed files against
 * this output and rewrites them when asked.
 */
final class TopologyPictures {
    private static final String NV = "#2e7d32";
    private static final String PCIE = "#1565c0";
    private static final String CPU = "#616161";
    private static final String SOCKET = "#ef6c00";
    private static final String BUSY = "#bdbdbd";
    private static final String PLACED = "#ffcc80";
    private static final String PLACED_EDGE = "#e65100";

    private TopologyPictures() {
    }

    /** One picture: a file name and its SVG text. */
    record Picture(String file, String svg) {
    }

    /** A shape, the GPUs already busy, and the size of the job then placed. */
    private record Scenario(String file, GpuTopology shape, int[] busy, int gpus, PlacementStrategy strategy) {
    }

    static List<Picture> all() {
        List<Scenario> scenarios = List.of(
                new Scenario("nvswitch-8.svg", GpuTopology.nvSwitch8("H100"), new int[] {0, 1}, 4, PlacementStrategy.TOPOLOGY_AWARE),
                new Scenario("hybrid-cube-mesh-8.svg", GpuTopology.hybridCubeMesh8("V100"), new int[] {0, 5}, 4, PlacementStrategy.TOPOLOGY_AWARE),
                new Scenario("hybrid-cube-mesh-8-first-fit.svg", GpuTopology.hybridCubeMesh8("V100"), new int[] {0, 5}, 4, PlacementStrategy.FIRST_FIT),
                new Scenario("pcie-4.svg", GpuTopology.pcie4("T4"), new int[] {0}, 2, PlacementStrategy.TOPOLOGY_AWARE),
                new Scenario("pcie-2socket-8.svg", GpuTopology.pcieTwoSocket8("A10"), new int[] {0}, 4, PlacementStrategy.TOPOLOGY_AWARE));
        List<Picture> out = new ArrayList<>();
        for (Scenario s : scenarios) {
            out.add(new Picture(s.file(), shape(s)));
        }
        out.add(new Picture("cluster-racks.svg", cluster()));
        return out;
    }

    // ---------------------------------------------------------------- one node

    private static String shape(Scenario sc) {
        PlacementFixture f = PlacementFixture.single(sc.strategy(), sc.shape());
        if (sc.busy().length > 0) {
            f.take("n1", sc.busy());
        }
        Placement p = f.placeOk(1, sc.gpus(), TopologyRequest.NONE);
        Set<Integer> placed = new HashSet<>(p.members().get(0).gpus());
        Set<Integer> busy = new HashSet<>();
        for (int b : sc.busy()) {
            busy.add(b);
        }
        GpuTopology t = sc.shape();
        int n = t.size();
        boolean twoRows = n > 4;
        int width = 560;
        boolean hasPcie = t.links().stream().anyMatch(l -> !l.kind().isNvlink());
        int top = hasPcie ? 150 : 70;
        int bottom = top + 180;
        int boxW = 70;
        int boxH = 44;
        double[] cx = new double[n];
        double[] cy = new double[n];
        for (int i = 0; i < n; i++) {
            cx[i] = 95 + (i % 4) * 110;
            cy[i] = (twoRows && i >= 4 ? bottom : top) + boxH / 2.0;
        }
        int height = (twoRows ? bottom + boxH : top + boxH) + (hasPcie && twoRows ? 186 : 90);
        Svg svg = new Svg(width, height);
        svg.title(t.shape());

        // PCIe tree: switches group GPUs joined by PCIE_SWITCH, sockets group switches joined by the host bridge
        List<Set<Integer>> switches = groups(t, EnumSetOf.SWITCH);
        List<Set<Integer>> sockets = groups(t, EnumSetOf.HOST);
        Map<Integer, double[]> cpuBox = new TreeMap<>();
        if (hasPcie) {
            for (int s = 0; s < sockets.size(); s++) {
                Set<Integer> sock = sockets.get(s);
                boolean below = twoRows && sock.iterator().next() >= 4;
                double sx = sock.stream().mapToDouble(g -> cx[g]).average().orElse(0);
                double cpuY = below ? bottom + boxH + 100 : top - 110;
                double[] box = {sx - 90, cpuY, 180, 26};
                cpuBox.put(s, box);
                for (Set<Integer> sw : switches) {
                    if (!sock.containsAll(sw)) {
                        continue;
                    }
                    double swx = sw.stream().mapToDouble(g -> cx[g]).average().orElse(0);
                    double swY = below ? bottom + boxH + 40 : top - 55;
                    if (sw.size() > 1) {
                        for (int g : sw) {
                            svg.line(cx[g], below ? bottom + boxH : top, swx, below ? swY : swY + 22, PCIE, 2, false);
                        }
                        svg.line(swx, below ? swY + 22 : swY, swx, below ? cpuY : cpuY + 26, CPU, 2, false);
                        svg.box(swx - 50, swY, 100, 22, "#e3f2fd", PCIE, "PCIe switch", 11);
                    } else {
                        int g = sw.iterator().next();
                        svg.line(cx[g], below ? bottom + boxH : top, cx[g], below ? cpuY : cpuY + 26, CPU, 2, false);
                    }
                }
                svg.box(box[0], box[1], box[2], box[3], "#eeeeee", CPU, "CPU " + s + " (PCIe host bridge)", 11);
            }
            if (cpuBox.size() == 2) {
                double[] a = cpuBox.get(0);
                double[] b = cpuBox.get(1);
                svg.polyline(new double[] {a[0], a[1] + 13, 22, a[1] + 13, 22, b[1] + 13, b[0], b[1] + 13}, SOCKET, 2.5, true);
                svg.text(28, (a[1] + b[1]) / 2 + 16, "socket", 11, SOCKET, "start");
                svg.text(28, (a[1] + b[1]) / 2 + 30, "link", 11, SOCKET, "start");
            }
        }

        // NVLink / NVSwitch
        boolean nvswitch = t.links().stream().anyMatch(l -> l.kind() == LinkKind.NVSWITCH);
        if (nvswitch) {
            double barY = (top + boxH + bottom) / 2.0 - 12;
            for (int i = 0; i < n; i++) {
                boolean used = placed.contains(i);
                svg.line(cx[i], cy[i] < bottom ? top + boxH : bottom, cx[i], cy[i] < bottom ? barY : barY + 24, NV, used ? 5 : 2.5, false);
            }
            svg.box(60, barY, 400, 24, "#e8f5e9", NV, "NVSwitch fabric: every pair at " + (int) LinkKind.NVSWITCH.defaultBandwidthGBps() + " GB/s", 12);
        }
        for (GpuLink l : t.links()) {
            if (l.kind() != LinkKind.NVLINK) {
                continue;
            }
            boolean used = placed.contains(l.a()) && placed.contains(l.b());
            double w = used ? 5 : 2.5;
            int a = l.a();
            int b = l.b();
            boolean sameRow = (cy[a] == cy[b]);
            if (!sameRow) {
                svg.line(cx[a], top + boxH, cx[b], bottom, NV, w, false);
            } else if (Math.abs(a - b) == 1) {
                svg.line(Math.min(cx[a], cx[b]) + boxW / 2.0, cy[a], Math.max(cx[a], cx[b]) - boxW / 2.0, cy[a], NV, w, false);
            } else {
                boolean upper = cy[a] < bottom;
                double y0 = upper ? top + boxH : bottom;
                double depth = 20 * Math.abs(a - b);
                svg.curve(cx[a] + (a < b ? 12 : -12), y0, (cx[a] + cx[b]) / 2, upper ? y0 + depth : y0 - depth, cx[b] + (a < b ? -12 : 12), y0, NV, w);
            }
        }

        // GPUs
        for (int i = 0; i < n; i++) {
            String fill = placed.contains(i) ? PLACED : busy.contains(i) ? BUSY : "#ffffff";
            String edge = placed.contains(i) ? PLACED_EDGE : "#424242";
            svg.box(cx[i] - boxW / 2.0, cy[i] - boxH / 2.0, boxW, boxH, fill, edge, "GPU " + i, 14);
            if (busy.contains(i)) {
                svg.text(cx[i], cy[i] + 16, "busy", 10, "#424242", "middle");
            }
        }
        svg.text(20, height - 44, t.shape() + (sc.strategy() == PlacementStrategy.FIRST_FIT ? ", first fit" : "") + ": "
                + (sc.busy().length == 1 ? "GPU " : "GPUs ") + list(sc.busy()) + " busy; a " + sc.gpus() + "-GPU job gets "
                + p.members().get(0).gpus(), 13, "#212121", "start");
        boolean anyNvlink = t.links().stream().anyMatch(l -> l.kind().isNvlink());
        svg.text(20, height - 24, "locality " + p.locality() + (anyNvlink ? "; thick lines: the NVLinks inside the job's set" : "; no NVLink on this shape"),
                12, "#424242", "start");
        legend(svg, width, height);
        return svg.end();
    }

    private enum EnumSetOf { SWITCH, HOST }

    /** Connected groups of GPUs over PCIe links of at least the given closeness. */
    private static List<Set<Integer>> groups(GpuTopology t, EnumSetOf level) {
        Map<Integer, Integer> parent = new LinkedHashMap<>();
        t.gpus().forEach(g -> parent.put(g.index(), g.index()));
        for (GpuLink l : t.links()) {
            boolean join = l.kind() == LinkKind.PCIE_SWITCH || (level == EnumSetOf.HOST && l.kind() == LinkKind.PCIE_HOST_BRIDGE);
            if (join) {
                parent.put(root(parent, l.b()), root(parent, l.a()));
            }
        }
        Map<Integer, Set<Integer>> byRoot = new TreeMap<>();
        for (int g : parent.keySet()) {
            byRoot.computeIfAbsent(root(parent, g), k -> new java.util.TreeSet<>()).add(g);
        }
        return new ArrayList<>(byRoot.values());
    }

    private static int root(Map<Integer, Integer> parent, int g) {
        while (parent.get(g) != g) {
            g = parent.get(g);
        }
        return g;
    }

    private static String list(int[] a) {
        List<Integer> l = new ArrayList<>();
        for (int x : a) {
            l.add(x);
        }
        return l.toString().replace("[", "").replace("]", "").replace(", ", " and ");
    }

    private static void legend(Svg svg, int width, int height) {
        double y = 14;
        double x = width - 150;
        svg.rect(x, y, 14, 10, "#ffffff", "#424242");
        svg.text(x + 20, y + 9, "free", 10, "#424242", "start");
        svg.rect(x + 55, y, 14, 10, BUSY, "#424242");
        svg.text(x + 75, y + 9, "busy", 10, "#424242", "start");
        svg.rect(x, y + 16, 14, 10, PLACED, PLACED_EDGE);
        svg.text(x + 20, y + 25, "placed by Fairway", 10, "#424242", "start");
    }

    // ---------------------------------------------------------------- a cluster of blocks and racks

    private static String cluster() {
        List<Node> nodes = new ArrayList<>();
        int i = 1;
        for (int b = 1; b <= 2; b++) {
            for (int r = 1; r <= 2; r++) {
                for (int k = 0; k < 2; k++) {
                    nodes.add(PlacementFixture.node("n" + i++, GpuTopology.nvSwitch8("H100"), PlacementFixture.BLOCK, "b" + b,
                            PlacementFixture.RACK, "r" + ((b - 1) * 2 + r)));
                }
            }
        }
        PlacementFixture f = new PlacementFixture(PlacementStrategy.TOPOLOGY_AWARE, List.of(PlacementFixture.BLOCK, PlacementFixture.RACK), nodes);
        Map<String, Set<Integer>> busy = new LinkedHashMap<>();
        for (String n : List.of("n1", "n3", "n5", "n7")) {
            f.take(n, 0);
            busy.computeIfAbsent(n, k -> new HashSet<>()).add(0);
        }
        f.take("n6", 0, 1, 2, 3, 4, 5);
        busy.computeIfAbsent("n6", k -> new HashSet<>()).addAll(List.of(0, 1, 2, 3, 4, 5));
        Placement p = f.placeOk(16, 1, TopologyRequest.preferred(PlacementFixture.RACK));
        Map<String, Set<Integer>> placed = new LinkedHashMap<>();
        for (MemberPlacement m : p.members()) {
            placed.computeIfAbsent(m.node(), k -> new HashSet<>()).addAll(m.gpus());
        }
        int width = 760;
        int height = 340;
        Svg svg = new Svg(width, height);
        svg.title("cluster: blocks, racks, nodes");
        double nodeW = 150;
        double nodeH = 70;
        for (int b = 0; b < 2; b++) {
            double bx = 20 + b * 370;
            svg.rect(bx, 40, 350, 220, "#fafafa", "#9e9e9e");
            svg.text(bx + 8, 56, "block b" + (b + 1), 12, "#424242", "start");
            for (int r = 0; r < 2; r++) {
                double rx = bx + 10 + r * 170;
                svg.rect(rx, 64, 160, 186, "#f1f8e9", "#9e9e9e");
                svg.text(rx + 6, 80, "rack r" + (b * 2 + r + 1), 11, "#424242", "start");
                for (int k = 0; k < 2; k++) {
                    String name = "n" + (b * 4 + r * 2 + k + 1);
                    double nx = rx + 5;
                    double ny = 88 + k * (nodeH + 8);
                    svg.rect(nx, ny, nodeW, nodeH, "#ffffff", "#616161");
                    svg.text(nx + 4, ny + 13, name, 11, "#212121", "start");
                    for (int g = 0; g < 8; g++) {
                        double gx = nx + 6 + (g % 4) * 35;
                        double gy = ny + 20 + (g / 4) * 24;
                        boolean isPlaced = placed.getOrDefault(name, Set.of()).contains(g);
                        boolean isBusy = busy.getOrDefault(name, Set.of()).contains(g);
                        svg.rect(gx, gy, 30, 20, isPlaced ? PLACED : isBusy ? BUSY : "#ffffff", isPlaced ? PLACED_EDGE : "#757575");
                        svg.text(gx + 15, gy + 14, String.valueOf(g), 10, "#212121", "middle");
                    }
                }
            }
        }
        svg.text(20, height - 50, "16 one-GPU members, rack preferred. No rack has 16 free GPUs, so the gang goes to the block with the least",
                13, "#212121", "start");
        svg.text(20, height - 32, "room that holds it (b2): its roomiest rack first, then the best-fit node for the rest. Block b1 stays whole.",
                13, "#212121", "start");
        svg.text(20, height - 14, "Nodes used: " + p.nodes() + "; locality " + p.locality() + ".", 13, "#212121", "start");
        legend(svg, width, height);
        return svg.end();
    }

    // ---------------------------------------------------------------- SVG text

    /** A tiny SVG writer with stable number formatting. */
    private static final class Svg {
        private final StringBuilder b = new StringBuilder();

        Svg(int width, int height) {
            b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
                    .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                    .append("\" font-family=\"Helvetica, Arial, sans-serif\">\n");
            b.append("  <rect x=\"0\" y=\"0\" width=\"").append(width).append("\" height=\"").append(height).append("\" fill=\"#ffffff\"/>\n");
        }

        void title(String t) {
            b.append("  <title>").append(esc(t)).append("</title>\n");
        }

        void line(double x1, double y1, double x2, double y2, String color, double w, boolean dashed) {
            b.append("  <line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2)).append("\" y2=\"")
                    .append(n(y2)).append("\" stroke=\"").append(color).append("\" stroke-width=\"").append(n(w)).append('"')
                    .append(dashed ? " stroke-dasharray=\"6 4\"" : "").append("/>\n");
        }

        void polyline(double[] xy, String color, double w, boolean dashed) {
            b.append("  <polyline fill=\"none\" points=\"");
            for (int i = 0; i < xy.length; i += 2) {
                b.append(i == 0 ? "" : " ").append(n(xy[i])).append(',').append(n(xy[i + 1]));
            }
            b.append("\" stroke=\"").append(color).append("\" stroke-width=\"").append(n(w)).append('"')
                    .append(dashed ? " stroke-dasharray=\"6 4\"" : "").append("/>\n");
        }

        void curve(double x1, double y1, double cx, double cy, double x2, double y2, String color, double w) {
            b.append("  <path d=\"M ").append(n(x1)).append(' ').append(n(y1)).append(" Q ").append(n(cx)).append(' ').append(n(cy))
                    .append(' ').append(n(x2)).append(' ').append(n(y2)).append("\" fill=\"none\" stroke=\"").append(color)
                    .append("\" stroke-width=\"").append(n(w)).append("\"/>\n");
        }

        void rect(double x, double y, double w, double h, String fill, String stroke) {
            b.append("  <rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w)).append("\" height=\"")
                    .append(n(h)).append("\" rx=\"4\" fill=\"").append(fill).append("\" stroke=\"").append(stroke).append("\"/>\n");
        }

        void box(double x, double y, double w, double h, String fill, String stroke, String label, int size) {
            rect(x, y, w, h, fill, stroke);
            text(x + w / 2, y + h / 2 + size / 2.0 - 1, label, size, "#212121", "middle");
        }

        void text(double x, double y, String s, int size, String color, String anchor) {
            b.append("  <text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"").append(size)
                    .append("\" fill=\"").append(color).append("\" text-anchor=\"").append(anchor).append("\">").append(esc(s)).append("</text>\n");
        }

        String end() {
            return b.append("</svg>\n").toString();
        }

        private static String n(double v) {
            return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
        }

        private static String esc(String s) {
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        }
    }
}
