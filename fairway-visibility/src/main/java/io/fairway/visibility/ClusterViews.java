package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.LinkKind;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cluster at a glance ({@code /overview}: jobs by state, GPUs used and free by flavor and by NVLink domain) and
 * the ResourceFlavors ({@code /flavors}: the nodes each matches, their GPUs, the quota each ClusterQueue has of it).
 */
final class ClusterViews {
    private final StateView view;
    /** Node → GPU indexes held by a job member. */
    private final Map<String, Set<Integer>> heldGpus = new HashMap<>();
    /** Flavor → jobs holding resources on it. */
    private final Map<String, Set<String>> jobsByFlavor = new HashMap<>();

    ClusterViews(StateView view) {
        this.view = view;
        for (JobStatus j : view.snapshot.holding()) {
            if (j.admission() == null) {
                continue;
            }
            j.admission().flavors().values().forEach(f -> jobsByFlavor.computeIfAbsent(f, k -> new HashSet<>()).add(j.id()));
            if (j.admission().placement() != null) {
                for (MemberPlacement m : j.admission().placement().members()) {
                    heldGpus.computeIfAbsent(m.node(), k -> new HashSet<>()).addAll(m.gpus());
                }
            }
        }
    }

    /**
     * @param all every job the scheduler knows (for the counts by state)
     * @return the overview
     */
    ObjectNode overview(List<JobStatus> all) {
        ObjectNode o = VisibilityJson.object();
        o.put("nowMillis", view.snapshot.nowMillis());
        Map<JobState, Integer> byState = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) {
            byState.put(s, 0);
        }
        all.forEach(j -> byState.merge(j.state(), 1, Integer::sum));
        ObjectNode states = o.putObject("jobs");
        byState.forEach((s, n) -> states.put(s.name(), n));
        o.put("jobsTotal", all.size());
        long gpus = 0;
        long used = 0;
        for (Node n : view.snapshot.nodes()) {
            gpus += n.gpus().size();
            used += used(n);
        }
        ObjectNode g = o.putObject("gpus");
        g.put("total", gpus);
        g.put("used", used);
        g.put("free", gpus - used);
        o.put("nodes", view.snapshot.nodes().size());
        ArrayNode flavors = o.putArray("byFlavor");
        for (ResourceFlavor f : new TreeMap<>(view.snapshot.flavors()).values()) {
            flavors.add(flavorHead(f));
        }
        o.set("byNvlinkDomain", domains(view.snapshot.nodes()));
        return o;
    }

    private long used(Node n) {
        Set<Integer> held = heldGpus.getOrDefault(n.name(), Set.of());
        return n.gpus().gpus().stream().filter(x -> held.contains(x.index())).count();
    }

    private List<Node> nodesOf(ResourceFlavor f) {
        List<Node> out = new ArrayList<>();
        for (Node n : view.snapshot.nodes()) {
            if (f.matches(n)) {
                out.add(n);
            }
        }
        return out;
    }

    private ObjectNode flavorHead(ResourceFlavor f) {
        ObjectNode o = VisibilityJson.object();
        o.put("name", f.name());
        ObjectNode labels = o.putObject("nodeLabels");
        new TreeMap<>(f.nodeLabels()).forEach(labels::put);
        List<Node> nodes = nodesOf(f);
        long gpus = 0;
        long used = 0;
        long unschedulable = 0;
        for (Node n : nodes) {
            gpus += n.gpus().size();
            used += used(n);
            if (n.unschedulable()) {
                unschedulable++;
            }
        }
        o.put("nodes", nodes.size());
        o.put("unschedulableNodes", unschedulable);
        o.put("gpus", gpus);
        o.put("gpusUsed", used);
        o.put("gpusFree", gpus - used);
        o.put("jobs", jobsByFlavor.getOrDefault(f.name(), Set.of()).size());
        return o;
    }

    /** Domains grouped by their size and link kind: how many, how many GPUs in use, how many wholly free. */
    static ArrayNode domains(List<Node> nodes, Map<String, Set<Integer>> held) {
        record Key(int size, String kind) {
        }
        Map<Key, long[]> by = new TreeMap<>(java.util.Comparator.comparingInt(Key::size).reversed().thenComparing(Key::kind));
        for (Node n : nodes) {
            Set<Integer> h = held.getOrDefault(n.name(), Set.of());
            for (List<Integer> d : NodeViews.nvlinkDomains(n)) {
                String kind = kind(n, d);
                long[] c = by.computeIfAbsent(new Key(d.size(), kind), k -> new long[4]);
                long busy = d.stream().filter(h::contains).count();
                c[0]++;
                c[1] += d.size();
                c[2] += busy;
                if (busy == 0 && !n.unschedulable()) {
                    c[3]++;
                }
            }
        }
        ArrayNode out = VisibilityJson.array();
        by.forEach((k, c) -> out.addObject().put("gpusPerDomain", k.size()).put("kind", k.kind()).put("domains", c[0])
                .put("gpus", c[1]).put("gpusUsed", c[2]).put("gpusFree", c[1] - c[2]).put("wholeDomainsFree", c[3]));
        return out;
    }

    private ArrayNode domains(List<Node> nodes) {
        return domains(nodes, heldGpus);
    }

    /** @return NVSWITCH, NVLINK, or NONE (a GPU without NVLink) for one domain of a node */
    private static String kind(Node n, List<Integer> domain) {
        if (domain.size() == 1) {
            return "NONE";
        }
        Set<Integer> in = new HashSet<>(domain);
        for (GpuLink l : n.gpus().links()) {
            if (l.kind() == LinkKind.NVSWITCH && in.contains(l.a())) {
                return "NVSWITCH";
            }
        }
        return "NVLINK";
    }

    ObjectNode flavors() {
        ObjectNode o = VisibilityJson.object();
        ArrayNode items = o.putArray("items");
        for (ResourceFlavor f : new TreeMap<>(view.snapshot.flavors()).values()) {
            items.add(flavorHead(f));
        }
        return o;
    }

    ObjectNode flavor(String name, QueueViews queues) {
        ResourceFlavor f = view.snapshot.flavors().get(name);
        if (f == null) {
            throw ApiException.notFound("no ResourceFlavor '" + VisibilityJson.clip(name) + "'");
        }
        ObjectNode o = flavorHead(f);
        ArrayNode taints = o.putArray("nodeTaints");
        f.nodeTaints().forEach(t -> taints.addObject().put("key", t.key()).put("value", t.value()).put("effect", t.effect()));
        ArrayNode quota = o.putArray("clusterQueues");
        for (ClusterQueue q : new TreeMap<>(view.snapshot.clusterQueues()).values()) {
            for (QueueViews.Row r : queues.rows(q.name(), q.resourceGroups())) {
                if (!r.flavor().equals(name)) {
                    continue;
                }
                ObjectNode row = quota.addObject();
                row.put("clusterQueue", q.name());
                row.put("cohort", q.cohort());
                row.put("resource", r.resource());
                row.put("nominal", r.nominal());
                row.put("used", r.used());
                row.put("borrowed", r.borrowed());
            }
        }
        ArrayNode nodes = o.putArray("nodeList");
        for (Node n : nodesOf(f)) {
            nodes.addObject().put("name", n.name()).put("gpus", n.gpus().size()).put("gpusUsed", used(n))
                    .put("gpuModel", n.gpus().gpus().isEmpty() ? null : n.gpus().model()).put("unschedulable", n.unschedulable());
        }
        Map<String, Set<Integer>> held = new HashMap<>(heldGpus);
        o.set("byNvlinkDomain", domains(nodesOf(f), held));
        ArrayNode jobs = o.putArray("jobIds");
        new java.util.TreeSet<>(jobsByFlavor.getOrDefault(name, Set.of())).forEach(jobs::add);
        return o;
    }
}
