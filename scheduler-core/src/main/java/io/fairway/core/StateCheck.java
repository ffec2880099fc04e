package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.core.validation.Invariants;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@link Scheduler#restore} checks before it builds anything from a {@link SchedulerState}: the state must
 * be one the engine could have exported. What a live engine's state must also satisfy is checked by {@link Invariants},
 * the one owner of those checks: each job's state agrees with its admission and reason ({@link Invariants#state}),
 * every job holding resources is placed as {@link Invariants#holding} requires (nodes and GPUs that exist, no GPU given
 * twice, no node committed beyond its capacity in any resource), quota is reserved only for pending jobs in ClusterQueues
 * that exist ({@link Invariants#reservations}). Checked here only, as particular to a saved state: each job and node
 * once, every admission charged to a ClusterQueue the state has, counters, times and usage history in range.
 *
 * <p>Not refused: a ClusterQueue or cohort above its quota. The live engine keeps running work when a quota is
 * lowered under it (nothing new is admitted there until the usage is back within the limit), so an exported state may
 * hold such work; the restored engine allows exactly that usage, as the live one did.
 *
 * <p>The bounds: round at most {@value #MAX_ROUND} (a round's admission numbers and node request ids are derived
 * from it), sequences and the next sequence at most 2^53, times (a job's state since, the last usage update) within
 * ±2^53 ms, preemption count, running time and attained GPU time at least 0 (and at most 2^53: exact as doubles, which
 * policies rank by), progress in 0..1 or the engine's -1 for "not reported". A state outside them cannot have been
 * written by the engine, and the arithmetic of a later round would overflow on it.
 */
final class StateCheck {
    /** The largest round a state may be at: admission numbers are the round shifted left by 24 bits. */
    static final long MAX_ROUND = 1L << 38;
    private static final long MAX = Resources.MAX_QUANTITY;

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

    private static boolean time(long t) {
        return t >= -MAX && t <= MAX;
    }

    /**
     * @param s a state
     * @return the inconsistencies, empty when there are none
     */
    static List<String> problems(SchedulerState s) {
        List<String> v = new ArrayList<>();
        if (s.round() < 0 || s.round() > MAX_ROUND) {
            v.add("round is " + s.round() + ", outside 0.." + MAX_ROUND);
        }
        if (s.nextSequence() < 0 || s.nextSequence() > MAX) {
            v.add("nextSequence is " + s.nextSequence() + ", outside 0.." + MAX);
        }
        if (s.usageHalfLifeMillis() <= 0) {
            v.add("usage half-life " + s.usageHalfLifeMillis() + " ms must be > 0");
        }
        if (s.usageUpdatedAt() != Long.MIN_VALUE && !time(s.usageUpdatedAt())) {
            v.add("usageUpdatedAt is " + s.usageUpdatedAt() + ", outside ±" + MAX + " ms");
        }
        s.decayedUsage().forEach((cq, u) -> {
            if (u == null || !(u >= 0) || Double.isInfinite(u)) {
                v.add("usage history of " + cq + " is " + u + " (must be a finite number >= 0)");
            }
        });
        Map<String, ClusterQueue> queues = new HashMap<>();
        for (ClusterQueue q : s.clusterQueues()) {
            queues.put(q.name(), q);
        }
        Map<String, Node> nodes = new HashMap<>();
        for (Node n : s.nodes()) {
            if (nodes.put(n.name(), n) != null) {
                v.add("node " + n.name() + " appears twice");
            }
        }
        Set<String> ids = new HashSet<>();
        Set<Long> sequences = new HashSet<>();
        Set<String> pending = new HashSet<>();
        List<JobStatus> holding = new ArrayList<>();
        for (JobStatus j : s.jobs()) {
            String id = j.id();
            if (!ids.add(id)) {
                v.add("job " + id + " appears twice");
            }
            if (!sequences.add(j.sequence()) || j.sequence() < 0 || j.sequence() >= s.nextSequence()) {
                v.add("job " + id + " has sequence " + j.sequence() + ", repeated or outside 0.." + (s.nextSequence() - 1));
            }
            values(j, v);
            v.addAll(Invariants.state(j));
            JobState st = j.state();
            if (st == JobState.PENDING) {
                pending.add(id);
            }
            if (st == null || !st.holdsResources()) {
                continue;
            }
            holding.add(j);
            if (j.admission() != null && !queues.containsKey(j.admission().clusterQueue())) {
                v.add("job " + id + " is charged to ClusterQueue " + j.admission().clusterQueue() + ", which the state does not have");
            }
        }
        v.addAll(Invariants.holding(s.nodes(), holding));
        v.addAll(Invariants.reservations(s.provisioning().reservations().values(), pending, queues.keySet()));
        return v;
    }

    /** A job's counters and times: each in the range the engine writes. */
    private static void values(JobStatus j, List<String> v) {
        String job = "job " + j.id() + ": ";
        double p = j.progress();
        if (!(p >= 0 && p <= 1) && p != -1) {
            v.add(job + "progress is " + p + " (must be in 0..1, or -1 when never reported)");
        }
        if (j.preemptions() < 0) {
            v.add(job + "preemptions is " + j.preemptions() + " (must be >= 0)");
        }
        if (j.runningMillis() < 0 || j.runningMillis() > MAX) {
            v.add(job + "runningMillis is " + j.runningMillis() + ", outside 0.." + MAX);
        }
        if (j.attainedGpuMillis() < 0 || j.attainedGpuMillis() > MAX) {
            v.add(job + "attainedGpuMillis is " + j.attainedGpuMillis() + ", outside 0.." + MAX);
        }
        if (!time(j.stateSinceMillis())) {
            v.add(job + "stateSinceMillis is " + j.stateSinceMillis() + ", outside ±" + MAX + " ms");
        }
    }
}
