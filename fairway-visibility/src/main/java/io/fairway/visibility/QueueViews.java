package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.core.snapshot.PendingJobs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Cohorts, ClusterQueues and LocalQueues with their usage against nominal quota, borrowing and lendable quota per
 * (flavor, resource), computed from one snapshot the way the engine charges quota: each job holding resources
 * charges its ClusterQueue {@code count × request} of every pod set on the flavor it was assigned.
 */
final class QueueViews {
    /** One (flavor, resource) row of a queue. */
    record Row(String flavor, String resource, long nominal, long borrowingLimit, long lendingLimit, long used) {
        long borrowed() {
            return Math.max(0, used - nominal);
        }

        long lendable(boolean inCohort) {
            if (!inCohort) {
                return 0;
            }
            long unused = Math.max(0, nominal - used);
            return lendingLimit == ResourceQuota.UNLIMITED ? unused : Math.min(unused, lendingLimit);
        }
    }

    private final StateView view;
    /** ClusterQueue → "flavor\0resource" → usage. */
    private final Map<String, Map<String, Long>> used = new HashMap<>();
    private final Map<String, int[]> counts = new HashMap<>(); // cq → {pending, holding, running}
    private final Map<String, int[]> lqCounts = new HashMap<>(); // lq key → {pending, holding}

    QueueViews(StateView view) {
        this.view = view;
        for (JobStatus j : view.snapshot.holding()) {
            var a = j.admission();
            if (a == null) {
                continue;
            }
            Map<String, Long> u = used.computeIfAbsent(a.clusterQueue(), k -> new HashMap<>());
            for (PodSet ps : j.spec().podSets()) {
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                if (a.flavors().get(ps.name()) != null) {
                    ps.total(m).asMap().forEach((r, v) -> u.merge(a.flavorOf(ps.name(), r) + '\u0000' + r, v, Long::sum));
                }
            }
            int[] c = counts.computeIfAbsent(a.clusterQueue(), k -> new int[3]);
            c[1]++;
            if (j.state() == JobState.RUNNING) {
                c[2]++;
            }
            lqCounts.computeIfAbsent(j.spec().localQueueKey(), k -> new int[2])[1]++;
        }
        for (PendingJobs.Group g : view.snapshot.pendingIndex().groups()) {
            List<JobStatus> jobs = g.jobs();
            String key = jobs.get(0).spec().localQueueKey();
            lqCounts.computeIfAbsent(key, k -> new int[2])[0] += jobs.size();
            String cq = view.clusterQueueOfLocalQueue(key);
            if (cq != null) {
                counts.computeIfAbsent(cq, k -> new int[3])[0] += jobs.size();
            }
        }
    }

    /** @return {pending, holding, running} of a ClusterQueue */
    int[] counts(String cq) {
        return counts.getOrDefault(cq, new int[3]);
    }

    List<Row> rows(String cq, List<ResourceGroup> groups) {
        Map<String, Long> u = used.getOrDefault(cq, Map.of());
        List<Row> rows = new ArrayList<>();
        for (ResourceGroup g : groups) {
            for (FlavorQuotas f : g.flavors()) {
                for (ResourceQuota q : f.resources()) {
                    rows.add(new Row(f.flavor(), q.resource(), q.nominal(), q.borrowingLimit(), q.lendingLimit(),
                            u.getOrDefault(f.flavor() + '\u0000' + q.resource(), 0L)));
                }
            }
        }
        return rows;
    }

    ObjectNode clusterQueue(ClusterQueue q) {
        ObjectNode o = VisibilityJson.object();
        o.put("name", q.name());
        o.put("cohort", q.cohort());
        o.put("stopped", q.stopped());
        o.put("fairSharingWeight", q.fairSharingWeight());
        o.put("decayedUsage", view.snapshot.decayedUsage().getOrDefault(q.name(), 0.0));
        int[] c = counts.getOrDefault(q.name(), new int[3]);
        o.put("pending", c[0]);
        o.put("holding", c[1]);
        o.put("running", c[2]);
        ArrayNode rs = o.putArray("resources");
        for (Row r : rows(q.name(), q.resourceGroups())) {
            ObjectNode ro = rs.addObject();
            ro.put("flavor", r.flavor());
            ro.put("resource", r.resource());
            ro.put("nominal", r.nominal());
            limit(ro, "borrowingLimit", r.borrowingLimit());
            limit(ro, "lendingLimit", r.lendingLimit());
            ro.put("used", r.used());
            ro.put("borrowed", r.borrowed());
            ro.put("lendable", r.lendable(q.cohort() != null));
        }
        return o;
    }

    private static void limit(ObjectNode o, String field, long v) {
        if (v == ResourceQuota.UNLIMITED) {
            o.putNull(field);
        } else {
            o.put(field, v);
        }
    }

    ObjectNode clusterQueues() {
        ObjectNode o = VisibilityJson.object();
        ArrayNode items = o.putArray("items");
        new TreeMap<>(view.snapshot.clusterQueues()).values().forEach(q -> items.add(clusterQueue(q)));
        return o;
    }

    ObjectNode clusterQueueDetail(String name) {
        ClusterQueue q = view.snapshot.clusterQueues().get(name);
        if (q == null) {
            throw ApiException.notFound("no ClusterQueue '" + VisibilityJson.clip(name) + "'");
        }
        ObjectNode o = clusterQueue(q);
        ArrayNode lqs = o.putArray("localQueues");
        for (LocalQueue lq : new TreeMap<>(view.snapshot.localQueues()).values()) {
            if (name.equals(lq.clusterQueue())) {
                lqs.addObject().put("namespace", lq.namespace()).put("name", lq.name());
            }
        }
        return o;
    }

    ObjectNode localQueues() {
        ObjectNode o = VisibilityJson.object();
        ArrayNode items = o.putArray("items");
        for (LocalQueue lq : new TreeMap<>(view.snapshot.localQueues()).values()) {
            int[] c = lqCounts.getOrDefault(lq.key(), new int[2]);
            items.addObject().put("namespace", lq.namespace()).put("name", lq.name()).put("clusterQueue", lq.clusterQueue())
                    .put("pending", c[0]).put("holding", c[1]);
        }
        return o;
    }

    /** Cohorts with their members' totals; a cohort only named by a ClusterQueue or a child is listed too. */
    ObjectNode cohorts() {
        Map<String, Cohort> specs = view.snapshot.cohorts();
        TreeSet<String> names = new TreeSet<>(specs.keySet());
        view.snapshot.clusterQueues().values().forEach(q -> {
            if (q.cohort() != null) {
                names.add(q.cohort());
            }
        });
        specs.values().forEach(c -> {
            if (c.parent() != null) {
                names.add(c.parent());
            }
        });
        ObjectNode o = VisibilityJson.object();
        ArrayNode items = o.putArray("items");
        for (String name : names) {
            Cohort spec = specs.get(name);
            ObjectNode co = items.addObject();
            co.put("name", name);
            co.put("parent", spec == null ? null : spec.parent());
            ArrayNode children = co.putArray("children");
            specs.values().stream().filter(c -> name.equals(c.parent())).map(Cohort::name).sorted().forEach(children::add);
            ArrayNode members = co.putArray("clusterQueues");
            new TreeMap<>(view.snapshot.clusterQueues()).values().stream().filter(q -> name.equals(q.cohort())).forEach(q -> members.add(q.name()));
            Map<String, long[]> totals = new LinkedHashMap<>();
            addCohort(name, totals, new TreeSet<>());
            ArrayNode rs = co.putArray("resources");
            totals.forEach((k, t) -> {
                int z = k.indexOf('\u0000');
                rs.addObject().put("flavor", k.substring(0, z)).put("resource", k.substring(z + 1)).put("nominal", t[0]).put("used", t[1])
                        .put("borrowed", t[2]).put("lendable", t[3]);
            });
        }
        return o;
    }

    /** Adds a cohort's own quota and its members' and child cohorts' figures into {nominal, used, borrowed, lendable}. */
    private void addCohort(String name, Map<String, long[]> totals, TreeSet<String> seen) {
        if (!seen.add(name)) {
            return;
        }
        Cohort spec = view.snapshot.cohorts().get(name);
        if (spec != null) {
            for (ResourceGroup g : spec.resourceGroups()) {
                for (FlavorQuotas f : g.flavors()) {
                    for (ResourceQuota q : f.resources()) {
                        totals.computeIfAbsent(f.flavor() + '\u0000' + q.resource(), k -> new long[4])[0] += q.nominal();
                    }
                }
            }
        }
        for (ClusterQueue q : new TreeMap<>(view.snapshot.clusterQueues()).values()) {
            if (name.equals(q.cohort())) {
                for (Row r : rows(q.name(), q.resourceGroups())) {
                    long[] t = totals.computeIfAbsent(r.flavor() + '\u0000' + r.resource(), k -> new long[4]);
                    t[0] += r.nominal();
                    t[1] += r.used();
                    t[2] += r.borrowed();
                    t[3] += r.lendable(true);
                }
            }
        }
        for (Cohort c : new TreeMap<>(view.snapshot.cohorts()).values()) {
            if (name.equals(c.parent())) {
                addCohort(c.name(), totals, seen);
            }
        }
    }
}
