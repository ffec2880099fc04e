package io.fairway.sim.config;

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
 */
public record Scenario(String name, String description, List<String> policies, Long seed, double roundIntervalSeconds,
                       SimulationInput input) {
    /** Copies. */
    public Scenario {
        policies = List.copyOf(policies);
    }
}
