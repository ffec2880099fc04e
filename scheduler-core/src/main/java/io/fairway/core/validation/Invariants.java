package io.fairway.core.validation;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.QuotaBook;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Checks the invariants of the state a snapshot shows, independently of the planning code: no node
 * resource or GPU committed beyond capacity or twice, quota within limits at every level of the cohort tree,
 * gangs placed whole, a reason and no admission on every pending job, quota reserved only for pending jobs.
 *
 * <p>Quota, generalised for reconfiguration: a node of the cohort tree may stay above its limit with work that was
 * running when its quota was lowered (or when a state holding such work was restored), never above what that
 * work used — the allowance the engine keeps, lowered to the usage at the start of each round. Capacity is not
 * generalised: a node that shrinks sends back what no longer fits.
 *
 * <p>The checks of one job's state ({@link #state}), of the placement of the jobs holding resources ({@link #holding})
 * and of quota reservations ({@link #reservations}) are shared with the check a restored state passes, so a live engine
 * and a restore agree on what is consistent; that check adds only what is particular to a saved state (counters and
 * times in range, each job and node once, a ClusterQueue for every admission).
 */
public final class Invariants {
    private Invariants() {
    }

    /**
     * @param s a snapshot
     * @return violations, empty when all hold (no usage above a quota limit is allowed)
     */
    public static List<String> check(Snapshot s) {
        return check(s, Map.of());
    }

    /**
     * @param s a snapshot
     * @param quotaAllowance usage allowed above a quota limit, by {@link QuotaBook.OverUse#key}
     * @return violations, empty when all hold
     */
    public static List<String> check(Snapshot s, Map<String, Long> quotaAllowance) {
        List<String> v = holding(s.nodes(), s.holding());
        Map<String, JobStatus> waiting = new HashMap<>();
        if (!s.provisioning().reservations().isEmpty()) {
            for (JobStatus j : s.pending()) {
                if (s.provisioning().reservations().containsKey(j.id())) {
                    waiting.put(j.id(), j);
                }
            }
        }
        QuotaBook quota = charged(s.clusterQueues(), s.cohorts(), s.holding(), s.provisioning().reservations().values(), waiting::get);
        quota.tolerate(quotaAllowance);
        String q = quota.violation();
        if (q != null) {
            v.add(q);
        }
        for (JobStatus j : s.pending()) {
            v.addAll(state(j));
        }
        v.addAll(reservations(s.provisioning().reservations().values(), waiting.keySet(), s.clusterQueues().keySet()));
        return v;
    }

    /**
     * A job's state agrees with its admission and reason: a pending job has a reason and no admission; a job that ended has
     * neither; a job holding resources has its admission, whose placement {@link #holding} checks.
     *
     * @param j a job
     * @return violations, each naming the job and what is wrong; empty when it agrees
     */
    public static List<String> state(JobStatus j) {
        String id = j.id();
        JobState st = j.state();
        if (st == null) {
            return List.of("job " + id + " has no state");
        }
        if (st == JobState.PENDING) {
            return j.admission() != null || j.pendingReason() == null ? List.of("pending job " + id + " must have a reason and no admission")
                    : List.of();
        }
        if (st.holdsResources()) {
            return List.of();
        }
        List<String> v = new ArrayList<>(0);
        if (j.admission() != null) {
            v.add("job " + id + " is " + st + " but still holds an admission (field admission): an ended job holds nothing");
        }
        if (j.pendingReason() != null) {
            v.add("job " + id + " is " + st + " but has a pending reason (field pendingReason)");
        }
        return v;
    }

    /**
     * Quota is reserved only for pending jobs (those waiting for nodes), in ClusterQueues that exist.
     *
     * @param reservations the quota reservations
     * @param pending the ids of the pending jobs (at least those with a reservation)
     * @param clusterQueues the names of the ClusterQueues
     * @return violations, each naming the job and what is wrong
     */
    public static List<String> reservations(Collection<Provisioning.Reservation> reservations, Set<String> pending, Set<String> clusterQueues) {
        List<String> v = new ArrayList<>(0);
        for (Provisioning.Reservation r : reservations) {
            if (!pending.contains(r.jobId())) {
                v.add("quota is reserved for job " + r.jobId() + ", which is not pending");
            } else if (!clusterQueues.contains(r.clusterQueue())) {
                v.add("quota is reserved for job " + r.jobId() + " in ClusterQueue " + r.clusterQueue() + ", which the state does not have");
            }
        }
        return v;
    }

    /**
     * The quota a state uses: every job holding resources charged to its ClusterQueue with its admitted flavors and
     * member counts, and every quota reservation for a job waiting for nodes.
     *
     * @param clusterQueues the ClusterQueues
     * @param cohorts the cohorts
     * @param holding jobs holding resources
     * @param reservations quota reserved for jobs waiting for nodes
     * @param jobById finds a reservation's (pending) job, null when unknown
     * @return the book with that usage
     */
    public static QuotaBook charged(Map<String, ClusterQueue> clusterQueues, Map<String, Cohort> cohorts, Collection<JobStatus> holding,
                                    Collection<Provisioning.Reservation> reservations, Function<String, JobStatus> jobById) {
        QuotaBook quota = new QuotaBook(clusterQueues, cohorts);
        for (JobStatus j : holding) {
            Admit a = j.admission();
            if (a == null || !quota.hasQueue(a.clusterQueue())) {
                continue;
            }
            for (PodSet ps : j.spec().podSets()) {
                if (a.flavors().get(ps.name()) != null) {
                    ps.total(a.placement().count(ps.name())).asMap().forEach((r, q) -> quota.add(a.clusterQueue(), QuotaBook.fr(a.flavorOf(ps.name(), r), r), q));
                }
            }
        }
        for (Provisioning.Reservation r : reservations) {
            JobStatus j = jobById.apply(r.jobId());
            if (j == null || !quota.hasQueue(r.clusterQueue())) {
                continue;
            }
            for (PodSet ps : j.spec().podSets()) {
                int m = r.counts().getOrDefault(ps.name(), ps.count());
                if (r.flavors().get(ps.name()) != null) {
                    ps.total(m).asMap().forEach((res, q) -> quota.add(r.clusterQueue(),
                            QuotaBook.fr(io.fairway.api.decision.Admit.flavorOf(r.flavors(), ps.name(), res), res), q));
                }
            }
        }
        return quota;
    }

    /**
     * The placement invariants of the jobs holding resources: each has an admission of its own, with every pod set's
     * member count within its min..max and as admitted; every member on a node that exists, on GPUs that node has; no
     * GPU given twice; no node committed beyond its capacity in any resource.
     *
     * @param nodes the nodes
     * @param holding the jobs holding resources
     * @return violations, each naming the job (or node) and what is wrong
     */
    public static List<String> holding(Collection<Node> nodes, Collection<JobStatus> holding) {
        List<String> v = new ArrayList<>();
        Map<String, Node> byName = new HashMap<>();
        for (Node n : nodes) {
            byName.put(n.name(), n);
        }
        Map<String, Set<Integer>> gpusOf = new HashMap<>();
        Map<String, Resources> used = new LinkedHashMap<>();
        Map<String, Set<String>> jobsOn = new HashMap<>();
        Map<String, String> gpuOwner = new HashMap<>();
        for (JobStatus j : holding) {
            String id = j.id();
            Admit a = j.admission();
            if (a == null) {
                v.add("job " + id + " is " + j.state() + " without an admission");
                continue;
            }
            if (!id.equals(a.jobId())) {
                v.add("job " + id + " carries the admission of " + a.jobId());
            }
            Map<String, PodSet> podSets = new HashMap<>();
            for (PodSet ps : j.spec().podSets()) {
                podSets.put(ps.name(), ps);
                int placed = a.placement().count(ps.name());
                if (placed < ps.minCount() || placed > ps.count() || placed != a.counts().getOrDefault(ps.name(), -1)) {
                    v.add("job " + id + " pod set " + ps.name() + ": " + placed + " members placed, admitted " + a.counts().get(ps.name())
                            + ", allowed " + ps.minCount() + ".." + ps.count());
                }
            }
            for (MemberPlacement m : a.placement().members()) {
                PodSet ps = podSets.get(m.podSet());
                if (ps == null) {
                    v.add("job " + id + " places a member of pod set " + m.podSet() + ", which the job does not have");
                    continue;
                }
                Node n = byName.get(m.node());
                if (n == null) {
                    v.add("job " + id + " (" + j.state() + ") is placed on node " + m.node() + ", which the state does not have");
                    continue;
                }
                used.merge(m.node(), ps.resources(), Resources::plus);
                jobsOn.computeIfAbsent(m.node(), k -> new TreeSet<>()).add(id);
                Set<Integer> has = gpusOf.computeIfAbsent(m.node(), k -> {
                    Set<Integer> s = new HashSet<>();
                    for (Gpu g : n.gpus().gpus()) {
                        s.add(g.index());
                    }
                    return s;
                });
                for (int g : m.gpus()) {
                    if (!has.contains(g)) {
                        v.add("job " + id + " uses GPU " + g + " of node " + m.node() + ", which has no such GPU");
                    }
                    String prev = gpuOwner.put(m.node() + "#" + g, id);
                    if (prev != null && !prev.equals(id)) {
                        v.add("GPU " + g + " of node " + m.node() + " is given to both " + prev + " and " + id);
                    } else if (prev != null) {
                        v.add("GPU " + g + " of node " + m.node() + " is given twice to " + id);
                    }
                }
            }
        }
        used.forEach((node, r) -> {
            Resources cap = byName.get(node).capacity();
            for (String res : r.names()) {
                if (r.get(res) > cap.get(res)) {
                    Set<String> on = jobsOn.get(node);
                    v.add("node " + node + " is committed " + r.get(res) + " " + res + ", beyond its capacity " + cap.get(res) + " (jobs "
                            + (on.size() > 5 ? String.join(", ", new ArrayList<>(on).subList(0, 5)) + ", …" : String.join(", ", on)) + ")");
                }
            }
        });
        return v;
    }
}
