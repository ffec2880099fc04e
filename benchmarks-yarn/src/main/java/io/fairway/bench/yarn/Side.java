package io.fairway.bench.yarn;

/**
 * One scheduler driven through the two measured steps of {@link YarnComparison}. Each {@code prepare} call starts
 * from a fresh scheduler (outside the measurement); the step after it is what is timed.
 */
public interface Side extends AutoCloseable {
    /** @return the side's name in the report */
    String name();

    /** A fresh, empty cluster; every queue's jobs waiting. */
    void prepareFill();

    /**
     * Fills the empty cluster.
     *
     * @return what the side did
     */
    Outcome fill();

    /**
     * A fresh cluster filled by every queue but the newcomer (each above its guaranteed share), then the
     * newcomer's jobs arrive.
     */
    void preparePreemption();

    /**
     * Scheduling cycles with preemption on until the newcomer holds its guaranteed share or a cycle changes nothing.
     *
     * @return what the side did
     */
    Outcome preempt();

    /** @return nodes, queues and waiting containers as this side's scheduler holds them after the last prepare call */
    Shape shape();

    @Override
    void close();

    /**
     * What a scheduler holds, read back from it, to check both sides are given the same workload.
     *
     * @param nodes nodes registered
     * @param queues leaf queues (ClusterQueues) that jobs can be submitted to
     * @param containers containers asked for (waiting or running)
     */
    record Shape(int nodes, int queues, long containers) { }

    /**
     * What a measured step did.
     *
     * @param nanos wall time of the step
     * @param cycles scheduling cycles it took (Fairway rounds; YARN preemption-policy cycles, each followed by a
     *     heartbeat from every node)
     * @param allocations containers allocated (Fairway: admissions)
     * @param preemptions containers preempted (killed)
     * @param newcomerHolds containers the newcomer queue holds at the end
     */
    record Outcome(long nanos, int cycles, long allocations, long preemptions, long newcomerHolds) { }
}
