package io.fairway.sim.config;

import io.fairway.config.Validated;
import io.fairway.sim.ActuatorFaults;
import java.util.Map;

/**
 * A scenario's {@code actuatorFaults} section: which decisions the simulated actuator fails or times out on, and
 * how it retries (see {@link ActuatorFaults}). Every field is optional.
 *
 * <pre>
 * actuatorFaults:
 *   failureRates: {admit: 0.3, provision: 0.1}   # probability that one attempt fails at once
 *   timeoutRates: {admit: 0.05}                   # probability that one attempt times out
 *   timeoutSeconds: 30                            # how long a timed-out attempt keeps the actuator waiting
 *   backoffBaseSeconds: 10                        # wait before the first retry; doubles on each retry
 *   backoffCapSeconds: 300                        # the longest wait
 *   maxAttempts: 5                                # then the actuator gives up and tells the engine
 * </pre>
 *
 * @param failureRates decision kind ({@code admit}, {@code provision}) → failure probability per attempt
 * @param timeoutRates decision kind → timeout probability per attempt
 * @param timeoutSeconds the timeout (default 30)
 * @param backoffBaseSeconds the first backoff (default 10)
 * @param backoffCapSeconds the longest backoff (default 300)
 * @param maxAttempts attempts before giving up (default 5)
 */
public record ActuatorFaultsConfig(Map<String, Double> failureRates, Map<String, Double> timeoutRates, Double timeoutSeconds,
                                   Double backoffBaseSeconds, Double backoffCapSeconds, Integer maxAttempts) implements Validated {
    /** Validates every field (naming it and its value) by building the model. */
    public ActuatorFaultsConfig {
        toModel(failureRates, timeoutRates, timeoutSeconds, backoffBaseSeconds, backoffCapSeconds, maxAttempts);
    }

    @Override
    public void validate() {
        toModel();
    }

    /** @return the faults, defaults filled in */
    public ActuatorFaults toModel() {
        return toModel(failureRates, timeoutRates, timeoutSeconds, backoffBaseSeconds, backoffCapSeconds, maxAttempts);
    }

    private static ActuatorFaults toModel(Map<String, Double> failureRates, Map<String, Double> timeoutRates, Double timeoutSeconds,
                                          Double backoffBaseSeconds, Double backoffCapSeconds, Integer maxAttempts) {
        ActuatorFaults d = ActuatorFaults.NONE;
        return new ActuatorFaults(failureRates, timeoutRates, timeoutSeconds == null ? d.timeoutSeconds() : timeoutSeconds,
                backoffBaseSeconds == null ? d.backoffBaseSeconds() : backoffBaseSeconds,
                backoffCapSeconds == null ? Math.max(d.backoffCapSeconds(), backoffBaseSeconds == null ? 0 : backoffBaseSeconds) : backoffCapSeconds,
                maxAttempts == null ? d.maxAttempts() : maxAttempts);
    }
}
