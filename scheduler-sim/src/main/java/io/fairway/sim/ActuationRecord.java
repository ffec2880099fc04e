package io.fairway.sim;

/**
 * One decision the simulator's actuator carried out.
 *
 * @param timeMillis the simulated time
 * @param kind {@code Admit}, {@code Preempt}, {@code Resize}, {@code Provision} or {@code Deprovision}
 * @param jobId the job, or null for node decisions
 * @param detail a readable summary
 */
public record ActuationRecord(long timeMillis, String kind, String jobId, String detail) {
}
