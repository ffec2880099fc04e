package io.fairway.core.snapshot;

import io.fairway.api.job.JobStatus;
import java.util.List;

/**
 * The pending jobs of a {@link Snapshot}, grouped by what they need: one LocalQueue, equal pod sets and one
 * priority. Jobs of a group are interchangeable for admission, so a round answers a group whose head does not fit
 * with one reason instead of a search per job. The engine keeps its groups up to date as jobs arrive and leave and
 * hands them to every snapshot it takes; a snapshot built from a plain list of pending jobs groups them on first
 * use ({@link #of}). Immutable.
 *
 * <pre>{@code
 * Snapshot s = scheduler.snapshot();
 * int groups = s.pendingIndex().groups().size();   // how many distinct shapes wait
 * }</pre>
 */
public interface PendingJobs {
    /**
     * @param pending pending jobs (in any order)
     * @return their groups, formed on first use
     */
    static PendingJobs of(List<JobStatus> pending) {
        return PendingIndex.of(pending);
    }

    /** @return the groups, in the order of their first jobs (submission order) */
    List<? extends Group> groups();

    /** @return the pending jobs in submission order */
    List<JobStatus> inSubmissionOrder();

    /** @return how many pending jobs there are */
    int size();

    /** Pending jobs that need exactly the same room and quota. */
    interface Group {
        /** @return the group's jobs in Kueue order (submission time, then the order they were accepted); not empty */
        List<JobStatus> jobs();
    }
}
