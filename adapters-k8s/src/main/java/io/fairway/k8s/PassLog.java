package io.fairway.k8s;

import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.Provision;
import java.util.ArrayList;
import java.util.List;

/**
 * What one reconcile pass did and what of its round is left to carry out: the jobs it admitted and evicted (what
 * {@link FairwayAdapter#reconcileOnce()} reports) and the round's node decisions, written once the round's node
 * requests are known. A new one is made at the start of every pass, so nothing leaks from one pass into the next.
 */
final class PassLog {
    /** Ids of the jobs admitted in the pass. */
    final List<String> admitted = new ArrayList<>();
    /** Ids of the jobs evicted in the pass (preempted, node lost, restore failed). */
    final List<String> evicted = new ArrayList<>();
    /** The round's Provision decisions, carried out after the round (NodeClaims). */
    final List<Provision> provisions = new ArrayList<>();
    /** The round's Deprovision decisions, carried out after the round. */
    final List<Deprovision> deprovisions = new ArrayList<>();
}
