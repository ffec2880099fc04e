package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.job.JobOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A scheduler's jobs beyond the everyday verbs on {@link Scheduler}: listing them, explaining why one waits, editing
 * a pending job, changing priorities, cancelling a whole job set or queue, and forgetting ended jobs. Obtained from
 * {@link Scheduler#jobs()}.
 *
 * <pre>{@code
 * scheduler.jobs().explain("j1").ifPresent(e -> log.info("{}", e));   // reason and place in its ClusterQueue
 * scheduler.jobs().cancelJobSet("sweep-7");                            // Armada's cancel --jobset
 * }</pre>
 */
public final class Jobs {
    private final EngineState state;

    Jobs(EngineState state) {
        this.state = state;
    }

    /** @return every job ever submitted (and not forgotten), in submission order */
    public List<JobStatus> all() {
        return state.read(state.jobs::all);
    }

    /** @return pending jobs in submission order */
    public List<JobStatus> pending() {
        return state.read(state.jobs::pendingInOrder);
    }

    /**
     * Why a job waits, in words and numbers, with its place in its ClusterQueue.
     *
     * @param jobId a job
     * @return the explanation, or empty when the job is unknown
     */
    public Optional<PendingExplanation> explain(String jobId) {
        return state.read(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j == null) {
                return Optional.empty();
            }
            LocalQueue lq = state.localQueues.get(j.spec().localQueueKey());
            String cq = j.admission() != null ? j.admission().clusterQueue() : lq == null ? null : lq.clusterQueue();
            int ahead = 0;
            if (j.state() == JobState.PENDING && cq != null) {
                for (JobStatus o : state.jobs.pendingIndex.freeze().inSubmissionOrder()) {
                    LocalQueue olq = state.localQueues.get(o.spec().localQueueKey());
                    if (o != j && olq != null && cq.equals(olq.clusterQueue()) && JobOrder.PRIORITY.compare(o, j) < 0) {
                        ahead++;
                    }
                }
            }
            return Optional.of(new PendingExplanation(j, cq, j.state() == JobState.PENDING ? ahead : -1, j.pendingReason()));
        });
    }

    /**
     * The epoch of a job's current admission: it grows each time the job goes back to pending, so a report about
     * an older run (from an executor that was declared lost and came back) can be told apart and refused.
     *
     * @param jobId a job
     * @return its epoch, or -1 when unknown
     */
    public long epoch(String jobId) {
        return state.read(() -> state.jobs.epoch(jobId));
    }

    /**
     * Replaces the spec of a pending job (e.g. its parallelism or requests changed). The new spec is validated
     * like a submission; the job keeps its place (its sequence) in the queue.
     *
     * @param spec the new spec (same id)
     * @return true when the job was pending and was updated
     */
    public boolean updateSpec(JobSpec spec) {
        InvalidSpecException.requireNonNull("spec", spec);
        return state.withLock(() -> {
            JobStatus j = state.jobs.byId.get(spec.id());
            if (j == null || j.state() != JobState.PENDING) {
                return false;
            }
            JobSpec resolved = state.jobs.resolveClass(spec);
            state.pools.reservations.remove(spec.id());
            state.jobs.replace(j, j.withSpec(resolved));
            return true;
        });
    }

    /**
     * Changes a live job's priority.
     *
     * @param jobId the job
     * @param priority the new priority
     * @return true when the job is live
     */
    public boolean setPriority(String jobId, int priority) {
        List<SchedulerEvent> events = state.outbox.eventList();
        boolean done = state.withLock(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j == null || j.state().isTerminal()) {
                return false;
            }
            state.jobs.replace(j, j.withSpec(j.spec().withPriority(priority)));
            events.add(state.jobs.event(j, EventType.PRIORITY_CHANGED, "priority " + j.spec().priority() + " -> " + priority));
            state.outbox.publish(events, List.of());
            return true;
        });
        state.outbox.deliver(null);
        return done;
    }

    /**
     * Changes the priority of every live job of a job set.
     *
     * @param jobSet the job set
     * @param priority the new priority
     * @return the number of jobs changed
     */
    public int setJobSetPriority(String jobSet, int priority) {
        InvalidSpecException.requireNonNull("jobSet", jobSet);
        int n = 0;
        for (JobStatus j : live(j -> j.spec().jobSet().equals(jobSet))) {
            if (setPriority(j.id(), priority)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Cancels every live job of a job set (Armada's {@code cancel --jobset}).
     *
     * @param jobSet the job set
     * @return the ids cancelled
     */
    public List<String> cancelJobSet(String jobSet) {
        InvalidSpecException.requireNonNull("jobSet", jobSet);
        return cancelAll(live(j -> j.spec().jobSet().equals(jobSet)));
    }

    /**
     * Cancels every live job submitted through the LocalQueues of a ClusterQueue (a whole queue).
     *
     * @param clusterQueue the ClusterQueue
     * @return the ids cancelled
     */
    public List<String> cancelQueue(String clusterQueue) {
        InvalidSpecException.requireNonNull("clusterQueue", clusterQueue);
        Set<String> lqs = state.read(() -> {
            Set<String> s = new HashSet<>();
            for (LocalQueue lq : state.localQueues.values()) {
                if (lq.clusterQueue().equals(clusterQueue)) {
                    s.add(lq.key());
                }
            }
            return s;
        });
        return cancelAll(live(j -> lqs.contains(j.spec().localQueueKey())));
    }

    /**
     * Forgets a job that has ended (succeeded, failed or cancelled), so a long-running controller's memory stays
     * bounded. Its id may then be submitted again.
     *
     * @param jobId the job
     * @return true when it was known and ended
     */
    public boolean forget(String jobId) {
        return state.withLock(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j == null || !j.state().isTerminal()) {
                return false;
            }
            state.jobs.byId.remove(jobId);
            return true;
        });
    }

    /** @see Scheduler#cancel */
    boolean cancel(String jobId) {
        List<SchedulerEvent> events = state.outbox.eventList();
        List<Decision> stops = new ArrayList<>();
        Outbox.Outgoing[] sent = new Outbox.Outgoing[1];
        boolean done = state.withLock(() -> {
            JobStatus j = state.jobs.byId.get(jobId);
            if (j == null || j.state().isTerminal()) {
                return false;
            }
            if (j.state().holdsResources()) {
                stops.add(new Preempt(jobId, "cancelled", false, false));
            }
            state.pools.reservations.remove(jobId);
            state.jobs.finish(j, JobState.CANCELLED, "cancelled", events);
            sent[0] = state.outbox.publish(events, stops);
            return true;
        });
        state.outbox.deliver(sent[0]);
        return done;
    }

    private List<String> cancelAll(List<JobStatus> jobs) {
        List<String> ids = new ArrayList<>();
        for (JobStatus j : jobs) {
            if (cancel(j.id())) {
                ids.add(j.id());
            }
        }
        return ids;
    }

    private List<JobStatus> live(java.util.function.Predicate<JobStatus> filter) {
        return state.read(() -> state.jobs.live(filter));
    }
}
