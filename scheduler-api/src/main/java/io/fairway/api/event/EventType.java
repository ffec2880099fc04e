package io.fairway.api.event;

/** What happened to a job (or the cluster). */
public enum EventType {
    /** The scheduler accepted the job. */
    SUBMITTED,
    /** The job's pending reason changed. */
    PENDING,
    /** The job was admitted and placed. */
    ADMITTED,
    /** The actuator reported the job running. */
    STARTED,
    /** The job was preempted or evicted and is pending again. */
    PREEMPTED,
    /** The job went back to pending because its node or cluster was lost. */
    REQUEUED,
    /** An elastic job's size changed. */
    RESIZED,
    /** The job's priority changed. */
    PRIORITY_CHANGED,
    /** The job finished successfully. */
    SUCCEEDED,
    /** The job failed. */
    FAILED,
    /** The job was cancelled. */
    CANCELLED,
    /** The core refused part of a policy's plan (the reason says which invariant it broke). */
    PLAN_REFUSED,
    /** Nodes were requested from a node pool. */
    PROVISIONED,
    /** A node was removed. */
    DEPROVISIONED
}
