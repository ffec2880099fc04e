package io.fairway.core.internal;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flavor assignment under quota, as Kueue does it: for each pod set, the resource group covering its
 * resources, and its flavors tried in order; a flavor fits when every covered resource's request is within
 * what the ClusterQueue may still use (its own unused quota plus what its cohort lends, within its borrowing
 * limit). With {@link FlavorFungibility#TRY_NEXT_FLAVOR}, flavors that fit without borrowing come first.
 */
final class Assignment {
    /** One way to admit a job: a flavor per pod set and the usage it adds per (flavor, resource). */
    record Choice(Map<String, String> flavors, Map<String, Long> usage) {
    }

    /** Candidate choices in preference order, or the reason there is none. */
    record Result(List<Choice> choices, PendingReason reason) {
    }

    private Assignment() {
    }

    static Result assign(ClusterQueue cq, Map<String, ResourceFlavor> flavorSpecs, QuotaBook quota, JobSpec job, Map<String, Integer> counts) {
        List<List<String>> perPodSet = new ArrayList<>();
        PendingReason firstShortfall = null;
        Map<String, Long> acc = new LinkedHashMap<>();
        List<String> chosenFirst = new ArrayList<>();
        for (PodSet ps : job.podSets()) {
            int m = counts.getOrDefault(ps.name(), ps.count());
            Map<String, Long> need = ps.total(m).asMap();
            ResourceGroup group = null;
            for (String r : need.keySet()) {
                ResourceGroup g = cq.groupFor(r);
                if (g == null) {
                    return new Result(List.of(), PendingReason.of(PendingReason.Code.RESOURCE_NOT_IN_QUOTA,
                            "pod set \"" + ps.name() + "\" requests " + r + ", for which ClusterQueue " + cq.name() + " has no quota"));
                }
                if (group != null && group != g) {
                    return new Result(List.of(), PendingReason.of(PendingReason.Code.RESOURCE_NOT_IN_QUOTA,
                            "pod set \"" + ps.name() + "\" requests resources from two resource groups of ClusterQueue " + cq.name()
                                    + "; Fairway assigns one flavor per pod set, so keep a pod set's resources in one group"));
                }
                group = g;
            }
            List<String> fitting = new ArrayList<>();
            List<String> fittingWithoutBorrowing = new ArrayList<>();
            for (FlavorQuotas fq : group.flavors()) {
                ResourceFlavor spec = flavorSpecs.get(fq.flavor());
                if (spec == null || conflicts(ps.nodeSelector(), spec.nodeLabels())) {
                    continue;
                }
                boolean fits = true;
                boolean noBorrow = true;
                for (Map.Entry<String, Long> e : need.entrySet()) {
                    String fr = QuotaBook.fr(fq.flavor(), e.getKey());
                    long want = e.getValue() + acc.getOrDefault(fr, 0L);
                    long avail = quota.available(cq.name(), fr);
                    if (want > avail) {
                        fits = false;
                        if (firstShortfall == null) {
                            firstShortfall = shortfall(cq, quota, fq.flavor(), e.getKey(), want, avail);
                        }
                        break;
                    }
                    if (quota.used(cq.name(), fr) + want > quota.nominal(cq.name(), fr)) {
                        noBorrow = false;
                    }
                }
                if (fits) {
                    fitting.add(fq.flavor());
                    if (noBorrow) {
                        fittingWithoutBorrowing.add(fq.flavor());
                    }
                }
            }
            if (fitting.isEmpty()) {
                return new Result(List.of(), firstShortfall != null ? firstShortfall : PendingReason.of(PendingReason.Code.QUOTA,
                        "pod set \"" + ps.name() + "\": no flavor of ClusterQueue " + cq.name() + " matches its node selector"));
            }
            List<String> ordered = new ArrayList<>();
            if (cq.flavorFungibility() == FlavorFungibility.TRY_NEXT_FLAVOR) {
                ordered.addAll(fittingWithoutBorrowing);
            }
            for (String f : fitting) {
                if (!ordered.contains(f)) {
                    ordered.add(f);
                }
            }
            perPodSet.add(ordered);
            String first = ordered.get(0);
            chosenFirst.add(first);
            need.forEach((r, v) -> acc.merge(QuotaBook.fr(first, r), v, Long::sum));
        }
        List<Choice> choices = new ArrayList<>();
        choices.add(choice(job, counts, chosenFirst));
        if (job.podSets().size() == 1) {
            // Later flavors are fallbacks if the first has no room on its nodes.
            for (int i = 1; i < perPodSet.get(0).size(); i++) {
                choices.add(choice(job, counts, List.of(perPodSet.get(0).get(i))));
            }
        }
        return new Result(choices, null);
    }

    private static Choice choice(JobSpec job, Map<String, Integer> counts, List<String> flavors) {
        Map<String, String> f = new LinkedHashMap<>();
        Map<String, Long> usage = new LinkedHashMap<>();
        for (int i = 0; i < job.podSets().size(); i++) {
            PodSet ps = job.podSets().get(i);
            String flavor = flavors.get(i);
            f.put(ps.name(), flavor);
            int m = counts.getOrDefault(ps.name(), ps.count());
            ps.total(m).asMap().forEach((r, v) -> usage.merge(QuotaBook.fr(flavor, r), v, Long::sum));
        }
        return new Choice(f, usage);
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
        long lends = Math.max(0, avail - unused);
        String msg = "needs " + Quantities.format(resource, want) + " " + resource + " of flavor " + flavor + "; ClusterQueue " + cq.name()
                + " has " + Quantities.format(resource, unused) + " unused of " + Quantities.format(resource, nominal)
                + (cq.cohort() == null ? "" : ", cohort " + cq.cohort() + " lends " + Quantities.format(resource, lends));
        return new PendingReason(PendingReason.Code.QUOTA, msg,
                Map.of("needed", want, "nominal", nominal, "used", used, "unused", unused, "cohortLends", lends));
    }
}
