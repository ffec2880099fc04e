package io.fairway.core.plan;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.FlavorUnion;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.CapacityPlan;
import io.fairway.core.placement.Placer;
import io.fairway.core.preemption.PreemptionSearch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The round's tentative plan: capacity and quota as the plan leaves them, and what it admits, preempts, resizes
 * and renews so far. Every change can be undone ({@link #unadmit}, {@link #restore}) and takes a new state number;
 * equal state numbers mean equal plans, which is what lets {@link PlanContext} remember failed attempts.
 */
public final class TentativePlan {
    final Snapshot snapshot;
    final CapacityPlan cap;
    final QuotaBook quota;
    final Placer placer;
    final PreemptionSearch preemption;

    /** Jobs admitted in this plan, by id. */
    private final Map<String, JobStatus> admittedJobs;
    /**
     * The engine's holding jobs, looked up by id (shared by every snapshot while they are the same); null until first
     * looked up, or when the snapshot's holding jobs are not the engine's.
     */
    private io.fairway.core.snapshot.HeldJobs.Stored keptHolding;
    /** The holding jobs by id, as stored, made here when they are not the engine's; null until first looked up. */
    private Map<String, JobStatus> holdingById;
    /**
     * True when the holding jobs were charged by the engine's kept charges: what each holds on its nodes is then
     * worked out when first asked ({@link #held}), not listed for every job at the start of every round.
     */
    private final boolean lazyHeld;
    private final Map<String, List<Placer.Taken>> heldCapacity;
    final Map<String, PendingReason> reasons;
    final LinkedHashMap<String, Admit> admitted;
    final LinkedHashMap<String, Preempt> preempted = new LinkedHashMap<>();
    final LinkedHashMap<String, Long> leaseRenewals = new LinkedHashMap<>();
    final LinkedHashMap<String, Admit> resized = new LinkedHashMap<>();
    /**
     * The plan's resize of each job preempted in it, kept so that {@link #restore} puts the job back as the plan had
     * resized it: the capacity it gives back and takes again is the resized placement's.
     */
    private final Map<String, Admit> resizedBeforePreemption = new HashMap<>();
    /** The earliest round the policy asked for, {@code Long.MAX_VALUE} for none. */
    long wakeAt = Long.MAX_VALUE;
    /** The holding elastic jobs, listed when first asked for (null until then). */
    private List<JobStatus> holdingElastic;
    private final Set<String> releasedNodeReservations = new HashSet<>();

    /** The plan's current state number. */
    private long state;
    /** The last state number taken. */
    private long lastState;
    private long admissions;

    /** @return a hash table capacity that holds {@code entries} without resizing */
    private static int tableFor(int entries) {
        return (int) Math.min(1 << 30, entries / 0.75 + 1);
    }

    TentativePlan(Snapshot snapshot, Function<TentativePlan, PreemptionSearch> preemption) {
        this(snapshot, preemption, null);
    }

    /**
     * @param snapshot the round's input
     * @param preemption the preemption search over this plan
     * @param charged the capacity and quota every holding job of the snapshot charges, kept by the engine
     *     ({@link HeldCharges#forRound}); null to charge them here, one by one
     */
    TentativePlan(Snapshot snapshot, Function<TentativePlan, PreemptionSearch> preemption, HeldCharges.Charged charged) {
        this.snapshot = snapshot;
        this.cap = charged != null ? charged.capacity() : new CapacityPlan(snapshot.nodes(), snapshot.clusters());
        this.quota = charged != null ? charged.quota() : new QuotaBook(snapshot.clusterQueues(), snapshot.cohorts());
        this.placer = new Placer(cap, snapshot.placement());
        this.preemption = preemption.apply(this);
        // Sized for as many admissions as there are free GPUs (a round at scale admits tens of thousands: growing
        // the tables step by step cost more than the puts)
        int expected = (int) Math.min(1 << 20, cap.freeGpus()) + 16;
        // and for a reason per waiting group (a deep round answers each group's first job on its own)
        this.reasons = new LinkedHashMap<>(tableFor((int) Math.min(1 << 20, snapshot.pendingIndex().groups().size()) + 16));
        List<JobStatus> holding = snapshot.holding();
        this.admittedJobs = new HashMap<>(tableFor(expected));
        this.admitted = new LinkedHashMap<>(tableFor(expected));
        this.heldCapacity = new HashMap<>(tableFor(expected + (charged != null ? 16 : holding.size())));
        this.lazyHeld = charged != null;
        if (charged == null) {
            for (int i = 0, n = holding.size(); i < n; i++) {
                // what it holds is all this needs: the job's service is brought up to date only when it is looked up
                JobStatus j = io.fairway.core.snapshot.HeldJobs.stored(holding, i);
                heldCapacity.put(j.id(), charge(j.spec(), j.admission()));
            }
        }
        for (Provisioning.Reservation r : snapshot.provisioning().reservations().values()) {
            if (quota.hasQueue(r.clusterQueue())) {
                nodeReservationUsage(r).forEach((fr, v) -> quota.add(r.clusterQueue(), fr, v));
            }
        }
        quota.tolerateCurrentOverUse(); // work running above a lowered quota stays; the plan may not add to it
    }

    /** @return the round's input */
    public Snapshot snapshot() {
        return snapshot;
    }

    /** @return the quota book as the plan leaves it */
    public QuotaBook quotaBook() {
        return quota;
    }

    /** @return the capacity as the plan leaves it */
    public CapacityPlan capacityPlan() {
        return cap;
    }

    /** @return admissions by job id, in plan order (mutable: the validator records what it accepts) */
    public Map<String, Admit> admitted() {
        return admitted;
    }

    /** @return preemptions by job id, in plan order */
    public Map<String, Preempt> preempted() {
        return Collections.unmodifiableMap(preempted);
    }

    /** @return the new admissions of resized jobs, by job id */
    public Map<String, Admit> resized() {
        return Collections.unmodifiableMap(resized);
    }

    /** @return the holding job of that id, as stored (its service possibly as of an earlier time), or null */
    private JobStatus storedHolding(String jobId) {
        if (keptHolding == null && holdingById == null) {
            List<JobStatus> holding = snapshot.holding();
            keptHolding = io.fairway.core.snapshot.HeldJobs.kept(holding); // the engine's: shared while they are the same
            if (keptHolding == null) {
                Map<String, JobStatus> m = new HashMap<>(tableFor(holding.size()));
                for (int i = 0, n = holding.size(); i < n; i++) {
                    JobStatus j = io.fairway.core.snapshot.HeldJobs.stored(holding, i);
                    m.put(j.id(), j);
                }
                holdingById = m;
            }
        }
        return keptHolding != null ? keptHolding.find(jobId) : holdingById.get(jobId);
    }

    /** @return the holding elastic jobs in submission order, their service up to the round's clock */
    List<JobStatus> holdingElastic() {
        List<JobStatus> l = holdingElastic;
        if (l == null) {
            l = new ArrayList<>();
            List<JobStatus> holding = snapshot.holding();
            for (int i = 0, n = holding.size(); i < n; i++) {
                if (io.fairway.core.snapshot.HeldJobs.stored(holding, i).spec().isElastic()) {
                    l.add(holding.get(i));
                }
            }
            holdingElastic = l;
        }
        return l;
    }

    /** @return the running job of that id, or null */
    JobStatus holding(String jobId) {
        JobStatus j = storedHolding(jobId);
        return j == null ? null : io.fairway.core.snapshot.HeldJobs.current(snapshot.holding(), j);
    }

    /** @return what a running job holds on its nodes in the plan (empty when nothing) */
    List<Placer.Taken> held(String jobId) {
        List<Placer.Taken> t = heldCapacity.get(jobId);
        if (t == null && lazyHeld) {
            JobStatus j = storedHolding(jobId); // its spec and admission are all this reads: no service brought up to date
            if (j != null) {
                t = takenBy(cap, j.spec(), j.admission());
                heldCapacity.put(jobId, t);
            }
        }
        return t == null ? List.of() : t;
    }

    long state() {
        return state;
    }

    void restoreState(long earlier) {
        state = earlier;
    }

    /** Records that the plan changed. */
    void changed() {
        state = ++lastState;
    }

    /** @return the next admission's order: the round in the high bits, the admission within the round in the low bits */
    long nextAdmissionOrder() {
        return (snapshot.round() << 24) + ++admissions;
    }

    /** The admission numbers used so far (a failed search that admitted and took back counts them). */
    long admissions() {
        return admissions;
    }

    void skipAdmissions(long n) {
        admissions += n;
    }

    /** Adds an admission found on the plan's capacity and quota (quota already charged). */
    void admit(JobStatus job, Admit a, List<Placer.Taken> taken) {
        changed();
        admitted.put(job.id(), a);
        admittedJobs.put(job.id(), job);
        heldCapacity.put(job.id(), taken);
        reasons.remove(job.id());
    }

    /** Records a resized job's new admission and what it now holds. */
    void resized(JobStatus held, Admit next, List<Placer.Taken> taken) {
        resized.put(held.id(), next);
        preemption.touched(held);
        heldCapacity.put(held.id(), taken);
    }

    private List<Placer.Taken> charge(JobSpec spec, Admit a) {
        return charge(cap, quota, spec, a, +1);
    }

    /**
     * Charges (sign +1) or gives back (sign -1) what a holding job holds: its members' capacity on their nodes and its
     * quota. Members on nodes the plan does not have are skipped (the engine requeues such jobs).
     *
     * @return what it holds on its nodes
     */
    static List<Placer.Taken> charge(CapacityPlan cap, QuotaBook quota, JobSpec spec, Admit a, int sign) {
        if (a == null) {
            return new ArrayList<>();
        }
        List<Placer.Taken> taken = takenBy(cap, spec, a);
        for (Placer.Taken t : taken) {
            if (sign > 0) {
                cap.take(t.node(), t.req(), t.gpuMask());
            } else {
                cap.give(t.node(), t.req(), t.gpuMask());
            }
        }
        if (a.clusterQueue() != null && quota.hasQueue(a.clusterQueue())) {
            for (PodSet ps : spec.podSets()) {
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                if (a.flavors().get(ps.name()) != null) {
                    ps.total(m).asMap().forEach((r, v) -> quota.add(a.clusterQueue(), QuotaBook.fr(a.flavorOf(ps.name(), r), r), sign * v));
                }
            }
        }
        return taken;
    }

    /**
     * {@link #charge} for the engine's kept charges: the same changes to capacity and quota, without listing what the
     * job holds (each pod set's vector is made once, not once per member).
     */
    static void chargeInPlace(CapacityPlan cap, QuotaBook quota, JobSpec spec, Admit a, int sign) {
        if (a == null) {
            return;
        }
        List<PodSet> sets = spec.podSets();
        PodSet lastSet = null;
        long[] lastReq = null;
        for (MemberPlacement mp : a.placement().members()) {
            Integer n = cap.nodeIndex(mp.node());
            if (n == null) {
                continue; // node gone: the engine requeues such jobs
            }
            if (lastSet == null || !lastSet.name().equals(mp.podSet())) {
                PodSet ps = null;
                for (int i = sets.size() - 1; i >= 0 && ps == null; i--) { // the last of a name, as a map by name keeps
                    if (sets.get(i).name().equals(mp.podSet())) {
                        ps = sets.get(i);
                    }
                }
                if (ps == null) {
                    continue;
                }
                lastSet = ps;
                lastReq = cap.vector(ps.resources());
            }
            long mask = cap.gpuMask(n, mp.gpus());
            if (sign > 0) {
                cap.take(n, lastReq, mask);
            } else {
                cap.give(n, lastReq, mask);
            }
        }
        if (a.clusterQueue() != null && quota.hasQueue(a.clusterQueue())) {
            for (PodSet ps : sets) {
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                if (a.flavors().get(ps.name()) != null) {
                    io.fairway.api.model.Resources per = ps.resources(); // read in place: no total's copy, no map of it
                    for (int i = 0, k = per.size(); i < k; i++) {
                        String r = per.name(i);
                        quota.add(a.clusterQueue(), QuotaBook.fr(a.flavorOf(ps.name(), r), r), sign * per.amount(i) * m);
                    }
                }
            }
        }
    }

    /** @return what a job's members hold on their nodes of {@code cap} (nothing is taken) */
    static List<Placer.Taken> takenBy(CapacityPlan cap, JobSpec spec, Admit a) {
        List<Placer.Taken> taken = new ArrayList<>();
        if (a == null) {
            return taken;
        }
        List<PodSet> sets = spec.podSets();
        Map<String, PodSet> podSets = null;
        if (sets.size() > 1) {
            podSets = new HashMap<>();
            for (PodSet ps : sets) {
                podSets.put(ps.name(), ps);
            }
        }
        for (MemberPlacement mp : a.placement().members()) {
            Integer n = cap.nodeIndex(mp.node());
            PodSet ps = podSets != null ? podSets.get(mp.podSet()) : sets.isEmpty() || !sets.get(0).name().equals(mp.podSet()) ? null : sets.get(0);
            if (n == null || ps == null) {
                continue; // node gone: the engine requeues such jobs
            }
            long[] req = cap.vector(ps.resources());
            long mask = cap.gpuMask(n, mp.gpus());
            taken.add(new Placer.Taken(n, req, mask));
        }
        return taken;
    }

    /** What one member holds on its node, or null when the node is gone. */
    Placer.Taken takenBy(MemberPlacement m, PodSet ps) {
        Integer n = cap.nodeIndex(m.node());
        if (n == null) {
            return null;
        }
        return new Placer.Taken(n, cap.vector(ps.resources()), cap.gpuMask(n, m.gpus()));
    }

    void give(List<Placer.Taken> taken) {
        for (Placer.Taken t : taken) {
            cap.give(t.node(), t.req(), t.gpuMask());
        }
    }

    /**
     * @param flavorByPodSet a flavor name per pod set
     * @return the flavors' specs per pod set
     */
    public Map<String, ResourceFlavor> flavorSpecs(Map<String, String> flavorByPodSet) {
        if (flavorByPodSet.size() == 1) {
            Map.Entry<String, String> e = flavorByPodSet.entrySet().iterator().next();
            return Collections.singletonMap(e.getKey(), snapshot.flavors().get(e.getValue()));
        }
        Map<String, ResourceFlavor> m = new HashMap<>();
        flavorByPodSet.forEach((ps, f) -> m.put(ps, snapshot.flavors().get(f)));
        // a pod set with flavors from several resource groups runs on nodes matching every one of them
        Map<String, List<ResourceFlavor>> several = new HashMap<>();
        flavorByPodSet.forEach((key, f) -> {
            int slash = key.indexOf('/');
            if (slash > 0 && flavorByPodSet.containsKey(key.substring(0, slash))) {
                several.computeIfAbsent(key.substring(0, slash), k -> new ArrayList<>()).add(snapshot.flavors().get(f));
                m.remove(key);
            }
        });
        several.forEach((ps, extra) -> m.put(ps, FlavorUnion.of(m.get(ps), extra)));
        return m;
    }

    private Map<String, Long> nodeReservationUsage(Provisioning.Reservation r) {
        Map<String, Long> usage = new LinkedHashMap<>();
        JobStatus j = null;
        for (JobStatus p : snapshot.pending()) {
            if (p.id().equals(r.jobId())) {
                j = p;
                break;
            }
        }
        if (j == null) {
            return usage;
        }
        for (PodSet ps : j.spec().podSets()) {
            int m = r.counts().getOrDefault(ps.name(), ps.count());
            if (r.flavors().get(ps.name()) != null) {
                ps.total(m).asMap().forEach((res, v) -> usage.merge(QuotaBook.fr(Admit.flavorOf(r.flavors(), ps.name(), res), res), v, Long::sum));
            }
        }
        return usage;
    }

    /**
     * Gives back the quota a job holds while it waits for nodes (before it is charged for its admission).
     *
     * @param jobId a job
     */
    public void releaseNodeReservationQuota(String jobId) {
        Provisioning.Reservation r = snapshot.provisioning().reservations().get(jobId);
        if (r != null && releasedNodeReservations.add(jobId) && quota.hasQueue(r.clusterQueue())) {
            changed();
            nodeReservationUsage(r).forEach((fr, v) -> quota.add(r.clusterQueue(), fr, -v));
        }
    }

    /**
     * Places the jobs holding a node reservation (quota held while their nodes come up): they were admitted under
     * quota already. A job that still has no room keeps its node reservation.
     */
    void placeNodeReservations(List<JobStatus> jobsWithNodeReservation) {
        changed();
        Map<String, Provisioning.Reservation> reservations = snapshot.provisioning().reservations();
        for (JobStatus j : jobsWithNodeReservation) {
            Provisioning.Reservation r = reservations.get(j.id());
            Map<String, Long> usage = nodeReservationUsage(r);
            usage.forEach((fr, v) -> quota.add(r.clusterQueue(), fr, -v));
            Placer.Outcome o = placer.place(j.spec(), r.counts(), flavorSpecs(r.flavors()));
            if (o.result() != null) {
                usage.forEach((fr, v) -> quota.add(r.clusterQueue(), fr, v));
                admitted.put(j.id(), new Admit(j.id(), r.clusterQueue(), r.flavors(), r.counts(), o.result().placement(), snapshot.nowMillis(),
                        Admit.NO_LEASE, nextAdmissionOrder()));
                heldCapacity.put(j.id(), o.result().taken());
            } else {
                usage.forEach((fr, v) -> quota.add(r.clusterQueue(), fr, v));
            }
        }
    }

    /** Replaces the reason of a preemption already in the plan. */
    void explainPreemption(String jobId, String reason) {
        Preempt p = preempted.get(jobId);
        if (p != null) {
            preempted.put(jobId, new Preempt(jobId, reason, p.checkpoint(), p.migration()));
        }
    }

    /** Preempts a running job: its capacity and quota are free for the rest of the plan. */
    boolean preempt(JobStatus job, String reason) {
        JobStatus held = holding(job.id());
        if (held == null || preempted.containsKey(job.id())) {
            return false;
        }
        changed();
        give(held(job.id()));
        Admit current = resized.remove(job.id());
        if (current != null) {
            resizedBeforePreemption.put(job.id(), current);
        }
        chargeQuota(current == null ? held : held.withAdmission(current, held.stateSinceMillis()), -1);
        preempted.put(job.id(), new Preempt(job.id(), reason, held.spec().checkpointing() != null, false));
        preemption.touched(held);
        return true;
    }

    /** Undoes an admission made in this plan: its capacity and quota are free again. */
    void unadmit(String jobId) {
        Admit a = admitted.remove(jobId);
        if (a == null) {
            return;
        }
        changed();
        give(heldCapacity.getOrDefault(jobId, List.of()));
        heldCapacity.remove(jobId);
        JobStatus j = admittedJobs.remove(jobId);
        if (j != null) {
            for (PodSet ps : j.spec().podSets()) {
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                ps.total(m).asMap().forEach((r, v) -> quota.add(a.clusterQueue(), QuotaBook.fr(a.flavorOf(ps.name(), r), r), -v));
            }
        }
    }

    /** Undoes a preemption made in this plan: the job holds its capacity and quota again. */
    public void restore(String jobId) {
        if (preempted.remove(jobId) == null) {
            return;
        }
        changed();
        JobStatus held = holding(jobId);
        for (Placer.Taken t : held(jobId)) {
            cap.take(t.node(), t.req(), t.gpuMask());
        }
        // a job the plan had resized comes back resized: its placement is the one whose capacity it takes again
        Admit wasResized = resizedBeforePreemption.remove(jobId);
        if (wasResized != null) {
            resized.put(jobId, wasResized);
        }
        chargeQuota(wasResized == null ? held : held.withAdmission(wasResized, held.stateSinceMillis()), +1);
        preemption.touched(held);
    }

    private void chargeQuota(JobStatus held, int sign) {
        Admit a = held.admission();
        if (a != null && quota.hasQueue(a.clusterQueue())) {
            for (PodSet ps : held.spec().podSets()) {
                int m = a.counts().getOrDefault(ps.name(), ps.count());
                if (a.flavors().get(ps.name()) != null) {
                    ps.total(m).asMap().forEach((r, v) -> quota.add(a.clusterQueue(), QuotaBook.fr(a.flavorOf(ps.name(), r), r), sign * v));
                }
            }
        }
    }
}
