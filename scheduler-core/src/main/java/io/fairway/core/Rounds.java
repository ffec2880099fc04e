package io.fairway.core;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.plan.PlanContext;
import io.fairway.core.plan.PlanOutput;
import io.fairway.core.plan.RoundMemory;
import io.fairway.core.provisioning.Provisioner;
import io.fairway.core.validation.Validator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.snapshot.Provisioning;

/**
 * The round as a pure function: {@code Rounds.run(snapshot, policy)} reads nothing but its arguments and
 * returns the decisions. Admission resolves each job's queue; the policy plans through the context's
 * services; the core validates the plan against every invariant and refuses what breaks one; every pending
 * job gets a reason.
 *
 * <pre>{@code
 * Snapshot s = scheduler.snapshot();
 * RoundResult whatIf = Rounds.run(s, Policies.create("priority", Map.of()));   // a dry run
 * }</pre>
 */
public final class Rounds {
    private static final Logger LOG = LoggerFactory.getLogger(Rounds.class);

    private Rounds() {
    }

    /**
     * @param snapshot the state
     * @param policy the policy
     * @return the round's decisions and pending reasons
     */
    public static RoundResult run(Snapshot snapshot, SchedulingPolicy policy) {
        return run(snapshot, policy, null, false).result();
    }

    /** A round's result and the memory the next round reads. */
    record Remembered(RoundResult result, RoundMemory memory) {
    }

    /**
     * The engine's round: like {@link #run(Snapshot, SchedulingPolicy)}, with what earlier rounds found. Attempts
     * whose dependencies did not change since are answered from the memory (the same answers a round from scratch
     * gives: a property test compares the two), and the round leaves the memory the next one reads.
     *
     * @param snapshot the state
     * @param policy the policy
     * @param memory the previous round's memory, or null
     * @param remember false for a round from scratch that leaves no memory
     * @return the result and the next memory (null when not remembering)
     */
    static Remembered run(Snapshot snapshot, SchedulingPolicy policy, RoundMemory memory, boolean remember) {
        return run(snapshot, policy, memory, remember, null);
    }

    /**
     * The engine's round starting from the charges it keeps: like {@link #run(Snapshot, SchedulingPolicy, RoundMemory,
     * boolean)}, with the capacity and quota the snapshot's holding jobs charge given instead of charged one by one.
     *
     * @param charged what every holding job of the snapshot charges (the round's own copies), or null
     */
    static Remembered run(Snapshot snapshot, SchedulingPolicy policy, RoundMemory memory, boolean remember,
                          io.fairway.core.plan.HeldCharges.Charged charged) {
        long t0 = System.nanoTime();
        RoundMemory.Round mem = remember ? RoundMemory.begin(memory, snapshot) : null;
        PlanContext ctx = new PlanContext(snapshot, mem, charged);
        List<String> refused = new ArrayList<>();
        try {
            ctx.placeNodeReservations(); // jobs admitted under quota and waiting for nodes go first
            ctx.policyStarts();
            policy.plan(ctx);
        } catch (RuntimeException e) {
            LOG.error("policy {} failed in round {}; its plan is refused", policy.name(), snapshot.round(), e);
            refused.add("policy " + policy.name() + " threw " + e + "; nothing of its plan is applied");
            ctx = new PlanContext(snapshot);
            ctx.placeNodeReservations();
        }
        PlanOutput out = PlanOutput.of(ctx);
        Validator.Outcome v = Validator.validate(snapshot, out);
        refused.addAll(v.refused());
        for (String r : v.refused()) {
            LOG.warn("round {}: refused {}", snapshot.round(), r);
        }
        List<Decision> decisions = new ArrayList<>(v.preemptions());
        decisions.addAll(resizeDecisions(snapshot, v.resizes()));
        decisions.addAll(v.admissions());
        Map<String, PendingReason> reasons = out.reasons(); // a fresh map of the plan's own: filled on, not copied
        v.refusedAdmissions().forEach((job, err) -> reasons.put(job, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS,
                "the core refused the policy's admission: " + err)));
        for (Admit a : v.admissions()) {
            reasons.remove(a.jobId());
        }
        Provisioner.Outcome p = Provisioner.run(snapshot, out, reasons, nextRequestId(snapshot));
        decisions.addAll(p.provisions());
        decisions.addAll(p.deprovisions());
        decisions.addAll(p.migrations()); // consolidation of under-used nodes: Preempt (migration) and Admit elsewhere
        reasons.putAll(p.reasons());
        // a round that changed nothing — no decision, no reason, no lease — lets the next one end at once if nothing changes
        RoundMemory next = mem == null ? null : mem.finish(decisions.isEmpty() && refused.isEmpty() && out.leaseRenewals().isEmpty()
                && p.reservations().isEmpty() && reasons.isEmpty());
        return new Remembered(new RoundResult(snapshot.round(), snapshot.nowMillis(), decisions, reasons, refused, System.nanoTime() - t0,
                out.leaseRenewals(), p.reservations(), p.requests(), out.wakeAtMillis()), next);
    }

    /** One Resize per pod set whose count changed, carrying the job's whole new placement. */
    private static List<Resize> resizeDecisions(Snapshot snapshot, List<Admit> resizes) {
        List<Resize> out = new ArrayList<>();
        for (Admit next : resizes) {
            Admit before = null;
            for (JobStatus h : snapshot.holding()) {
                if (h.id().equals(next.jobId())) {
                    before = h.admission();
                }
            }
            for (Map.Entry<String, Integer> e : next.counts().entrySet()) {
                boolean moved = before == null || !members(before, e.getKey()).equals(members(next, e.getKey()));
                if (before == null || !e.getValue().equals(before.counts().get(e.getKey())) || moved) {
                    out.add(new Resize(next.jobId(), e.getKey(), e.getValue(), next.placement()));
                }
            }
        }
        return out;
    }

    private static List<io.fairway.api.decision.MemberPlacement> members(Admit a, String podSet) {
        List<io.fairway.api.decision.MemberPlacement> l = new ArrayList<>();
        for (io.fairway.api.decision.MemberPlacement m : a.placement().members()) {
            if (m.podSet().equals(podSet)) {
                l.add(m);
            }
        }
        return l;
    }

    /** Request ids are derived from the snapshot, so the round stays a pure function. */
    private static long nextRequestId(Snapshot s) {
        long max = 0;
        for (Provisioning.Request r : s.provisioning().inFlight()) {
            max = Math.max(max, r.id());
        }
        for (Provisioning.Reservation r : s.provisioning().reservations().values()) {
            max = Math.max(max, r.requestId());
        }
        return Math.max(max + 1, s.round() * 1_000_000L);
    }
}
