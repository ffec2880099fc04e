package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.Map;

/**
 * How a simulation runs.
 *
 * <pre>{@code
 * SimulationOptions o = SimulationOptions.DEFAULTS.withSeed(7).withRoundIntervalSeconds(60).withRecordEvents(true);
 * }</pre>
 *
 * @param seed seeds the scheduler (every random choice of the round); same inputs and seed give the same results
 * @param roundIntervalSeconds when &gt; 0, a round also runs this often while jobs wait; 0 runs rounds only at
 *     event times (arrivals, completions, scenario events)
 * @param recordEvents true to keep the scheduler's event log and the actuated decisions in the result
 * @param policyParameters parameters handed to the policy provider
 * @param maxSimulatedSeconds stop at this simulated time, leaving unfinished jobs unfinished; 0 for the default
 *     guard against a policy that never lets work finish: the last submission + 10 × the jobs' summed durations + 1 day
 * @param placement the engine's placement search ({@link PlacementStrategy#TOPOLOGY_AWARE} by default)
 * @param actuatorFaults failures and timeouts of the simulated actuator, with their retries ({@link ActuatorFaults#NONE} by
 *     default)
 */
public record SimulationOptions(long seed, double roundIntervalSeconds, boolean recordEvents, Map<String, String> policyParameters,
                                double maxSimulatedSeconds, PlacementStrategy placement, ActuatorFaults actuatorFaults) {
    /** Seed 1, rounds on events only, no event log, the default horizon, topology-aware placement, no actuator faults. */
    public static final SimulationOptions DEFAULTS = new SimulationOptions(1, 0, false, Map.of(), 0, PlacementStrategy.TOPOLOGY_AWARE,
            ActuatorFaults.NONE);

    /**
     * No actuator faults.
     *
     * @param seed the seed
     * @param roundIntervalSeconds periodic rounds (0: none)
     * @param recordEvents keep the event log
     * @param policyParameters policy parameters
     * @param maxSimulatedSeconds the horizon (0: the default guard)
     * @param placement the placement search
     */
    public SimulationOptions(long seed, double roundIntervalSeconds, boolean recordEvents, Map<String, String> policyParameters,
                             double maxSimulatedSeconds, PlacementStrategy placement) {
        this(seed, roundIntervalSeconds, recordEvents, policyParameters, maxSimulatedSeconds, placement, ActuatorFaults.NONE);
    }

    /**
     * Topology-aware placement.
     *
     * @param seed the seed
     * @param roundIntervalSeconds periodic rounds (0: none)
     * @param recordEvents keep the event log
     * @param policyParameters policy parameters
     * @param maxSimulatedSeconds the horizon (0: the default guard)
     */
    public SimulationOptions(long seed, double roundIntervalSeconds, boolean recordEvents, Map<String, String> policyParameters,
                             double maxSimulatedSeconds) {
        this(seed, roundIntervalSeconds, recordEvents, policyParameters, maxSimulatedSeconds, PlacementStrategy.TOPOLOGY_AWARE);
    }

    /** Validates. */
    public SimulationOptions {
        InvalidSpecException.check(roundIntervalSeconds >= 0 && Double.isFinite(roundIntervalSeconds), "roundIntervalSeconds",
                roundIntervalSeconds, "roundIntervalSeconds must be >= 0, was %s", roundIntervalSeconds);
        policyParameters = Map.copyOf(policyParameters == null ? Map.of() : policyParameters);
        InvalidSpecException.check(maxSimulatedSeconds >= 0 && !Double.isNaN(maxSimulatedSeconds), "maxSimulatedSeconds",
                maxSimulatedSeconds, "maxSimulatedSeconds must be >= 0, was %s", maxSimulatedSeconds);
        placement = placement == null ? PlacementStrategy.TOPOLOGY_AWARE : placement;
        actuatorFaults = actuatorFaults == null ? ActuatorFaults.NONE : actuatorFaults;
    }

    /** @param faults the actuator's failures, timeouts and retries @return a copy with them */
    public SimulationOptions withActuatorFaults(ActuatorFaults faults) {
        return new SimulationOptions(seed, roundIntervalSeconds, recordEvents, policyParameters, maxSimulatedSeconds, placement, faults);
    }

    /** @param strategy the placement search @return a copy with it */
    public SimulationOptions withPlacement(PlacementStrategy strategy) {
        return new SimulationOptions(seed, roundIntervalSeconds, recordEvents, policyParameters, maxSimulatedSeconds, strategy, actuatorFaults);
    }

    /** @param s the seed @return a copy with it */
    public SimulationOptions withSeed(long s) {
        return new SimulationOptions(s, roundIntervalSeconds, recordEvents, policyParameters, maxSimulatedSeconds, placement, actuatorFaults);
    }

    /** @param seconds the periodic round interval (0: none) @return a copy with it */
    public SimulationOptions withRoundIntervalSeconds(double seconds) {
        return new SimulationOptions(seed, seconds, recordEvents, policyParameters, maxSimulatedSeconds, placement, actuatorFaults);
    }

    /** @param record keep the event log @return a copy with it */
    public SimulationOptions withRecordEvents(boolean record) {
        return new SimulationOptions(seed, roundIntervalSeconds, record, policyParameters, maxSimulatedSeconds, placement, actuatorFaults);
    }

    /** @param seconds the simulated time to stop at (0: the default guard) @return a copy with it */
    public SimulationOptions withMaxSimulatedSeconds(double seconds) {
        return new SimulationOptions(seed, roundIntervalSeconds, recordEvents, policyParameters, seconds, placement, actuatorFaults);
    }

    /** @param parameters policy parameters @return a copy with them */
    public SimulationOptions withPolicyParameters(Map<String, String> parameters) {
        return new SimulationOptions(seed, roundIntervalSeconds, recordEvents, parameters, maxSimulatedSeconds, placement, actuatorFaults);
    }
}
