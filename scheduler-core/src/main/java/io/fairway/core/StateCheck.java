package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Gpu;
import io.fairway.api.model.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@link Scheduler#restore} checks before it builds anything from a {@link SchedulerState}: the state must
 * be one the engine could have exported. Each job once, in a state that agrees with its admission and reason;
 * every member of a job holding resources on a node the state has, on GPUs that node has, no GPU given to two
 * members; member counts as admitted; reservations only for pending jobs; counters and usage history in range.
 *
 * <p>Not refused: a node committed beyond its capacity or a ClusterQueue beyond its quota — the live engine keeps
 * both after a node or a queue shrinks under running jobs, so an exported state may hold them.
 */
final class StateCheck {
    private StateCheck() {
    }

    /**
     * @param s a state
     * @throws InvalidSpecException listing every inconsistency found (the first few in the message)
     */
    static void check(SchedulerState s) {
        List<String> v = problems(s);
        if (!v.isEmpty()) {
            String shown = String.join("; ", v.subList(0, Math.min(5, v.size())));
            throw new InvalidSpecException("state", v.size(), "the state is inconsistent and was not restored (" + v.size() + " problem"
                    + (v.size() == 1 ? "" : "s") + "): " + shown + (v.size() > 5 ? "; …" : ""));
        }
    }

    /**
     * @param s a state
     * @return the inconsistencies, empty when there are none
     */
    static List<String> problems(SchedulerState s) {
        List<String> v = new ArrayList<>();
        if (s.round() < 0 || s.nextSequence() < 0) {
            v.add("round " + s.round() + " and next sequence " + s.nextSequence() + " must be >= 0");
        }
        if (s.usageHalfLifeMillis() <= 0) {
            v.add("usage half-life " + s.usageHalfLifeMillis() + " ms must be > 0");
        }
        s.decayedUsage().forEach((cq, u) -> {
            if (u == null || !(u >= 0) || Double.isInfinite(u)) {
                v.add("usage history of " + cq + " is " + u + " (must be a finite number >= 0)");
            }
        });
        Map<String, Node> nodes = new HashMap<>();
        for (Node n : s.nodes()) {
            if (nodes.put(n.name(), n) != null) {
                v.add("node " + n.name() + " appears twice");
            }
        }
        Set<String> ids = new HashSet<>();
        Set<Long> sequences = new HashSet<>();
        Map<String, JobStatus> pending = new HashMap<>();
        Map<String, String> gpuOwner = new HashMap<>();
        for (JobStatus j : s.jobs()) {
            String id = j.id();
            if (!ids.add(id)) {
                v.add("job " + id + " appears twice");
            }
            if (!sequences.add(j.sequence()) || j.sequence() < 0 || j.sequence() >= s.nextSequence()) {
                v.add("job " + id + " has sequence " + j.sequence() + ", repeated or outside 0.." + (s.nextSequence() - 1));
            }
            JobState st = j.state();
            if (st == null) {
                v.add("job " + id + " has no state");
                continue;
            }
            if (st == JobState.PENDING) {
                pending.put(id, j);
                if (j.admission() != null || j.pendingReason() == null) {
                    v.add("pending job " + id + " must have a reason and no admission");
                }
                continue;
            }
            if (!st.holdsResources()) {
                continue;
            }
            Admit a = j.admission();
            if (a == null) {
                v.add("job " + id + " is " + st + " without an admission");
                continue;
            }
            if (!a.jobId().equals(id)) {
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
                if (!podSets.containsKey(m.podSet())) {
                    v.add("job " + id + " places a member of pod set " + m.podSet() + ", which the job does not have");
                }
                Node n = nodes.get(m.node());
                if (n == null) {
                    v.add("job " + id + " (" + st + ") is placed on node " + m.node() + ", which the state does not have");
                    continue;
                }
                Set<Integer> has = new HashSet<>();
                for (Gpu g : n.gpus().gpus()) {
                    has.add(g.index());
                }
                for (int g : m.gpus()) {
                    if (!has.contains(g)) {
                        v.add("job " + id + " uses GPU " + g + " of node " + m.node() + ", which has no such GPU");
                    }
                    String prev = gpuOwner.put(m.node() + "#" + g, id);
                    if (prev != null) {
                        v.add("GPU " + g + " of node " + m.node() + " is given to both " + prev + " and " + id);
                    }
                }
            }
        }
        for (Provisioning.Reservation r : s.provisioning().reservations().values()) {
            if (!pending.containsKey(r.jobId())) {
                v.add("quota is reserved for job " + r.jobId() + ", which is not pending");
            }
        }
        return v;
    }
}
