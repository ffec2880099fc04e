package io.fairway.core;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Provision;
import io.fairway.api.decision.Resize;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.spi.AdmissionCheck;
import io.fairway.core.plan.GroupedReasons;
import io.fairway.core.provisioning.Provisioner;
import io.fairway.core.validation.Validator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.snapshot.Provisioning;

/**
 * A round's last stage in the engine: its decisions applied to the state (lock held), after re-validation when the
 * state changed while the round ran — resizes, preemptions, admissions (through admission checks where a
 * ClusterQueue names some), the pending reasons, lease renewals, reservations and node requests.
 */
final class RoundApplier {
    private static final Logger LOG = LoggerFactory.getLogger(RoundApplier.class);

    private final EngineState state;

    RoundApplier(EngineState state) {
        this.state = state;
    }

    /**
     * @param r what the round decided
     * @param s the snapshot it decided on
     * @param mod the state's change count when the snapshot was taken
     * @param events the events this makes
     * @param applied the decisions applied, for the actuator
     * @return the round's result as applied
     */
    RoundResult apply(RoundResult r, Snapshot s, long mod, List<SchedulerEvent> events, List<Decision> applied) {
        List<Preempt> preempts = new ArrayList<>();
        List<Admit> admits = new ArrayList<>();
        List<Resize> resizes = new ArrayList<>();
        for (Decision d : r.decisions()) {
            if (d instanceof Preempt p) {
                preempts.add(p);
            } else if (d instanceof Admit a) {
                admits.add(a);
            } else if (d instanceof Resize rz) {
                resizes.add(rz);
            }
        }
        // the round's reasons as they are (a million pending jobs' worth is not copied), unless some must change
        Map<String, PendingReason> reasons = r.pendingReasons();
        List<String> refused = new ArrayList<>(r.refused());
        boolean moved = state.modCount != mod;
        if (moved) {
            // State changed while the round ran: keep only what still holds.
            Validator.Outcome v = Validator.validate(state.snapshotLocked(), preempts, admits);
            preempts = v.preemptions();
            admits = v.admissions();
            refused.addAll(v.refused());
            Map<String, PendingReason> changed = new LinkedHashMap<>(reasons);
            reasons = changed;
            v.refusedAdmissions().forEach((id, err) -> changed.put(id, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS,
                    "state changed during the round: " + err)));
        }
        long now = s.nowMillis();
        resize(resizes, moved, now, refused, events, applied);
        for (Preempt p : preempts) {
            state.jobs.requeue(state.jobs.byId.get(p.jobId()), PendingReason.of(PendingReason.Code.PREEMPTED, "preempted: " + p.reason()),
                    EventType.PREEMPTED, p.reason(), events);
            applied.add(p);
        }
        admit(admits, now, events, applied);
        applyReasons(reasons, moved, now, events);
        for (String ref : refused) {
            events.add(new SchedulerEvent(now, null, null, EventType.PLAN_REFUSED, ref));
        }
        Map<String, Long> renewed = renewLeases(r.leaseRenewals());
        Map<String, Provisioning.Reservation> newReservations = provision(r, admits, now, events, applied);
        state.policyWakeAt = r.wakeAtMillis();
        return new RoundResult(r.round(), r.nowMillis(), applied, reasons, refused, r.computeNanos(), renewed, newReservations, r.requests(),
                r.wakeAtMillis());
    }

    private void resize(List<Resize> resizes, boolean moved, long now, List<String> refused, List<SchedulerEvent> events, List<Decision> applied) {
        for (Resize rz : resizes) {
            JobStatus j = state.jobs.byId.get(rz.jobId());
            if (j == null || !j.state().holdsResources() || j.admission() == null) {
                refused.add("resize " + rz.jobId() + ": the job no longer holds resources");
                continue;
            }
            if (moved && !nodesStillThere(rz)) {
                refused.add("resize " + rz.jobId() + ": state changed during the round");
                continue;
            }
            Map<String, Integer> counts = new LinkedHashMap<>(j.admission().counts());
            counts.put(rz.podSet(), rz.targetCount());
            Admit a = j.admission();
            Admit next = new Admit(a.jobId(), a.clusterQueue(), a.flavors(), counts, rz.placement(), a.admittedAtMillis(), a.leaseExpiresAtMillis(),
                    a.admissionOrder());
            // attained service so far is kept; the running clock restarts with the new size
            state.jobs.replace(j, j.asOf(now).withAdmission(next, j.state() == JobState.RUNNING ? now : j.stateSinceMillis()));
            events.add(state.jobs.event(j, EventType.RESIZED, rz.podSet() + " " + a.counts().get(rz.podSet()) + " -> " + rz.targetCount()));
            applied.add(rz);
        }
    }

    /** After a concurrent change: a resize is kept only if its new members' nodes still exist. */
    private boolean nodesStillThere(Resize rz) {
        for (MemberPlacement m : rz.placement().members()) {
            if (!state.nodes.containsKey(m.node())) {
                return false;
            }
        }
        return true;
    }

    private void admit(List<Admit> admits, long now, List<SchedulerEvent> events, List<Decision> applied) {
        List<Admit> quotaReserved = new ArrayList<>();
        String cqName = null; // a round's admissions come a ClusterQueue at a time: its definition looked up once per run
        ClusterQueue cq = null;
        for (Admit a : admits) {
            JobStatus j = state.jobs.byId.get(a.jobId());
            if (cqName == null || !cqName.equals(a.clusterQueue())) {
                cqName = a.clusterQueue();
                cq = state.clusterQueues.get(cqName);
            }
            boolean checked = cq != null && !cq.admissionChecks().isEmpty();
            JobStatus n = state.jobs.admit(j, a, checked, now);
            if (checked) {
                quotaReserved.add(a);
                events.add(state.jobs.event(n, EventType.PENDING, "quota reserved in " + a.clusterQueue() + "; admission checks " + cq.admissionChecks()));
            } else {
                if (events != Outbox.UNHEARD) {
                    events.add(admittedEvent(n, a));
                }
                applied.add(a);
            }
        }
        if (!quotaReserved.isEmpty()) {
            evaluateAdmissionChecks(events, applied);
        }
    }

    /**
     * Writes the round's changed reasons, and a {@code PENDING} event for each job whose reason changed. Costs the
     * changed reasons only: a round's own reason map ({@link GroupedReasons}) is walked without being listed, its
     * jobs come with the status the round saw (no lookup by id), and what is compared or copied is compared or
     * copied once per distinct reason object, not per job. A job that carries the reason object it is given costs an
     * identity check.
     */
    private void applyReasons(Map<String, PendingReason> reasons, boolean moved, long now, List<SchedulerEvent> events) {
        ReasonWriter w = new ReasonWriter(now, events);
        if (!moved && reasons instanceof GroupedReasons g) {
            g.forEachChange(w);
        } else {
            for (Map.Entry<String, PendingReason> e : reasons.entrySet()) {
                w.changed(e.getKey(), null, -1, -1, e.getValue());
            }
        }
    }

    /** Writes reasons job by job, remembering per distinct reason object its kept copy, its text and one comparison. */
    private final class ReasonWriter implements GroupedReasons.Changes {
        private final long now;
        private final List<SchedulerEvent> events;
        private PendingReason given; // the last reason object given
        private PendingReason kept; // its kept copy (what the job will carry)
        private String text; // its event text, built once per object
        private PendingReason sameAsGiven; // the last object a job carried that was found equal to the given one
        private PendingReason notGiven; // the last object a job carried that was found to differ from it

        ReasonWriter(long now, List<SchedulerEvent> events) {
            this.now = now;
            this.events = events;
        }

        @Override
        public void changed(String jobId, JobStatus asSeen, int group, int slot, PendingReason reason) {
            if (reason != given) {
                given = reason;
                kept = state.jobs.keptCopy(reason);
                text = null;
                sameAsGiven = null;
                notGiven = null;
            }
            JobStatus j = asSeen;
            if (j == null || !state.jobs.waitAnew(j, kept, group, slot)) {
                j = state.jobs.byId.get(jobId); // known by id only, or changed since the round's snapshot
                if (j == null || j.state() != JobState.PENDING || !differs(j.pendingReason()) || !state.jobs.waitAnew(j, kept, -1, -1)) {
                    return;
                }
            }
            if (events != Outbox.UNHEARD) {
                if (text == null) {
                    text = reason.code() + ": " + reason.message();
                }
                events.add(new SchedulerEvent(now, j.id(), j.spec().jobSet(), EventType.PENDING, text));
            }
        }

        /** @return whether a job carrying {@code had} gets a different reason (identity first, one comparison per object) */
        private boolean differs(PendingReason had) {
            if (had == given || had == kept || had == sameAsGiven) {
                return false;
            }
            if (had == notGiven) {
                return true;
            }
            if (given.equals(had)) {
                sameAsGiven = had;
                return false;
            }
            notGiven = had;
            return true;
        }
    }

    Map<String, Long> renewLeases(Map<String, Long> renewals) {
        Map<String, Long> renewed = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : renewals.entrySet()) {
            JobStatus j = state.jobs.byId.get(e.getKey());
            if (j != null && j.state().holdsResources() && j.admission() != null) {
                state.jobs.replace(j, j.withAdmission(j.admission().withLease(e.getValue()), j.stateSinceMillis()));
                renewed.put(e.getKey(), e.getValue());
            }
        }
        return renewed;
    }

    /** Reservations for jobs waiting on nodes, node requests, and nodes going away. @return the new reservations */
    private Map<String, Provisioning.Reservation> provision(RoundResult r, List<Admit> admits, long now, List<SchedulerEvent> events,
                                                           List<Decision> applied) {
        PoolBook pools = state.pools;
        for (Admit a : admits) {
            pools.reservations.remove(a.jobId());
            if (!pools.emptySince.isEmpty()) {
                pools.emptySince.keySet().removeAll(a.placement().nodes());
            }
        }
        Map<String, Provisioning.Reservation> newReservations = new LinkedHashMap<>();
        for (Provisioning.Reservation res : r.reservations().values()) {
            JobStatus j = state.jobs.byId.get(res.jobId());
            if (j != null && j.state() == JobState.PENDING) {
                pools.reservations.put(res.jobId(), res);
                newReservations.put(res.jobId(), res);
            }
        }
        Provisioner.mergeRequests(pools.inFlight, r.requests()); // a request handed to other jobs replaces itself
        for (Decision d : r.decisions()) {
            if (d instanceof Provision || d instanceof Deprovision) {
                applied.add(d);
                events.add(new SchedulerEvent(now, null, null, d instanceof Deprovision ? EventType.DEPROVISIONED : EventType.PROVISIONED,
                        d.toString()));
            }
            if (d instanceof Deprovision dp && state.nodes.containsKey(dp.node())) {
                state.nodes.put(dp.node(), state.nodes.get(dp.node()).withUnschedulable(true)); // nothing new lands on a node going away
                pools.emptySince.remove(dp.node());
            }
        }
        return newReservations;
    }

    SchedulerEvent admittedEvent(JobStatus n, Admit a) {
        return state.jobs.event(n, EventType.ADMITTED, admittedText.of(a));
    }

    private final AdmittedText admittedText = new AdmittedText();

    /**
     * The text of an {@code ADMITTED} event: "ClusterQueue {flavors, by name} on [nodes] (locality, x factor)". A round's
     * admissions repeat, per ClusterQueue, its flavors, and mostly the locality and factor of the admission before:
     * those parts are written once per change (lock held), and a gang on one node is named without building a set.
     */
    static final class AdmittedText {
        /** Per ClusterQueue (as many as it admitted to, up to a bound): the flavors last written, and their text. */
        private final Map<String, Head> heads = new java.util.HashMap<>();
        private Object locality;
        private double factor = Double.NaN;
        private String tail; // " (locality, x factor)"

        /** @param flavors the admission's (immutable: an {@link Admit} copies them) @param text "ClusterQueue {flavors} on " */
        private record Head(Map<String, String> flavors, String text) {
        }

        String of(Admit a) {
            Head h = heads.get(a.clusterQueue());
            if (h == null || h.flavors != a.flavors() && !h.flavors.equals(a.flavors())) {
                if (heads.size() >= 4096) {
                    heads.clear();
                }
                h = new Head(a.flavors(), a.clusterQueue() + " " + new java.util.TreeMap<>(a.flavors()) + " on ");
                heads.put(a.clusterQueue(), h);
            }
            io.fairway.api.decision.Placement p = a.placement();
            if (p.locality() != locality || Double.compare(p.throughputFactor(), factor) != 0) {
                locality = p.locality();
                factor = p.throughputFactor();
                tail = " (" + locality + ", x" + Math.round(factor * 100) / 100.0 + ")";
            }
            String one = oneNode(p.members());
            return one != null ? h.text + "[" + one + "]" + tail : h.text + io.fairway.api.decision.Placement.nodesOf(p.members()) + tail;
        }

        /** @return the node every member runs on, or null when they use several (or none) */
        private static String oneNode(List<MemberPlacement> members) {
            String first = members.isEmpty() ? null : members.get(0).node();
            for (int i = 1; i < members.size(); i++) {
                if (!members.get(i).node().equals(first)) {
                    return null;
                }
            }
            return first;
        }
    }

    /** Asks the admission checks about every job with reserved quota (lock held). */
    void evaluateAdmissionChecks(List<SchedulerEvent> events, List<Decision> admitted) {
        if (!state.anyQuotaReserved()) {
            return; // the engine counts the jobs holding reserved quota as they change: none to ask about
        }
        long now = state.clock.millis();
        List<JobStatus> quotaReserved = new ArrayList<>(); // collected first: deciding changes the holding index
        for (JobStatus j : state.jobs.holding.values()) {
            if (j.state() == JobState.QUOTA_RESERVED) {
                quotaReserved.add(j);
            }
        }
        for (JobStatus j : quotaReserved) {
            ClusterQueue cq = state.clusterQueues.get(j.admission().clusterQueue());
            List<String> names = cq == null ? List.of() : cq.admissionChecks();
            String rejected = null;
            boolean allReady = true;
            for (String name : names) {
                AdmissionCheck.Result res = ask(name, j, now);
                if (res.verdict() == AdmissionCheck.Verdict.REJECTED) {
                    rejected = name + ": " + res.message();
                    break;
                }
                if (res.verdict() != AdmissionCheck.Verdict.READY) {
                    allReady = false;
                }
            }
            if (rejected != null) {
                String why = "admission check rejected the job: " + rejected;
                state.jobs.replace(j, j.requeued(PendingReason.of(PendingReason.Code.ADMISSION_CHECK, why), now, false));
                events.add(state.jobs.event(j, EventType.PENDING, why));
            } else if (allReady) {
                JobStatus n = state.jobs.admit(j, j.admission(), false, now);
                events.add(admittedEvent(n, j.admission()));
                admitted.add(j.admission());
            }
        }
    }

    private AdmissionCheck.Result ask(String name, JobStatus j, long now) {
        AdmissionCheck c = state.admissionChecks.get(name);
        try {
            return c == null ? AdmissionCheck.Result.rejected("admission check " + name + " is not registered") : c.evaluate(j, j.admission(), now);
        } catch (RuntimeException e) {
            LOG.warn("admission check {} failed on {}", name, j.id(), e);
            return AdmissionCheck.Result.pending("admission check " + name + " failed: " + e.getMessage());
        }
    }
}
