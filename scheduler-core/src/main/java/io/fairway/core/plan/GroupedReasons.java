package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.core.snapshot.PendingIndex;
import java.util.AbstractMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pending reasons of a round, by job id, where whole runs of a pending group share one reason: such a run is
 * kept as (jobs, reason) and listed job by job only when the map is read. A round over a million queued jobs thus
 * reports their reasons in time proportional to its groups; whoever reads the map (the engine applying the round)
 * pays per job, once. Jobs that already carry the run's reason are not listed, as for the individual reasons.
 *
 * <p>Writable while the round is assembled (puts and removes are kept aside and applied over the runs); read-only
 * once {@link #sealed() sealed} (a {@code RoundResult} holds it so). The view is built once, on first read, under a
 * lock, and never changes after. The engine applying the round does not build it: {@link #forEachChange} hands it
 * each changed reason with the job's status as the round's snapshot had it, in the view's order.
 */
public final class GroupedReasons extends AbstractMap<String, PendingReason> {
    /** Receives a round's changed reasons ({@link #forEachChange}). */
    public interface Changes {
        /**
         * @param jobId the job
         * @param asSeen the job's status in the round's snapshot, whose reason differs from {@code reason}; null when
         *     the round has only the id (a reason given to the job alone, or changed after the plan)
         * @param group the position of the job's group in the round's pending index ({@code groups()}), or -1 when not
         *     known
         * @param slot the job's position in that group, or -1 when not known
         * @param reason its new reason
         */
        void changed(String jobId, JobStatus asSeen, int group, int slot, PendingReason reason);
    }

    /**
     * A run of a group's jobs answered with one reason, and whether a whole walk over it listed no job (the jobs'
     * statuses are immutable, so a later walk would list none either). A round walks a run up to twice: to tell
     * whether it changed anything, then to write the changes; a quiet run is walked once.
     */
    private static final class Run {
        private final List<JobStatus> jobs;
        private final PendingReason reason;
        private final Map<String, ?> skip;
        /** The group the jobs end (from {@link #from} on), when the index counts its answers; else null. */
        private final PendingIndex.Group group;
        /** Its position in the round's pending index, or -1. */
        private final int groupAt;
        private final int from;
        /** True once a whole walk found no job to list. */
        private boolean listsNone;

        Run(List<JobStatus> jobs, PendingReason reason, Map<String, ?> skip, PendingIndex.Group group, int groupAt, int from) {
            this.jobs = jobs;
            this.reason = reason;
            this.skip = skip;
            this.group = group;
            this.groupAt = groupAt;
            this.from = from;
        }
    }

    private final Map<String, PendingReason> individual = new LinkedHashMap<>();
    private final List<Run> runs = new java.util.ArrayList<>();
    private final Map<String, PendingReason> overlay = new LinkedHashMap<>();
    private final Set<String> removed = new HashSet<>();
    private Map<String, PendingReason> view;
    private boolean sealed;
    private final KeptReasons kept;

    /** @param kept which reasons a job keeps */
    GroupedReasons(KeptReasons kept) {
        this.kept = kept;
    }

    /** @return this map, read-only from now on (puts and removes throw) */
    public synchronized GroupedReasons sealed() {
        sealed = true;
        return this;
    }

    /** Adds a job's own reason (before the map is read). */
    void putIndividual(String jobId, PendingReason reason) {
        individual.put(jobId, reason);
    }

    /**
     * Adds a run: every job of {@code jobs} whose reason differs from {@code reason} gets it, except jobs listed in
     * {@code skip} (jobs waiting for nodes).
     */
    void putRun(List<JobStatus> jobs, PendingReason reason, Map<String, ?> skip) {
        runs.add(new Run(jobs, reason, skip, null, -1, 0));
    }

    /**
     * Adds a run over the jobs of {@code group} (at {@code groupAt} in the round's pending index) from position
     * {@code from} on: as {@link #putRun(List, PendingReason, Map)}, and when the jobs keep reasons that give the same
     * answer and {@code reason} gives the answer the index counts the group against, a walk visits only the jobs that
     * do not give it.
     */
    void putRun(PendingIndex.Group group, int groupAt, int from, PendingReason reason, Map<String, ?> skip) {
        List<JobStatus> jobs = group.jobs();
        runs.add(new Run(jobs.subList(from, jobs.size()), reason, skip, group, groupAt, from));
    }

    @Override
    public synchronized PendingReason put(String key, PendingReason value) {
        if (sealed) {
            throw new UnsupportedOperationException("a round's reasons are read-only");
        }
        if (view != null) {
            return view.put(key, value);
        }
        removed.remove(key);
        return overlay.put(key, value);
    }

    @Override
    public synchronized PendingReason remove(Object key) {
        if (sealed) {
            throw new UnsupportedOperationException("a round's reasons are read-only");
        }
        if (view != null) {
            return view.remove(key);
        }
        overlay.remove(key);
        removed.add((String) key);
        return null;
    }

    private synchronized Map<String, PendingReason> view() {
        if (view == null) {
            int n = individual.size() + overlay.size();
            for (Run r : runs) {
                n += r.jobs.size();
            }
            Map<String, PendingReason> m = new LinkedHashMap<>(Math.max(16, (int) (n / 0.75f) + 1));
            m.putAll(individual);
            for (Run r : runs) {
                walkRun(r, (id, j, at, slot, reason) -> {
                    m.put(id, reason);
                    return true;
                });
            }
            m.keySet().removeAll(removed);
            m.putAll(overlay);
            view = m;
        }
        return view;
    }

    /** One step of a walk over a run's listed jobs: false ends the walk. */
    private interface Step {
        boolean take(String jobId, JobStatus asSeen, int group, int slot, PendingReason reason);
    }

    /**
     * The jobs of a run whose reason differs from the run's, until {@code s} says stop. Jobs given one reason share
     * the object: each distinct object is compared once, and a job that carries the run's own reason object costs an
     * identity check; an equal reason, or one the kept-reasons rule lets the job keep, is not listed. @return false
     * when {@code s} stopped the walk
     */
    private boolean walkRun(Run r, Step s) {
        if (r.listsNone) {
            return true;
        }
        PendingReason differs = null; // the last object found to differ from the run's reason
        PendingReason same = null; // the last object found equal to it
        boolean skips = !r.skip.isEmpty();
        boolean listed = false;
        int[] odd = r.group == null ? null : oddOnly(r);
        List<JobStatus> all = r.group == null ? null : r.group.jobs();
        int n = odd == null ? r.jobs.size() : odd.length;
        for (int k = odd == null ? 0 : firstAtOrAfter(odd, r.from); k < n; k++) {
            int slot = odd != null ? odd[k] : all != null ? r.from + k : -1; // the job's position in its group
            JobStatus j = odd == null ? r.jobs.get(k) : all.get(slot);
            PendingReason had = j.pendingReason();
            if (had == r.reason || had == same || skips && r.skip.containsKey(j.id())) {
                continue;
            }
            if (had == differs || !kept.standsForMany(r.reason, had)) {
                differs = had;
                listed = true;
                if (!s.take(j.id(), j, r.groupAt, slot, r.reason)) {
                    return false;
                }
            } else {
                same = had;
            }
        }
        r.listsNone = !listed;
        return true;
    }

    /**
     * The positions a walk over the run must visit when only the jobs that do not give the group's counted answer can
     * be listed: when a job keeps a reason that gives the same answer (an equivalence) and the run's reason gives the
     * counted one, every other job keeps its reason. @return them, or null to visit every job of the run
     */
    private int[] oddOnly(Run r) {
        PendingReason counted = r.group.countedAnswer();
        int[] odd = r.group.oddPositions();
        return counted != null && odd != null && kept.keepsSameAnswer() && kept.stands(r.reason, counted) ? odd : null;
    }

    /** @return the index of the first position at or after {@code from} (the array's length when none) */
    private static int firstAtOrAfter(int[] positions, int from) {
        int i = java.util.Arrays.binarySearch(positions, from);
        return i >= 0 ? i : -i - 1;
    }

    /**
     * Hands every entry of this map to {@code c}, in the map's order, without building the map: a run's jobs come
     * with their statuses as the snapshot had them. Costs the entries, not the jobs that keep their reason (those
     * cost an identity check each, or nothing when their whole group kept its reason object).
     *
     * @param c receives each changed reason
     */
    public synchronized void forEachChange(Changes c) {
        if (view != null || !overlay.isEmpty()) {
            for (Entry<String, PendingReason> e : view().entrySet()) {
                c.changed(e.getKey(), null, -1, -1, e.getValue());
            }
            return;
        }
        for (Entry<String, PendingReason> e : individual.entrySet()) {
            if (removed.isEmpty() || !removed.contains(e.getKey())) {
                c.changed(e.getKey(), null, -1, -1, e.getValue());
            }
        }
        RemovedFilter maybeRemoved = new RemovedFilter(removed);
        for (Run r : runs) {
            walkRun(r, (id, j, at, slot, reason) -> {
                if (!maybeRemoved.mayHold(id) || !removed.contains(id)) {
                    c.changed(id, j, at, slot, reason);
                }
                return true;
            });
        }
    }

    /**
     * Which ids may have been removed, by one bit per id hash in a table eight bits wide per removed id: a round
     * removes its admitted jobs (tens of thousands in a first round), and a walk over the jobs left waiting then asks
     * a small table instead of a lookup in the removed set per job; only a hit (all removed ids, and about one in
     * eight of the others) is looked up.
     */
    private static final class RemovedFilter {
        private final long[] bits;
        private final int mask;

        RemovedFilter(Set<String> removed) {
            int words = Integer.highestOneBit(Math.max(1, removed.size() / 8) * 2);
            bits = new long[removed.isEmpty() ? 0 : words];
            mask = words - 1;
            for (String id : removed) {
                int h = spread(id);
                bits[(h >>> 6) & mask] |= 1L << h;
            }
        }

        private static int spread(String id) {
            int h = id.hashCode();
            return h ^ (h >>> 16) * 0x9E3779B1;
        }

        boolean mayHold(String id) {
            if (bits.length == 0) {
                return false;
            }
            int h = spread(id);
            return (bits[(h >>> 6) & mask] & 1L << h) != 0;
        }
    }

    /** Without building the view: the first listed entry answers (a deep unchanged queue costs identity checks). */
    @Override
    public synchronized boolean isEmpty() {
        if (view != null) {
            return view.isEmpty();
        }
        if (!overlay.isEmpty()) {
            return false;
        }
        for (String id : individual.keySet()) {
            if (!removed.contains(id)) {
                return false;
            }
        }
        for (Run r : runs) {
            if (!walkRun(r, (id, j, at, slot, reason) -> removed.contains(id))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Set<Entry<String, PendingReason>> entrySet() {
        return view().entrySet();
    }

    @Override
    public PendingReason get(Object key) {
        return view().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return view().containsKey(key);
    }

    @Override
    public int size() {
        return view().size();
    }

}
