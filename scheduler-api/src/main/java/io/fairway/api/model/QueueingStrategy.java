package io.fairway.api.model;

/** How a ClusterQueue orders and blocks, as in Kueue. */
public enum QueueingStrategy {
    /** The head of the queue blocks the jobs behind it until it is admitted. */
    STRICT_FIFO,
    /** Jobs that do not fit are skipped; younger jobs that fit may be admitted first. */
    BEST_EFFORT_FIFO
}
