package io.fairway.core.placement;

import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Free capacity during one round's plan: per node free quantities and free GPU masks, indexed by free GPU
 * count (so a best-fit node is found without scanning) and by topology domain (free GPUs per rack, block…).
 * Changes are recorded in an undo log so a failed gang placement rolls back exactly.
 */
public final class CapacityPlan {
    final ResourceIndex resources;
    final int width;                 // resource vector width for nodes
    final Node[] nodes;
    final GpuShape[] shapes;
    final Map<String, Integer> nodeIndex;
    final long[] free;               // nodes.length * width
    final long[] freeGpuMask;        // positions
    /** Per resource (GPUs aside): the nodes with none of it free, so a scan for room skips them a word at a time. */
    final BitSet[] drained;
    private final BitSet drainedScratch = new BitSet();
    final boolean[] schedulable;
    final int[] clusterOf;
    final List<ClusterIndex> clusters = new ArrayList<>();
    final Map<String, Integer> clusterIds = new LinkedHashMap<>();
    long totalGpus;
    long freeGpus;

    /** The undo log, flat: entries of {node, gpuMaskTaken, r0 .. r(width-1)} (no array per change). */
    private long[] undo = new long[64];
    private int undoLength;
    private long[] undoScratch;
    private boolean recording;

    /** One cluster's indexes. */
    static final class ClusterIndex {
        final String name;
        final List<String> levels;         // broadest first; host implicit
        final BitSet[] byFreeGpus = new BitSet[65];
        /**
         * Which of {@link #byFreeGpus} this index may write: a copy shares its source's sets, and whichever of the two
         * first changes one copies it then ({@link #freeToWrite}); a round's copy of the engine's kept capacity copies
         * only the few it changes, not 65 per cluster.
         */
        private final boolean[] ownsFree = new boolean[65];
        final BitSet members = new BitSet();
        final BitSet cpuOnly = new BitSet(); // schedulable nodes without GPUs
        // per level: node -> domain id, and domain -> free GPUs / free resources / node list / child domains
        final int[][] domainOf;
        final long[][] domainFree;
        /**
         * Per level: its domains by free GPUs in powers of two ({@link #freeBucket}), so a search for a gang's GPUs
         * reads only the domains that may have them.
         */
        final BitSet[][] domainsByFree;
        final long[][] domainFreeResources;  // per level: domain * width + resource
        final int[][][] domainNodes;
        final int[][][] domainChildren;      // per level: domain -> its domains one level narrower (none on the last)
        final String[][] domainNames;
        int[] rootDomains = new int[0];      // the broadest level's domains
        int maxGpusPerNode;
        int maxNvlinkDomain;
        long freeGpus;                       // on schedulable nodes

        /** A copy sharing what construction fixed, with its own free counts and indexes. */
        ClusterIndex(ClusterIndex o) {
            this.name = o.name;
            this.levels = o.levels;
            System.arraycopy(o.byFreeGpus, 0, byFreeGpus, 0, byFreeGpus.length);
            Arrays.fill(o.ownsFree, false); // shared now: neither writes them in place
            this.members.or(o.members);
            this.cpuOnly.or(o.cpuOnly);
            this.domainOf = o.domainOf;
            this.domainsByFree = new BitSet[o.domainsByFree.length][];
            for (int l = 0; l < domainsByFree.length; l++) {
                domainsByFree[l] = new BitSet[o.domainsByFree[l].length];
                for (int b = 0; b < domainsByFree[l].length; b++) {
                    domainsByFree[l][b] = (BitSet) o.domainsByFree[l][b].clone();
                }
            }
            this.domainFree = new long[o.domainFree.length][];
            this.domainFreeResources = new long[o.domainFreeResources.length][];
            for (int l = 0; l < domainFree.length; l++) {
                domainFree[l] = o.domainFree[l].clone();
                domainFreeResources[l] = o.domainFreeResources[l].clone();
            }
            this.domainNodes = o.domainNodes;
            this.domainChildren = o.domainChildren;
            this.domainNames = o.domainNames;
            this.rootDomains = o.rootDomains;
            this.maxGpusPerNode = o.maxGpusPerNode;
            this.maxNvlinkDomain = o.maxNvlinkDomain;
            this.freeGpus = o.freeGpus;
        }

        ClusterIndex(String name, List<String> levels, int nodeCount) {
            this.name = name;
            this.levels = levels;
            for (int i = 0; i < byFreeGpus.length; i++) {
                byFreeGpus[i] = new BitSet();
            }
            Arrays.fill(ownsFree, true);
            domainOf = new int[levels.size()][nodeCount];
            domainFree = new long[levels.size()][];
            domainsByFree = new BitSet[levels.size()][];
            domainFreeResources = new long[levels.size()][];
            domainNodes = new int[levels.size()][][];
            domainChildren = new int[levels.size()][][];
            domainNames = new String[levels.size()][];
        }

        /** @return the nodes with {@code free} free GPUs, as a set this index alone writes (copied first if shared) */
        BitSet freeToWrite(int free) {
            if (!ownsFree[free]) {
                byFreeGpus[free] = (BitSet) byFreeGpus[free].clone();
                ownsFree[free] = true;
            }
            return byFreeGpus[free];
        }
    }

    /**
     * @param nodes the nodes, in the snapshot's order
     * @param clusterSpecs topology levels per cluster (a cluster missing here has none)
     */
    public CapacityPlan(List<Node> nodes, Map<String, ClusterSpec> clusterSpecs) {
        this(nodes, clusterSpecs, new ResourceIndex());
    }

    CapacityPlan(List<Node> nodes, Map<String, ClusterSpec> clusterSpecs, ResourceIndex resources) {
        this.resources = resources;
        for (Node n : nodes) {
            io.fairway.api.model.Resources c = n.capacity();
            for (int i = 0; i < c.size(); i++) {
                resources.id(c.name(i)); // in name order, as names() lists them, without its sorted copy
            }
        }
        this.width = Math.max(1, resources.size());
        int count = nodes.size();
        this.nodes = nodes.toArray(new Node[0]);
        this.shapes = new GpuShape[count];
        this.nodeIndex = new HashMap<>(count * 2);
        this.free = new long[count * width];
        this.freeGpuMask = new long[count];
        this.schedulable = new boolean[count];
        this.clusterOf = new int[count];
        this.drained = new BitSet[width];
        Map<String, List<Integer>> byCluster = new LinkedHashMap<>();
        Map<io.fairway.api.model.Resources, long[]> vectors = new HashMap<>(); // most nodes share a few capacities
        for (int i = 0; i < count; i++) {
            Node n = this.nodes[i];
            nodeIndex.put(n.name(), i);
            shapes[i] = GpuShape.of(n.gpus());
            long[] cap = vectors.computeIfAbsent(n.capacity(), resources::vector);
            System.arraycopy(cap, 0, free, i * width, Math.min(cap.length, width));
            freeGpuMask[i] = shapes[i].fullMask();
            schedulable[i] = !n.unschedulable();
            byCluster.computeIfAbsent(n.cluster(), k -> new ArrayList<>()).add(i);
        }
        for (int r = 0; r < width; r++) {
            drained[r] = new BitSet(count);
            for (int i = 0; i < count; i++) {
                if (free[i * width + r] <= 0) {
                    drained[r].set(i);
                }
            }
        }
        List<String> clusterNames = new ArrayList<>(byCluster.keySet());
        java.util.Collections.sort(clusterNames);
        for (String c : clusterNames) {
            ClusterSpec spec = clusterSpecs.get(c);
            List<String> levels = spec == null ? List.of() : spec.topologyLevels();
            ClusterIndex ci = new ClusterIndex(c, levels, count);
            clusterIds.put(c, clusters.size());
            clusters.add(ci);
            List<Integer> members = byCluster.get(c);
            for (int l = 0; l < levels.size(); l++) {
                indexLevel(ci, members, l);
            }
            linkDomains(ci, members);
            addMembers(ci, members);
            for (int l = 0; l < levels.size(); l++) {
                ci.domainsByFree[l] = new BitSet[freeBucket(Arrays.stream(ci.domainFree[l]).sum()) + 1];
                Arrays.setAll(ci.domainsByFree[l], b -> new BitSet());
                for (int d = 0; d < ci.domainFree[l].length; d++) {
                    ci.domainsByFree[l][bucket(ci, l, ci.domainFree[l][d])].set(d);
                }
            }
        }
    }

    /**
     * Indexes one topology level of a cluster: a domain is named by the label values of every level down to this one, and
     * looked up by its label value among the children of its parent domain. A node without the label of a level is a
     * domain of its own there: it is never assumed to share a rack with another.
     */
    private void indexLevel(ClusterIndex ci, List<Integer> members, int l) {
        List<Map<String, Integer>> byParent = new ArrayList<>();
        List<List<Integer>> dn = new ArrayList<>();
        List<String> names = new ArrayList<>();
        String level = ci.levels.get(l);
        for (int i : members) {
            int parent = l == 0 ? 0 : ci.domainOf[l - 1][i];
            while (byParent.size() <= parent) {
                byParent.add(new HashMap<>());
            }
            String v = this.nodes[i].label(level);
            String key = v == null ? "\u0000" + this.nodes[i].name() : v;
            Map<String, Integer> ids = byParent.get(parent);
            Integer id = ids.get(key);
            if (id == null) {
                id = dn.size();
                ids.put(key, id);
                dn.add(new ArrayList<>());
                names.add((l == 0 ? "" : ci.domainNames[l - 1][parent] + "/") + (v == null ? "?" + this.nodes[i].name() : v));
            }
            ci.domainOf[l][i] = id;
            dn.get(id).add(i);
        }
        ci.domainFree[l] = new long[dn.size()];
        ci.domainFreeResources[l] = new long[dn.size() * width];
        ci.domainNodes[l] = new int[dn.size()][];
        ci.domainNames[l] = names.toArray(new String[0]);
        for (int d = 0; d < dn.size(); d++) {
            ci.domainNodes[l][d] = dn.get(d).stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** Adds a cluster's nodes to its index, and the schedulable ones' GPUs and free resources to the free counts. */
    private void addMembers(ClusterIndex ci, List<Integer> members) {
        for (int i : members) {
            clusterOf[i] = clusters.size() - 1;
            ci.members.set(i);
            ci.maxGpusPerNode = Math.max(ci.maxGpusPerNode, shapes[i].size());
            ci.maxNvlinkDomain = Math.max(ci.maxNvlinkDomain, shapes[i].largestNvlinkDomain());
            if (schedulable[i]) {
                totalGpus += shapes[i].size();
                freeGpus += shapes[i].size();
                ci.freeGpus += shapes[i].size();
                ci.byFreeGpus[shapes[i].size()].set(i);
                if (shapes[i].size() == 0) {
                    ci.cpuOnly.set(i);
                }
                for (int l = 0; l < ci.levels.size(); l++) {
                    int d = ci.domainOf[l][i];
                    ci.domainFree[l][d] += shapes[i].size();
                    for (int r = 0; r < width; r++) {
                        ci.domainFreeResources[l][d * width + r] += free[i * width + r];
                    }
                }
            }
        }
    }

    /**
     * A copy whose free capacity changes apart from this plan's: what does not change after construction (nodes,
     * shapes, topology domains) is shared, the free quantities and their indexes are copied, but for the sets of nodes
     * by free GPUs, which both share until either changes one (it then copies that set first). Costs O(nodes), not
     * O(jobs charged): the engine keeps one plan with every holding job charged and gives each round a copy. Like
     * every change to a plan, a copy writes to this plan (it marks those sets shared): not to be made while another
     * thread uses it.
     *
     * @return the copy (recording no changes)
     */
    public CapacityPlan copy() {
        return new CapacityPlan(this);
    }

    private CapacityPlan(CapacityPlan o) {
        this.resources = o.resources.copy();
        this.width = o.width;
        this.nodes = o.nodes;
        this.shapes = o.shapes;
        this.nodeIndex = o.nodeIndex;
        this.free = o.free.clone();
        this.freeGpuMask = o.freeGpuMask.clone();
        this.schedulable = o.schedulable;
        this.clusterOf = o.clusterOf;
        this.drained = new BitSet[o.drained.length];
        for (int r = 0; r < drained.length; r++) {
            drained[r] = (BitSet) o.drained[r].clone();
        }
        for (ClusterIndex c : o.clusters) {
            this.clusters.add(new ClusterIndex(c));
        }
        this.clusterIds.putAll(o.clusterIds);
        this.totalGpus = o.totalGpus;
        this.freeGpus = o.freeGpus;
    }

    /**
     * @param o another plan over the same nodes
     * @return true when both have the same free quantities, free GPUs and indexes of them (per node, cluster and
     *     topology domain)
     */
    public boolean sameFreeAs(CapacityPlan o) {
        if (width != o.width || !Arrays.equals(free, o.free) || !Arrays.equals(freeGpuMask, o.freeGpuMask) || freeGpus != o.freeGpus
                || totalGpus != o.totalGpus || clusters.size() != o.clusters.size()) {
            return false;
        }
        for (int c = 0; c < clusters.size(); c++) {
            ClusterIndex a = clusters.get(c);
            ClusterIndex b = o.clusters.get(c);
            if (a.freeGpus != b.freeGpus || !Arrays.equals(a.byFreeGpus, b.byFreeGpus) || !Arrays.deepEquals(a.domainFree, b.domainFree)
                    || !Arrays.deepEquals(a.domainFreeResources, b.domainFreeResources)) {
                return false;
            }
        }
        return true;
    }

    /** @return true while every resource named so far is one some node has (jobs' vectors interned nothing more) */
    public boolean namesOnlyNodeResources() {
        return resources.size() <= width;
    }

    /** Links each domain to its children one level narrower, and lists the broadest level's domains. */
    private static void linkDomains(ClusterIndex ci, List<Integer> members) {
        int levels = ci.levels.size();
        if (levels == 0) {
            return;
        }
        java.util.LinkedHashSet<Integer> roots = new java.util.LinkedHashSet<>();
        for (int i : members) {
            roots.add(ci.domainOf[0][i]);
        }
        ci.rootDomains = roots.stream().mapToInt(Integer::intValue).toArray();
        for (int l = 0; l < levels; l++) {
            int count = ci.domainNodes[l].length;
            if (l == levels - 1) {
                ci.domainChildren[l] = new int[count][0];
                continue;
            }
            List<java.util.LinkedHashSet<Integer>> children = new ArrayList<>();
            for (int d = 0; d < count; d++) {
                children.add(new java.util.LinkedHashSet<>());
            }
            for (int i : members) {
                children.get(ci.domainOf[l][i]).add(ci.domainOf[l + 1][i]);
            }
            ci.domainChildren[l] = new int[count][];
            for (int d = 0; d < count; d++) {
                ci.domainChildren[l][d] = children.get(d).stream().mapToInt(Integer::intValue).toArray();
            }
        }
    }

    /**
     * @param r resources
     * @return them as a vector in this plan's resource numbering
     */
    public long[] vector(io.fairway.api.model.Resources r) {
        return resources.vector(r);
    }

    /** @return GPUs on schedulable nodes */
    public long totalGpus() {
        return totalGpus;
    }

    /** @return GPUs free in the plan on schedulable nodes */
    public long freeGpus() {
        return freeGpus;
    }

    /**
     * @param resource a resource name
     * @return its total capacity on schedulable nodes
     */
    public long total(String resource) {
        long t = 0;
        for (int i = 0; i < nodes.length; i++) {
            if (schedulable[i]) {
                t += nodes[i].capacity().get(resource);
            }
        }
        return t;
    }

    /**
     * @param name a node name
     * @return the node's index in this plan, or null when it is not part of it
     */
    public Integer nodeIndex(String name) {
        return nodeIndex.get(name);
    }

    /**
     * @param node a node index
     * @param gpus GPU indexes of the node
     * @return the mask of their positions (GPUs the node does not have are left out)
     */
    public long gpuMask(int node, List<Integer> gpus) {
        return shapes[node].maskOf(gpus);
    }

    /**
     * @param node a node index
     * @return its free GPU count in the plan
     */
    public int freeGpuCount(int node) {
        return Long.bitCount(freeGpuMask[node]);
    }

    long free(int node, int resource) {
        return resource < width ? free[node * width + resource] : 0;
    }

    /** @return how many members needing {@code req} (and {@code gpus} GPUs each) fit on the node's free capacity */
    int membersFit(int node, long[] req, int gpus) {
        long fit = Integer.MAX_VALUE;
        for (int r = 0; r < req.length; r++) {
            if (req[r] <= 0 || r == resources.gpu) {
                continue;
            }
            long f = free(node, r);
            fit = Math.min(fit, f / req[r]);
            if (fit == 0) {
                return 0;
            }
        }
        if (gpus > 0) {
            fit = Math.min(fit, freeGpuCount(node) / gpus);
        }
        return (int) fit;
    }

    /**
     * The nodes on which no member asking for {@code req} fits, for lack of a resource it asks for with none free
     * ({@link #membersFit} is 0 on each): a scan for room may skip them.
     *
     * @param req a member's request (GPUs aside)
     * @return those nodes (a view valid until the next change or call), or null when {@code req} asks for nothing
     */
    BitSet drainedFor(long[] req) {
        BitSet only = null;
        boolean several = false;
        for (int r = 0; r < req.length && r < width; r++) {
            if (req[r] <= 0 || r == resources.gpu) {
                continue;
            }
            if (only == null) {
                only = drained[r];
            } else {
                if (!several) {
                    drainedScratch.clear();
                    drainedScratch.or(only);
                    several = true;
                }
                drainedScratch.or(drained[r]);
            }
        }
        return several ? drainedScratch : only;
    }

    /** @return true while changes are being recorded for rollback */
    boolean recording() {
        return recording;
    }

    /** Starts recording changes for {@link #rollback()}. */
    public void begin() {
        undoLength = 0;
        recording = true;
    }

    void commit() {
        undoLength = 0;
        recording = false;
    }

    /** @return a savepoint for {@link #rollbackTo(int)} */
    int mark() {
        return undoLength;
    }

    void rollback() {
        rollbackTo(0);
        recording = false;
    }

    /** Undoes every change recorded since the savepoint. */
    void rollbackTo(int mark) {
        int stride = width + 2;
        if (undoScratch == null) {
            undoScratch = new long[width];
        }
        while (undoLength > mark) {
            undoLength -= stride;
            int node = (int) undo[undoLength];
            long mask = undo[undoLength + 1];
            System.arraycopy(undo, undoLength + 2, undoScratch, 0, width);
            change(node, undoScratch, mask, +1, false);
        }
    }

    /**
     * @param node a node index
     * @param req what a member asks for, as a {@link #vector}
     * @param gpuMask the GPUs it would take
     * @return true when the node has {@code req} free (beside its GPUs) and every GPU in {@code gpuMask} free
     */
    public boolean isFree(int node, long[] req, long gpuMask) {
        if ((freeGpuMask[node] & gpuMask) != gpuMask) {
            return false;
        }
        for (int r = 0; r < req.length && r < width; r++) {
            if (r != resources.gpu && req[r] > 0 && free[node * width + r] < req[r]) {
                return false;
            }
        }
        return true;
    }

    /** Takes {@code req} and the GPUs in {@code gpuMask} from the node. */
    public void take(int node, long[] req, long gpuMask) {
        change(node, req, gpuMask, -1, recording);
    }

    /** Gives back {@code req} and the GPUs in {@code gpuMask}. */
    public void give(int node, long[] req, long gpuMask) {
        change(node, req, gpuMask, +1, false);
    }

    private void change(int node, long[] req, long gpuMask, int sign, boolean record) {
        if (record) {
            int stride = width + 2;
            if (undoLength + stride > undo.length) {
                undo = Arrays.copyOf(undo, Math.max(undo.length * 2, undoLength + stride));
            }
            undo[undoLength] = node;
            undo[undoLength + 1] = gpuMask;
            int n = Math.min(req.length, width);
            System.arraycopy(req, 0, undo, undoLength + 2, n);
            Arrays.fill(undo, undoLength + 2 + n, undoLength + stride, 0L);
            undoLength += stride;
        }
        int before = freeGpuCount(node);
        ClusterIndex ci = schedulable[node] ? clusters.get(clusterOf[node]) : null;
        for (int r = 0; r < req.length && r < width; r++) {
            if (r != resources.gpu && req[r] != 0) {
                long f = free[node * width + r] += sign * req[r];
                drained[r].set(node, f <= 0);
                if (ci != null) {
                    for (int l = 0; l < ci.levels.size(); l++) {
                        ci.domainFreeResources[l][ci.domainOf[l][node] * width + r] += sign * req[r];
                    }
                }
            }
        }
        if (sign < 0) {
            freeGpuMask[node] &= ~gpuMask;
        } else {
            freeGpuMask[node] |= gpuMask;
        }
        int after = freeGpuCount(node);
        if (resources.gpu < width) {
            free[node * width + resources.gpu] = after;
        }
        if (before != after && ci != null) {
            ci.freeToWrite(before).clear(node);
            ci.freeToWrite(after).set(node);
            for (int l = 0; l < ci.levels.size(); l++) {
                int d = ci.domainOf[l][node];
                long was = ci.domainFree[l][d];
                long f = ci.domainFree[l][d] += after - before;
                int from = bucket(ci, l, was);
                int to = bucket(ci, l, f);
                if (from != to) {
                    ci.domainsByFree[l][from].clear(d);
                    ci.domainsByFree[l][to].set(d);
                }
                if (resources.gpu < width) {
                    ci.domainFreeResources[l][d * width + resources.gpu] += after - before;
                }
            }
            freeGpus += after - before;
            ci.freeGpus += after - before;
        }
    }

    /**
     * @param free free GPUs
     * @return the power-of-two bucket they fall in: 0 for none, {@code k} for 2^(k-1) up to 2^k - 1
     */
    static int freeBucket(long free) {
        return free <= 0 ? 0 : 64 - Long.numberOfLeadingZeros(free);
    }

    /** @return the bucket of a level's index that holds a domain with {@code free} GPUs free (the last holds all above) */
    static int bucket(ClusterIndex ci, int level, long free) {
        return Math.min(freeBucket(free), ci.domainsByFree[level].length - 1);
    }

    /** @return the largest free GPU count on one schedulable node */
    public int largestFree() {
        int best = 0;
        for (ClusterIndex ci : clusters) {
            for (int k = 64; k > best; k--) {
                if (!ci.byFreeGpus[k].isEmpty()) {
                    best = k;
                    break;
                }
            }
        }
        return best;
    }

    /** @return the number of schedulable nodes */
    public int schedulableCount() {
        int c = 0;
        for (boolean s : schedulable) {
            if (s) {
                c++;
            }
        }
        return c;
    }
}
