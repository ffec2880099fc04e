package io.fairway.sim;

/**
 * One scheduler event of a simulation, as the scheduler's listener saw it.
 *
 * @param policy the policy simulated
 * @param timeMillis the simulated time
 * @param job the job id, or null for cluster events
 * @param type the event type ({@code SUBMITTED}, {@code PENDING}, {@code ADMITTED}, ...)
 * @param reason the reason; for {@code PENDING} the pending reason as {@code CODE: message}
 */
public record EventRecord(String policy, long timeMillis, String job, String type, String reason) {
}
