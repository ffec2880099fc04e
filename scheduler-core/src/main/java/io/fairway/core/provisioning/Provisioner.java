package io.fairway.core.provisioning;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Provision;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.Assignment;
import io.fairway.core.admission.QueueResolver;
import io.fairway.core.plan.PlanOutput;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Step 4 of the round: nodes for admitted-under-quota gangs that fit nowhere, as Karpenter does. For each
 * pending job whose quota fits but whose gang has no room (in submission order), quota is reserved and the
 * cheapest instance type of a matching pool that holds the whole gang is requested, within the pool's limits.
 * Jobs whose quota does not fit are never provisioned for (suspended jobs must not scale the cluster).
 *
 * <p>A node request whose jobs no longer wait for it (they finished, were cancelled, or were placed elsewhere)
 * is handed to the next pending gang it holds, before any new node is requested; a request nobody takes is left
 * with no jobs, so it no longer holds up consolidation, and its nodes are removed once empty like any other.
 *
 * <p>Consolidation: pool nodes empty for longer than their pool's consolidation delay are removed; in pools that
 * consolidate {@link NodePool.Consolidation#WHEN_UNDERUTILIZED when under-used}, so is a node whose jobs all
 * checkpoint and fit on the other nodes (see {@link Consolidator}).
 *
 * <p>Cost: which instance types a pod-set constraint (selector, tolerations, flavor) allows is worked out once per
 * constraint; per job, the nodes each allowed type needs are plain arithmetic over arrays, and the cheapest type
 * within its pool's limits wins (fewer nodes on a tie).
 */
public final class Provisioner {
    /**
     * What the step decided.
     *
     * @param provisions new node requests, as decisions
     * @param deprovisions nodes to remove
     * @param reservations quota reserved for jobs waiting for nodes, by job
     * @param requests new node requests, and existing ones whose jobs changed (same id: they replace the old)
     * @param reasons new pending reasons
     * @param migrations jobs moved off a node being consolidated: a {@link Preempt} (migration, checkpoint expected) for each,
     *     then its {@link Admit} on other nodes
     */
    public record Outcome(List<Provision> provisions, List<Deprovision> deprovisions, Map<String, Provisioning.Reservation> reservations,
                          List<Provisioning.Request> requests, Map<String, PendingReason> reasons, List<Decision> migrations) {
        /** Without migrations. */
        public Outcome(List<Provision> provisions, List<Deprovision> deprovisions, Map<String, Provisioning.Reservation> reservations,
                       List<Provisioning.Request> requests, Map<String, PendingReason> reasons) {
            this(provisions, deprovisions, reservations, requests, reasons, List.of());
        }
    }

    private Provisioner() {
    }

    /** A pool, with its limits as arrays (only limited resources are tracked). */
    private static final class PoolState {
        final NodePool pool;
        final String[] limitNames;
        final long[] limit;
        final long[] use;

        PoolState(NodePool pool, Resources use) {
            this.pool = pool;
            Map<String, Long> l = pool.limits().asMap();
            limitNames = l.keySet().toArray(new String[0]);
            limit = new long[limitNames.length];
            this.use = new long[limitNames.length];
            for (int i = 0; i < limitNames.length; i++) {
                limit[i] = l.get(limitNames[i]);
                this.use[i] = use == null ? 0 : use.get(limitNames[i]);
            }
        }
    }

    /** One instance type of one pool, with what is derived from it computed once. */
    private static final class Offer {
        final PoolState pool;
        final InstanceType type;
        final Resources total;
        final Node sample;
        /** What one node adds to each of the pool's limited resources. */
        final long[] perNode;

        Offer(PoolState pool, InstanceType type) {
            this.pool = pool;
            this.type = type;
            this.total = type.totalCapacity();
            this.sample = pool.pool.nodeOf(type, "probe");
            perNode = new long[pool.limitNames.length];
            for (int i = 0; i < perNode.length; i++) {
                perNode[i] = total.get(pool.limitNames[i]);
            }
        }

        /** Original rule: the pool's capacity after adding {@code nodes} stays within every limit. */
        boolean withinLimits(int nodes) {
            for (int i = 0; i < perNode.length; i++) {
                if (pool.use[i] + perNode[i] * nodes > pool.limit[i]) {
                    return false;
                }
            }
            return true;
        }

        void add(int nodes) {
            for (int i = 0; i < perNode.length; i++) {
                pool.use[i] += perNode[i] * nodes;
            }
        }
    }

    /** The offers, and which of them each pod-set constraint (selector, tolerations, flavor) allows, computed once per constraint. */
    private static final class Offers {
        final List<Offer> list = new ArrayList<>();
        final Map<String, Offer> byName = new HashMap<>();
        final Map<List<Object>, boolean[]> allowed = new HashMap<>();
        final Map<String, ResourceFlavor> flavorSpecs;
        /** Per resource name, each offer's capacity of it. */
        final Map<String, long[]> capacity = new HashMap<>();

        long[] capacity(String resource) {
            return capacity.computeIfAbsent(resource, k -> {
                long[] c = new long[list.size()];
                for (int i = 0; i < c.length; i++) {
                    c[i] = list.get(i).sample.capacity().get(k);
                }
                return c;
            });
        }

        Offers(Map<String, ResourceFlavor> flavorSpecs) {
            this.flavorSpecs = flavorSpecs;
        }

        boolean[] allowed(PodSet ps, String flavor) {
            return allowed.computeIfAbsent(List.of(ps.nodeSelector(), ps.tolerations(), ps.affinity(), String.valueOf(flavor)), k -> {
                boolean[] ok = new boolean[list.size()];
                for (int i = 0; i < ok.length; i++) {
                    ok[i] = matches(ps, flavor, flavorSpecs, list.get(i).sample);
                }
                return ok;
            });
        }

        /** Reused by {@link #nodes}: per offer, the nodes it takes to hold the gang under consideration. */
        private int[] nodesBuffer;

        /**
         * Computed per job, not cached by shape: 50 offers by a few resources is a few hundred divisions, cheaper
         * than hashing a gang's shape (and gangs rarely share one exactly).
         *
         * @return per offer, the nodes it takes to hold the gang (0: a member fits none); valid until the next call
         */
        int[] nodes(JobStatus j, Map<String, Integer> counts, Map<String, String> flavors) {
            if (nodesBuffer == null) {
                nodesBuffer = new int[list.size()];
            }
            int[] total = nodesBuffer;
            Arrays.fill(total, 0);
            boolean first = true;
            for (PodSet ps : j.spec().podSets()) {
                boolean[] ok = allowed(ps, flavorsKey(flavors, ps.name()));
                Resources req = ps.resources();
                int nr = 0;
                long[][] caps = new long[req.size()][];
                long[] amounts = new long[req.size()];
                for (int i = 0; i < req.size(); i++) {
                    if (req.amount(i) > 0) { // pod sets refuse zero requests; kept safe for division all the same
                        caps[nr] = capacity(req.name(i));
                        amounts[nr++] = req.amount(i);
                    }
                }
                long m = counts.getOrDefault(ps.name(), ps.count());
                boolean oneNode = oneNode(ps);
                for (int o = 0; o < total.length; o++) {
                    if (!first && total[o] == 0) {
                        continue;
                    }
                    if (!ok[o]) {
                        total[o] = 0;
                        continue;
                    }
                    long perNode = Long.MAX_VALUE;
                    for (int i = 0; i < nr && perNode > 0; i++) {
                        perNode = Math.min(perNode, caps[i][o] / amounts[i]);
                    }
                    total[o] = perNode <= 0 || (oneNode && perNode < m) ? 0 : total[o] + (int) ((m + perNode - 1) / perNode);
                }
                first = false;
            }
            return total;
        }
    }

    /** A node request no job waits for any more, and how many of its nodes are still to come and untaken. */
    private static final class Spare {
        final Provisioning.Request request;
        final Offer offer;
        int nodesLeft;
        final List<String> jobs = new ArrayList<>();

        Spare(Provisioning.Request request, Offer offer) {
            this.request = request;
            this.offer = offer;
            this.nodesLeft = request.count() - request.arrived();
        }
    }

    /**
     * @param snapshot the round's input
     * @param plan the plan's output (its quota includes the plan's admissions and current reservations; the quota
     *     reserved here is charged to it)
     * @param reasons the pending reasons the plan produced
     * @param nextRequestId the id for the first new request
     * @return the node requests, reservations and removals
     */
    public static Outcome run(Snapshot snapshot, PlanOutput plan, Map<String, PendingReason> reasons, long nextRequestId) {
        Provisioning prov = snapshot.provisioning();
        if (prov.pools().isEmpty()) {
            return new Outcome(new ArrayList<>(), new ArrayList<>(), new LinkedHashMap<>(), new ArrayList<>(), new LinkedHashMap<>());
        }
        Outcome out = new Outcome(new ArrayList<>(), new ArrayList<>(), new LinkedHashMap<>(), new ArrayList<>(), new LinkedHashMap<>(),
                new ArrayList<>());
        Offers offers = offers(snapshot, prov);
        Set<String> admitted = new HashSet<>();
        for (Admit a : plan.admissions()) {
            admitted.add(a.jobId());
        }
        List<Spare> spares = spares(prov, admitted, offers.byName);
        provisionPending(snapshot, plan, reasons, admitted, spares, offers, nextRequestId, out);
        Set<String> waitedOn = poolsWaitedOn(prov, admitted, spares, out.requests());
        // consolidation: empty pool nodes past their delay, unless a request is still waiting on their pool
        Set<String> usedNow = new HashSet<>();
        for (Admit a : plan.admissions()) {
            usedNow.addAll(a.placement().nodes());
        }
        removeEmptyNodes(snapshot, usedNow, waitedOn, out.deprovisions());
        if (out.provisions().isEmpty() && out.reservations().isEmpty() && prov.reservations().isEmpty()) {
            // under-used nodes, only while no job waits for new nodes: consolidating while scaling up would undo itself
            Set<String> leaving = new HashSet<>();
            out.deprovisions().forEach(d -> leaving.add(d.node()));
            Consolidator.Result c = Consolidator.run(snapshot, plan, waitedOn, usedNow, leaving);
            out.deprovisions().addAll(c.deprovisions());
            out.migrations().addAll(c.migrations());
        }
        return out;
    }

    /** Every instance type of every pool, as an offer with the pool's current use. */
    private static Offers offers(Snapshot snapshot, Provisioning prov) {
        Map<String, Resources> poolUse = poolUsage(snapshot, prov);
        Offers offers = new Offers(snapshot.flavors());
        for (NodePool pool : prov.pools().values()) {
            PoolState ps = new PoolState(pool, poolUse.get(pool.name()));
            for (InstanceType t : pool.instanceTypes()) {
                Offer o = new Offer(ps, t);
                offers.list.add(o);
                offers.byName.put(pool.name() + '\u0000' + t.name(), o);
            }
        }
        return offers;
    }

    /**
     * For each pending job that waits for capacity and whose quota fits: reserves its quota (charged to the plan's) and
     * hands it a spare node request, or asks for the cheapest nodes that hold it; its new reason says which.
     */
    private static void provisionPending(Snapshot snapshot, PlanOutput plan, Map<String, PendingReason> reasons, Set<String> admitted,
                                         List<Spare> spares, Offers offers, long nextRequestId, Outcome out) {
        Provisioning prov = snapshot.provisioning();
        QueueResolver queues = new QueueResolver(snapshot);
        List<Provision> provisions = out.provisions();
        Map<String, Provisioning.Reservation> nodeReservations = out.reservations();
        List<Provisioning.Request> requests = out.requests();
        Map<String, PendingReason> newReasons = out.reasons();
        long id = nextRequestId;
        for (JobStatus j : snapshot.pending()) {
            if (admitted.contains(j.id()) || prov.reservations().containsKey(j.id())) {
                continue;
            }
            PendingReason r = reasons.getOrDefault(j.id(), j.pendingReason());
            if (r == null || !(r.code() == PendingReason.Code.INSUFFICIENT_CAPACITY || r.code() == PendingReason.Code.NO_FITTING_TOPOLOGY
                    || r.code() == PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN)) {
                continue;
            }
            String cqName = queues.resolve(j); // its own LocalQueue's: jobs waiting for nodes were passed over
            if (cqName == null) {
                continue;
            }
            ClusterQueue cq = snapshot.clusterQueues().get(cqName);
            Map<String, Integer> counts = Assignment.fullCounts(j.spec());
            Assignment.Result ar = Assignment.assign(cq, snapshot.flavors(), plan.quota(), j.spec(), counts);
            if (ar.reason() != null) {
                newReasons.put(j.id(), ar.reason()); // quota does not fit (once earlier jobs reserved theirs): never provision for it
                continue;
            }
            Assignment.Choice choice = ar.choices().get(0);
            Spare spare = spareFor(j, counts, choice.flavors(), snapshot.flavors(), spares);
            if (spare != null) {
                int nodes = nodesFor(j, counts, choice.flavors(), snapshot.flavors(), spare.offer.sample);
                spare.nodesLeft -= nodes;
                spare.jobs.add(j.id());
                choice.charge(plan.quota(), cqName, 1);
                nodeReservations.put(j.id(), new Provisioning.Reservation(j.id(), cqName, choice.flavors(), counts, spare.request.id(), snapshot.nowMillis()));
                newReasons.put(j.id(), new PendingReason(PendingReason.Code.WAITING_FOR_NODES, "quota reserved in ClusterQueue " + cqName
                        + "; waiting for " + nodes + " node(s) of " + spare.offer.type.name() + " from pool " + spare.offer.pool.pool.name()
                        + " (node request " + spare.request.id() + ", whose jobs no longer need it)",
                        Map.of("nodes", (long) nodes, "provisioningDelayMillis", spare.offer.pool.pool.provisioningDelayMillis())));
                continue;
            }
            int[] nodesPer = offers.nodes(j, counts, choice.flavors());
            int o = cheapestOffer(offers, nodesPer);
            if (o < 0) {
                newReasons.put(j.id(), PendingReason.of(r.code(), r.message() + "; no node pool has an instance type that holds it within its limits"));
                continue;
            }
            Offer best = offers.list.get(o);
            int bestNodes = nodesPer[o];
            NodePool pool = best.pool.pool;
            choice.charge(plan.quota(), cqName, 1);
            best.add(bestNodes);
            long rid = id++;
            Provisioning.Request req = new Provisioning.Request(rid, pool.name(), best.type.name(), bestNodes, 0, snapshot.nowMillis(),
                    List.of(j.id()));
            requests.add(req);
            provisions.add(new Provision(pool.name(), best.type.name(), bestNodes, "for job " + j.id() + " (request " + rid + ")"));
            nodeReservations.put(j.id(), new Provisioning.Reservation(j.id(), cqName, choice.flavors(), counts, rid, snapshot.nowMillis()));
            newReasons.put(j.id(), new PendingReason(PendingReason.Code.WAITING_FOR_NODES, "quota reserved in ClusterQueue " + cqName + "; waiting for "
                    + bestNodes + " node(s) of " + best.type.name() + " from pool " + pool.name(),
                    Map.of("nodes", (long) bestNodes, "provisioningDelayMillis", pool.provisioningDelayMillis())));
        }
    }

    /** @return the index of the offer that holds the job at the lowest price (then fewest nodes) within its pool's limits, -1 for none */
    private static int cheapestOffer(Offers offers, int[] nodesPer) {
        int best = -1;
        double bestCost = 0;
        for (int o = 0; o < nodesPer.length; o++) {
            int nodes = nodesPer[o];
            Offer offer = offers.list.get(o);
            if (nodes <= 0 || !offer.withinLimits(nodes)) {
                continue;
            }
            double cost = nodes * offer.type.pricePerHour();
            if (best < 0 || cost < bestCost || (cost == bestCost && nodes < nodesPer[best])) {
                best = o;
                bestCost = cost;
            }
        }
        return best;
    }

    /**
     * The pools with a node request some job still waits for; a spare request whose jobs changed is listed again in
     * {@code requests} with them.
     */
    private static Set<String> poolsWaitedOn(Provisioning prov, Set<String> admitted, List<Spare> spares, List<Provisioning.Request> requests) {
        Set<String> waitedOn = new HashSet<>(); // pools with a node request some job still waits for
        for (Provisioning.Request r : prov.inFlight()) {
            if (!orphaned(r, prov, admitted)) {
                waitedOn.add(r.pool());
            }
        }
        for (Spare s : spares) {
            // the request's jobs change: to those it was handed to, or to none
            if (!s.jobs.equals(s.request.jobs())) {
                requests.add(new Provisioning.Request(s.request.id(), s.request.pool(), s.request.instanceType(), s.request.count(),
                        s.request.arrived(), s.request.requestedAtMillis(), s.jobs));
            }
            if (!s.jobs.isEmpty()) {
                waitedOn.add(s.request.pool());
            }
        }
        return waitedOn;
    }

    /** Deprovisions the empty pool nodes past their pool's consolidation delay, unless a request still waits on their pool. */
    private static void removeEmptyNodes(Snapshot snapshot, Set<String> usedNow, Set<String> waitedOn, List<Deprovision> deprovisions) {
        Provisioning prov = snapshot.provisioning();
        Map<String, Node> nodesByName = new HashMap<>();
        for (Node n : snapshot.nodes()) {
            nodesByName.put(n.name(), n);
        }
        for (Map.Entry<String, Long> e : prov.emptySince().entrySet()) {
            Node n = nodesByName.get(e.getKey());
            if (n == null || usedNow.contains(n.name())) {
                continue;
            }
            NodePool pool = prov.pools().get(n.labels().get(NodePool.POOL_LABEL));
            if (pool != null && snapshot.nowMillis() - e.getValue() >= pool.consolidationDelayMillis() && !waitedOn.contains(pool.name())) {
                deprovisions.add(new Deprovision(n.name(), "empty for " + (snapshot.nowMillis() - e.getValue()) / 1000 + " s (consolidation)"));
            }
        }
    }

    /**
     * Applies a round's node requests to the list of those in flight: a request with the id of one in the list
     * replaces it (its jobs changed), others are added.
     *
     * @param inFlight the requests in flight (changed in place)
     * @param requests the round's requests
     */
    public static void mergeRequests(List<Provisioning.Request> inFlight, List<Provisioning.Request> requests) {
        for (Provisioning.Request r : requests) {
            boolean replaced = false;
            for (int i = 0; i < inFlight.size() && !replaced; i++) {
                if (inFlight.get(i).id() == r.id()) {
                    inFlight.set(i, new Provisioning.Request(r.id(), r.pool(), r.instanceType(), inFlight.get(i).count(), inFlight.get(i).arrived(),
                            r.requestedAtMillis(), r.jobs()));
                    replaced = true;
                }
            }
            if (!replaced) {
                inFlight.add(r);
            }
        }
    }

    /** @return true when no job of the request still waits for it (each finished, was cancelled, or got placed) */
    private static boolean orphaned(Provisioning.Request r, Provisioning prov, Set<String> admitted) {
        for (String job : r.jobs()) {
            Provisioning.Reservation res = prov.reservations().get(job);
            if (res != null && res.requestId() == r.id() && !admitted.contains(job)) {
                return false;
            }
        }
        return true;
    }

    /** Node requests still to come (at least one node) that no job waits for, oldest first. */
    private static List<Spare> spares(Provisioning prov, Set<String> admitted, Map<String, Offer> offers) {
        List<Spare> out = new ArrayList<>();
        for (Provisioning.Request r : prov.inFlight()) {
            Offer o = offers.get(r.pool() + '\u0000' + r.instanceType());
            if (o != null && r.count() > r.arrived() && orphaned(r, prov, admitted)) {
                out.add(new Spare(r, o));
            }
        }
        out.sort(Comparator.comparingLong(s -> s.request.id()));
        return out;
    }

    /** @return the spare request that holds the gang with the fewest nodes left over, or null */
    private static Spare spareFor(JobStatus j, Map<String, Integer> counts, Map<String, String> flavors, Map<String, ResourceFlavor> specs,
                                  List<Spare> spares) {
        Spare best = null;
        int bestLeft = Integer.MAX_VALUE;
        for (Spare s : spares) {
            if (s.nodesLeft <= 0) {
                continue;
            }
            int nodes = nodesFor(j, counts, flavors, specs, s.offer.sample);
            if (nodes > 0 && nodes <= s.nodesLeft && s.nodesLeft - nodes < bestLeft) {
                best = s;
                bestLeft = s.nodesLeft - nodes;
            }
        }
        return best;
    }

    /**
     * @return true when the pod set's topology constraint keeps all its members on one node (required
     *     {@code kubernetes.io/hostname}, or one NVLink domain — whose links within the node are left to the placement)
     */
    private static boolean oneNode(PodSet ps) {
        TopologyRequest t = ps.topology();
        return t.sameNvlinkDomain() || (t.required() && Node.HOSTNAME_LABEL.equals(t.level()));
    }

    /**
     * @return the pod set's flavors as one key: its flavor, or for a pod set with flavors from several resource groups,
     *     their names joined by commas (flavor names have none)
     */
    private static String flavorsKey(Map<String, String> flavors, String podSet) {
        String own = flavors.get(podSet);
        if (own == null || flavors.size() == 1) {
            return own;
        }
        return String.join(",", io.fairway.api.decision.Admit.flavorsOf(flavors, podSet));
    }

    /** @return the flavor of a key of {@link #flavorsKey}: several flavors as one, with all their labels and tolerations */
    private static ResourceFlavor specOf(String key, Map<String, ResourceFlavor> flavorSpecs) {
        if (key == null || key.indexOf(',') < 0) {
            return key == null ? null : flavorSpecs.get(key);
        }
        String[] names = key.split(",");
        List<ResourceFlavor> rest = new ArrayList<>();
        for (int i = 1; i < names.length; i++) {
            rest.add(flavorSpecs.get(names[i]));
        }
        return io.fairway.core.admission.FlavorUnion.of(flavorSpecs.get(names[0]), rest);
    }

    /** @return true when a member of the pod set, with its flavor, may run on {@code sample} (selectors, flavor, taints) */
    private static boolean matches(PodSet ps, String flavor, Map<String, ResourceFlavor> flavorSpecs, Node sample) {
        ResourceFlavor f = specOf(flavor, flavorSpecs);
        List<Toleration> tol = new ArrayList<>(ps.tolerations());
        if (f != null) {
            tol.addAll(f.tolerations());
            if (!f.matches(sample)) {
                return false;
            }
        }
        for (Map.Entry<String, String> e : ps.nodeSelector().entrySet()) {
            if (!e.getValue().equals(sample.label(e.getKey()))) {
                return false;
            }
        }
        if (!ps.affinity().matches(sample)) {
            return false;
        }
        return Toleration.toleratesAll(tol, sample.taints());
    }

    /** @return nodes like {@code sample} needed to hold every pod set, or 0 when a member does not fit one node */
    static int nodesFor(JobStatus j, Map<String, Integer> counts, Map<String, String> flavors, Map<String, ResourceFlavor> flavorSpecs,
                        Node sample) {
        int total = 0;
        for (PodSet ps : j.spec().podSets()) {
            ResourceFlavor f = specOf(flavorsKey(flavors, ps.name()), flavorSpecs);
            List<Toleration> tol = new ArrayList<>(ps.tolerations());
            if (f != null) {
                tol.addAll(f.tolerations());
                if (!f.matches(sample)) {
                    return 0;
                }
            }
            for (Map.Entry<String, String> e : ps.nodeSelector().entrySet()) {
                if (!e.getValue().equals(sample.label(e.getKey()))) {
                    return 0;
                }
            }
            if (!ps.affinity().matches(sample) || !Toleration.toleratesAll(tol, sample.taints())) {
                return 0;
            }
            long perNode = Long.MAX_VALUE;
            Resources req = ps.resources();
            for (int i = 0; i < req.size(); i++) {
                if (req.amount(i) > 0) {
                    perNode = Math.min(perNode, sample.capacity().get(req.name(i)) / req.amount(i));
                }
            }
            int m = counts.getOrDefault(ps.name(), ps.count());
            if (perNode <= 0 || (oneNode(ps) && perNode < m)) {
                return 0;
            }
            total += (int) ((m + perNode - 1) / perNode);
        }
        return total;
    }

    /** Capacity of each pool: its nodes plus nodes requested and not yet arrived. */
    private static Map<String, Resources> poolUsage(Snapshot s, Provisioning prov) {
        Map<String, Resources> use = new HashMap<>();
        for (Node n : s.nodes()) {
            String pool = n.labels().get(NodePool.POOL_LABEL);
            if (pool != null) {
                use.merge(pool, n.capacity(), Resources::plus);
            }
        }
        for (Provisioning.Request r : prov.inFlight()) {
            NodePool p = prov.pools().get(r.pool());
            InstanceType t = p == null ? null : p.instanceType(r.instanceType());
            if (t != null && r.count() > r.arrived()) {
                use.merge(r.pool(), t.totalCapacity().times(r.count() - r.arrived()), Resources::plus);
            }
        }
        return use;
    }
}
