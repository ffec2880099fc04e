package io.fairway.visibility;

import io.fairway.core.Scheduler;

/**
 * Where the API's write verbs act ({@code POST /api/v1/jobs/{id}/cancel}, {@code .../priority},
 * {@code /api/v1/clusterqueues/{name}/stop} and {@code /resume}), after the server has checked the token and before it
 * audits the write. By default ({@link #engine}) on the scheduler itself, as in a simulation or an embedding; an
 * adapter whose source of truth is elsewhere (the Kubernetes objects) passes its own, so that a write changes the
 * object and the engine follows it rather than being undone by the next reconcile.
 *
 * <p>Each method answers whether it changed anything; it throws {@link IllegalArgumentException} for a target that
 * does not exist (answered 404) and {@link IllegalStateException} when the write could not be made (answered 502).
 */
public interface OperatorWrites {
    /**
     * @param jobId the job
     * @return true when it was cancelled now
     */
    boolean cancel(String jobId);

    /**
     * @param jobId the job
     * @param priority its new priority
     * @return true when its priority changed
     */
    boolean setPriority(String jobId, int priority);

    /**
     * @param clusterQueue the ClusterQueue
     * @param stop true to stop it (it admits nothing new), false to resume it
     * @return true when its state changed
     */
    boolean stopClusterQueue(String clusterQueue, boolean stop);

    /**
     * @param scheduler the scheduler the API serves
     * @return writes made on that scheduler itself
     */
    static OperatorWrites engine(Scheduler scheduler) {
        return new OperatorWrites() {
            @Override
            public boolean cancel(String jobId) {
                return scheduler.cancel(jobId);
            }

            @Override
            public boolean setPriority(String jobId, int priority) {
                return scheduler.status(jobId).map(j -> j.spec().priority() != priority && scheduler.jobs().setPriority(jobId, priority))
                        .orElse(false);
            }

            @Override
            public boolean stopClusterQueue(String clusterQueue, boolean stop) {
                var q = scheduler.snapshot().clusterQueues().get(clusterQueue);
                if (q == null) {
                    throw new IllegalArgumentException("no ClusterQueue '" + clusterQueue + "'");
                }
                scheduler.queues().stopClusterQueue(clusterQueue, stop);
                return q.stopped() != stop;
            }
        };
    }
}
