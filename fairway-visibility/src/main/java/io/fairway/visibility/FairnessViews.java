package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.spi.FairnessInsight;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.FairShares;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Why the scheduler thinks the allocation is fair ({@code GET /api/v1/fairness}): per ClusterQueue its share of its
 * cohort on its dominant resource, against the share its nominal quota and its fair-sharing weight give it, its
 * dominant resource share (what Kueue's fair sharing ranks queues by, from the engine's own quota book) and its
 * decayed usage (fair share over time); per cohort the same summed; and, under a policy that reports it
 * ({@link FairnessInsight}, e.g. Themis), each app's and job's ρ and bid.
 */
final class FairnessViews {
    private final StateView view;
    private final QueueViews queues;

    FairnessViews(StateView view) {
        this.view = view;
        this.queues = new QueueViews(view);
    }

    /** Per resource (summed over flavors): {nominal, used}. */
    private Map<String, long[]> byResource(ClusterQueue q) {
        Map<String, long[]> m = new TreeMap<>();
        for (QueueViews.Row r : queues.rows(q.name(), q.resourceGroups())) {
            long[] c = m.computeIfAbsent(r.resource(), k -> new long[2]);
            c[0] += r.nominal();
            c[1] += r.used();
        }
        return m;
    }

    ObjectNode fairness(SchedulingPolicy policy) {
        var s = view.snapshot;
        Map<String, Double> drs = FairShares.dominantResourceShares(s);
        Map<String, List<ClusterQueue>> members = new TreeMap<>();
        List<ClusterQueue> alone = new ArrayList<>();
        for (ClusterQueue q : new TreeMap<>(s.clusterQueues()).values()) {
            if (q.cohort() == null) {
                alone.add(q);
            } else {
                members.computeIfAbsent(q.cohort(), k -> new ArrayList<>()).add(q);
            }
        }
        ObjectNode o = VisibilityJson.object();
        o.put("policy", policy.name());
        o.put("nowMillis", s.nowMillis());
        ArrayNode cohorts = o.putArray("cohorts");
        ArrayNode cqs = o.putArray("clusterQueues");
        for (var e : members.entrySet()) {
            cohorts.add(cohort(e.getKey(), e.getValue(), drs, cqs));
        }
        for (ClusterQueue q : alone) {
            cohortOf(List.of(q), drs, cqs, null);
        }
        if (policy instanceof FairnessInsight insight) {
            FairnessInsight.Report report = insight.lastReport();
            o.set("apps", apps(report));
            if (report == null) {
                o.putNull("appsAtMillis");
            } else {
                o.put("appsAtMillis", report.atMillis());
            }
        } else {
            o.putNull("apps");
        }
        return o;
    }

    private ObjectNode cohort(String name, List<ClusterQueue> qs, Map<String, Double> book, ArrayNode cqs) {
        ObjectNode c = VisibilityJson.object();
        c.put("name", name);
        Cohort spec = view.snapshot.cohorts().get(name);
        c.put("parent", spec == null ? null : spec.parent());
        cohortOf(qs, book, cqs, c);
        return c;
    }

    /**
     * Adds the queues of one cohort (or one queue without a cohort) to {@code cqs}, their shares measured against the
     * cohort's summed nominal quota per resource; fills the cohort's own fields when {@code c} is given.
     */
    private void cohortOf(List<ClusterQueue> qs, Map<String, Double> book, ArrayNode cqs, ObjectNode c) {
        Map<String, long[]> total = new TreeMap<>();
        Map<String, Map<String, long[]>> per = new HashMap<>();
        double activeWeight = 0;
        for (ClusterQueue q : qs) {
            Map<String, long[]> m = byResource(q);
            per.put(q.name(), m);
            m.forEach((r, v) -> {
                long[] t = total.computeIfAbsent(r, k -> new long[2]);
                t[0] += v[0];
                t[1] += v[1];
            });
            if (active(q)) {
                activeWeight += q.fairSharingWeight();
            }
        }
        double maxDrs = 0;
        double minDrs = Double.MAX_VALUE;
        TreeSet<String> names = new TreeSet<>();
        for (ClusterQueue q : qs) {
            names.add(q.name());
            Map<String, long[]> m = per.get(q.name());
            String dominant = null;
            double actual = 0;
            for (var e : m.entrySet()) {
                long t = total.get(e.getKey())[0];
                double share = t > 0 ? (double) e.getValue()[1] / t : 0;
                // the largest share; among equal shares GPUs first (an idle queue's dominant resource is its GPUs)
                if (dominant == null || share > actual || share == actual && e.getKey().equals(io.fairway.api.model.Resources.GPU)) {
                    dominant = e.getKey();
                    actual = share;
                }
            }
            long nominalTotal = dominant == null ? 0 : total.get(dominant)[0];
            double nominalShare = dominant == null || nominalTotal == 0 ? 0 : (double) m.get(dominant)[0] / nominalTotal;
            double drs = book.getOrDefault(q.name(), 0.0);
            maxDrs = Math.max(maxDrs, drs);
            minDrs = Math.min(minDrs, drs);
            int[] counts = queues.counts(q.name());
            ObjectNode o = cqs.addObject();
            o.put("name", q.name());
            o.put("cohort", q.cohort());
            o.put("weight", q.fairSharingWeight());
            o.put("priorityFactor", q.priorityFactor());
            o.put("active", active(q));
            o.put("pending", counts[0]);
            o.put("holding", counts[1]);
            o.put("dominantResource", dominant);
            o.put("actualShare", actual);
            o.put("nominalShare", nominalShare);
            o.put("weightedShare", active(q) && activeWeight > 0 ? q.fairSharingWeight() / activeWeight : 0);
            o.put("dominantResourceShare", drs);
            o.put("decayedUsage", view.snapshot.decayedUsage().getOrDefault(q.name(), 0.0));
        }
        if (c == null) {
            return;
        }
        ArrayNode m = c.putArray("clusterQueues");
        names.forEach(m::add);
        c.put("activeWeight", activeWeight);
        c.put("maxDominantResourceShare", maxDrs);
        c.put("minDominantResourceShare", qs.isEmpty() ? 0 : minDrs);
        ArrayNode rs = c.putArray("resources");
        total.forEach((r, t) -> rs.addObject().put("resource", r).put("nominal", t[0]).put("used", t[1]));
    }

    private boolean active(ClusterQueue q) {
        int[] counts = queues.counts(q.name());
        return counts[0] > 0 || counts[1] > 0;
    }

    private static ArrayNode apps(FairnessInsight.Report report) {
        ArrayNode out = VisibilityJson.array();
        if (report == null) {
            return out;
        }
        for (FairnessInsight.App a : report.apps()) {
            ObjectNode o = out.addObject();
            o.put("name", a.name());
            finite(o, "rho", a.rho());
            finite(o, "sharedSeconds", a.sharedSeconds());
            finite(o, "idealSeconds", a.idealSeconds());
            o.put("bidding", a.bidding());
            o.put("bidMinGpus", a.bidMinGpus());
            o.put("bidMaxGpus", a.bidMaxGpus());
            ArrayNode jobs = o.putArray("jobs");
            for (FairnessInsight.Job j : a.jobs()) {
                ObjectNode jo = jobs.addObject().put("id", j.id());
                finite(jo, "rho", j.rho());
                jo.put("gpus", j.gpus()).put("holding", j.holding());
                finite(jo, "remainingSeconds", j.remainingSeconds());
            }
        }
        return out;
    }

    /** JSON has no infinity: a figure that is not finite is null. */
    private static void finite(ObjectNode o, String field, double v) {
        if (Double.isFinite(v)) {
            o.put(field, v);
        } else {
            o.putNull(field);
        }
    }
}
