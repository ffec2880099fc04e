package io.fairway.sim.config;

import io.fairway.sim.ActuatorFaults;
import io.fairway.sim.SimulationInput;
import java.util.List;

/**
 * A loaded scenario: its simulation input and the run settings it asks for.
 *
 * @param name its name
 * @param description what it shows
 * @param policies the policies it names (empty: the caller chooses)
 * @param seed its seed, or null for the caller's
 * @param roundIntervalSeconds periodic rounds (0: only at events)
 * @param input the cluster, queues, jobs and events
 * @param actuatorFaults the actuator's failures, timeouts and retries it asks for ({@link ActuatorFaults#NONE}: none)
 */
public record Scenario(String name, String description, List<String> policies, Long seed, double roundIntervalSeconds,
                       SimulationInput input, ActuatorFaults actuatorFaults) {
    /**
     * Without actuator faults.
     *
     * @param name its name
     * @param description what it shows
     * @param policies the policies it names
     * @param seed its seed, or null
     * @param roundIntervalSeconds periodic rounds
     * @param input the cluster, queues, jobs and events
     */
    public Scenario(String name, String description, List<String> policies, Long seed, double roundIntervalSeconds, SimulationInput input) {
        this(name, description, policies, seed, roundIntervalSeconds, input, ActuatorFaults.NONE);
    }

    /** Copies. */
    public Scenario {
        policies = List.copyOf(policies);
        actuatorFaults = actuatorFaults == null ? ActuatorFaults.NONE : actuatorFaults;
    }
}
