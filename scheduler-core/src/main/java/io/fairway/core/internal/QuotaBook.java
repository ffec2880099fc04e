package io.fairway.core.internal;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Quota usage over the tree of cohorts and ClusterQueues, per (flavor, resource), with Kueue's hierarchical
 * semantics:
 * <ul>
 *   <li>a node's subtree quota is its own nominal quota plus what each child can lend
 *       (child subtree quota minus the child's guaranteed part);</li>
 *   <li>the guaranteed part of a node is {@code subtreeQuota - lendingLimit} when a lending limit is set
 *       (others can never borrow it), else 0;</li>
 *   <li>a parent sees of a child's usage only what exceeds the child's guaranteed part;</li>
 *   <li>what a node may still use is its unused guaranteed part plus what its parent has available, capped
 *       by its borrowing limit.</li>
 * </ul>
 */
public final class QuotaBook {
    /** One node of the tree: a ClusterQueue or a cohort. */
    static final class QNode {
        final String name;
        final boolean clusterQueue;
        QNode parent;
        final List<QNode> children = new ArrayList<>();
        final Map<String, long[]> limits = new HashMap<>(); // fr -> {nominal, borrowingLimit, lendingLimit}
        final Map<String, Long> subtree = new HashMap<>();
        final Map<String, Long> usage = new HashMap<>();

        QNode(String name, boolean clusterQueue) {
            this.name = name;
            this.clusterQueue = clusterQueue;
        }

        long nominal(String fr) {
            long[] l = limits.get(fr);
            return l == null ? 0 : l[0];
        }

        long borrowingLimit(String fr) {
            long[] l = limits.get(fr);
            return l == null ? ResourceQuota.UNLIMITED : l[1];
        }

        long lendingLimit(String fr) {
            long[] l = limits.get(fr);
            return l == null ? ResourceQuota.UNLIMITED : l[2];
        }

        long subtree(String fr) {
            return subtree.getOrDefault(fr, 0L);
        }

        long used(String fr) {
            return usage.getOrDefault(fr, 0L);
        }

        long guaranteed(String fr) {
            long ll = lendingLimit(fr);
            return ll == ResourceQuota.UNLIMITED ? 0 : Math.max(0, subtree(fr) - ll);
        }
    }

    private final Map<String, QNode> queues = new TreeMap<>();
    /** The same ClusterQueues for lookups: hashing a name beats ten string comparisons down a TreeMap. */
    private final Map<String, QNode> queueIndex = new HashMap<>();
    private final Map<String, QNode> cohorts = new TreeMap<>();

    /** @return the key of a (flavor, resource) pair */
    public static String fr(String flavor, String resource) {
        Map<String, String> byResource = FR.get(flavor);
        String key = byResource == null ? null : byResource.get(resource);
        if (key != null) {
            return key;
        }
        key = flavor + '\u0000' + resource;
        if (FR.size() < FR_CACHE_LIMIT) {
            FR.computeIfAbsent(flavor, k -> new java.util.concurrent.ConcurrentHashMap<>()).putIfAbsent(resource, key);
        }
        return key;
    }

    /**
     * (flavor, resource) keys built once and shared: the hot paths of a round look them up per job, and a shared
     * key also keeps its hash code. Flavors are few; the limit only guards against unbounded growth.
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.ConcurrentHashMap<String, String>> FR =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int FR_CACHE_LIMIT = 1_000;

    QuotaBook(Map<String, ClusterQueue> clusterQueues, Map<String, Cohort> cohortSpecs) {
        for (Cohort c : cohortSpecs.values()) {
            QNode n = cohorts.computeIfAbsent(c.name(), k -> new QNode(k, false));
            addLimits(n, c.resourceGroups());
        }
        for (Cohort c : cohortSpecs.values()) {
            if (c.parent() != null) {
                link(cohorts.get(c.name()), cohort(c.parent()));
            }
        }
        for (ClusterQueue cq : clusterQueues.values()) {
            QNode n = new QNode(cq.name(), true);
            addLimits(n, cq.resourceGroups());
            queues.put(cq.name(), n);
            queueIndex.put(cq.name(), n);
            if (cq.cohort() != null) {
                link(n, cohort(cq.cohort()));
            }
        }
        for (QNode root : new ArrayList<>(cohorts.values())) {
            if (root.parent == null) {
                computeSubtree(root);
            }
        }
        for (QNode q : queues.values()) {
            if (q.parent == null) {
                computeSubtree(q);
            }
        }
    }

    /** A cohort named but not defined exists implicitly, without quota of its own (as in Kueue). */
    private QNode cohort(String name) {
        return cohorts.computeIfAbsent(name, k -> new QNode(k, false));
    }

    private static void link(QNode child, QNode parent) {
        child.parent = parent;
        parent.children.add(child);
    }

    private static void addLimits(QNode n, List<ResourceGroup> groups) {
        for (ResourceGroup g : groups) {
            for (FlavorQuotas f : g.flavors()) {
                for (ResourceQuota q : f.resources()) {
                    n.limits.put(fr(f.flavor(), q.resource()), new long[] {q.nominal(), q.borrowingLimit(), q.lendingLimit()});
                }
            }
        }
    }

    private void computeSubtree(QNode n) {
        Map<String, Long> s = new HashMap<>();
        n.limits.forEach((fr, l) -> s.merge(fr, l[0], Long::sum));
        for (QNode c : n.children) {
            computeSubtree(c);
            for (Map.Entry<String, Long> e : c.subtree.entrySet()) {
                long lend = e.getValue() - c.guaranteed(e.getKey());
                s.merge(e.getKey(), lend, Long::sum);
            }
        }
        n.subtree.clear();
        n.subtree.putAll(s);
    }

    boolean hasQueue(String cq) {
        return queueIndex.containsKey(cq);
    }

    /** @return what the node may still use of {@code fr}, borrowing included */
    long available(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        return n == null ? 0 : available(n, fr);
    }

    private long available(QNode n, String fr) {
        if (n.parent == null) {
            return n.subtree(fr) - n.used(fr);
        }
        long g = n.guaranteed(fr);
        long localAvailable = Math.max(0, g - n.used(fr));
        long parentAvailable = available(n.parent, fr);
        long bl = n.borrowingLimit(fr);
        if (bl != ResourceQuota.UNLIMITED) {
            long storedInParent = n.subtree(fr) - g;
            long usedInParent = Math.max(0, n.used(fr) - g);
            long withMaxFromParent = storedInParent - usedInParent + bl;
            parentAvailable = Math.min(withMaxFromParent, parentAvailable);
        }
        return localAvailable + parentAvailable;
    }

    /** @return the ClusterQueue's nominal quota of {@code fr} */
    long nominal(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        return n == null ? 0 : n.nominal(fr);
    }

    /** @return the ClusterQueue's usage of {@code fr} */
    long used(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        return n == null ? 0 : n.used(fr);
    }

    /** @return true when the queue lists the (flavor, resource) pair */
    boolean covers(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        return n != null && n.limits.containsKey(fr);
    }

    /** Adds (or with a negative delta, removes) usage, propagating to the cohorts above. */
    void add(String cq, String fr, long delta) {
        QNode n = queueIndex.get(cq);
        if (n == null || delta == 0) {
            return;
        }
        addTo(n, fr, delta);
    }

    private static void addTo(QNode n, String fr, long delta) {
        long g = n.guaranteed(fr);
        long before = n.used(fr);
        long after = before + delta;
        n.usage.put(fr, after);
        if (n.parent != null) {
            long d = Math.max(0, after - g) - Math.max(0, before - g);
            if (d != 0) {
                addTo(n.parent, fr, d);
            }
        }
    }

    /**
     * Kueue-style dominant resource share: for each (flavor, resource), usage above nominal divided by what
     * the cohort could lend of it; the maximum over pairs, divided by the fair-sharing weight.
     */
    double dominantShare(String cq, io.fairway.api.model.ClusterQueue spec) {
        QNode n = queueIndex.get(cq);
        if (n == null || n.parent == null) {
            return 0;
        }
        double share = 0;
        for (Map.Entry<String, Long> e : n.usage.entrySet()) {
            long above = e.getValue() - n.nominal(e.getKey());
            if (above <= 0) {
                continue;
            }
            long lendable = Math.max(1, n.parent.subtree(e.getKey()));
            share = Math.max(share, (double) above / lendable);
        }
        return share / (spec == null ? 1.0 : spec.fairSharingWeight());
    }

    /** @return usage of every resource summed over flavors */
    long usedResource(String cq, String resource) {
        QNode n = queueIndex.get(cq);
        if (n == null) {
            return 0;
        }
        long s = 0;
        for (Map.Entry<String, Long> e : n.usage.entrySet()) {
            if (e.getKey().endsWith('\u0000' + resource)) {
                s += e.getValue();
            }
        }
        return s;
    }

    /**
     * Every node's usage, for checking the invariant "usage never above nominal plus what may be borrowed":
     * a ClusterQueue's usage of {@code fr} is at most its subtree quota plus its borrowing limit, and a root's at
     * most its subtree quota.
     *
     * @return a description of the first violation, or null
     */
    String violation() {
        for (QNode n : allNodes()) {
            for (Map.Entry<String, Long> e : n.usage.entrySet()) {
                String fr = e.getKey();
                long u = e.getValue();
                long bl = n.borrowingLimit(fr);
                long max = n.parent == null ? n.subtree(fr)
                        : bl == ResourceQuota.UNLIMITED ? Long.MAX_VALUE : n.subtree(fr) + bl;
                if (u > max) {
                    return (n.clusterQueue ? "ClusterQueue " : "cohort ") + n.name + " uses " + u + " of "
                            + fr.replace('\u0000', '/') + ", more than its limit " + max;
                }
            }
        }
        return null;
    }

    private List<QNode> allNodes() {
        List<QNode> l = new ArrayList<>(queues.values());
        l.addAll(cohorts.values());
        return l;
    }
}
