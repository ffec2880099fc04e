package io.fairway.core;

import io.fairway.api.decision.Decision;
import io.fairway.api.job.PendingReason;
import java.util.List;
import java.util.Map;

/**
 * What one round decided.
 *
 * @param round the round number
 * @param nowMillis the round's clock
 * @param decisions preemptions first, then admissions, in plan order
 * @param pendingReasons the reason of every pending job the round looked at (jobs it did not reach keep a
 *     "not reached" reason shared per ClusterQueue)
 * @param refused parts of the policy's plan the core refused, each with the invariant it broke
 * @param computeNanos wall time of the round's computation (not part of the deterministic output)
 */
public record RoundResult(long round, long nowMillis, List<Decision> decisions, Map<String, PendingReason> pendingReasons,
                          List<String> refused, long computeNanos) {
    /** Copies. */
    public RoundResult {
        decisions = List.copyOf(decisions);
        pendingReasons = java.util.Collections.unmodifiableMap(pendingReasons);
        refused = List.copyOf(refused);
    }
}
