package io.fairway.core;

import io.fairway.api.decision.Decision;
import io.fairway.api.job.PendingReason;
import java.util.List;
import java.util.Map;
import io.fairway.core.snapshot.Provisioning;

/**
 * What one round decided.
 *
 * @param round the round number
 * @param nowMillis the round's clock
 * @param decisions preemptions first, then admissions, in plan order
 * @param pendingReasons the pending reasons this round <em>changed</em>, by job id: a job appears only when its new
 *     reason differs from the one it carried in the round's snapshot (jobs the round did not reach get a "not
 *     reached" reason shared per ClusterQueue, listed only when they did not carry it already). A job absent from
 *     the map keeps its reason: read it from the job's status ({@code JobStatus.pendingReason()}, or
 *     {@code Jobs.explain}). The engine writes exactly these reasons, and a {@code PENDING} event for each of them;
 *     a round that changes no reason writes none. Read-only
 * @param refused parts of the policy's plan the core refused, each with the invariant it broke
 * @param computeNanos wall time of the round's computation (not part of the deterministic output)
 * @param leaseRenewals new lease expiries of jobs that keep their resources (Themis leases), by job id
 * @param reservations jobs whose quota the round reserved while nodes are provisioned for them
 * @param requests the node requests behind this round's {@code Provision} decisions
 * @param wakeAtMillis the time by which the policy asked for its next round
 *     ({@link io.fairway.api.spi.PolicyContext#wakeAt}); {@link #NO_WAKE} when it asked for none
 */
public record RoundResult(long round, long nowMillis, List<Decision> decisions, Map<String, PendingReason> pendingReasons,
                          List<String> refused, long computeNanos, Map<String, Long> leaseRenewals,
                          Map<String, Provisioning.Reservation> reservations, List<Provisioning.Request> requests, long wakeAtMillis) {
    /** {@link #wakeAtMillis()} when the policy asked for no round by time. */
    public static final long NO_WAKE = Long.MAX_VALUE;

    /**
     * A result whose policy asked for no round by time.
     *
     * @param round round
     * @param nowMillis clock
     * @param decisions decisions
     * @param pendingReasons reasons
     * @param refused refusals
     * @param computeNanos compute time
     * @param leaseRenewals lease renewals
     * @param reservations reservations
     * @param requests node requests
     */
    public RoundResult(long round, long nowMillis, List<Decision> decisions, Map<String, PendingReason> pendingReasons,
                       List<String> refused, long computeNanos, Map<String, Long> leaseRenewals,
                       Map<String, Provisioning.Reservation> reservations, List<Provisioning.Request> requests) {
        this(round, nowMillis, decisions, pendingReasons, refused, computeNanos, leaseRenewals, reservations, requests, NO_WAKE);
    }

    /**
     * A result without provisioning.
     *
     * @param round round
     * @param nowMillis clock
     * @param decisions decisions
     * @param pendingReasons reasons
     * @param refused refusals
     * @param computeNanos compute time
     * @param leaseRenewals lease renewals
     */
    public RoundResult(long round, long nowMillis, List<Decision> decisions, Map<String, PendingReason> pendingReasons,
                       List<String> refused, long computeNanos, Map<String, Long> leaseRenewals) {
        this(round, nowMillis, decisions, pendingReasons, refused, computeNanos, leaseRenewals, Map.of(), List.of(), NO_WAKE);
    }

    /** Copies. */
    public RoundResult {
        reservations = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(reservations == null ? Map.of() : reservations));
        requests = List.copyOf(requests == null ? List.of() : requests);
        decisions = List.copyOf(decisions);
        // a round's own reasons are kept as they are (read-only from here): the engine applies them without listing them
        pendingReasons = pendingReasons instanceof io.fairway.core.plan.GroupedReasons g ? g.sealed()
                : java.util.Collections.unmodifiableMap(pendingReasons);
        refused = List.copyOf(refused);
        leaseRenewals = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(leaseRenewals == null ? Map.of() : leaseRenewals));
    }

    /**
     * A result without lease renewals.
     *
     * @param round round
     * @param nowMillis clock
     * @param decisions decisions
     * @param pendingReasons reasons
     * @param refused refusals
     * @param computeNanos compute time
     */
    public RoundResult(long round, long nowMillis, List<Decision> decisions, Map<String, PendingReason> pendingReasons,
                       List<String> refused, long computeNanos) {
        this(round, nowMillis, decisions, pendingReasons, refused, computeNanos, Map.of(), Map.of(), List.of(), NO_WAKE);
    }
}
