package io.fairway.bench.yarn;

/**
 * The one workload both sides are given: {@code nodes} identical nodes of {@code cpusPerNode} CPUs and
 * {@code memoryGiBPerNode} GiB; {@code queues} queues, each guaranteed an equal share of the cluster and allowed to
 * use all of it; {@code jobsPerQueue} waiting jobs per queue, each one container of 1 CPU and
 * {@code memoryGiBPerJob} GiB. No GPUs (YARN's side has none).
 *
 * @param nodes number of nodes
 * @param cpusPerNode CPUs (YARN: vcores) per node
 * @param memoryGiBPerNode memory per node, GiB
 * @param queues number of queues
 * @param jobsPerQueue waiting one-container jobs per queue
 * @param memoryGiBPerJob memory per container, GiB
 */
public record Workload(int nodes, int cpusPerNode, int memoryGiBPerNode, int queues, int jobsPerQueue, int memoryGiBPerJob) {
    /** Armada's benchmark shape: 1,000 nodes of 32 CPUs, 10 queues, 32,000 jobs of 1 CPU and 4 GiB per queue. */
    public static final Workload ARMADA = new Workload(1_000, 32, 256, 10, 32_000, 4);

    /**
     * Checks the shape.
     *
     * @throws IllegalArgumentException naming the field and its value when a count is not positive, or when one
     *     node's memory cannot hold its CPUs' worth of containers (the cluster would be memory-bound, not CPU-bound)
     */
    public Workload {
        positive("nodes", nodes);
        positive("cpusPerNode", cpusPerNode);
        positive("memoryGiBPerNode", memoryGiBPerNode);
        positive("queues", queues);
        positive("jobsPerQueue", jobsPerQueue);
        positive("memoryGiBPerJob", memoryGiBPerJob);
        if ((long) cpusPerNode * memoryGiBPerJob > memoryGiBPerNode) {
            throw new IllegalArgumentException("memoryGiBPerNode " + memoryGiBPerNode + " cannot hold " + cpusPerNode
                    + " containers of " + memoryGiBPerJob + " GiB");
        }
        if (queues < 2) {
            throw new IllegalArgumentException("queues " + queues + ": the preemption scenario needs at least 2");
        }
    }

    private static void positive(String field, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, was " + value);
        }
    }

    /** @return containers the whole cluster holds (one per CPU) */
    public long slots() {
        return (long) nodes * cpusPerNode;
    }

    /** @return each queue's guaranteed share of the cluster, in containers */
    public long guaranteedPerQueue() {
        return slots() / queues;
    }

    /** @return the queue whose demand arrives last in the preemption scenario */
    public int newcomer() {
        return queues - 1;
    }

    /** @return how many containers the newcomer should get back in the preemption scenario */
    public long reclaimable() {
        return Math.min(guaranteedPerQueue(), jobsPerQueue);
    }
}
