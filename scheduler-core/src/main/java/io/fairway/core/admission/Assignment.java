package io.fairway.core.admission;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flavor assignment under quota, as Kueue does it: for each pod set, the resource group covering its
 * resources, and its flavors tried in order; a flavor fits when every covered resource's request is within
 * what the ClusterQueue may still use (its own unused quota plus what its cohort lends, within its borrowing
 * limit). With {@link FlavorFungibility#TRY_NEXT_FLAVOR}, flavors that fit without borrowing come first.
 */
public final class Assignment {
    /**
     * One way to admit a job: a flavor per pod set and the usage it adds per (flavor, resource), as the quota
     * book's ids and amounts (one entry per pair).
     */
    public static final class Choice {
        private final Map<String, String> flavors;
        private final QuotaBook quota;
        private final int[] ids;
        private final long[] amounts;

        Choice(Map<String, String> flavors, QuotaBook quota, int[] ids, long[] amounts) {
            this.flavors = flavors;
            this.quota = quota;
            this.ids = ids;
            this.amounts = amounts;
        }

        /** @return the flavor of each pod set, by pod set name */
        public Map<String, String> flavors() {
            return flavors;
        }

        /** @return the usage it adds, by (flavor, resource) key (the keys are looked up only here, off the hot path) */
        public Map<String, Long> usage() {
            Map<String, Long> m = new LinkedHashMap<>();
            for (int i = 0; i < ids.length; i++) {
                m.put(quota.key(ids[i]), amounts[i]);
            }
            return m;
        }

        /** Charges (or with {@code sign} -1, releases) the usage to the ClusterQueue in the book. */
        public void charge(QuotaBook quota, String clusterQueue, int sign) {
            QuotaBook.QNode n = quota.queue(clusterQueue);
            if (n == null) {
                return;
            }
            for (int i = 0; i < ids.length; i++) {
                quota.add(n, ids[i], sign * amounts[i]);
            }
        }
    }

    /** Candidate choices in preference order, or the reason there is none. */
    public record Result(List<Choice> choices, PendingReason reason) {
    }

    private Assignment() {
    }

    /** At most this many flavor choices are listed for one job (the cartesian product over its resource groups). */
    static final int MAX_CHOICES = 16;

    /**
     * Assigns flavors under quota: for each pod set and each resource group its resources come from, the group's
     * flavors in order (by {@code flavorFungibility}), as Kueue does; a pod set whose cpu and memory are in one group
     * and GPUs in another gets a flavor from each.
     *
     * @param cq the job's ClusterQueue
     * @param flavorSpecs the flavors by name
     * @param quota the quota book
     * @param job the job
     * @param counts the member count of each pod set
     * @return the candidate choices in preference order, or the reason there is none
     */
    public static Result assign(ClusterQueue cq, Map<String, ResourceFlavor> flavorSpecs, QuotaBook quota, JobSpec job, Map<String, Integer> counts) {
        List<PodSet> podSets = job.podSets();
        int nps = podSets.size();
        QuotaBook.QNode node = quota.queue(cq.name());
        // per pod set, per resource group (in the order of the pod set's resources): the resources' indices and the
        // fitting flavors in preference order (only the first when there are several pod sets)
        List<List<int[]>> groupResources = new ArrayList<>(nps);
        List<List<List<String>>> ordered = new ArrayList<>(nps);
        PendingReason firstShortfall = null;
        long[] acc = null; // usage the earlier pod sets' first choices add, by id (several pod sets only)
        boolean tryNext = cq.flavorFungibility() == FlavorFungibility.TRY_NEXT_FLAVOR;
        for (int p = 0; p < nps; p++) {
            PodSet ps = podSets.get(p);
            int m = members(ps, counts);
            Resources res = ps.resources();
            List<ResourceGroup> groups = new ArrayList<>(1);
            List<int[]> members = new ArrayList<>(1);
            int ungrouped = groupResources(cq, res, groups, members);
            if (ungrouped >= 0) {
                return new Result(List.of(), PendingReason.of(PendingReason.Code.RESOURCE_NOT_IN_QUOTA,
                        "pod set \"" + ps.name() + "\" requests " + res.name(ungrouped) + ", for which ClusterQueue " + cq.name() + " has no quota"));
            }
            List<List<String>> psOrdered = new ArrayList<>(groups.size());
            for (int gi = 0; gi < groups.size(); gi++) {
                int[] rs = members.get(gi);
                List<String> fitting = new ArrayList<>(2);
                List<String> fittingWithoutBorrowing = new ArrayList<>(2);
                for (FlavorQuotas fq : groups.get(gi).flavors()) {
                    String flavor = fq.flavor();
                    ResourceFlavor spec = flavorSpecs.get(flavor);
                    if (spec == null || conflicts(ps.nodeSelector(), spec.nodeLabels())) {
                        continue;
                    }
                    boolean fits = true;
                    boolean noBorrow = true;
                    for (int r : rs) {
                        int id = quota.id(flavor, res.name(r), false);
                        long want = res.amount(r) * m + (acc != null && id >= 0 && id < acc.length ? acc[id] : 0);
                        long avail = node == null || id < 0 ? 0 : QuotaBook.available(node, id);
                        if (want > avail) {
                            fits = false;
                            if (firstShortfall == null) {
                                firstShortfall = shortfall(cq, quota, flavor, res.name(r), want, avail);
                            }
                            break;
                        }
                        if (node != null && id >= 0 && node.used(id) + want > node.nominal(id)) {
                            noBorrow = false;
                        }
                    }
                    if (fits) {
                        fitting.add(flavor);
                        if (noBorrow) {
                            fittingWithoutBorrowing.add(flavor);
                        }
                    }
                }
                if (fitting.isEmpty()) {
                    return new Result(List.of(), firstShortfall != null ? firstShortfall : PendingReason.of(PendingReason.Code.QUOTA,
                            "pod set \"" + ps.name() + "\": no flavor of ClusterQueue " + cq.name() + " for " + names(res, rs)
                                    + " matches its node selector"));
                }
                List<String> order = tryNext && !fittingWithoutBorrowing.isEmpty() ? withoutBorrowingFirst(fittingWithoutBorrowing, fitting) : fitting;
                psOrdered.add(nps > 1 ? List.of(order.get(0)) : order);
                if (nps > 1) {
                    acc = charge(acc, quota, order.get(0), res, rs, m);
                }
            }
            groupResources.add(members);
            ordered.add(psOrdered);
        }
        return new Result(choices(job, counts, groupResources, ordered, quota), null);
    }

    /**
     * The choices in preference order: one pod set over one group, a choice per fitting flavor; several pod sets, one
     * choice, each (pod set, group) its first flavor; one pod set over several groups, the combinations in preference
     * order (the first group's flavor varies slowest), at most {@value #MAX_CHOICES}.
     */
    private static List<Choice> choices(JobSpec job, Map<String, Integer> counts, List<List<int[]>> groupResources,
                                        List<List<List<String>>> ordered, QuotaBook quota) {
        if (ordered.size() == 1 && groupResources.get(0).size() == 1) {
            List<String> order = ordered.get(0).get(0);
            List<Choice> choices = new ArrayList<>(order.size());
            for (String f : order) {
                choices.add(choice(job, counts, new String[] {f}, quota));
            }
            return choices;
        }
        List<Choice> choices = new ArrayList<>();
        int[] pick = new int[ordered.stream().mapToInt(List::size).sum()];
        while (choices.size() < MAX_CHOICES) {
            choices.add(choice(job, counts, groupResources, ordered, pick, quota));
            int k = pick.length - 1;
            int[] sizes = sizes(ordered);
            while (k >= 0 && ++pick[k] == sizes[k]) {
                pick[k] = 0;
                k--;
            }
            if (k < 0) {
                break;
            }
        }
        return choices;
    }

    /**
     * Groups a pod set's resources by the ClusterQueue's resource group they come from, in the order of the resources.
     *
     * @return the index of a resource no group has quota for, or -1
     */
    private static int groupResources(ClusterQueue cq, Resources res, List<ResourceGroup> groups, List<int[]> members) {
        for (int r = 0; r < res.size(); r++) {
            ResourceGroup g = cq.groupFor(res.name(r));
            if (g == null) {
                return r;
            }
            int gi = groups.indexOf(g);
            if (gi < 0) {
                groups.add(g);
                members.add(new int[] {r});
            } else {
                int[] old = members.get(gi);
                int[] grown = Arrays.copyOf(old, old.length + 1);
                grown[old.length] = r;
                members.set(gi, grown);
            }
        }
        return -1;
    }

    /** TryNextFlavor: the flavors that fit without borrowing first, then the others that fit, each in its group's order. */
    private static List<String> withoutBorrowingFirst(List<String> fittingWithoutBorrowing, List<String> fitting) {
        List<String> order = new ArrayList<>(fittingWithoutBorrowing);
        for (String f : fitting) {
            if (!order.contains(f)) {
                order.add(f);
            }
        }
        return order;
    }

    /** Adds what {@code m} members use of the resources {@code rs} in {@code flavor} to {@code acc} (by quota id, grown as needed). */
    private static long[] charge(long[] acc, QuotaBook quota, String flavor, Resources res, int[] rs, int m) {
        for (int r : rs) {
            int id = quota.id(flavor, res.name(r), true);
            if (acc == null || acc.length <= id) {
                acc = acc == null ? new long[Math.max(id + 1, 8)] : Arrays.copyOf(acc, Math.max(id + 1, acc.length * 2));
            }
            acc[id] += res.amount(r) * m;
        }
        return acc;
    }

    private static int[] sizes(List<List<List<String>>> ordered) {
        int[] sizes = new int[ordered.stream().mapToInt(List::size).sum()];
        int k = 0;
        for (List<List<String>> ps : ordered) {
            for (List<String> g : ps) {
                sizes[k++] = g.size();
            }
        }
        return sizes;
    }

    private static String names(Resources res, int[] rs) {
        StringBuilder sb = new StringBuilder();
        for (int r : rs) {
            sb.append(sb.length() == 0 ? "" : ", ").append(res.name(r));
        }
        return sb.toString();
    }

    /** A choice over resource groups: the pod set's name keeps its first group's flavor, other groups' resources their own. */
    private static Choice choice(JobSpec job, Map<String, Integer> counts, List<List<int[]>> groupResources, List<List<List<String>>> ordered,
                                 int[] pick, QuotaBook quota) {
        List<PodSet> podSets = job.podSets();
        Map<String, String> f = new LinkedHashMap<>();
        Map<String, Long> usage = new LinkedHashMap<>();
        int k = 0;
        for (int p = 0; p < podSets.size(); p++) {
            PodSet ps = podSets.get(p);
            Resources res = ps.resources();
            int m = members(ps, counts);
            List<int[]> groups = groupResources.get(p);
            String own = null;
            for (int gi = 0; gi < groups.size(); gi++) {
                String flavor = ordered.get(p).get(gi).get(pick[k++]);
                if (own == null) {
                    own = flavor;
                    f.put(ps.name(), flavor);
                }
                for (int r : groups.get(gi)) {
                    if (!flavor.equals(own)) {
                        f.put(io.fairway.api.decision.Admit.resourceKey(ps.name(), res.name(r)), flavor);
                    }
                    usage.merge(QuotaBook.fr(flavor, res.name(r)), res.amount(r) * m, Long::sum);
                }
            }
        }
        String[] keys = usage.keySet().toArray(new String[0]);
        int[] ids = new int[keys.length];
        long[] amounts = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            ids[i] = quota.id(keys[i], true);
            amounts[i] = usage.get(keys[i]);
        }
        return new Choice(f, quota, ids, amounts);
    }

    private static int members(PodSet ps, Map<String, Integer> counts) {
        Integer m = counts.get(ps.name());
        return m == null ? ps.count() : m;
    }

    private static Choice choice(JobSpec job, Map<String, Integer> counts, String[] flavors, QuotaBook quota) {
        List<PodSet> podSets = job.podSets();
        if (podSets.size() == 1) {
            PodSet ps = podSets.get(0);
            Resources res = ps.resources();
            int m = members(ps, counts);
            int[] ids = new int[res.size()];
            long[] amounts = new long[res.size()];
            for (int r = 0; r < ids.length; r++) {
                ids[r] = quota.id(flavors[0], res.name(r), true);
                amounts[r] = res.amount(r) * m;
            }
            return new Choice(Map.of(ps.name(), flavors[0]), quota, ids, amounts);
        }
        Map<String, String> f = new LinkedHashMap<>();
        Map<String, Long> usage = new LinkedHashMap<>();
        for (int i = 0; i < podSets.size(); i++) {
            PodSet ps = podSets.get(i);
            f.put(ps.name(), flavors[i]);
            Resources res = ps.resources();
            int m = members(ps, counts);
            for (int r = 0; r < res.size(); r++) {
                usage.merge(QuotaBook.fr(flavors[i], res.name(r)), res.amount(r) * m, Long::sum);
            }
        }
        String[] keys = usage.keySet().toArray(new String[0]);
        int[] ids = new int[keys.length];
        long[] amounts = new long[keys.length];
        for (int k = 0; k < keys.length; k++) {
            ids[k] = quota.id(keys[k], true);
            amounts[k] = usage.get(keys[k]);
        }
        return new Choice(f, quota, ids, amounts);
    }

    /** @return where the group is in the list (the same object first: a queue's groups are few and shared), or -1 */
    private static int indexOf(List<ResourceGroup> groups, ResourceGroup g) {
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i) == g || groups.get(i).equals(g)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * What a job asks of each (flavor, resource) of its target flavors, as Kueue's preemption and its capacity kept
     * for a lender see it: per pod set and resource group, the first flavor (that its node selector allows) whose
     * nominal quota could hold the request, else the group's first such flavor.
     *
     * @param cq the job's ClusterQueue
     * @param flavorSpecs the flavors by name
     * @param quota the quota book
     * @param job the job (at full size)
     * @return the amounts by (flavor, resource) key; empty when no group covers its resources
     */
    public static Map<String, Long> targetDemand(ClusterQueue cq, Map<String, ResourceFlavor> flavorSpecs, QuotaBook quota, JobSpec job) {
        Map<String, Long> demand = new LinkedHashMap<>();
        for (PodSet ps : job.podSets()) {
            // the pod set's resources by group, groups in order of first use: a list, not a map keyed by the group,
            // whose hash would read every flavor's quotas on each call
            List<ResourceGroup> groups = new ArrayList<>(2);
            List<List<String>> covered = new ArrayList<>(2);
            for (String r : ps.resources().names()) {
                ResourceGroup g = cq.groupFor(r);
                if (g != null) {
                    int i = indexOf(groups, g);
                    if (i < 0) {
                        groups.add(g);
                        covered.add(new ArrayList<>(2));
                        i = groups.size() - 1;
                    }
                    covered.get(i).add(r);
                }
            }
            for (int gi = 0; gi < groups.size(); gi++) {
                Map.Entry<ResourceGroup, List<String>> e = Map.entry(groups.get(gi), covered.get(gi));
                String target = null;
                for (FlavorQuotas fq : e.getKey().flavors()) {
                    ResourceFlavor spec = flavorSpecs.get(fq.flavor());
                    if (spec == null || conflicts(ps.nodeSelector(), spec.nodeLabels())) {
                        continue;
                    }
                    if (target == null) {
                        target = fq.flavor();
                    }
                    boolean holds = true;
                    for (String r : e.getValue()) {
                        if (ps.resources().get(r) * ps.count() > quota.nominal(cq.name(), QuotaBook.fr(fq.flavor(), r))) {
                            holds = false;
                            break;
                        }
                    }
                    if (holds) {
                        target = fq.flavor();
                        break;
                    }
                }
                if (target != null) {
                    for (String r : e.getValue()) {
                        demand.merge(QuotaBook.fr(target, r), ps.resources().get(r) * ps.count(), Long::sum);
                    }
                }
            }
        }
        return demand;
    }

    private static boolean conflicts(Map<String, String> selector, Map<String, String> labels) {
        for (Map.Entry<String, String> e : selector.entrySet()) {
            String v = labels.get(e.getKey());
            if (v != null && !v.equals(e.getValue())) {
                return true;
            }
        }
        return false;
    }

    private static PendingReason shortfall(ClusterQueue cq, QuotaBook quota, String flavor, String resource, long want, long avail) {
        String fr = QuotaBook.fr(flavor, resource);
        long nominal = quota.nominal(cq.name(), fr);
        long used = quota.used(cq.name(), fr);
        long unused = Math.max(0, nominal - used);
        Map<String, Long> details = new LinkedHashMap<>();
        details.put("needed", want);
        details.put("nominal", nominal);
        details.put("used", used);
        details.put("unused", unused);
        details.put("cohortLends", Math.max(0, avail - unused));
        QuotaBook.QNode node = quota.queue(cq.name());
        int id = quota.id(fr, false);
        String binding = node == null || id < 0 ? "" : quota.bindingLimit(node, id, want, resource, details);
        String msg = "needs " + Quantities.format(resource, want) + " " + resource + " of flavor " + flavor + "; ClusterQueue " + cq.name()
                + " has " + Quantities.format(resource, unused) + " unused of " + Quantities.format(resource, nominal)
                + (binding.isEmpty() && cq.cohort() != null
                        ? ", cohort " + cq.cohort() + " lends " + Quantities.format(resource, Math.max(0, avail - unused)) : binding);
        return new PendingReason(PendingReason.Code.QUOTA, msg, details);
    }

    /**
     * @param spec a job
     * @return its full size: each pod set's count
     */
    public static Map<String, Integer> fullCounts(JobSpec spec) {
        if (spec.podSets().size() == 1) {
            PodSet ps = spec.podSets().get(0);
            return Map.of(ps.name(), ps.count());
        }
        Map<String, Integer> m = new java.util.LinkedHashMap<>();
        for (PodSet ps : spec.podSets()) {
            m.put(ps.name(), ps.count());
        }
        return m;
    }
}
