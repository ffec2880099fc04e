package io.fairway.sim.sweep;

import io.fairway.sim.SimulationInput;

/**
 * One workload of a robustness sweep: a cluster, its queues and jobs, and how it was made.
 *
 * @param id a name unique in the sweep, e.g. {@code philly-s21-L3-ckpt}
 * @param kind {@code philly}, {@code themis} or {@code tiresias}
 * @param seed the sweep seed that drew it (and seeds the scheduler on it)
 * @param requestedLoad the offered load asked for (work ÷ cluster capacity over the arrival span)
 * @param load the offered load achieved once the cluster is rounded to whole nodes: Σ duration × GPUs ÷ (cluster GPUs ×
 *     (last submission − first submission))
 * @param checkpoints true when its jobs checkpoint
 * @param firstJob for a Philly window, the index of its first job among the trace's eligible jobs (by submission time);
 *     -1 otherwise
 * @param traceOffsetSeconds for a Philly window, the submission time of its first job in the trace's clock (seconds
 *     after the trace's first job); 0 otherwise
 * @param input the cluster, queues and jobs (submission times rebased to 0)
 */
public record SweepWorkload(String id, String kind, long seed, double requestedLoad, double load, boolean checkpoints, int firstJob,
                            double traceOffsetSeconds, SimulationInput input) {
    /** @return the cluster's GPUs */
    public long gpus() {
        return input.cluster().totalGpus();
    }

    /** @return the number of jobs */
    public int jobs() {
        return input.jobs().size();
    }
}
