package io.fairway.api.event;

/**
 * Something that happened, as a listener sees it.
 *
 * @param timeMillis the scheduler clock when it happened
 * @param jobId the job, or null for cluster events
 * @param jobSet the job's job set, or null
 * @param type what happened
 * @param reason a readable reason (the pending reason's message for {@link EventType#PENDING})
 */
public record SchedulerEvent(long timeMillis, String jobId, String jobSet, EventType type, String reason) implements java.io.Serializable {
    /** Normalises a null reason to empty. */
    public SchedulerEvent {
        reason = reason == null ? "" : reason;
    }
}
