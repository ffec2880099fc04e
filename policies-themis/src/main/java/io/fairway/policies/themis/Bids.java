package io.fairway.policies.themis;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.decision.Placement;
import io.fairway.policies.themis.FinishTimeEstimator.AppView;
import io.fairway.policies.themis.FinishTimeEstimator.JobView;
import io.fairway.policies.themis.ThemisPolicy.Config;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Themis' bids: what each app can do with offered GPUs ({@link Item}s: keep a job whose lease expired, start a
 * waiting one at some size) and what each bundle size is worth to it ({@link Option}s: the speed-up of its
 * finish-time fairness ρ, from {@link FinishTimeEstimator} and the throughput the engine's placement search gives).
 */
final class Bids {
    private Bids() {
    }

    /** Something an app can do with offered GPUs: keep a revocable job, or start a pending one at some size. */
    record Item(JobView job, boolean keep, String elasticPodSet, int minMembers, int maxMembers, int gpusPerMember, int fixedGpus,
                double tfMin, double tfMax) {
        int cost(int members) {
            return fixedGpus + gpusPerMember * members;
        }

        int minCost() {
            return cost(minMembers);
        }

        int maxCost() {
            return cost(maxMembers);
        }

        double speed(int members) {
            double tf = members == maxMembers ? tfMax : tfMin;
            return job.gpus() == 0 ? 0 : (double) cost(members) / job.gpus() * tf;
        }

        Map<String, Integer> counts(int members) {
            Map<String, Integer> m = new LinkedHashMap<>();
            for (PodSet ps : job.status().spec().podSets()) {
                m.put(ps.name(), ps.name().equals(elasticPodSet) ? members : ps.count());
            }
            return m;
        }
    }

    /** One choice: an item at a member count. */
    record Choice(Item item, int members) {
        int cost() {
            return item.cost(members);
        }
    }

    /** A bundle size an app values, with the choices that realise it. */
    record Option(int cost, double valuation, List<Choice> choices) {
    }

    /**
     * The choices of an option: the first {@code n} choices an app has made so far, then one more. {@link #options}
     * appends to its list of choices made and never changes one, so an option reads that prefix in place rather than
     * copying it for every bundle size of every bidder.
     */
    static final class PrefixAndLast extends java.util.AbstractList<Choice> implements java.util.RandomAccess {
        private final List<Choice> made;
        private final int n;
        private final Choice last;

        /**
         * @param made the choices made so far (only ever appended to)
         * @param n how many of them come first
         * @param last the choice after them
         */
        PrefixAndLast(List<Choice> made, int n, Choice last) {
            this.made = made;
            this.n = n;
            this.last = last;
        }

        @Override
        public Choice get(int i) {
            if (i == n) {
                return last;
            }
            java.util.Objects.checkIndex(i, n);
            return made.get(i);
        }

        @Override
        public int size() {
            return n + 1;
        }
    }

    /** Kept jobs by sequence (one comparator for the round rather than one per app). */
    private static final Comparator<Item> KEPT_ORDER = Comparator.comparing(i -> i.job().status(), JobOrder.SEQUENCE);

    /** Waiting jobs shortest remaining first, then by sequence. */
    private static final Comparator<Item> WAITING_ORDER = Comparator.comparingDouble((Item i) -> i.job().remaining())
            .thenComparing(i -> i.job().status(), JobOrder.SEQUENCE);

    /**
     * Items of every app: revocable jobs to keep (by sequence), then pending jobs, shortest remaining first (or the
     * app's worst-off jobs first, {@link Config#worstJobFirst()}).
     *
     * @param r the plan's inputs (apps, configuration, capacity)
     * @return the items by app, in app order; apps without any are left out
     */
    static Map<String, List<Item>> items(PlanState r) {
        Map<String, List<Item>> items = new LinkedHashMap<>(r.apps.size() * 2);
        ShapeCache throughputByShape = new ShapeCache(); // jobs of one shape share a placement search
        for (AppView app : r.apps.values()) {
            List<Item> keep = new ArrayList<>();
            List<Item> start = new ArrayList<>();
            for (JobView j : app.jobs()) {
                if (j.revocable()) {
                    int held = j.status().admission().placement().gpuCount();
                    keep.add(new Item(j, true, null, 0, 0, 0, held, 1, 1));
                } else if (!j.holding() && !neverFits(j.status())) {
                    Item it = pendingItem(r, j, throughputByShape);
                    if (it != null) {
                        start.add(it);
                    }
                }
            }
            keep.sort(KEPT_ORDER);
            start.sort(WAITING_ORDER);
            List<Item> all = new ArrayList<>(keep);
            all.addAll(start);
            if (r.config.worstJobFirst() && all.size() > 1) {
                if (r.config.worstJobAboveRho() > 0) {
                    worstJobsAboveFirst(all, r.horizon, r.config.worstJobAboveRho());
                } else {
                    worstJobFirst(all, r.horizon);
                }
            }
            if (!all.isEmpty()) {
                items.put(app.name(), all);
            }
        }
        return items;
    }


    /**
     * The app's own scheduler: its GPUs go to its jobs worst-off first. A job's key is its own ρ if it gets no GPUs
     * for another lease ({@link FinishTimeEstimator#jobRho}: a running job whose lease expired then loses its work
     * since its last checkpoint); ties keep the order before (kept jobs by sequence, then waiting ones shortest
     * first). The order is stable, so an app's items are sorted on keys computed once.
     */
    static void worstJobFirst(List<Item> items, double horizon) {
        double[] keys = new double[items.size()];
        for (int i = 0; i < keys.length; i++) {
            JobView j = items.get(i).job();
            double rem = items.get(i).keep() ? j.remainingIfRevoked() : j.remaining();
            keys[i] = -FinishTimeEstimator.jobRho(j, horizon + rem);
        }
        sortStablyByKey(items, keys);
    }

    /**
     * Sorts an app's items by their keys ascending, ties in the order before: an insertion sort on the keys (stable,
     * so the order of {@code Comparator.comparingDouble(key).thenComparingInt(position)}), without a record per item;
     * an app has a handful of items.
     */
    static void sortStablyByKey(List<Item> items, double[] keys) {
        int n = keys.length;
        Item[] its = items.toArray(new Item[0]);
        for (int i = 1; i < n; i++) {
            double k = keys[i];
            Item it = its[i];
            int p = i - 1;
            while (p >= 0 && Double.compare(keys[p], k) > 0) {
                keys[p + 1] = keys[p];
                its[p + 1] = its[p];
                p--;
            }
            keys[p + 1] = k;
            its[p + 1] = it;
        }
        for (int i = 0; i < n; i++) {
            items.set(i, its[i]);
        }
    }

    /**
     * {@link #worstJobFirst} for the jobs whose own ρ (if they get nothing for another lease) has reached
     * {@code aboveRho} only: those come first, worst first; the others keep the order before, after them.
     */
    static void worstJobsAboveFirst(List<Item> items, double horizon, double aboveRho) {
        double[] keys = new double[items.size()];
        for (int i = 0; i < keys.length; i++) {
            JobView j = items.get(i).job();
            double rho = FinishTimeEstimator.jobRho(j, horizon + (items.get(i).keep() ? j.remainingIfRevoked() : j.remaining()));
            keys[i] = rho < aboveRho ? 0 : -rho;
        }
        sortStablyByKey(items, keys);
    }

    private static Item pendingItem(PlanState r, JobView j, ShapeCache throughputByShape) {
        JobSpec spec = j.status().spec();
        PodSet elastic = null;
        int fixed = 0;
        for (PodSet ps : spec.podSets()) {
            if (elastic == null && ps.isElastic() && ps.resources().gpus() > 0) {
                elastic = ps;
            } else {
                fixed += (int) (ps.resources().gpus() * ps.count());
            }
        }
        if (elastic == null) {
            int cost = (int) spec.totalGpus();
            if (cost > r.ctx.capacity().totalGpus()) {
                return null;
            }
            double tf = throughput(r, j.status(), null, cost, throughputByShape);
            return new Item(j, false, null, 0, 0, 0, cost, tf, tf);
        }
        int gpm = (int) elastic.resources().gpus();
        Item probe = new Item(j, false, elastic.name(), elastic.minCount(), elastic.count(), gpm, fixed, 1, 1);
        if (probe.minCost() > r.ctx.capacity().totalGpus()) {
            return null;
        }
        int max = elastic.count();
        while (max > elastic.minCount() && probe.cost(max) > r.ctx.capacity().totalGpus()) {
            max--;
        }
        double tfMin = throughput(r, j.status(), probe.counts(elastic.minCount()), probe.minCost(), throughputByShape);
        double tfMax = throughput(r, j.status(), probe.counts(max), probe.cost(max), throughputByShape);
        return new Item(j, false, elastic.name(), elastic.minCount(), max, gpm, fixed, tfMin, tfMax);
    }

    /**
     * The throughput factor a job would get at these counts: the engine's placement search on the plan's free
     * capacity when it finds a place; else, from the job's sensitivity, one node's factor when the gang fits
     * the largest node seen, one rack's otherwise.
     */
    private static double throughput(PlanState r, JobStatus job, Map<String, Integer> fewer, int gpus, ShapeCache cache) {
        if (cache.lastKey != null && cache.lastKey.sameShape(job.spec(), fewer)) {
            return cache.lastFactor; // the shape of the job asked about last (an app's jobs are often alike): no key built
        }
        ShapeKey key = shapeKey(job.spec(), fewer);
        Double cached = cache.byShape.get(key);
        if (cached != null) {
            cache.lastKey = key;
            cache.lastFactor = cached;
            return cached;
        }
        Map<String, Integer> counts = fewer == null ? fullCounts(job.spec()) : fewer;
        double tf;
        Optional<Placement> p = gpus <= r.ctx.capacity().freeGpus() ? r.ctx.placement().find(job, counts, Map.of()) : Optional.empty();
        if (p.isPresent()) {
            tf = p.get().throughputFactor();
        } else if (gpus <= 1) {
            tf = 1.0;
        } else {
            int node = r.nodeSize();
            tf = job.spec().sensitivity().factor(gpus <= node ? Locality.NODE : Locality.RACK);
        }
        cache.byShape.put(key, tf);
        cache.lastKey = key;
        cache.lastFactor = tf;
        return tf;
    }

    /** Throughput factors by job shape for one round, and the shape asked about last with its factor. */
    static final class ShapeCache {
        final Map<ShapeKey, Double> byShape = new HashMap<>();
        ShapeKey lastKey;
        double lastFactor;
    }

    /**
     * The bundle sizes an app values, Pareto-filtered, costing at most the GPUs on offer.
     *
     * @param pool the GPUs on offer to the auction
     */
    static List<Option> options(PlanState r, AppView app, List<Item> its, long pool) {
        // the jobs that run in an allocation, as flags and speeds by position in app.jobs() (as fixedRunning's map):
        // an app values each prefix of its items, and a hash map per valuation cost more than the estimate
        List<JobView> jobs = app.jobs();
        boolean[] runs = new boolean[jobs.size()];
        double[] speeds = new double[jobs.size()];
        Map<String, Integer> index = jobs.size() > 8 ? new HashMap<>() : null;
        for (int x = 0; x < jobs.size(); x++) {
            JobView j = jobs.get(x);
            if (j.holding() && !j.revocable()) {
                runs[x] = true;
                speeds[x] = j.speed();
            }
            if (index != null) {
                index.put(j.id(), x);
            }
        }
        double none = FinishTimeEstimator.rhoWith(app, runs, speeds, r.horizon);
        List<Option> out = new ArrayList<>();
        out.add(new Option(0, 1.0, List.of()));
        int prefix = 0;
        List<Choice> chosen = new ArrayList<>();
        double bestV = 1.0;
        for (Item it : its) {
            if (prefix + it.minCost() > pool) {
                continue;
            }
            int lo = it.keep() ? 0 : it.minMembers();
            int hi = it.keep() ? 0 : it.maxMembers();
            int best = lo;
            int x = position(jobs, index, it.job());
            for (int m = lo; m <= hi && prefix + it.cost(m) <= pool; m++) {
                best = m;
                runs[x] = true;
                speeds[x] = it.keep() ? it.job().speed() : it.speed(m);
                double v = none / FinishTimeEstimator.rhoWith(app, runs, speeds, r.horizon);
                if (v > bestV + 1e-12) {
                    bestV = v;
                    out.add(new Option(prefix + it.cost(m), v, new PrefixAndLast(chosen, chosen.size(), new Choice(it, m))));
                }
            }
            runs[x] = true;
            speeds[x] = it.keep() ? it.job().speed() : it.speed(best);
            chosen.add(new Choice(it, best));
            prefix += it.cost(best);
        }
        return out;
    }

    /**
     * @return the position of a job of the app in its job list: an item carries the very view of the app's list
     *     ({@link #items}), so the view itself is looked for first, and its id only if it is a copy
     */
    static int position(List<JobView> jobs, Map<String, Integer> index, JobView job) {
        if (index != null) {
            return index.get(job.id());
        }
        for (int x = 0; x < jobs.size(); x++) {
            if (jobs.get(x) == job) {
                return x;
            }
        }
        for (int x = 0; x < jobs.size(); x++) {
            if (jobs.get(x).id().equals(job.id())) {
                return x;
            }
        }
        throw new IllegalStateException("job " + job.id() + " is not a job of its app");
    }

    static Map<String, Double> fixedRunning(AppView app) {
        Map<String, Double> running = new HashMap<>();
        for (JobView j : app.jobs()) {
            if (j.holding() && !j.revocable()) {
                running.put(j.id(), j.speed());
            }
        }
        return running;
    }

    // ------------------------------------------------------------ actions

    /** A job the core found can never be placed or admitted as it is takes no part in auctions. */
    static boolean neverFits(JobStatus j) {
        PendingReason r = j.pendingReason();
        return r != null && (r.code() == PendingReason.Code.GANG_LARGER_THAN_ANY_DOMAIN || r.code() == PendingReason.Code.RESOURCE_NOT_IN_QUOTA);
    }

    static Map<String, Integer> fullCounts(JobSpec spec) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (PodSet ps : spec.podSets()) {
            m.put(ps.name(), ps.count());
        }
        return m;
    }

    /** What a placement search depends on, per pod set: its member count and what each member asks for. */
    record PodSetShape(int count, io.fairway.api.model.Resources resources, Map<String, String> nodeSelector,
                               List<io.fairway.api.model.Toleration> tolerations, io.fairway.api.job.TopologyRequest topology,
                               io.fairway.api.model.NodeAffinity affinity) {
    }

    /**
     * A job's shape at some counts: equal shapes get the same placement (no text built per job). The pod sets' shapes
     * are kept in an array and compared element by element: the same equality as a list of them, without a list and
     * its iterators for every job of the round.
     */
    record ShapeKey(String namespace, io.fairway.api.job.PlacementSensitivity sensitivity, PodSetShape[] podSets) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ShapeKey k && java.util.Objects.equals(namespace, k.namespace)
                    && java.util.Objects.equals(sensitivity, k.sensitivity) && java.util.Arrays.equals(podSets, k.podSets);
        }

        @Override
        public int hashCode() {
            return (java.util.Objects.hashCode(namespace) * 31 + java.util.Objects.hashCode(sensitivity)) * 31 + java.util.Arrays.hashCode(podSets);
        }

        /**
         * @param spec a job
         * @param counts members per pod set, or null for every pod set at its full count
         * @return {@code equals(shapeKey(spec, counts))}, without building that key
         */
        boolean sameShape(JobSpec spec, Map<String, Integer> counts) {
            List<PodSet> pss = spec.podSets();
            if (pss.size() != podSets.length || !java.util.Objects.equals(namespace, spec.namespace())
                    || !java.util.Objects.equals(sensitivity, spec.sensitivity())) {
                return false;
            }
            for (int i = 0; i < podSets.length; i++) {
                PodSet ps = pss.get(i);
                PodSetShape s = podSets[i];
                Integer c = counts == null ? Integer.valueOf(ps.count()) : counts.get(ps.name());
                if (s.count() != (c == null ? -1 : c) || !java.util.Objects.equals(s.resources(), ps.resources())
                        || !java.util.Objects.equals(s.nodeSelector(), ps.nodeSelector())
                        || !java.util.Objects.equals(s.tolerations(), ps.tolerations())
                        || !java.util.Objects.equals(s.topology(), ps.topology()) || !java.util.Objects.equals(s.affinity(), ps.affinity())) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return "ShapeKey[" + namespace + ", " + sensitivity + ", " + java.util.Arrays.toString(podSets) + "]";
        }
    }

    /** @param counts members per pod set, or null for every pod set at its full count */
    static ShapeKey shapeKey(JobSpec spec, Map<String, Integer> counts) {
        List<PodSet> pss = spec.podSets();
        PodSetShape[] shapes = new PodSetShape[pss.size()];
        for (int i = 0; i < shapes.length; i++) {
            PodSet ps = pss.get(i);
            Integer c = counts == null ? Integer.valueOf(ps.count()) : counts.get(ps.name());
            shapes[i] = new PodSetShape(c == null ? -1 : c, ps.resources(), ps.nodeSelector(), ps.tolerations(), ps.topology(), ps.affinity());
        }
        return new ShapeKey(spec.namespace(), spec.sensitivity(), shapes);
    }
}
