package io.fairway.api.spi;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * What a policy sees and can do in one round. The views are of the round's immutable snapshot; the actions
 * change a tentative plan that later calls see (a job admitted here uses capacity and quota the next
 * {@link #tryAdmit} no longer finds free). The core validates the final plan against every invariant.
 *
 * <p>Implemented by the core; policies depend on this interface only.
 */
public interface PolicyContext {
    /** @return the round's clock, in milliseconds */
    long now();

    /** @return a random generator seeded from the scheduler's seed and the round number */
    RandomGenerator random();

    /** @return the ClusterQueues, by name order */
    List<ClusterQueue> clusterQueues();

    /**
     * @return every pending job whose ClusterQueue exists, in submission order (jobs waiting for a missing
     *     queue already carry their reason and are not listed)
     */
    List<JobStatus> pending();

    /**
     * @param clusterQueue a ClusterQueue name
     * @return its pending jobs in Kueue order: priority (highest first), then submission time
     */
    List<JobStatus> pending(String clusterQueue);

    /**
     * The pending jobs of {@link #pending()} grouped by what they need ({@link PendingGroup}), for policies that
     * walk deep queues: a group's jobs are in Kueue order, and groups are listed in the order of their first
     * jobs (submission order). The engine's context keeps the groups across rounds, so this costs nothing per
     * pending job; this default groups {@link #pending()} for contexts that do not.
     *
     * <p>A context that wraps another and filters {@link #pending()} must filter the groups the same way.
     *
     * @return every admissible pending job, each in exactly one group
     */
    default List<PendingGroup> pendingGroups() {
        Map<List<Object>, List<JobStatus>> groups = new java.util.LinkedHashMap<>();
        Map<List<Object>, String> queues = new java.util.HashMap<>();
        for (JobStatus j : pending()) {
            String cq = clusterQueueOf(j);
            List<Object> key = List.of(cq == null ? "" : cq, j.spec().namespace(), j.spec().queue(), j.spec().podSets(),
                    j.spec().priority());
            groups.computeIfAbsent(key, k -> new java.util.ArrayList<>()).add(j);
            queues.put(key, cq);
        }
        List<PendingGroup> out = new java.util.ArrayList<>();
        groups.forEach((k, jobs) -> {
            jobs.sort(JobOrder.SUBMISSION);
            List<JobStatus> frozen = List.copyOf(jobs);
            String cq = queues.get(k);
            out.add(new PendingGroup() {
                @Override
                public String clusterQueue() {
                    return cq;
                }

                @Override
                public List<JobStatus> jobs() {
                    return frozen;
                }
            });
        });
        return out;
    }

    /**
     * Whether every pending job's answer of the previous round still stands, so that a policy may end its walk at
     * once. True only when the previous round changed nothing at all (no admission, preemption, resize, lease,
     * refusal, nor any job's pending reason), nothing any attempt depends on has changed since (capacity, quota, preemption candidates,
     * configuration; the engine compares them), no pending job arrived, left or changed, and this plan has not
     * changed yet. A policy that returns after a {@code true} leaves every job it did not look at with the reason
     * it carries, which is the reason a walk would give it again: every attempt would fail as before, whatever
     * order the jobs are tried in.
     *
     * <p>Only a policy whose choices follow from the engine's state alone may stop on it. A policy that orders or
     * acts by values that change with time (least attained service, fair share over time, Themis' finish-time
     * estimates, leases) and may preempt or admit because time passed must not stop: it walks as always, and its
     * repeated attempts are answered from the engine's memory anyway ({@link #tryAdmit(JobStatus)} and
     * {@link #tryAdmitPreempting(JobStatus)} give the remembered failure, the same object, without searching).
     *
     * <pre>{@code
     * public void plan(PolicyContext ctx) {
     *     if (ctx.previousAnswersStand()) {
     *         return;                 // nothing changed since a round that decided nothing: every job keeps its reason
     *     }
     *     for (PendingGroup g : ctx.pendingGroups()) { ... }
     * }
     * }</pre>
     *
     * <p>This default answers false: a context without the engine's memory decides everything.
     *
     * @return true when the previous round's answers all stand
     */
    default boolean previousAnswersStand() {
        return false;
    }

    /**
     * The answer a group's first job would get, when the engine can give it without an attempt: its
     * {@link #tryAdmit(JobStatus)} and, when {@code preempting}, its {@link #tryAdmitPreempting(JobStatus)} would
     * both fail, change nothing in the plan (no capacity, quota or admission number used, nothing kept for a
     * lender), and give an answer the group's jobs already carry (the same code and sentence, numbers aside: the
     * reason of the round that found it). The engine knows this from what it remembers of earlier rounds and, once
     * the plan has changed, from the failures of this round that still hold (the engine's documentation, "Skipping
     * groups whose answers stand").
     *
     * <p>On a non-null answer the group's jobs keep the reasons they carry: the policy may skip both attempts and
     * need not call {@link #leaveWaiting(PendingGroup, int, PendingReason)} for the group (it may, with the answer
     * or anything else; the last call counts). It should treat the answer as the failure the attempts would have
     * returned (for instance, remember that the shape does not fit). A skipped group costs the policy nothing but
     * this call, and the round nothing to report.
     *
     * <p>The answer covers these two attempts only. A policy that does more for a job that does not fit (tries
     * smaller sizes, shrinks elastic jobs, preempts candidates of its own with
     * {@link #tryAdmitPreemptingAmong}) must still do that, or not ask. And it must ask at the moment it would
     * attempt the group, not ahead of its walk: an admission or preemption earlier in the walk changes the plan,
     * and the answer is for the plan as it is when asked. A policy whose order or actions depend on values that
     * change with time may ask, since the answer is about the attempts alone; it decides as before what to do
     * with a job that does not fit.
     *
     * <pre>{@code
     * PendingReason stood = ctx.standingAnswer(group, preempting);
     * if (stood != null) {
     *     failedShapes.put(shape, stood);   // as if both attempts had failed with it
     *     continue;                         // the group keeps its reasons
     * }
     * Attempt a = ctx.tryAdmit(group.jobs().get(0));
     * }</pre>
     *
     * <p>This default answers null (make the attempts): a context without the engine's memory decides everything.
     *
     * @param group a group of {@link #pendingGroups()}, none of whose jobs was admitted in this plan
     * @param preempting whether the policy would go on to {@link #tryAdmitPreempting(JobStatus)} after a failed
     *     {@link #tryAdmit(JobStatus)}
     * @return the failure both attempts would return, or null when the policy must make them
     */
    default PendingReason standingAnswer(PendingGroup group, boolean preempting) {
        return null;
    }

    /**
     * Records one reason for the jobs of a group from a position on (the jobs behind one that does not fit).
     *
     * @param group a group of {@link #pendingGroups()}
     * @param fromIndex the first job of the group the reason applies to
     * @param reason the reason their owners will see
     */
    default void leaveWaiting(PendingGroup group, int fromIndex, PendingReason reason) {
        List<JobStatus> jobs = group.jobs();
        for (int i = fromIndex; i < jobs.size(); i++) {
            leaveWaiting(jobs.get(i), reason);
        }
    }

    /**
     * @param job a job
     * @return the name of its ClusterQueue, or null when its LocalQueue or ClusterQueue is missing
     */
    String clusterQueueOf(JobStatus job);

    /**
     * The jobs that hold resources: quota reserved (admission checks pending), admitted, or running — the
     * candidates for preemption, resizing and lease renewal.
     *
     * @return jobs holding resources, in submission order
     */
    List<JobStatus> holding();

    /**
     * The elastic ones among {@link #holding()}: what a policy that grows jobs into idle capacity walks, without
     * looking at every running job each round.
     *
     * @return holding jobs with an elastic pod set, in submission order
     */
    default List<JobStatus> holdingElastic() {
        List<JobStatus> out = new java.util.ArrayList<>();
        for (JobStatus j : holding()) {
            if (j.spec().isElastic()) {
                out.add(j);
            }
        }
        return out;
    }

    /**
     * Tries to admit a job at full size: assigns flavors within quota, finds a placement with the engine's
     * placement search, and on success adds the admission to the plan.
     *
     * @param job a pending job
     * @return the admission, or the reason it cannot be admitted now
     */
    Attempt tryAdmit(JobStatus job);

    /**
     * Tries to admit a job with given member counts per pod set (for elastic jobs; each within
     * minCount..count).
     *
     * @param job a pending job
     * @param counts member count per pod set name
     * @return the admission, or the reason
     */
    Attempt tryAdmit(JobStatus job, Map<String, Integer> counts);

    /**
     * Tries to admit a job with a placement the policy chose itself. The placement is checked against capacity,
     * GPU exclusivity, quota, selectors and topology at once.
     *
     * @param job a pending job
     * @param placement where each member runs
     * @return the admission, or the reason the placement is refused
     */
    Attempt tryAdmit(JobStatus job, Placement placement);

    /**
     * Tries to admit a job at full size, and if it does not fit, searches for a minimal set of admitted jobs
     * whose preemption makes room, within what the job's ClusterQueue allows (Kueue's
     * {@code withinClusterQueue}, {@code reclaimWithinCohort}, {@code borrowWithinCohort}). Victims are only
     * ever of lower priority, or of equal priority and submitted later, or borrowers whose lent quota is
     * reclaimed by a queue that stays within its nominal quota, so two jobs can never preempt each other back
     * and forth. On success the victims are preempted in the plan and the job admitted.
     *
     * @param job a pending job
     * @return the admission, or the reason (no preemption allowed, or no victim set makes room)
     */
    Attempt tryAdmitPreempting(JobStatus job);

    /**
     * Tries to admit a job at full size, and if it does not fit, preempts jobs the policy chose, in the order given,
     * until it does: the policy decides who may be preempted (fair share: jobs of queues above their share), the
     * engine finds the fewest of them, in that order, whose preemption makes room. Victims are removed in order until
     * the job fits (quota and placement); then every victim that is not needed is put back, most recently removed
     * first. When even all of them do not make room, nothing is preempted and the plan is as it was. Jobs that hold
     * nothing, or were preempted already in this plan, are passed over. The job's ClusterQueue preemption settings
     * do not apply: the candidates are the policy's choice.
     *
     * <p>This default only tries {@link #tryAdmit(JobStatus)}, for contexts that cannot undo a preemption; the
     * engine's context implements it.
     *
     * @param job a pending job
     * @param candidates jobs holding resources the policy allows to be preempted, the first preferred
     * @param reason why they are preempted, for their owners
     * @return the admission, or the reason it cannot be admitted (and then nothing was preempted)
     */
    default Attempt tryAdmitPreemptingAmong(JobStatus job, List<JobStatus> candidates, String reason) {
        return tryAdmit(job);
    }

    /**
     * Whether a job of {@link #holding()} still holds its resources in the plan: false once this plan preempted it
     * (by {@link #preempt}, or as a victim of an admission). This default answers by {@link #holding()} alone, for
     * contexts that cannot preempt.
     *
     * @param job a job
     * @return true when it holds resources in the plan
     */
    default boolean holdsInPlan(JobStatus job) {
        return holding().contains(job);
    }

    /**
     * Preempts a job that holds resources: its capacity and quota are free for the rest of the plan.
     *
     * @param job an admitted or running job
     * @param reason why, for its owner
     * @return true when it was preempted (false if it holds nothing or was already preempted in this plan)
     */
    boolean preempt(JobStatus job, String reason);

    /**
     * Resizes an elastic job that holds resources (UnifiedJob's target replicas): shrinking releases the members
     * with the highest indexes; growing places the new members on free capacity (the engine's placement search,
     * in the pod set's flavor) within quota. Yields a {@link io.fairway.api.decision.Resize} decision.
     *
     * @param job a job holding resources (not admitted or preempted in this plan)
     * @param podSet the pod set to resize
     * @param targetCount the new member count, within minCount..count
     * @return the job's admission after the resize, or the reason it cannot be resized
     */
    Attempt resize(JobStatus job, String podSet, int targetCount);

    /**
     * Grants or renews a lease (Themis): a job admitted in this plan, or one that holds resources, keeps them
     * until {@code expiresAtMillis}; after that it is revocable ({@link io.fairway.api.decision.Admit#leaseExpired})
     * and the policy either renews the lease or preempts it. Jobs without a lease keep their resources until they
     * end or are preempted.
     *
     * @param job a job admitted in this plan or holding resources
     * @param expiresAtMillis the lease expiry ({@link io.fairway.api.decision.Admit#NO_LEASE} for none)
     * @return true when the job's lease was set
     */
    boolean setLease(JobStatus job, long expiresAtMillis);

    /**
     * Asks for a round no later than {@code atMillis} of the scheduler clock, even if nothing else happens by then:
     * a time-driven policy (a least-attained-service quantum that runs out, a lease that expires, a waiting job
     * whose starvation guard trips) uses it so that it acts on time rather than at the next arrival or completion.
     * Of several requests in one plan the earliest counts; a time at or before {@link #now()} is ignored. The
     * engine reports it ({@code RoundResult.wakeAtMillis()}, {@code Scheduler.nextWakeupMillis}) and every
     * embedding the project ships (the simulator, the Kubernetes controller, the multi-cluster manager) runs a
     * round then. A request lasts one round: the next plan asks again if it still needs to.
     *
     * <p>This default ignores the request, for contexts that cannot schedule rounds (e.g. a test's recording
     * context); the engine's context implements it.
     *
     * @param atMillis when the policy wants its next round
     */
    default void wakeAt(long atMillis) {
    }

    /**
     * Records why a pending job is left waiting, when the policy chooses not to admit it.
     *
     * @param job a pending job
     * @param reason the reason its owner will see
     */
    void leaveWaiting(JobStatus job, PendingReason reason);

    /** @return read-only quota checks */
    QuotaView quota();

    /** @return the placement search, against the plan's free capacity */
    PlacementSearch placement();

    /** @return the cluster's capacity and what is free in the plan */
    CapacityView capacity();
}
