package io.fairway.core.provisioning;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.spi.Attempt;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.plan.PlanContext;
import io.fairway.core.plan.PlanOutput;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Consolidation of under-used nodes (pools with {@link NodePool.Consolidation#WHEN_UNDERUTILIZED}), as Karpenter's
 * single-node consolidation: a pool node is a candidate when every job with a member on it declares checkpointing,
 * none of them was placed, resized or preempted in this round, and the newest of them has run there for at least the
 * pool's consolidation delay. Candidates are tried least used first (at most {@link #MAX_ATTEMPTS} a round): the
 * engine's own admission (quota, flavors, topology constraints, placement search) is run for each of its jobs on a
 * copy of the plan with that node cordoned. When all of them fit, each is preempted as a migration with a
 * checkpoint expected and admitted in the same round where the trial placed it (it restores from the checkpoint
 * there), and the node is deprovisioned. One node a round: the next round sees the new placements.
 */
final class Consolidator {
    /** Candidates tried in one round, each with its own trial plan. */
    static final int MAX_ATTEMPTS = 4;

    /**
     * @param migrations the jobs to move (migration, checkpoint expected), each followed by its admission elsewhere
     * @param deprovisions the node to remove
     */
    record Result(List<Decision> migrations, List<Deprovision> deprovisions) {
    }

    private record Candidate(Node node, NodePool pool, List<JobStatus> jobs, double used) {
    }

    private Consolidator() {
    }

    /**
     * @param s the round's input
     * @param out the round's plan (after the policy)
     * @param waitedOn pools some job waits for nodes of (left alone)
     * @param usedNow nodes the plan placed jobs on in this round (left alone)
     * @param leaving nodes deprovisioned in this round (no job moves there)
     * @return what to migrate and remove (nothing, or one node and its jobs)
     */
    static Result run(Snapshot s, PlanOutput out, Set<String> waitedOn, Set<String> usedNow, Set<String> leaving) {
        Provisioning prov = s.provisioning();
        boolean any = false;
        for (NodePool p : prov.pools().values()) {
            any |= p.consolidation() == NodePool.Consolidation.WHEN_UNDERUTILIZED;
        }
        if (!any) {
            return new Result(List.of(), List.of());
        }
        Planned planned = new Planned(out);
        List<Candidate> candidates = candidates(s, planned, waitedOn, usedNow);
        candidates.sort(Comparator.comparingDouble(Candidate::used).thenComparing(c -> c.node().name()));
        for (int i = 0; i < candidates.size() && i < MAX_ATTEMPTS; i++) {
            Candidate c = candidates.get(i);
            List<Admit> elsewhere = placeElsewhere(s, planned, c, leaving);
            if (elsewhere != null) {
                List<Decision> moves = new ArrayList<>();
                for (JobStatus j : c.jobs()) {
                    moves.add(new Preempt(j.id(), "consolidation: node " + c.node().name() + " of pool " + c.pool().name()
                            + " is under-used and its jobs fit on other nodes", true, true));
                }
                moves.addAll(elsewhere);
                return new Result(moves, List.of(new Deprovision(c.node().name(), "under-used: its " + c.jobs().size()
                        + " job(s) migrate to other nodes (consolidation)")));
            }
        }
        return new Result(List.of(), List.of());
    }

    /** The plan's preemptions, resizes and admissions by job id, in plan order. */
    private record Planned(Set<String> preempted, Map<String, Admit> resized, Map<String, Admit> admitted) {
        Planned(PlanOutput out) {
            this(new HashSet<>(), new java.util.LinkedHashMap<>(), new java.util.LinkedHashMap<>());
            out.preemptions().forEach(p -> preempted.add(p.jobId()));
            out.resizes().forEach(a -> resized.put(a.jobId(), a));
            out.admissions().forEach(a -> admitted.put(a.jobId(), a));
        }
    }

    private static List<Candidate> candidates(Snapshot s, Planned planned, Set<String> waitedOn, Set<String> usedNow) {
        Map<String, List<JobStatus>> jobsOn = new HashMap<>();
        Map<String, Integer> gpusUsed = new HashMap<>();
        for (JobStatus j : s.holding()) {
            if (j.admission() == null) {
                continue;
            }
            Set<String> seen = new HashSet<>();
            for (MemberPlacement m : j.admission().placement().members()) {
                if (seen.add(m.node())) {
                    jobsOn.computeIfAbsent(m.node(), k -> new ArrayList<>()).add(j);
                }
                gpusUsed.merge(m.node(), m.gpus().size(), Integer::sum);
            }
        }
        List<Candidate> out = new ArrayList<>();
        for (Node n : s.nodes()) {
            NodePool pool = s.provisioning().pools().get(n.labels().get(NodePool.POOL_LABEL));
            List<JobStatus> js = jobsOn.get(n.name());
            if (pool == null || pool.consolidation() != NodePool.Consolidation.WHEN_UNDERUTILIZED || n.unschedulable()
                    || usedNow.contains(n.name()) || waitedOn.contains(pool.name()) || js == null) {
                continue;
            }
            boolean movable = true;
            long newest = Long.MIN_VALUE;
            for (JobStatus j : js) {
                movable &= j.spec().checkpointing() != null && j.spec().preemptible() && !planned.preempted().contains(j.id()) && !planned.resized().containsKey(j.id());
                newest = Math.max(newest, j.admission().admittedAtMillis());
            }
            if (!movable || s.nowMillis() - newest < pool.consolidationDelayMillis()) {
                continue;
            }
            int gpus = n.gpus().size();
            double used = gpus == 0 ? js.size() : (double) gpusUsed.getOrDefault(n.name(), 0) / gpus;
            out.add(new Candidate(n, pool, js, used));
        }
        return out;
    }

    /**
     * Runs the engine's admission for the candidate's jobs on a copy of the plan with the node cordoned.
     *
     * @return their admissions elsewhere (ordered after this round's own), or null when one does not fit
     */
    private static List<Admit> placeElsewhere(Snapshot s, Planned planned, Candidate c, Set<String> leaving) {
        Set<String> moving = new HashSet<>();
        for (JobStatus j : c.jobs()) {
            moving.add(j.id());
        }
        List<Node> nodes = new ArrayList<>(s.nodes().size());
        for (Node n : s.nodes()) {
            nodes.add(n.name().equals(c.node().name()) || leaving.contains(n.name()) ? n.withUnschedulable(true) : n);
        }
        List<JobStatus> holding = new ArrayList<>();
        List<JobStatus> pending = new ArrayList<>();
        for (JobStatus j : s.holding()) {
            Admit resized = planned.resized().get(j.id());
            if (moving.contains(j.id())) {
                pending.add(j.requeued(null, s.nowMillis(), false)); // a hypothetical move: no reason, no new epoch
            } else {
                holding.add(resized == null ? j : j.withAdmission(resized, j.stateSinceMillis()));
            }
        }
        for (JobStatus j : s.pending()) {
            Admit a = planned.admitted().get(j.id());
            if (a != null) {
                holding.add(j.admitted(a, false, j.stateSinceMillis())); // what this round placed takes its room
            }
        }
        holding.sort(io.fairway.api.job.JobOrder.SEQUENCE);
        Snapshot trial = new Snapshot(s.round(), s.nowMillis(), s.seed(), s.clusters(), nodes, s.flavors(), s.clusterQueues(), s.cohorts(),
                s.localQueues(), pending, holding, s.decayedUsage(), s.placement(), s.provisioning());
        PlanContext plan = new PlanContext(trial);
        long order = s.round() << 24;
        for (Admit a : planned.admitted().values()) {
            order = Math.max(order, a.admissionOrder());
        }
        List<Admit> out = new ArrayList<>();
        for (JobStatus p : pending) {
            JobStatus held = null;
            for (JobStatus j : c.jobs()) {
                if (j.id().equals(p.id())) {
                    held = j;
                }
            }
            Attempt a = plan.tryAdmit(p, held.admission().counts());
            if (!a.admitted()) {
                return null;
            }
            Admit t = a.admission();
            out.add(new Admit(t.jobId(), t.clusterQueue(), t.flavors(), t.counts(), t.placement(), s.nowMillis(), t.leaseExpiresAtMillis(), ++order));
        }
        return out;
    }
}
