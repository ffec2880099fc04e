package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuLink;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.validation.Invariants;
import io.fairway.core.validation.Validator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.snapshot.PlacementStrategy;

/**
 * Properties of the placement search over random clusters (mixed GPU shapes, zero to two topology levels,
 * nodes missing labels, cordoned nodes, nodes already partly used) and random gangs with random topology
 * constraints, under both placement strategies: required constraints always hold; no GPU is given twice; a
 * placement is valid on the snapshot it was computed from; a gang told it never fits does not fit an empty
 * cluster either.
 */
class PlacementProperties {
    private static final String BLOCK = "fairway.io/block";
    private static final String RACK = ClusterSpec.RACK_LABEL;
    private static final String[] SHAPES = {"nvswitch-8", "hybrid-cube-mesh-8", "pcie-4", "pcie-2socket-8", "uniform-2"};

    /** A random world: the snapshot (every job pending, some GPUs already held) and its nodes by name. */
    private record World(Snapshot snapshot, Map<String, Node> nodes, List<String> levels) {
    }

    private static World world(long seed, PlacementStrategy strategy) {
        Random rnd = new Random(seed);
        List<String> levels = switch (rnd.nextInt(3)) {
            case 0 -> List.of();
            case 1 -> List.of(RACK);
            default -> List.of(BLOCK, RACK);
        };
        List<Node> nodes = new ArrayList<>();
        int count = 1 + rnd.nextInt(16);
        for (int i = 0; i < count; i++) {
            Node.Builder b = Node.builder("n" + i).capacity(Resources.builder().cpu(64).build())
                    .gpus(GpuTopology.named(SHAPES[rnd.nextInt(SHAPES.length)], "gpu"))
                    .unschedulable(rnd.nextInt(12) == 0);
            if (rnd.nextInt(10) != 0) { // now and then a node misses its labels
                b.label(BLOCK, "b" + rnd.nextInt(2)).label(RACK, "r" + rnd.nextInt(3));
            }
            nodes.add(b.build());
        }
        ResourceFlavor flavor = ResourceFlavor.of("default");
        ClusterQueue cq = ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(100_000).gpus(100_000).build()).build();
        LocalQueue lq = new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "q", "cq");
        // some GPUs already held by a running job, one member per node
        List<JobStatus> holding = new ArrayList<>();
        List<MemberPlacement> busy = new ArrayList<>();
        for (Node n : nodes) {
            int used = rnd.nextInt(n.gpus().size() + 1) / 2;
            if (used > 0) {
                List<Integer> gpus = new ArrayList<>();
                List<Integer> all = new ArrayList<>();
                n.gpus().gpus().forEach(g -> all.add(g.index()));
                java.util.Collections.shuffle(all, rnd);
                gpus.addAll(all.subList(0, used));
                gpus.sort(null);
                busy.add(new MemberPlacement("busy-" + n.name(), 0, n.name(), gpus));
            }
        }
        long seq = 0;
        if (!busy.isEmpty()) {
            JobSpec.Builder jb = JobSpec.builder("running").queue("q");
            Map<String, String> flavors = new LinkedHashMap<>();
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (MemberPlacement m : busy) {
                jb.podSet(PodSet.of(m.podSet(), 1, Resources.builder().gpus(m.gpus().size()).build())
                        .withNodeSelector(Map.of(Node.HOSTNAME_LABEL, m.node())));
                flavors.put(m.podSet(), "default");
                counts.put(m.podSet(), 1);
            }
            Admit a = new Admit("running", "cq", flavors, counts, new Placement(busy, null, 1.0));
            holding.add(new JobStatus(jb.build(), JobState.RUNNING, null, a, 0, 0, seq++, 0, 0, -1));
        }
        List<JobStatus> pending = new ArrayList<>();
        int jobs = 1 + rnd.nextInt(10);
        for (int j = 0; j < jobs; j++) {
            int gpus = new int[] {1, 1, 2, 4, 8}[rnd.nextInt(5)];
            int members = 1 + rnd.nextInt(rnd.nextBoolean() ? 3 : 12);
            PodSet ps = PodSet.of("workers", members, Resources.builder().cpu(1).gpus(gpus).build()).withTopology(topology(rnd));
            JobSpec spec = JobSpec.builder("j" + j).queue("q").podSet(ps)
                    .sensitivity(PlacementSensitivity.forModel(rnd.nextBoolean() ? "vgg16" : "resnet50")).build();
            pending.add(new JobStatus(spec, JobState.PENDING, PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "new"), null, 0, 0,
                    seq++, 0, 0, -1));
        }
        Map<String, Node> byName = new LinkedHashMap<>();
        nodes.forEach(n -> byName.put(n.name(), n));
        Snapshot s = new Snapshot(1, 0, seed, Map.of(Node.DEFAULT_CLUSTER, new ClusterSpec(Node.DEFAULT_CLUSTER, levels)), nodes,
                Map.of("default", flavor), Map.of("cq", cq), Map.of(), Map.of(lq.key(), lq), pending, holding, Map.of(), strategy);
        return new World(s, byName, levels);
    }

    private static TopologyRequest topology(Random rnd) {
        return switch (rnd.nextInt(9)) {
            case 0 -> TopologyRequest.required(RACK);
            case 1 -> TopologyRequest.preferred(RACK);
            case 2 -> TopologyRequest.required(BLOCK);
            case 3 -> TopologyRequest.required(Node.HOSTNAME_LABEL);
            case 4 -> TopologyRequest.nvlinkDomain();
            case 5 -> TopologyRequest.spreadAcrossNodes();
            case 6 -> TopologyRequest.preferred(BLOCK);
            default -> TopologyRequest.NONE;
        };
    }

    private static List<Admit> admits(RoundResult r) {
        List<Admit> l = new ArrayList<>();
        for (Decision d : r.decisions()) {
            if (d instanceof Admit a) {
                l.add(a);
            }
        }
        return l;
    }

    @Property
    void placementsKeepEveryInvariant(@ForAll long seed, @ForAll PlacementStrategy strategy) {
        World w = world(seed, strategy);
        Snapshot s = w.snapshot();
        RoundResult r = Rounds.run(s, Policies.create("best-effort-fifo", Map.of()));
        List<Admit> admits = admits(r);

        // valid on the snapshot it was computed from: the core accepted every admission, and does so again
        assertThat(r.refused()).isEmpty();
        Validator.Outcome again = Validator.validate(s, List.of(), admits);
        assertThat(again.refused()).isEmpty();

        // a GPU is never given twice, and only GPUs the node has
        Set<String> given = new HashSet<>();
        for (JobStatus h : s.holding()) {
            for (MemberPlacement m : h.admission().placement().members()) {
                m.gpus().forEach(g -> given.add(m.node() + "#" + g));
            }
        }
        for (Admit a : admits) {
            for (MemberPlacement m : a.placement().members()) {
                Node n = w.nodes().get(m.node());
                assertThat(n.unschedulable()).as("cordoned node %s used", n.name()).isFalse();
                for (int g : m.gpus()) {
                    assertThat(given.add(m.node() + "#" + g)).as("GPU %d of %s given twice", g, m.node()).isTrue();
                    assertThat(n.gpus().gpus()).anyMatch(x -> x.index() == g);
                }
            }
        }

        // required constraints hold; gangs are whole
        Map<String, JobSpec> specs = new HashMap<>();
        s.pending().forEach(j -> specs.put(j.id(), j.spec()));
        for (Admit a : admits) {
            JobSpec spec = specs.get(a.jobId());
            for (PodSet ps : spec.podSets()) {
                assertThat(a.placement().count(ps.name())).isEqualTo(ps.count());
                assertRequiredHolds(w, ps, a.placement());
            }
        }

        // every job that waits has a reason; the state the round leads to keeps every invariant
        List<JobStatus> pendingAfter = new ArrayList<>();
        List<JobStatus> holdingAfter = new ArrayList<>(s.holding());
        Map<String, Admit> admitted = new HashMap<>();
        admits.forEach(a -> admitted.put(a.jobId(), a));
        for (JobStatus j : s.pending()) {
            Admit a = admitted.get(j.id());
            Statistics.label("outcome").collect(a != null ? "admitted " + a.placement().locality() : r.pendingReasons().get(j.id()).code());
            if (a != null) {
                holdingAfter.add(new JobStatus(j.spec(), JobState.ADMITTED, null, a, 0, 0, j.sequence(), 0, 0, -1));
            } else {
                assertThat(r.pendingReasons()).containsKey(j.id());
                pendingAfter.add(new JobStatus(j.spec(), JobState.PENDING, r.pendingReasons().get(j.id()), null, 0, 0, j.sequence(), 0, 0, -1));
            }
        }
        Snapshot after = new Snapshot(2, 0, seed, s.clusters(), s.nodes(), s.flavors(), s.clusterQueues(), s.cohorts(), s.localQueues(),
                pendingAfter, holdingAfter, Map.of(), strategy);
        assertThat(Invariants.check(after)).isEmpty();
    }

    @Property
    void aGangToldItNeverFitsDoesNotFitTheEmptyClusterEither(@ForAll long seed, @ForAll PlacementStrategy strategy) {
        World w = world(seed, strategy);
        Snapshot s = w.snapshot();
        RoundResult r = Rounds.run(s, Policies.create("best-effort-fifo", Map.of()));
        for (JobStatus j : s.pending()) {
            PendingReason reason = r.pendingReasons().get(j.id());
            if (reason == null || reason.code() != PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN) {
                continue;
            }
            List<Node> empty = new ArrayList<>();
            s.nodes().forEach(n -> empty.add(n.withUnschedulable(false)));
            for (PlacementStrategy any : PlacementStrategy.values()) {
                Snapshot alone = new Snapshot(1, 0, seed, s.clusters(), empty, s.flavors(), s.clusterQueues(), s.cohorts(), s.localQueues(),
                        List.of(j), List.of(), Map.of(), any);
                RoundResult solo = Rounds.run(alone, Policies.create("best-effort-fifo", Map.of()));
                assertThat(admits(solo)).as("%s said %s but fits alone under %s", j.id(), reason.message(), any).isEmpty();
            }
        }
    }

    /** The engine's own search, offered to policies, finds placements its own check accepts on the same plan. */
    @Property
    void aPlacementFoundIsAcceptedAsGivenOnTheSamePlan(@ForAll long seed, @ForAll PlacementStrategy strategy) {
        World w = world(seed, strategy);
        List<String> problems = new ArrayList<>();
        SchedulingPolicy findThenAdmit = new SchedulingPolicy() {
            @Override
            public String name() {
                return "find-then-admit";
            }

            @Override
            public void plan(PolicyContext ctx) {
                for (JobStatus j : ctx.pending()) {
                    Map<String, Integer> counts = new LinkedHashMap<>();
                    Map<String, String> flavors = new LinkedHashMap<>();
                    j.spec().podSets().forEach(ps -> {
                        counts.put(ps.name(), ps.count());
                        flavors.put(ps.name(), "default");
                    });
                    Optional<Placement> p = ctx.placement().find(j, counts, flavors);
                    if (p.isPresent() && !ctx.tryAdmit(j, p.get()).admitted()) {
                        problems.add(j.id() + ": " + ctx.tryAdmit(j, p.get()).reason());
                    }
                }
            }
        };
        RoundResult r = Rounds.run(w.snapshot(), findThenAdmit);
        assertThat(problems).isEmpty();
        assertThat(r.refused()).isEmpty();
    }

    private static void assertRequiredHolds(World w, PodSet ps, Placement p) {
        TopologyRequest t = ps.topology();
        Set<String> nodes = new HashSet<>();
        List<Integer> gpus = new ArrayList<>();
        for (MemberPlacement m : p.members()) {
            if (m.podSet().equals(ps.name())) {
                nodes.add(m.node());
                gpus.addAll(m.gpus());
            }
        }
        if (t.sameNvlinkDomain() || (t.required() && Node.HOSTNAME_LABEL.equals(t.level()))) {
            assertThat(nodes).as("%s must be on one node", t).hasSize(1);
            if (t.sameNvlinkDomain()) {
                assertThat(nvlinkConnected(w.nodes().get(nodes.iterator().next()).gpus(), gpus)).as("NVLink-connected %s", gpus).isTrue();
            }
            return;
        }
        if (!t.required() || nodes.size() == 1) {
            return;
        }
        int level = w.levels().indexOf(t.level());
        assertThat(level).as("required level %s exists", t.level()).isGreaterThanOrEqualTo(0);
        for (int l = 0; l <= level; l++) {
            Set<String> values = new HashSet<>();
            for (String n : nodes) {
                values.add(String.valueOf(w.nodes().get(n).label(w.levels().get(l))));
            }
            assertThat(values).as("%s spans %s", t.level(), values).hasSize(1).doesNotContain("null");
        }
    }

    /** Independent of the engine: the GPUs are connected by NVLink/NVSwitch links among themselves. */
    private static boolean nvlinkConnected(GpuTopology topo, List<Integer> gpus) {
        Set<Integer> set = new HashSet<>(gpus);
        Set<Integer> reached = new HashSet<>();
        List<Integer> todo = new ArrayList<>(List.of(gpus.get(0)));
        while (!todo.isEmpty()) {
            int g = todo.remove(todo.size() - 1);
            if (!reached.add(g)) {
                continue;
            }
            for (GpuLink l : topo.links()) {
                if (l.kind().isNvlink() && (l.a() == g || l.b() == g)) {
                    int other = l.a() == g ? l.b() : l.a();
                    if (set.contains(other)) {
                        todo.add(other);
                    }
                }
            }
        }
        return reached.equals(set);
    }
}
