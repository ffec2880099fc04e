package io.fairway.api.spi;

import io.fairway.api.job.JobStatus;
import java.util.List;

/**
 * Pending jobs that need exactly the same room and quota: one LocalQueue (so one namespace and one
 * ClusterQueue), equal pod sets (counts, requests, selectors, tolerations, topology) and one priority. Within
 * a round capacity and quota only shrink as the plan grows, so once one job of a group does not fit, none of
 * the jobs behind it in the group fits either: a policy can answer the rest of the group with one
 * {@link PolicyContext#leaveWaiting(PendingGroup, int, io.fairway.api.job.PendingReason)} instead of a search
 * per job. That keeps a round over a deep queue of jobs that cannot fit as cheap as a round over a short one.
 *
 * <p>Groups come from {@link PolicyContext#pendingGroups()}; the engine keeps them up to date as jobs arrive
 * and leave, so listing them costs nothing per pending job.
 */
public interface PendingGroup {
    /** @return the ClusterQueue the group's jobs are admitted through */
    String clusterQueue();

    /** @return the group's jobs in Kueue order (submission time, then the order they were accepted); not empty */
    List<JobStatus> jobs();

    /**
     * The hash code of the group's pod sets, the same for every job of the group. The engine's groups answer it from
     * what they computed when the group was made; the default computes it from the first job. A policy that keys maps
     * by pod sets (for example shapes found not to fit this round) can take it rather than hash deep records per group.
     *
     * @return {@code jobs().get(0).spec().podSets().hashCode()}
     */
    default int podSetsHash() {
        return jobs().get(0).spec().podSets().hashCode();
    }

    /**
     * Whether the group's jobs are elastic (a pod set that may run with fewer members than it asks for), the same for
     * every job of the group. The engine's groups answer it from what they computed when the group was made; the
     * default reads the first job. A policy that tries smaller sizes of elastic jobs can ask the group rather than read
     * each waiting job's pod sets.
     *
     * @return {@code jobs().get(0).spec().isElastic()}
     */
    default boolean elastic() {
        return jobs().get(0).spec().isElastic();
    }
}
