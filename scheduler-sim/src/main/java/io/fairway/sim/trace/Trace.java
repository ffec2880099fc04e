package io.fairway.sim.trace;

import io.fairway.sim.SimJob;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The jobs read from a trace, sorted by submission time (ties keep file order).
 *
 * @param source the file or resource the jobs came from
 * @param jobs the jobs
 */
public record Trace(String source, List<SimJob> jobs) {
    /** Copies. */
    public Trace {
        jobs = List.copyOf(jobs);
    }

    /** @return the LocalQueue keys ({@code namespace/name}) the jobs use, in first-use order */
    public Set<String> localQueueKeys() {
        Set<String> s = new LinkedHashSet<>();
        for (SimJob j : jobs) {
            s.add(j.spec().localQueueKey());
        }
        return s;
    }

    /**
     * @param n a job count
     * @return a trace of the first {@code n} jobs
     */
    public Trace limit(int n) {
        return n >= jobs.size() ? this : new Trace(source, new ArrayList<>(jobs.subList(0, Math.max(0, n))));
    }
}
