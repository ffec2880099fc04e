package io.fairway.core.admission;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import java.util.ArrayList;
import java.util.Arrays;
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
    /**
     * One node of the tree: a ClusterQueue or a cohort. Its figures are arrays indexed by the book's (flavor,
     * resource) ids: the hot path of admission reads them per job and level, and an array read beats a hash lookup
     * per figure. Arrays may be shorter than the number of ids (ids seen after the node was built read as defaults).
     */
    static final class QNode {
        final String name;
        final boolean clusterQueue;
        QNode parent;
        final List<QNode> children = new ArrayList<>();
        boolean[] listed = new boolean[0];
        long[] nominal = new long[0];
        long[] borrowingLimit = new long[0];
        long[] lendingLimit = new long[0];
        long[] subtree = new long[0];
        long[] usage = new long[0];
        /** On a root: how many times the usage of its tree changed (any queue or cohort under it). */
        long changes;

        QNode(String name, boolean clusterQueue) {
            this.name = name;
            this.clusterQueue = clusterQueue;
        }

        void grow(int size) {
            if (listed.length >= size) {
                return;
            }
            int old = listed.length;
            listed = Arrays.copyOf(listed, size);
            nominal = Arrays.copyOf(nominal, size);
            borrowingLimit = Arrays.copyOf(borrowingLimit, size);
            lendingLimit = Arrays.copyOf(lendingLimit, size);
            Arrays.fill(borrowingLimit, old, size, ResourceQuota.UNLIMITED);
            Arrays.fill(lendingLimit, old, size, ResourceQuota.UNLIMITED);
            subtree = Arrays.copyOf(subtree, size);
            usage = Arrays.copyOf(usage, size);
        }

        long nominal(int fr) {
            return fr < nominal.length ? nominal[fr] : 0;
        }

        long borrowingLimit(int fr) {
            return fr < borrowingLimit.length ? borrowingLimit[fr] : ResourceQuota.UNLIMITED;
        }

        long lendingLimit(int fr) {
            return fr < lendingLimit.length ? lendingLimit[fr] : ResourceQuota.UNLIMITED;
        }

        long subtree(int fr) {
            return fr < subtree.length ? subtree[fr] : 0;
        }

        long used(int fr) {
            return fr < usage.length ? usage[fr] : 0;
        }

        long guaranteed(int fr) {
            long ll = lendingLimit(fr);
            return ll == ResourceQuota.UNLIMITED ? 0 : Math.max(0, subtree(fr) - ll);
        }
    }

    private final Map<String, QNode> queues = new TreeMap<>();
    /** The same ClusterQueues for lookups: hashing a name beats ten string comparisons down a TreeMap. */
    private final Map<String, QNode> queueIndex = new HashMap<>();
    private final Map<String, QNode> cohorts = new TreeMap<>();
    /** (flavor, resource) key to its id, and back. */
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> keys = new ArrayList<>();
    /** The same ids by flavor, then resource: two lookups without building the key. */
    private final Map<String, Map<String, Integer>> idsByFlavor = new HashMap<>();

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

    public QuotaBook(Map<String, ClusterQueue> clusterQueues, Map<String, Cohort> cohortSpecs) {
        for (Cohort c : cohortSpecs.values()) {
            cohorts.computeIfAbsent(c.name(), k -> new QNode(k, false));
            register(c.resourceGroups());
        }
        for (ClusterQueue cq : clusterQueues.values()) {
            register(cq.resourceGroups());
        }
        for (Cohort c : cohortSpecs.values()) {
            addLimits(cohorts.get(c.name()), c.resourceGroups());
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

    /**
     * A copy whose usage changes apart from this book's: quotas and limits (fixed once the book is built) are shared,
     * usage is copied. Costs O(queues and cohorts × pairs), not O(jobs charged): the engine keeps one book with every
     * holding job charged and gives each round a copy.
     *
     * @return the copy
     */
    public QuotaBook copy() {
        return new QuotaBook(this);
    }

    private QuotaBook(QuotaBook o) {
        Map<QNode, QNode> copies = new java.util.IdentityHashMap<>();
        o.queues.forEach((name, n) -> queues.put(name, copyOf(n, copies)));
        o.cohorts.forEach((name, n) -> cohorts.put(name, copyOf(n, copies)));
        queueIndex.putAll(queues);
        ids.putAll(o.ids);
        keys.addAll(o.keys);
        o.idsByFlavor.forEach((f, m) -> idsByFlavor.put(f, new HashMap<>(m)));
        tolerated = o.tolerated;
    }

    /** Copies a node and, through {@code copies}, links it to the copies of its parent and children. */
    private static QNode copyOf(QNode n, Map<QNode, QNode> copies) {
        QNode c = copies.get(n);
        if (c != null) {
            return c;
        }
        c = new QNode(n.name, n.clusterQueue);
        copies.put(n, c);
        c.listed = n.listed; // written only while the book is built; grow() replaces rather than writes in place
        c.nominal = n.nominal;
        c.borrowingLimit = n.borrowingLimit;
        c.lendingLimit = n.lendingLimit;
        c.subtree = n.subtree;
        c.usage = n.usage.clone();
        c.changes = n.changes;
        c.parent = n.parent == null ? null : copyOf(n.parent, copies);
        for (QNode child : n.children) {
            c.children.add(copyOf(child, copies));
        }
        return c;
    }

    /**
     * @return every non-zero usage, by {@link OverUse#key} (a ClusterQueue or cohort and a pair), in a stable order:
     *     two books charged with the same jobs under the same configuration list the same
     */
    public Map<String, Long> usage() {
        Map<String, Long> m = new TreeMap<>();
        for (QNode n : allNodes()) {
            for (int i = 0; i < n.usage.length; i++) {
                if (n.usage[i] != 0) {
                    m.put(key(n, i), n.usage[i]);
                }
            }
        }
        return m;
    }

    /** @return how many (flavor, resource) pairs the book has given ids: those of its quotas, and any a charge named */
    public int pairCount() {
        return keys.size();
    }

    private void register(List<ResourceGroup> groups) {
        for (ResourceGroup g : groups) {
            for (FlavorQuotas f : g.flavors()) {
                for (ResourceQuota q : f.resources()) {
                    id(fr(f.flavor(), q.resource()), true);
                }
            }
        }
    }

    /**
     * @param fr a (flavor, resource) key
     * @param create whether to give an unknown key an id
     * @return its id, or -1 when unknown and not created
     */
    int id(String fr, boolean create) {
        Integer i = ids.get(fr);
        if (i != null) {
            return i;
        }
        if (!create) {
            return -1;
        }
        int next = keys.size();
        ids.put(fr, next);
        keys.add(fr);
        int sep = fr.indexOf('\u0000');
        idsByFlavor.computeIfAbsent(fr.substring(0, sep), k -> new HashMap<>()).put(fr.substring(sep + 1), next);
        return next;
    }

    /**
     * @param flavor a flavor name
     * @param resource a resource name
     * @param create whether to give an unknown pair an id
     * @return the pair's id, or -1 when unknown and not created
     */
    int id(String flavor, String resource, boolean create) {
        Map<String, Integer> byResource = idsByFlavor.get(flavor);
        Integer i = byResource == null ? null : byResource.get(resource);
        return i != null ? i : create ? id(fr(flavor, resource), true) : -1;
    }

    /** @return the (flavor, resource) key of an id */
    String key(int id) {
        return keys.get(id);
    }

    /** A cohort named but not defined exists implicitly, without quota of its own (as in Kueue). */
    private QNode cohort(String name) {
        return cohorts.computeIfAbsent(name, k -> new QNode(k, false));
    }

    private static void link(QNode child, QNode parent) {
        child.parent = parent;
        parent.children.add(child);
    }

    private void addLimits(QNode n, List<ResourceGroup> groups) {
        n.grow(keys.size());
        for (ResourceGroup g : groups) {
            for (FlavorQuotas f : g.flavors()) {
                for (ResourceQuota q : f.resources()) {
                    int i = id(fr(f.flavor(), q.resource()), true);
                    n.listed[i] = true;
                    n.nominal[i] = q.nominal();
                    n.borrowingLimit[i] = q.borrowingLimit();
                    n.lendingLimit[i] = q.lendingLimit();
                }
            }
        }
    }

    private void computeSubtree(QNode n) {
        n.grow(keys.size());
        long[] s = new long[keys.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = n.listed[i] ? n.nominal[i] : 0;
        }
        for (QNode c : n.children) {
            computeSubtree(c);
            for (int i = 0; i < s.length; i++) {
                s[i] += c.subtree(i) - c.guaranteed(i);
            }
        }
        n.subtree = s;
    }

    public boolean hasQueue(String cq) {
        return queueIndex.containsKey(cq);
    }

    /** @return the ClusterQueue's node, or null */
    QNode queue(String cq) {
        return queueIndex.get(cq);
    }

    /** @return what the node may still use of {@code fr}, borrowing included */
    public long available(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        int i = id(fr, false);
        return n == null || i < 0 ? 0 : available(n, i);
    }

    /** @return what the node may still use of the pair with id {@code fr}, borrowing included */
    static long available(QNode n, int fr) {
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

    /**
     * Which limit keeps a ClusterQueue from getting {@code want} of the pair with id {@code fr}, when its own
     * unused quota is not enough: its own borrowing limit, a lender's lending limit (quota that sits unused in
     * the cohort but is held back), or the cohort's total (everything lendable is in use). Meant for pending
     * reasons, off the hot path.
     *
     * @param n the ClusterQueue's node
     * @param fr the pair's id
     * @param want what the ClusterQueue needs of it in all
     * @param resource the resource's name, for the numbers' units
     * @param details filled with the numbers behind the sentence
     * @return a clause naming the binding limit with its numbers, starting with ", " or "; " (empty without a cohort)
     */
    String bindingLimit(QNode n, int fr, long want, String resource, Map<String, Long> details) {
        if (n.parent == null) {
            return "";
        }
        QNode p = n.parent;
        long g = n.guaranteed(fr);
        long local = Math.max(0, g - n.used(fr));
        long parentAvailable = available(p, fr);
        long bl = n.borrowingLimit(fr);
        long fromParentCap = Long.MAX_VALUE;
        if (bl != ResourceQuota.UNLIMITED) {
            fromParentCap = Math.max(0, n.subtree(fr) - g - Math.max(0, n.used(fr) - g) + bl);
        }
        // The ClusterQueue's own unused quota that it placed in the cohort's pool (all of it, without a lending limit).
        long ownInParent = Math.max(0, n.subtree(fr) - g - Math.max(0, n.used(fr) - g));
        String cohort = "cohort " + p.name;
        if (fromParentCap < parentAvailable && local + fromParentCap < want) {
            long borrowed = Math.max(0, n.used(fr) - n.nominal(fr));
            long others = Math.max(0, parentAvailable - ownInParent);
            details.put("borrowingLimit", bl);
            details.put("borrowed", borrowed);
            details.put("cohortLends", Math.max(0, fromParentCap - ownInParent));
            details.put("cohortFree", others);
            return "; its own borrowingLimit binds: it borrows " + fmt(resource, borrowed) + " of at most " + fmt(resource, bl)
                    + ", although " + cohort + " could lend " + fmt(resource, others);
        }
        long lends = Math.max(0, Math.min(fromParentCap, parentAvailable) - ownInParent);
        details.put("cohortLends", lends);
        // Quota the cohort's other members hold back by their lending limits while they do not use it.
        List<QNode> lenders = new ArrayList<>();
        long withheld = 0;
        for (QNode s : p.children) {
            if (s != n) {
                long held = Math.max(0, s.guaranteed(fr) - s.used(fr));
                if (held > 0) {
                    lenders.add(s);
                    withheld += held;
                }
            }
        }
        if (withheld > 0 && local + Math.min(fromParentCap, parentAvailable + withheld) >= want) {
            lenders.sort((a, b) -> Long.compare(Math.max(0, b.guaranteed(fr) - b.used(fr)), Math.max(0, a.guaranteed(fr) - a.used(fr))));
            StringBuilder sb = new StringBuilder(", ").append(cohort).append(" lends ").append(fmt(resource, lends))
                    .append(" because a lender's lendingLimit binds: ");
            int shown = Math.min(3, lenders.size());
            for (int k = 0; k < shown; k++) {
                QNode s = lenders.get(k);
                if (k > 0) {
                    sb.append("; ");
                }
                sb.append(s.clusterQueue ? "ClusterQueue " : "cohort ").append(s.name).append(" lends at most ")
                        .append(fmt(resource, s.lendingLimit(fr))).append(" of its ").append(fmt(resource, s.subtree(fr)))
                        .append(" and holds back ").append(fmt(resource, Math.max(0, s.guaranteed(fr) - s.used(fr)))).append(" unused");
            }
            if (lenders.size() > shown) {
                sb.append("; and ").append(lenders.size() - shown).append(" more");
            }
            details.put("lendingLimit", lenders.get(0).lendingLimit(fr));
            details.put("heldBack", withheld);
            return sb.toString();
        }
        long total = p.subtree(fr);
        long inUse = p.used(fr);
        details.put("cohortQuota", total);
        details.put("cohortUsed", inUse);
        return ", " + cohort + " lends " + fmt(resource, lends) + ": the cohort's total binds (" + fmt(resource, inUse) + " of its "
                + fmt(resource, total) + " in use)";
    }

    private static String fmt(String resource, long amount) {
        return io.fairway.api.model.Quantities.format(resource, amount);
    }

    /** @return the ClusterQueue's nominal quota of {@code fr} */
    public long nominal(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        int i = id(fr, false);
        return n == null || i < 0 ? 0 : n.nominal(i);
    }

    /** @return the ClusterQueue's usage of {@code fr} */
    public long used(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        int i = id(fr, false);
        return n == null || i < 0 ? 0 : n.used(i);
    }

    /**
     * @param cq a ClusterQueue
     * @param frs (flavor, resource) keys
     * @return true when the ClusterQueue uses more than its nominal quota of one of them (false for a queue or pair
     *     the book does not know)
     */
    public boolean usedAboveNominal(String cq, java.util.Collection<String> frs) {
        QNode n = queueIndex.get(cq);
        if (n == null) {
            return false;
        }
        for (String fr : frs) {
            int i = id(fr, false);
            if (i >= 0 && n.used(i) > n.nominal(i)) {
                return true;
            }
        }
        return false;
    }

    /** @return true when the queue lists the (flavor, resource) pair */
    boolean covers(String cq, String fr) {
        QNode n = queueIndex.get(cq);
        int i = id(fr, false);
        return n != null && i >= 0 && i < n.listed.length && n.listed[i];
    }

    /** Adds (or with a negative delta, removes) usage, propagating to the cohorts above. */
    public void add(String cq, String fr, long delta) {
        QNode n = queueIndex.get(cq);
        if (n == null || delta == 0) {
            return;
        }
        touch(n);
        addTo(n, id(fr, true), delta);
    }

    /** Adds (or with a negative delta, removes) usage of the pair with id {@code fr}, propagating to the cohorts above. */
    void add(QNode n, int fr, long delta) {
        if (delta != 0) {
            touch(n);
            addTo(n, fr, delta);
        }
    }

    private static void touch(QNode n) {
        QNode r = n;
        while (r.parent != null) {
            r = r.parent;
        }
        r.changes++;
    }

    /**
     * How many times the usage of a ClusterQueue's cohort tree (its root cohort and everything under it, or the queue
     * alone when it has no cohort) has changed since {@link #resetTreeChanges()} (or since the book was made): two
     * equal counts mean nothing in the tree changed between them (a change undone still counts).
     *
     * @param cq a ClusterQueue
     * @return the count, or -1 for a queue the book does not know
     */
    public long treeChanges(String cq) {
        QNode n = queueIndex.get(cq);
        if (n == null) {
            return -1;
        }
        while (n.parent != null) {
            n = n.parent;
        }
        return n.changes;
    }

    /**
     * The cohort tree a ClusterQueue belongs to, as an identity: its root cohort, or the queue itself when it has no
     * cohort. Two queues of one tree give the same object.
     *
     * @param cq a ClusterQueue
     * @return the tree, or null for a queue the book does not know
     */
    public Object treeOf(String cq) {
        QNode n = queueIndex.get(cq);
        while (n != null && n.parent != null) {
            n = n.parent;
        }
        return n;
    }

    /** Counts {@link #treeChanges} from zero again, for every tree. */
    public void resetTreeChanges() {
        for (QNode n : queues.values()) {
            n.changes = 0;
        }
        for (QNode n : cohorts.values()) {
            n.changes = 0;
        }
    }

    private void addTo(QNode n, int fr, long delta) {
        if (fr >= n.usage.length) {
            n.grow(keys.size());
        }
        long g = n.guaranteed(fr);
        long before = n.usage[fr];
        long after = before + delta;
        n.usage[fr] = after;
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
    public double dominantShare(String cq, io.fairway.api.model.ClusterQueue spec) {
        QNode n = queueIndex.get(cq);
        if (n == null || n.parent == null) {
            return 0;
        }
        double share = 0;
        for (int i = 0; i < n.usage.length; i++) {
            long above = n.usage[i] - n.nominal(i);
            if (above <= 0) {
                continue;
            }
            long lendable = Math.max(1, n.parent.subtree(i));
            share = Math.max(share, (double) above / lendable);
        }
        return share / (spec == null ? 1.0 : spec.fairSharingWeight());
    }

    /** @return usage of every resource summed over flavors */
    public long usedResource(String cq, String resource) {
        QNode n = queueIndex.get(cq);
        if (n == null) {
            return 0;
        }
        long s = 0;
        for (int i = 0; i < n.usage.length; i++) {
            if (n.usage[i] != 0 && namesResource(keys.get(i), resource)) {
                s += n.usage[i];
            }
        }
        return s;
    }

    /** @return whether a (flavor, resource) key is of this resource (read in place: a fair-share walk asks per job) */
    private static boolean namesResource(String key, String resource) {
        int sep = key.length() - resource.length() - 1;
        return sep >= 0 && key.charAt(sep) == '\u0000' && key.endsWith(resource);
    }

    /**
     * A node of the tree using more of a (flavor, resource) than its limit: what a configuration change (a lowered
     * quota or limit, a lender gone, a queue moved) or a restored state left running above it.
     *
     * @param key names the node and the pair ({@code "ClusterQueue team-a default/nvidia.com/gpu"}), the key of
     *     {@link #tolerate}
     * @param used its usage
     * @param limit its limit: nominal plus what it may borrow
     */
    public record OverUse(String key, long used, long limit) {
    }

    /** Over-use allowed, by {@link OverUse#key}: running work a configuration change left above a limit. */
    private Map<String, Long> tolerated = Map.of();

    /** @return the usage limit of a node for the pair with id {@code i}: nominal plus what it may borrow */
    private static long limit(QNode n, int i) {
        long bl = n.borrowingLimit(i);
        return n.parent == null ? n.subtree(i) : bl == ResourceQuota.UNLIMITED ? Long.MAX_VALUE : n.subtree(i) + bl;
    }

    private String key(QNode n, int i) {
        return (n.clusterQueue ? "ClusterQueue " : "cohort ") + n.name + " " + keys.get(i).replace('\u0000', '/');
    }

    /** @return every node and pair whose usage is above its limit, in a stable order */
    public List<OverUse> overLimits() {
        List<OverUse> out = new ArrayList<>();
        for (QNode n : allNodes()) {
            for (int i = 0; i < n.usage.length; i++) {
                long max = limit(n, i);
                if (n.usage[i] > max) {
                    out.add(new OverUse(key(n, i), n.usage[i], max));
                }
            }
        }
        return out;
    }

    /**
     * Allows usage above a limit up to a ceiling: running work a configuration change or a restore left there
     * keeps running, and {@link #violation()} reports only usage above both the limit and the ceiling.
     *
     * @param ceilings the allowed usage by {@link OverUse#key}
     */
    public void tolerate(Map<String, Long> ceilings) {
        tolerated = Map.copyOf(ceilings);
    }

    /** Allows the usage charged so far where it is above a limit (a round's starting point: it may not grow). */
    public void tolerateCurrentOverUse() {
        Map<String, Long> m = new HashMap<>();
        for (OverUse o : overLimits()) {
            m.put(o.key(), o.used());
        }
        tolerated = m;
    }

    /**
     * Every node's usage, for checking the invariant "usage never above nominal plus what may be borrowed":
     * a ClusterQueue's usage of {@code fr} is at most its subtree quota plus its borrowing limit, and a root's at
     * most its subtree quota — or, where running work was left above that ({@link #tolerate}), at most that usage.
     *
     * @return a description of the first violation, or null
     */
    public String violation() {
        for (QNode n : allNodes()) {
            for (int i = 0; i < n.usage.length; i++) {
                long u = n.usage[i];
                long max = limit(n, i);
                if (u > max) {
                    Long allowed = tolerated.isEmpty() ? null : tolerated.get(key(n, i));
                    if (allowed != null && u <= allowed) {
                        continue;
                    }
                    return (n.clusterQueue ? "ClusterQueue " : "cohort ") + n.name + " uses " + u + " of "
                            + keys.get(i).replace('\u0000', '/') + ", more than its limit " + max
                            + (allowed == null ? "" : " and than the " + allowed + " allowed for running work left above it");
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
