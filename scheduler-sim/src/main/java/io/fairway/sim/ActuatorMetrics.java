package io.fairway.sim;

/**
 * What the simulated actuator went through under {@link ActuatorFaults}.
 *
 * @param attempts attempts to carry out a decision that can fail (admissions and node requests)
 * @param failures attempts that failed at once
 * @param timeouts attempts that timed out
 * @param retries attempts that were retries
 * @param givenUp decisions the actuator gave up on after its last attempt (reported to the engine)
 * @param backoffSeconds the summed waits between attempts (timeouts included)
 * @param maxAttemptsOfOneDecision the most attempts one decision took
 * @param engineMismatches times, checked after every round, a job's state in the engine disagreed with the simulated
 *     machines (running in one and not the other, admitted without a start in progress); 0 when consistent
 */
public record ActuatorMetrics(long attempts, long failures, long timeouts, long retries, long givenUp, double backoffSeconds,
                              int maxAttemptsOfOneDecision, long engineMismatches) {
    /** Nothing happened: no faults configured. */
    public static final ActuatorMetrics NONE = new ActuatorMetrics(0, 0, 0, 0, 0, 0, 0, 0);
}
