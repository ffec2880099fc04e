package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Faults of the simulated actuator: some attempts to carry out a decision fail at once, some time out (the
 * actuator hears nothing for {@code timeoutSeconds}, then abandons the attempt). A failed or timed-out attempt is
 * retried after an exponential backoff ({@code backoffBaseSeconds × 2^(attempt-1)}, at most
 * {@code backoffCapSeconds}); after {@code maxAttempts} attempts the actuator gives up and tells the engine.
 *
 * <p>Decision kinds that can fail: {@code admit} (starting an admitted job; giving up sends the job back to pending
 * through {@link io.fairway.core.Scheduler#reportEvicted}) and {@code provision} (asking a node pool for nodes;
 * giving up means the nodes never come, and the engine releases the jobs waiting for them after its own node
 * request timeout). Stops (preemptions, deprovisioning) always succeed: an actuator that cannot stop a job would
 * leave its GPUs booked twice.
 *
 * <p>Deterministic: whether an attempt fails is drawn from the seed, the decision kind, the job (or node request)
 * and the attempt number alone, so it does not depend on the order events happen to be processed in.
 *
 * <pre>{@code
 * ActuatorFaults f = ActuatorFaults.NONE.withFailureRate("admit", 0.3).withTimeoutRate("admit", 0.1);
 * SimulationOptions o = SimulationOptions.DEFAULTS.withActuatorFaults(f);
 * }</pre>
 *
 * @param failureRates decision kind → probability that an attempt fails at once
 * @param timeoutRates decision kind → probability that an attempt times out
 * @param timeoutSeconds how long a timed-out attempt keeps the actuator waiting
 * @param backoffBaseSeconds the wait before the first retry
 * @param backoffCapSeconds the longest wait between two attempts
 * @param maxAttempts attempts before the actuator gives up (1: no retry)
 */
public record ActuatorFaults(Map<String, Double> failureRates, Map<String, Double> timeoutRates, double timeoutSeconds,
                             double backoffBaseSeconds, double backoffCapSeconds, int maxAttempts) {
    /** Decision kind: starting an admitted job. */
    public static final String ADMIT = "admit";
    /** Decision kind: asking a node pool for nodes. */
    public static final String PROVISION = "provision";
    /** The decision kinds that can fail. */
    public static final Set<String> KINDS = Set.of(ADMIT, PROVISION);
    /** No faults; timeout 30 s, backoff 10 s doubling up to 300 s, 5 attempts once rates are set. */
    public static final ActuatorFaults NONE = new ActuatorFaults(Map.of(), Map.of(), 30, 10, 300, 5);

    /** How one attempt ends. */
    public enum Outcome {
        /** Carried out. */
        APPLIED,
        /** Failed at once. */
        FAILED,
        /** No answer within the timeout. */
        TIMED_OUT
    }

    /** The longest timeout or backoff accepted, in seconds (as traces: far inside the simulator's clock). */
    public static final double MAX_SECONDS = 1e10;
    private static final String MAX_SECONDS_TEXT = "1e10";

    /** Validates: known kinds, rates in 0..1 that sum to at most 1 per kind, times in (0, 1e10] s, cap at least base. */
    public ActuatorFaults {
        failureRates = rates("failureRates", failureRates);
        timeoutRates = rates("timeoutRates", timeoutRates);
        for (String k : KINDS) {
            double sum = failureRates.getOrDefault(k, 0.0) + timeoutRates.getOrDefault(k, 0.0);
            InvalidSpecException.check(sum <= 1.0, "actuatorFaults." + k, sum,
                    "actuatorFaults: failure rate + timeout rate of %s must be <= 1, was %s", k, sum);
        }
        InvalidSpecException.check(timeoutSeconds > 0 && timeoutSeconds <= MAX_SECONDS, "actuatorFaults.timeoutSeconds", timeoutSeconds,
                "actuatorFaults.timeoutSeconds must be a number of seconds greater than 0 and at most %s (about 317 years), was %s",
                MAX_SECONDS_TEXT, timeoutSeconds);
        InvalidSpecException.check(backoffBaseSeconds > 0 && backoffBaseSeconds <= MAX_SECONDS, "actuatorFaults.backoffBaseSeconds",
                backoffBaseSeconds, "actuatorFaults.backoffBaseSeconds must be a number of seconds greater than 0 and at most %s, was %s",
                MAX_SECONDS_TEXT, backoffBaseSeconds);
        InvalidSpecException.check(backoffCapSeconds >= backoffBaseSeconds && backoffCapSeconds <= MAX_SECONDS,
                "actuatorFaults.backoffCapSeconds", backoffCapSeconds,
                "actuatorFaults.backoffCapSeconds must be a number of seconds from backoffBaseSeconds (%s) to %s, was %s", backoffBaseSeconds,
                MAX_SECONDS_TEXT, backoffCapSeconds);
        InvalidSpecException.check(maxAttempts >= 1 && maxAttempts <= 100, "actuatorFaults.maxAttempts", maxAttempts,
                "actuatorFaults.maxAttempts must be in 1..100, was %s", maxAttempts);
    }

    private static Map<String, Double> rates(String field, Map<String, Double> in) {
        Map<String, Double> out = new TreeMap<>();
        if (in != null) {
            for (Map.Entry<String, Double> e : in.entrySet()) {
                InvalidSpecException.check(e.getKey() != null && KINDS.contains(e.getKey()), "actuatorFaults." + field, e.getKey(),
                        "actuatorFaults.%s: unknown decision kind %s (known: admit, provision)", field, e.getKey());
                Double r = e.getValue();
                InvalidSpecException.check(r != null && r >= 0 && r <= 1, "actuatorFaults." + field + "." + e.getKey(), r,
                        "actuatorFaults.%s.%s must be in 0..1, was %s", field, e.getKey(), r);
                out.put(e.getKey(), r);
            }
        }
        return Map.copyOf(out);
    }

    /** @return true when some attempt can fail or time out */
    public boolean any() {
        return failureRates.values().stream().anyMatch(r -> r > 0) || timeoutRates.values().stream().anyMatch(r -> r > 0);
    }

    /** @param kind a decision kind @param rate the failure rate @return a copy with it */
    public ActuatorFaults withFailureRate(String kind, double rate) {
        Map<String, Double> m = new TreeMap<>(failureRates);
        m.put(kind, rate);
        return new ActuatorFaults(m, timeoutRates, timeoutSeconds, backoffBaseSeconds, backoffCapSeconds, maxAttempts);
    }

    /** @param kind a decision kind @param rate the timeout rate @return a copy with it */
    public ActuatorFaults withTimeoutRate(String kind, double rate) {
        Map<String, Double> m = new TreeMap<>(timeoutRates);
        m.put(kind, rate);
        return new ActuatorFaults(failureRates, m, timeoutSeconds, backoffBaseSeconds, backoffCapSeconds, maxAttempts);
    }

    /**
     * @param timeout seconds a timed-out attempt waits
     * @param base the first backoff
     * @param cap the longest backoff
     * @param attempts attempts before giving up
     * @return a copy with them
     */
    public ActuatorFaults withRetry(double timeout, double base, double cap, int attempts) {
        return new ActuatorFaults(failureRates, timeoutRates, timeout, base, cap, attempts);
    }

    /**
     * @param attempt the attempt that failed (1 for the first)
     * @return milliseconds to wait before the next attempt
     */
    public long backoffMillis(int attempt) {
        double s = Math.min(backoffCapSeconds, backoffBaseSeconds * Math.pow(2, Math.min(62, attempt - 1)));
        return Math.max(1, Math.round(s * 1000));
    }

    /** @return the timeout in milliseconds */
    public long timeoutMillis() {
        return Math.max(1, Math.round(timeoutSeconds * 1000));
    }

    /**
     * @param seed the run's seed
     * @param kind the decision kind
     * @param key what the decision is about (a job id and its admission number, a node request)
     * @param attempt the attempt number, from 1
     * @return how that attempt ends
     */
    public Outcome draw(long seed, String kind, String key, int attempt) {
        double fail = failureRates.getOrDefault(kind, 0.0);
        double timeout = timeoutRates.getOrDefault(kind, 0.0);
        if (fail <= 0 && timeout <= 0) {
            return Outcome.APPLIED;
        }
        long h = seed * 0x9E3779B97F4A7C15L;
        h = 31 * h + kind.hashCode();
        h = 31 * h + key.hashCode();
        h = 31 * h + attempt;
        double u = new SplittableRandom(h).nextDouble();
        if (u < fail) {
            return Outcome.FAILED;
        }
        return u < fail + timeout ? Outcome.TIMED_OUT : Outcome.APPLIED;
    }
}
