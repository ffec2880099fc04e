package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
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
 * <p>Writable while the round is assembled (puts and removes are kept aside and applied over the runs); the
 * view is built once, on first read, under a lock, and never changes after.
 */
final class GroupedReasons extends AbstractMap<String, PendingReason> {
    /** A run of a group's jobs answered with one reason. */
    private record Run(List<JobStatus> jobs, PendingReason reason, Map<String, ?> skip) {
    }

    private final Map<String, PendingReason> individual = new LinkedHashMap<>();
    private final List<Run> runs = new java.util.ArrayList<>();
    private final Map<String, PendingReason> overlay = new LinkedHashMap<>();
    private final Set<String> removed = new HashSet<>();
    private Map<String, PendingReason> view;
    private final KeptReasons kept;

    /** @param kept which reasons a job keeps */
    GroupedReasons(KeptReasons kept) {
        this.kept = kept;
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
        runs.add(new Run(jobs, reason, skip));
    }

    @Override
    public synchronized PendingReason put(String key, PendingReason value) {
        if (view != null) {
            return view.put(key, value);
        }
        removed.remove(key);
        return overlay.put(key, value);
    }

    @Override
    public synchronized PendingReason remove(Object key) {
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
                n += r.jobs().size();
            }
            Map<String, PendingReason> m = new LinkedHashMap<>(Math.max(16, (int) (n / 0.75f) + 1));
            m.putAll(individual);
            for (Run r : runs) {
                // Jobs given one reason share the object: compare each distinct object once, in runs.
                PendingReason differs = null; // the last object found to differ from the run's reason
                PendingReason same = null; // the last object found equal to it
                for (JobStatus j : r.jobs()) {
                    PendingReason had = j.pendingReason();
                    if (had == r.reason() || had == same || !r.skip().isEmpty() && r.skip().containsKey(j.id())) {
                        continue;
                    }
                    if (had == differs || !kept.stands(r.reason(), had)) {
                        differs = had;
                        m.put(j.id(), r.reason());
                    } else {
                        same = had;
                    }
                }
            }
            m.keySet().removeAll(removed);
            m.putAll(overlay);
            view = m;
        }
        return view;
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

    @Override
    public boolean isEmpty() {
        return view().isEmpty();
    }
}
