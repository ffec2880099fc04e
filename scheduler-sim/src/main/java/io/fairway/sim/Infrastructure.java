package io.fairway.sim;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.Locality;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulated machines of one run: which nodes exist, what they cost, which GPUs are busy, spot
 * interruption times drawn from the seed, and the measures behind {@link InfraMetrics}.
 */
final class Infrastructure {
    /** A node present (or requested): when billing started and at what price. */
    private record Live(Node node, double pricePerHour, long since, boolean pool) {
    }

    private final ClusterModel cluster;
    private final long seed;
    private final Map<String, SimNodePool> pools = new HashMap<>();
    private final Map<String, Live> live = new LinkedHashMap<>();
    private final Map<String, Integer> usedGpus = new HashMap<>();
    private final List<InfraMetrics.NodeCount> counts = new ArrayList<>();
    private final List<InfraMetrics.InterruptionLoss> losses = new ArrayList<>();
    private final int maxNodeGpus;
    private final long maxRackGpus;
    private double cost;
    private double poolNodeHours;
    private int provisioned;
    private int peak;
    private int interruptions;
    private double gpuHoursLost;
    private double waitJobMillis;
    private int waitingJobs;
    private final java.util.Set<String> waited = new java.util.HashSet<>();
    private int multiGpu;
    private int bestLocality;
    private double fragWeighted;
    private double fragMillis;
    private double fragNow = -1;
    private int requested;
    private long nameSeq;
    private long rackSeq;
    private long last;
    private long presentGpus;
    private double nodeGpuMillis;
    /**
     * Kept by change (a node coming or going, a placement starting or ending on it) rather than recounted over every
     * node after each round: the free GPUs of the present nodes, those of them on nodes with fewer free than the
     * largest node holds (stranded), and the present pool nodes.
     */
    private long freeGpus;
    private long strandedGpus;
    private int poolNodes;

    Infrastructure(ClusterModel cluster, long seed) {
        this.cluster = cluster;
        this.seed = seed;
        int maxNode = 0;
        for (SimNodePool p : cluster.nodePools()) {
            pools.put(p.pool().name(), p);
            for (InstanceType t : p.pool().instanceTypes()) {
                maxNode = Math.max(maxNode, t.gpus().size());
            }
        }
        Map<String, Long> racks = new HashMap<>();
        for (Node n : cluster.nodes()) {
            maxNode = Math.max(maxNode, n.gpus().size());
            live.put(n.name(), new Live(n, cluster.nodePricePerHour().getOrDefault(n.name(), 0.0), 0, false));
            String rack = n.labels().get(ClusterSpec.RACK_LABEL);
            if (rack != null) {
                racks.merge(rack, (long) n.gpus().size(), Long::sum);
            }
        }
        this.maxNodeGpus = maxNode;
        this.maxRackGpus = racks.values().stream().mapToLong(Long::longValue).max().orElse(maxNode);
        peak = live.size();
        for (Live l : live.values()) {
            presentGpus += l.node().gpus().size();
            tally(l.node().name(), +1);
        }
    }

    /** Adds ({@code +1}) or takes away ({@code -1}) one node's part in the kept tallies, as its state now is. */
    private void tally(String node, int sign) {
        Live l = live.get(node);
        if (l == null) {
            return;
        }
        if (l.pool()) {
            poolNodes += sign;
        }
        int cap = l.node().gpus().size();
        if (cap == 0) {
            return;
        }
        int f = Math.max(0, cap - usedGpus.getOrDefault(node, 0));
        freeGpus += sign * (long) f;
        if (f < maxNodeGpus) {
            strandedGpus += sign * (long) f;
        }
    }

    /** @return GPU-milliseconds of nodes present so far (the capacity utilisation is measured against) */
    double nodeGpuMillis() {
        return nodeGpuMillis;
    }

    boolean hasPools() {
        return !pools.isEmpty();
    }

    SimNodePool pool(String name) {
        return pools.get(name);
    }

    /** Integrates cost, waiting and fragmentation up to {@code t}. */
    void advance(long t) {
        long dt = t - last;
        if (dt > 0) {
            waitJobMillis += (double) waitingJobs * dt;
            nodeGpuMillis += (double) presentGpus * dt;
            if (fragNow >= 0) {
                fragWeighted += fragNow * dt;
                fragMillis += dt;
            }
        }
        last = t;
    }

    /** @return the name of a pool node requested now (counted as requested until it comes up) */
    String reserveName(String pool) {
        requested++;
        return pool + "-" + nameSeq++;
    }

    /** @param count requested nodes that will never come (the actuator gave up on the request) */
    void requestAbandoned(int count) {
        requested -= count;
    }

    /** @return a fresh rack label value for the nodes of one Provision decision */
    String freshRack(String pool) {
        return pool + "-rack-" + rackSeq++;
    }

    /**
     * @param pool the pool
     * @param type its instance type
     * @param name the node name
     * @param rack the rack label value for the cluster's topology levels
     * @param requestedAt when the node was requested (billing starts)
     * @return the node to add to the scheduler
     */
    Node nodeUp(NodePool pool, InstanceType type, String name, String rack, long requestedAt) {
        Node n = pool.nodeOf(type, name);
        Map<String, String> labels = new LinkedHashMap<>(n.labels());
        for (ClusterSpec c : cluster.clusters()) {
            if (c.name().equals(n.cluster())) {
                for (String level : c.topologyLevels()) {
                    labels.putIfAbsent(level, rack);
                }
            }
        }
        n = new Node(n.name(), n.cluster(), labels, n.taints(), n.capacity(), n.gpus(), false);
        requested--;
        provisioned++;
        tally(name, -1);
        live.put(name, new Live(n, type.pricePerHour(), requestedAt, true));
        tally(name, +1);
        presentGpus += n.gpus().size();
        peak = Math.max(peak, live.size());
        return n;
    }

    /** @return the interruption time of a spot node just up, or -1: exponential with the type's rate, from the seed */
    long interruptionAt(SimNodePool pool, InstanceType type, String name, long upAt) {
        double rate = pool.interruptionsPerHour(type.name());
        if (rate <= 0) {
            return -1;
        }
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + name.hashCode());
        double hours = -Math.log(1 - r.nextDouble()) / rate;
        return upAt + Math.max(1, Math.round(hours * 3_600_000));
    }

    boolean present(String node) {
        return live.containsKey(node);
    }

    /** A node goes away (deprovisioned or interrupted): its bill closes. */
    void nodeGone(String name, long now) {
        tally(name, -1);
        Live l = live.remove(name);
        if (l != null) {
            presentGpus -= l.node().gpus().size();
            close(l, now);
            usedGpus.remove(name);
        }
    }

    private void close(Live l, long now) {
        double hours = Math.max(0, now - l.since()) / 3_600_000.0;
        cost += hours * l.pricePerHour();
        if (l.pool()) {
            poolNodeHours += hours;
        }
    }

    void interrupted() {
        interruptions++;
    }

    void interruptionLoss(String job, String node, double lostWorkMillis, long gpus, double intervalSeconds) {
        losses.add(new InfraMetrics.InterruptionLoss(job, node, lostWorkMillis / 1000.0, intervalSeconds));
        gpuHoursLost += lostWorkMillis / 3_600_000.0 * gpus;
    }

    /** A job starts (or changes size) on a placement. */
    void place(Placement p, long requestedGpus, boolean start) {
        for (MemberPlacement m : p.members()) {
            tally(m.node(), -1);
            usedGpus.merge(m.node(), m.gpus().size(), Integer::sum);
            tally(m.node(), +1);
        }
        if (start && p.gpuCount() > 1) {
            multiGpu++;
            if (p.locality().ordinal() <= best(p.gpuCount()).ordinal()) {
                bestLocality++;
            }
        }
    }

    private Locality best(long gpus) {
        if (gpus <= maxNodeGpus) {
            return Locality.NODE;
        }
        return gpus <= maxRackGpus ? Locality.RACK : Locality.CLUSTER;
    }

    /** A job stops holding a placement. */
    void release(Placement p) {
        if (p == null) {
            return;
        }
        for (MemberPlacement m : p.members()) {
            tally(m.node(), -1);
            usedGpus.computeIfPresent(m.node(), (k, v) -> v - m.gpus().size() <= 0 ? null : v - m.gpus().size());
            tally(m.node(), +1);
        }
    }

    /** Records the state after a round: nodes, jobs waiting for nodes, fragmentation. */
    void record(long now, java.util.Collection<String> jobsWaitingForNodes) {
        waitingJobs = jobsWaitingForNodes.size();
        waited.addAll(jobsWaitingForNodes);
        fragNow = freeGpus == 0 ? -1 : (double) strandedGpus / freeGpus;
        InfraMetrics.NodeCount c = new InfraMetrics.NodeCount(now, live.size(), poolNodes, requested);
        if (counts.isEmpty() || !sameCount(counts.get(counts.size() - 1), c)) {
            if (!counts.isEmpty() && counts.get(counts.size() - 1).timeMillis() == now) {
                counts.set(counts.size() - 1, c);
            } else {
                counts.add(c);
            }
        }
    }

    /**
     * The kept tallies as {free, stranded, pool nodes}, and the same recounted over every present node (the form they
     * replace), for tests.
     */
    long[][] talliesKeptAndRecounted() {
        long free = 0;
        long stranded = 0;
        long pool = 0;
        for (Live l : live.values()) {
            if (l.pool()) {
                pool++;
            }
            int cap = l.node().gpus().size();
            if (cap == 0) {
                continue;
            }
            int f = Math.max(0, cap - usedGpus.getOrDefault(l.node().name(), 0));
            free += f;
            if (f < maxNodeGpus) {
                stranded += f;
            }
        }
        return new long[][] {{freeGpus, strandedGpus, poolNodes}, {free, stranded, pool}};
    }

    private static boolean sameCount(InfraMetrics.NodeCount a, InfraMetrics.NodeCount b) {
        return a.nodes() == b.nodes() && a.poolNodes() == b.poolNodes() && a.requestedNodes() == b.requestedNodes();
    }

    /** Closes every open bill at the end of the simulation. */
    InfraMetrics finish(long end) {
        advance(Math.max(end, last));
        for (Live l : live.values()) {
            close(l, Math.max(end, l.since()));
        }
        live.clear();
        return new InfraMetrics(hasPools(), cost, poolNodeHours, provisioned, peak, interruptions, gpuHoursLost, losses,
                waitJobMillis / 3_600_000.0, waited.size(), multiGpu, bestLocality, fragMillis == 0 ? 0 : fragWeighted / fragMillis, counts);
    }
}
