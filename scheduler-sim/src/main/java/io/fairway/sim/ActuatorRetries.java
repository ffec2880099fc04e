package io.fairway.sim;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated actuator's attempts when {@link ActuatorFaults} are injected: starts and node requests that fail or
 * time out are retried with back-off until they succeed or the actuator gives up, the attempts are counted for
 * {@link ActuatorMetrics}, and the engine's view of what runs is checked against the simulated machines.
 */
final class ActuatorRetries {
    private static final Logger LOG = LoggerFactory.getLogger(SimulationRun.class);

    /** An admission the actuator is still trying to start (its earlier attempts failed or timed out). */
    static final class Start {
        final JobTrack track;
        final String clusterQueue;
        final long epoch;
        final String key;
        Placement placement;
        int attempt;

        Start(JobTrack track, Placement placement, String clusterQueue, long epoch, String key) {
            this.track = track;
            this.placement = placement;
            this.clusterQueue = clusterQueue;
            this.epoch = epoch;
            this.key = key;
        }
    }

    /** A node request the actuator is still trying to make: the nodes it brings up once it succeeds. */
    static final class ProvisionTry {
        final SimNodePool pool;
        final NodeEvents.NodesUp nodes;
        final String key;
        int attempt;

        ProvisionTry(SimNodePool pool, NodeEvents.NodesUp nodes, String key) {
            this.pool = pool;
            this.nodes = nodes;
            this.key = key;
        }
    }

    private final SimulationRun run;
    private final ActuatorFaults faults;
    private final long seed;
    /** Admissions being started again after a failed or timed-out attempt, by job. */
    private final Map<String, Start> starting = new HashMap<>();
    private final Map<String, Integer> admissionsOf = new HashMap<>();
    private long provisionSeq;
    private long attempts;
    private long failures;
    private long timeouts;
    private long retries;
    private long givenUp;
    private long backoffMillis;
    private int maxAttemptsSeen;
    private long mismatches;

    /**
     * @param run the simulation whose actuator this is
     * @param faults the faults injected
     * @param seed the simulation's seed (the faults' draws depend on it)
     */
    ActuatorRetries(SimulationRun run, ActuatorFaults faults, long seed) {
        this.run = run;
        this.faults = faults;
        this.seed = seed;
    }

    /** @param jobId a job @return true while the actuator is still trying to start its admission */
    boolean isStarting(String jobId) {
        return starting.containsKey(jobId);
    }

    /**
     * A resize of an admission not started yet: the next attempt starts it at the new size.
     *
     * @param jobId the job
     * @param placement its new placement
     * @return true when the job was still being started
     */
    boolean resizeStart(String jobId, Placement placement) {
        Start s = starting.get(jobId);
        if (s == null) {
            return false;
        }
        s.placement = placement;
        return true;
    }

    /** @param jobId a job preempted or cancelled @return true when it was still being started (its retry is dropped) */
    boolean dropStart(String jobId) {
        return starting.remove(jobId) != null;
    }

    /**
     * Starts an admission, attempt by attempt.
     *
     * @param t the job
     * @param a its admission
     */
    void admit(JobTrack t, Admit a) {
        int n = admissionsOf.merge(t.job.id(), 1, Integer::sum);
        Start s = new Start(t, a.placement(), a.clusterQueue(), run.scheduler.jobs().epoch(t.job.id()), t.job.id() + "#" + n);
        starting.put(t.job.id(), s);
        attemptStart(s);
    }

    /**
     * Requests a Provision decision's nodes, attempt by attempt.
     *
     * @param sp the node pool
     * @param nodes the nodes it brings up once a request succeeds
     */
    void provision(SimNodePool sp, NodeEvents.NodesUp nodes) {
        attemptProvision(new ProvisionTry(sp, nodes, "provision#" + provisionSeq++));
    }

    /** @return the attempts counted so far */
    ActuatorMetrics metrics() {
        return new ActuatorMetrics(attempts, failures, timeouts, retries, givenUp, backoffMillis / 1000.0, maxAttemptsSeen, mismatches);
    }

    /** One attempt to start an admitted job: it starts, or a retry (or the final give-up) is scheduled. */
    private void attemptStart(Start s) {
        s.attempt++;
        count(s.attempt);
        String id = s.track.job.id();
        ActuatorFaults.Outcome o = faults.draw(seed, ActuatorFaults.ADMIT, s.key, s.attempt);
        if (o == ActuatorFaults.Outcome.APPLIED) {
            starting.remove(id);
            run.start(s.track, s.placement, s.clusterQueue, s.attempt);
            return;
        }
        run.push(run.now + failed(o, ActuatorFaults.ADMIT, id, s.attempt), SimulationRun.RETRY, s, 0);
    }

    private void count(int attempt) {
        attempts++;
        if (attempt > 1) {
            retries++;
        }
        maxAttemptsSeen = Math.max(maxAttemptsSeen, attempt);
    }

    /** Counts and records a failed or timed-out attempt. @return the wait until the next attempt (or the give-up) */
    private long failed(ActuatorFaults.Outcome o, String kind, String subject, int attempt) {
        boolean last = attempt >= faults.maxAttempts();
        long wait = last ? 0 : faults.backoffMillis(attempt);
        String what;
        if (o == ActuatorFaults.Outcome.TIMED_OUT) {
            timeouts++;
            wait += faults.timeoutMillis();
            what = "timed out (no answer in " + fmt(faults.timeoutSeconds()) + " s)";
        } else {
            failures++;
            what = "failed";
        }
        backoffMillis += wait;
        String next = last ? "; last attempt, giving up" : "; retry in " + fmt(wait / 1000.0) + " s";
        run.record(o == ActuatorFaults.Outcome.TIMED_OUT ? "ActuatorTimeout" : "ActuatorFailure", kind.equals(ActuatorFaults.ADMIT) ? subject : null,
                kind + " attempt " + attempt + " of " + faults.maxAttempts() + (kind.equals(ActuatorFaults.ADMIT) ? "" : " (" + subject + ")")
                        + " " + what + next);
        return wait;
    }

    private static String fmt(double seconds) {
        return String.format(java.util.Locale.ROOT, "%.1f", seconds);
    }

    /** The time for a retry (or the give-up) of a start has come. */
    boolean retryStart(Start s) {
        String id = s.track.job.id();
        if (starting.get(id) != s) {
            return false; // superseded: the engine preempted or cancelled the admission meanwhile
        }
        JobState state = run.scheduler.status(id).map(JobStatus::state).orElse(null);
        if (state != JobState.ADMITTED || run.scheduler.jobs().epoch(id) != s.epoch) {
            starting.remove(id);
            run.record("ActuatorDropped", id, "the engine no longer holds this admission (" + state + "); not retried");
            return true;
        }
        if (s.attempt >= faults.maxAttempts()) {
            starting.remove(id);
            givenUp++;
            String why = "the actuator failed to start it after " + s.attempt + " attempt(s)";
            run.record("ActuatorGaveUp", id, why + "; back to pending");
            run.scheduler.reportEvicted(id, why);
            return true;
        }
        attemptStart(s);
        return true;
    }

    /** Checks that the engine and the simulated machines agree on what runs; counts and logs each disagreement. */
    void checkConsistency() {
        for (JobStatus j : run.scheduler.jobs().all()) {
            JobTrack t = run.tracks.get(j.id());
            if (t == null) {
                continue;
            }
            boolean ok = switch (j.state()) {
                case RUNNING -> t.running;
                case ADMITTED -> starting.containsKey(j.id());
                default -> !t.running && !starting.containsKey(j.id());
            };
            if (!ok) {
                mismatches++;
                LOG.warn("t={}s: job {} is {} in the engine but {} in the simulator", run.now / 1000.0, j.id(), j.state(),
                        t.running ? "running" : starting.containsKey(j.id()) ? "starting" : "not running");
            }
        }
    }

    private void attemptProvision(ProvisionTry pt) {
        pt.attempt++;
        count(pt.attempt);
        ActuatorFaults.Outcome o = faults.draw(seed, ActuatorFaults.PROVISION, pt.key, pt.attempt);
        if (o == ActuatorFaults.Outcome.APPLIED) {
            run.push(run.now + pt.pool.pool().provisioningDelayMillis(), SimulationRun.NODES_UP, pt.nodes, 0);
            return;
        }
        long wait = failed(o, ActuatorFaults.PROVISION, String.join(", ", pt.nodes.names()), pt.attempt);
        run.push(run.now + wait, SimulationRun.PROVISION_RETRY, pt, 0);
    }

    /** The time for a retry (or the give-up) of a node request has come. */
    boolean retryProvision(ProvisionTry pt) {
        if (pt.attempt >= faults.maxAttempts()) {
            givenUp++;
            run.infra.requestAbandoned(pt.nodes.names().size());
            run.record("ActuatorGaveUp", null, "provision of " + String.join(", ", pt.nodes.names()) + " after " + pt.attempt
                    + " attempt(s); the engine releases the jobs waiting for these nodes when its node request times out");
            return true;
        }
        attemptProvision(pt);
        return true;
    }
}
