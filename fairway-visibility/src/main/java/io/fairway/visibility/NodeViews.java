package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Nodes with their GPUs, the NVLink/NVSwitch domains of their topology, and which job member holds which GPU. */
final class NodeViews {
    /** One member of a job placed on a node. */
    private record Held(JobStatus job, MemberPlacement member) {
    }

    private final StateView view;
    private final Map<String, List<Held>> byNode = new HashMap<>();

    NodeViews(StateView view) {
        this.view = view;
        for (JobStatus j : view.snapshot.holding()) {
            if (j.admission() != null && j.admission().placement() != null) {
                for (MemberPlacement m : j.admission().placement().members()) {
                    byNode.computeIfAbsent(m.node(), k -> new ArrayList<>()).add(new Held(j, m));
                }
            }
        }
    }

    private static String model(Node n) {
        return n.gpus().gpus().isEmpty() ? null : n.gpus().model();
    }

    ObjectNode nodes(int offset, int limit) {
        List<Node> nodes = view.snapshot.nodes();
        ObjectNode o = JobViews.page(nodes.size(), offset, limit);
        ArrayNode items = o.putArray("items");
        for (Node n : JobViews.slice(nodes, offset, limit)) {
            ObjectNode no = head(n);
            List<Held> held = byNode.getOrDefault(n.name(), List.of());
            no.put("gpusUsed", held.stream().mapToInt(h -> h.member().gpus().size()).sum());
            no.set("capacity", VisibilityJson.resources(n.capacity()));
            ArrayNode jobs = no.putArray("jobs");
            held.stream().map(h -> h.job().id()).distinct().forEach(jobs::add);
            items.add(no);
        }
        return o;
    }

    private static ObjectNode head(Node n) {
        ObjectNode o = VisibilityJson.object();
        o.put("name", n.name());
        o.put("cluster", n.cluster());
        o.put("unschedulable", n.unschedulable());
        o.put("gpuShape", n.gpus().shape());
        o.put("gpuModel", model(n));
        o.put("gpus", n.gpus().size());
        return o;
    }

    ObjectNode node(String name) {
        Node n = view.snapshot.nodes().stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> ApiException.notFound("no node '" + VisibilityJson.clip(name) + "'"));
        List<Held> held = byNode.getOrDefault(name, List.of());
        ObjectNode o = head(n);
        ObjectNode labels = o.putObject("labels");
        new TreeMap<>(n.labels()).forEach(labels::put);
        ArrayNode taints = o.putArray("taints");
        for (Taint t : n.taints()) {
            taints.addObject().put("key", t.key()).put("value", t.value()).put("effect", t.effect());
        }
        o.set("capacity", VisibilityJson.resources(n.capacity()));
        Resources allocated = Resources.NONE;
        for (Held h : held) {
            for (PodSet p : h.job().spec().podSets()) {
                if (p.name().equals(h.member().podSet())) {
                    allocated = allocated.plus(p.resources());
                }
            }
        }
        o.set("allocated", VisibilityJson.resources(allocated));
        List<List<Integer>> domains = nvlinkDomains(n);
        Map<Integer, Integer> domainOf = new HashMap<>();
        for (int d = 0; d < domains.size(); d++) {
            for (int g : domains.get(d)) {
                domainOf.put(g, d);
            }
        }
        Map<Integer, Held> holder = new HashMap<>();
        held.forEach(h -> h.member().gpus().forEach(g -> holder.put(g, h)));
        ArrayNode gpus = o.putArray("gpus");
        for (Gpu g : n.gpus().gpus()) {
            ObjectNode go = gpus.addObject();
            go.put("index", g.index());
            go.put("model", g.model());
            go.put("domain", domainOf.get(g.index()));
            Held h = holder.get(g.index());
            go.put("job", h == null ? null : h.job().id());
            go.put("podSet", h == null ? null : h.member().podSet());
            if (h == null) {
                go.putNull("member");
            } else {
                go.put("member", h.member().index());
            }
        }
        ArrayNode links = o.putArray("links");
        for (GpuLink l : n.gpus().links()) {
            links.addObject().put("a", l.a()).put("b", l.b()).put("kind", l.kind().name()).put("bandwidthGBps", l.bandwidthGBps());
        }
        ArrayNode ds = o.putArray("nvlinkDomains");
        for (List<Integer> d : domains) {
            ArrayNode da = ds.addArray();
            d.forEach(da::add);
        }
        Map<String, ObjectNode> jobs = new LinkedHashMap<>();
        ArrayNode jl = o.putArray("jobs");
        for (Held h : held) {
            ObjectNode jo = jobs.computeIfAbsent(h.job().id(), id -> {
                ObjectNode x = jl.addObject();
                x.put("id", id);
                x.put("state", h.job().state().name());
                x.putArray("members");
                return x;
            });
            ((ArrayNode) jo.get("members")).add(JobViews.member(h.member()));
        }
        return o;
    }

    /** @return the connected components of the node's NVLink/NVSwitch links, by lowest GPU index; lone GPUs alone */
    static List<List<Integer>> nvlinkDomains(Node n) {
        Map<Integer, Integer> parent = new TreeMap<>();
        n.gpus().gpus().forEach(g -> parent.put(g.index(), g.index()));
        for (GpuLink l : n.gpus().links()) {
            if (l.kind().isNvlink() && parent.containsKey(l.a()) && parent.containsKey(l.b())) {
                int a = root(parent, l.a());
                int b = root(parent, l.b());
                if (a != b) {
                    parent.put(Math.max(a, b), Math.min(a, b));
                }
            }
        }
        Map<Integer, List<Integer>> byRoot = new TreeMap<>();
        for (int g : parent.keySet()) {
            byRoot.computeIfAbsent(root(parent, g), k -> new ArrayList<>()).add(g);
        }
        return new ArrayList<>(byRoot.values());
    }

    private static int root(Map<Integer, Integer> parent, int g) {
        int r = g;
        while (parent.get(r) != r) {
            r = parent.get(r);
        }
        return r;
    }
}
