package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobStatus;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spot interruptions and lost nodes on Kubernetes. A Node carrying a termination notice ({@link NodeTermination}) is
 * drained once, the way the simulator drains a node on a spot interruption notice: {@code Clusters#drainNode} cordons
 * it in the engine and preempts every job with a member there as a migration; the adapter suspends those Jobs
 * (restoring their templates) and the engine requeues them. A deleted Node is removed the same way
 * ({@code Clusters#removeNode}).
 *
 * <p>Before either, each affected job's progress is reported to the engine: a Job that declares checkpointing
 * ({@value Keys#CHECKPOINT_INTERVAL_ANNOTATION}) keeps the progress its workload last wrote in
 * {@value Keys#PROGRESS_ANNOTATION} (0..1) — it resumes from its checkpoint — and a Job that does not restarts from 0.
 * Runs under the adapter's lock, on the reconcile thread.
 */
final class NodeLoss {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLoss.class);
    /** The event reason on a Job stopped by a node's termination notice or loss. */
    static final String REASON_NODE_LOST = "NodeTerminating";

    private final AdapterState state;
    private final Set<String> drained = new HashSet<>();
    private Scheduler drainedIn;

    NodeLoss(AdapterState state) {
        this.state = state;
    }

    /**
     * @param node a Kubernetes node
     * @return what announces its termination, or null
     */
    String noticeOf(io.fabric8.kubernetes.api.model.Node node) {
        return state.options.nodeTermination().noticeOf(node).orElse(null);
    }

    /**
     * Drains a node with a termination notice the first time it is seen with it (again after the notice was lifted
     * and set anew, or after the engine was rebuilt).
     *
     * @param node the node's name (known to the engine)
     * @param notice what announced it
     */
    void drainOnce(String node, String notice) {
        if (drainedIn != state.scheduler) {
            drained.clear();
            drainedIn = state.scheduler;
        }
        if (!drained.add(node)) {
            return;
        }
        String why = "spot interruption or termination notice on node " + node + " (" + notice + ")";
        List<JobStatus> hit = reportProgressOfJobsOn(node);
        List<String> ids = state.scheduler.clusters().drainNode(node, why);
        LOG.info("node {} has a termination notice ({}); drained, {} job(s) requeued: {}", node, notice, ids.size(), ids);
        announce(hit, ids, why);
    }

    /** A node whose notice was lifted may be drained again when a new one comes. */
    void noticeLifted(String node) {
        drained.remove(node);
    }

    /**
     * Removes a node that is gone from the API server; its jobs are requeued with their progress.
     *
     * @param node the node's name
     */
    void removeGone(String node) {
        drained.remove(node);
        List<JobStatus> hit = reportProgressOfJobsOn(node);
        List<String> ids = state.scheduler.clusters().removeNode(node);
        announce(hit, ids, "node " + node + " was deleted");
    }

    private List<JobStatus> reportProgressOfJobsOn(String node) {
        List<JobStatus> hit = new ArrayList<>();
        for (JobStatus j : state.scheduler.jobs().all()) {
            if (!j.state().holdsResources() || j.admission() == null || !j.admission().placement().nodes().contains(node)) {
                continue;
            }
            hit.add(j);
            TrackedObject t = state.tracked.byId(j.id());
            HasMetadata job = t == null || t.kind.informer == null ? null : t.kind.informer.getStore().getByKey(t.key());
            double progress = j.spec().checkpointing() == null ? 0 : progressOf(job, j.progress());
            state.scheduler.reportProgress(j.id(), progress);
        }
        return hit;
    }

    private void announce(List<JobStatus> hit, List<String> requeued, String why) {
        for (JobStatus j : hit) {
            TrackedObject t = state.tracked.byId(j.id());
            HasMetadata job = t == null || t.kind.informer == null ? null : t.kind.informer.getStore().getByKey(t.key());
            if (job == null || !requeued.contains(j.id())) {
                continue;
            }
            double p = state.scheduler.status(j.id()).map(JobStatus::progress).orElse(-1.0);
            String resume = j.spec().checkpointing() != null
                    ? "requeued; it resumes from its last checkpoint (progress " + String.format(Locale.ROOT, "%.0f%%", Math.max(0, p) * 100) + ")"
                    : "requeued; it declares no checkpointing and restarts from the beginning";
            try {
                state.kube.event(job, "Warning", REASON_NODE_LOST, why + ": " + resume);
            } catch (KubernetesClientException e) {
                LOG.warn("cannot record an Event on {}: {}", t.key(), e.getMessage());
            }
        }
    }

    /**
     * @param job the queued object, or null
     * @param known the progress the engine has
     * @return the progress its workload wrote in {@value Keys#PROGRESS_ANNOTATION}, else {@code known} (0 when unknown)
     */
    static double progressOf(HasMetadata job, double known) {
        String text = job == null ? null : Kube.annotation(job, Keys.PROGRESS_ANNOTATION);
        if (text != null) {
            try {
                double v = Double.parseDouble(text.trim());
                if (v >= 0 && v <= 1) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // fall through
            }
            LOG.warn("{}: {} must be a number in 0..1, was \"{}\"; ignored", Kube.key(job), Keys.PROGRESS_ANNOTATION, text);
        }
        return Math.max(0, known);
    }

    /**
     * @param job a queued object
     * @return its checkpointing, from {@value Keys#CHECKPOINT_INTERVAL_ANNOTATION} (seconds between checkpoints), or
     *     null when it declares none
     * @throws InvalidSpecException naming the annotation and value when it is not a number &gt; 0
     */
    static Checkpointing checkpointingOf(HasMetadata job) {
        String text = Kube.annotation(job, Keys.CHECKPOINT_INTERVAL_ANNOTATION);
        if (text == null) {
            return null;
        }
        double v;
        try {
            v = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSpecException(Keys.CHECKPOINT_INTERVAL_ANNOTATION, text, Keys.CHECKPOINT_INTERVAL_ANNOTATION + " must be a number of seconds > 0, was " + text);
        }
        InvalidSpecException.check(v > 0 && Double.isFinite(v), Keys.CHECKPOINT_INTERVAL_ANNOTATION, text,
                "%s must be a number of seconds > 0, was %s", Keys.CHECKPOINT_INTERVAL_ANNOTATION, text);
        return new Checkpointing(v, 0, 0);
    }
}
