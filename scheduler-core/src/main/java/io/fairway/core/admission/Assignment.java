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

    public static Result assign(ClusterQueue cq, Map<String, ResourceFlavor> flavorSpecs, QuotaBook quota, JobSpec job, Map<String, Integer> counts) {
        List<PodSet> podSets = job.podSets();
        int nps = podSets.size();
        QuotaBook.QNode node = quota.queue(cq.name());
        String[] chosenFirst = new String[nps];
        List<String> firstOrdered = null;
        PendingReason firstShortfall = null;
        long[] acc = null; // usage the earlier pod sets' first choices add, by id (several pod sets only)
        for (int p = 0; p < nps; p++) {
            PodSet ps = podSets.get(p);
            int m = members(ps, counts);
            Resources res = ps.resources();
            int nr = res.size();
            ResourceGroup group = null;
            for (int r = 0; r < nr; r++) {
                ResourceGroup g = cq.groupFor(res.name(r));
                if (g == null) {
                    return new Result(List.of(), PendingReason.of(PendingReason.Code.RESOURCE_NOT_IN_QUOTA,
                            "pod set \"" + ps.name() + "\" requests " + res.name(r) + ", for which ClusterQueue " + cq.name() + " has no quota"));
                }
                if (group != null && group != g) {
                    return new Result(List.of(), PendingReason.of(PendingReason.Code.RESOURCE_NOT_IN_QUOTA,
                            "pod set \"" + ps.name() + "\" requests resources from two resource groups of ClusterQueue " + cq.name()
                                    + "; Fairway assigns one flavor per pod set, so keep a pod set's resources in one group"));
                }
                group = g;
            }
            String firstFit = null;
            String firstNoBorrow = null;
            List<String> fitting = null; // only when a second flavor fits
            List<String> fittingWithoutBorrowing = null;
            for (FlavorQuotas fq : group.flavors()) {
                String flavor = fq.flavor();
                ResourceFlavor spec = flavorSpecs.get(flavor);
                if (spec == null || conflicts(ps.nodeSelector(), spec.nodeLabels())) {
                    continue;
                }
                boolean fits = true;
                boolean noBorrow = true;
                for (int r = 0; r < nr; r++) {
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
                if (!fits) {
                    continue;
                }
                if (firstFit == null) {
                    firstFit = flavor;
                } else {
                    if (fitting == null) {
                        fitting = new ArrayList<>(List.of(firstFit));
                        fittingWithoutBorrowing = new ArrayList<>();
                        if (firstNoBorrow != null) {
                            fittingWithoutBorrowing.add(firstNoBorrow);
                        }
                    }
                    fitting.add(flavor);
                }
                if (noBorrow) {
                    if (firstNoBorrow == null) {
                        firstNoBorrow = flavor;
                    }
                    if (fittingWithoutBorrowing != null && !fittingWithoutBorrowing.contains(flavor)) {
                        fittingWithoutBorrowing.add(flavor);
                    }
                }
            }
            if (firstFit == null) {
                return new Result(List.of(), firstShortfall != null ? firstShortfall : PendingReason.of(PendingReason.Code.QUOTA,
                        "pod set \"" + ps.name() + "\": no flavor of ClusterQueue " + cq.name() + " matches its node selector"));
            }
            boolean tryNext = cq.flavorFungibility() == FlavorFungibility.TRY_NEXT_FLAVOR;
            String first = tryNext && firstNoBorrow != null ? firstNoBorrow : firstFit;
            chosenFirst[p] = first;
            if (p == 0 && nps == 1 && fitting != null) {
                List<String> ordered = new ArrayList<>();
                if (tryNext) {
                    ordered.addAll(fittingWithoutBorrowing);
                }
                for (String f : fitting) {
                    if (!ordered.contains(f)) {
                        ordered.add(f);
                    }
                }
                firstOrdered = ordered;
            }
            if (nps > 1) {
                for (int r = 0; r < nr; r++) {
                    int id = quota.id(first, res.name(r), true);
                    if (acc == null || acc.length <= id) {
                        acc = acc == null ? new long[Math.max(id + 1, 8)] : Arrays.copyOf(acc, Math.max(id + 1, acc.length * 2));
                    }
                    acc[id] += res.amount(r) * m;
                }
            }
        }
        if (firstOrdered == null) {
            return new Result(List.of(choice(job, counts, chosenFirst, quota)), null);
        }
        // One pod set: later flavors are fallbacks if the first has no room on its nodes.
        List<Choice> choices = new ArrayList<>(firstOrdered.size());
        for (String f : firstOrdered) {
            choices.add(choice(job, counts, new String[] {f}, quota));
        }
        return new Result(choices, null);
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
