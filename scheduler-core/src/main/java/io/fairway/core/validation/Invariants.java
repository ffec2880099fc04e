package io.fairway.core.validation;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.core.Snapshot;
import io.fairway.core.admission.QuotaBook;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the invariants of the state a snapshot shows, independently of the planning code: no node
 * resource or GPU committed beyond capacity or twice, quota within limits at every level of the cohort tree,
 * gangs placed whole, a reason on every pending job.
 */
public final class Invariants {
    private Invariants() {
    }

    /**
     * @param s a snapshot
     * @return violations, empty when all hold
     */
    public static List<String> check(Snapshot s) {
        List<String> v = new ArrayList<>();
        Map<String, Node> nodes = new HashMap<>();
        for (Node n : s.nodes()) {
            nodes.put(n.name(), n);
        }
        Map<String, Resources> used = new HashMap<>();
        Map<String, String> gpuOwner = new HashMap<>();
        QuotaBook quota = new QuotaBook(s.clusterQueues(), s.cohorts());
        for (JobStatus j : s.holding()) {
            Admit a = j.admission();
            if (a == null) {
                v.add("job " + j.id() + " holds resources without an admission");
                continue;
            }
            Map<String, PodSet> podSets = new HashMap<>();
            for (PodSet ps : j.spec().podSets()) {
                podSets.put(ps.name(), ps);
                int placed = a.placement().count(ps.name());
                if (placed < ps.minCount() || placed > ps.count() || placed != a.counts().getOrDefault(ps.name(), -1)) {
                    v.add("job " + j.id() + " pod set " + ps.name() + ": " + placed + " members placed, admitted "
                            + a.counts().get(ps.name()) + ", allowed " + ps.minCount() + ".." + ps.count());
                }
                String flavor = a.flavors().get(ps.name());
                if (flavor != null && quota.hasQueue(a.clusterQueue())) {
                    ps.total(placed).asMap().forEach((r, q) -> quota.add(a.clusterQueue(), QuotaBook.fr(flavor, r), q));
                }
            }
            for (MemberPlacement m : a.placement().members()) {
                Node n = nodes.get(m.node());
                if (n == null) {
                    v.add("job " + j.id() + " runs on node " + m.node() + ", which does not exist");
                    continue;
                }
                used.merge(m.node(), podSets.get(m.podSet()).resources(), Resources::plus);
                for (int g : m.gpus()) {
                    String key = m.node() + "#" + g;
                    String prev = gpuOwner.put(key, j.id());
                    if (prev != null && !prev.equals(j.id())) {
                        v.add("GPU " + g + " of node " + m.node() + " is given to both " + prev + " and " + j.id());
                    } else if (prev != null) {
                        v.add("GPU " + g + " of node " + m.node() + " is given twice to " + j.id());
                    }
                    if (n.gpus().gpus().stream().noneMatch(x -> x.index() == g)) {
                        v.add("job " + j.id() + " uses GPU " + g + ", which node " + m.node() + " does not have");
                    }
                }
            }
        }
        used.forEach((node, r) -> {
            Node n = nodes.get(node);
            Resources cap = n.capacity();
            for (String res : r.names()) {
                if (r.get(res) > cap.get(res)) {
                    v.add("node " + node + " is committed " + r.get(res) + " " + res + ", beyond its capacity " + cap.get(res));
                }
            }
        });
        for (io.fairway.core.Provisioning.Reservation r : s.provisioning().reservations().values()) {
            for (JobStatus j : s.pending()) {
                if (j.id().equals(r.jobId())) {
                    for (PodSet ps : j.spec().podSets()) {
                        String flavor = r.flavors().get(ps.name());
                        int m = r.counts().getOrDefault(ps.name(), ps.count());
                        if (flavor != null && quota.hasQueue(r.clusterQueue())) {
                            ps.total(m).asMap().forEach((res, q) -> quota.add(r.clusterQueue(), QuotaBook.fr(flavor, res), q));
                        }
                    }
                }
            }
        }
        String q = quota.violation();
        if (q != null) {
            v.add(q);
        }
        for (JobStatus j : s.pending()) {
            if (j.pendingReason() == null) {
                v.add("pending job " + j.id() + " has no reason");
            }
        }
        return v;
    }
}
