package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's sync of queued objects, of every enabled kind, into the engine's jobs: submitted, restored at their
 * recorded admission, re-prioritised, cancelled when deleted; a pending object's edited spec (counts, requests, queue
 * label, priority class) replaces the engine's; an admitted object's edit that would change what was admitted is
 * refused with a Warning Event; and feedback from objects and pods (started, finished, failed). Runs under the
 * adapter's lock, on the reconcile thread.
 */
final class KindObjectSync {
    private static final Logger LOG = LoggerFactory.getLogger(KindObjectSync.class);
    /** Event reason: a pending object's edited spec was taken up. */
    static final String REASON_UPDATED = "Updated";
    /** Event reason: an edit of an admitted object that would change what was admitted is not applied. */
    static final String REASON_EDIT_REFUSED = "AdmittedEditRefused";

    private final AdapterState state;

    KindObjectSync(AdapterState state) {
        this.state = state;
    }

    void syncJobs(List<KindObject> objects) {
        Set<String> seen = new HashSet<>();
        for (KindObject w : objects) {
            String uid = w.object().getMetadata().getUid();
            if (uid == null) {
                continue;
            }
            seen.add(uid);
            TrackedObject t = state.tracked.byUid(uid);
            if (t == null) {
                submitToEngine(w);
            } else if (!t.ended) {
                refresh(t, w.object());
            } else if (t.unmarkedOutcome != null) {
                mark(t, w.object(), t.unmarkedOutcome); // the mark failed: retried, so the object does not read as running
            }
        }
        for (TrackedObject t : state.tracked.snapshot()) {
            if (seen.contains(t.uid)) {
                continue;
            }
            if (state.fetch(t) != null) {
                continue; // not yet in the cache
            }
            LOG.info("{} {} was deleted; cancelling {}", t.kind.kindName(), t.key(), t.id);
            state.tracked.remove(t);
            state.policy.unpin(t.id);
            state.restoring.remove(t.id);
            state.invalidPublished.remove(t.uid);
            state.scheduler.cancel(t.id);
        }
        state.invalidPublished.keySet().retainAll(seen);
    }

    private boolean ended(KindObject w) {
        if (Kube.annotation(w.object(), Keys.FINISHED_ANNOTATION) != null) {
            return true;
        }
        try {
            return w.kind().integration.outcome(w.object(), List.of()).phase() != WorkloadOutcome.Phase.ACTIVE;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** An object the engine does not know yet: submit it, restore its admission, or say why it cannot be queued. */
    private void submitToEngine(KindObject w) {
        GenericKubernetesResource obj = w.object();
        String uid = obj.getMetadata().getUid();
        if (ended(w)) {
            return;
        }
        String id = idFor(obj);
        JobSpec spec;
        try {
            spec = state.translator.toSpec(w.kind().integration, obj, id);
            state.scheduler.submit(spec);
        } catch (InvalidSpecException e) {
            publishInvalid(w.kind(), obj, e.getMessage());
            return;
        }
        state.invalidPublished.remove(uid);
        TrackedObject t = new TrackedObject(w.kind(), uid, obj.getMetadata().getNamespace(), obj.getMetadata().getName(), id, spec);
        t.published = Kube.annotation(obj, Keys.PENDING_REASON_ANNOTATION);
        state.tracked.add(t);
        String adm = Kube.annotation(obj, Keys.ADMISSION_ANNOTATION);
        try {
            if (!w.kind().integration.isSuspended(obj)) {
                if (adm != null && !state.kube.trusted(obj)) {
                    // a copied, edited or invented admission: Fairway did not admit it, so it must not run
                    state.kube.suspendUntrusted(w.kind(), obj);
                    state.kube.event(obj, "Warning", Keys.REASON_UNTRUSTED_ADMISSION, "Suspended: its " + Keys.ADMISSION_ANNOTATION
                            + " was not written by Fairway; it is queued like any other " + w.kind().kindName());
                } else if (adm != null) {
                    try {
                        AdmissionRecord rec = AdmissionRecord.parse(adm);
                        state.policy.pin(id, rec.placement());
                        state.restoring.add(id);
                        t.admittedSpec = submittedView(state.translator, w.kind(), obj);
                        String orig = Kube.annotation(obj, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
                        t.original = orig == null ? null : OriginalTemplate.parse(orig); // sealed: verified above
                        LOG.info("{} is admitted on {}; restoring its admission", t.key(), rec.placement().nodes());
                    } catch (IllegalArgumentException e) {
                        LOG.warn("{}: unreadable admission ({}); evicting it so it is admitted afresh", t.key(), e.getMessage());
                        state.evictFresh(t);
                    }
                } else {
                    state.kube.suspend(w.kind(), obj);
                }
            } else if (adm != null) {
                LOG.info("{} is suspended but still carries an admission; finishing its eviction", t.key());
                state.evictFresh(t);
            }
        } catch (KubernetesClientException e) {
            LOG.warn("{}: {}", t.key(), e.getMessage());
        }
    }

    private void publishInvalid(EnabledKind kind, GenericKubernetesResource obj, String msg) {
        String uid = obj.getMetadata().getUid();
        if (!msg.equals(state.invalidPublished.get(uid)) && !(Keys.REASON_INVALID + ": " + msg).equals(Kube.annotation(obj, Keys.PENDING_REASON_ANNOTATION))) {
            LOG.info("{} cannot be queued: {}", Kube.key(obj), msg);
            try {
                state.kube.publishPending(kind, obj, Keys.REASON_INVALID + ": " + msg, Keys.REASON_INVALID, "Warning");
            } catch (KubernetesClientException ex) {
                LOG.warn("cannot annotate {}: {}", Kube.key(obj), ex.getMessage());
            }
        }
        state.invalidPublished.put(uid, msg);
    }

    private String idFor(GenericKubernetesResource obj) {
        String base = Kube.key(obj);
        if (!state.tracked.hasId(base) && state.scheduler.status(base).isEmpty()) {
            return base;
        }
        String uid = obj.getMetadata().getUid();
        return base + "@" + uid.substring(0, Math.min(8, uid.length()));
    }

    /**
     * @param obj an object
     * @return what of it an admission depends on, as submitted: its spec and labels (admission's own edits undone)
     */
    static JsonNode submittedView(JobTranslator translator, EnabledKind kind, GenericKubernetesResource obj) {
        ObjectNode json = Specs.toJson(translator.asSubmitted(kind.integration, obj));
        kind.integration.setSuspended(json, false); // suspension is the adapter's to change, not an edit
        ObjectNode v = Specs.MAPPER.createObjectNode();
        v.set("spec", json.path("spec").deepCopy());
        if (json.path("metadata").has("labels")) {
            v.putObject("metadata").set("labels", json.path("metadata").get("labels").deepCopy());
        }
        return v;
    }

    /** A known object read again: its priority, and its spec when it was edited. */
    private void refresh(TrackedObject t, GenericKubernetesResource obj) {
        JobStatus s = state.scheduler.status(t.id).orElse(null);
        if (s == null) {
            return;
        }
        JobSpec now;
        try {
            now = state.translator.toSpec(t.kind.integration, obj, t.id);
        } catch (InvalidSpecException e) {
            if (s.state() == JobState.PENDING) {
                publishInvalid(t.kind, obj, e.getMessage()); // the engine keeps the last valid spec
            }
            return;
        }
        if (s.state() == JobState.PENDING && !state.restoring.contains(t.id) && !t.kind.integration.isSuspended(obj)) {
            suspendRunningWithoutAdmission(t);
            return;
        }
        boolean admittedObject = Kube.annotation(obj, Keys.ADMISSION_ANNOTATION) != null;
        if (s.state() == JobState.PENDING && !admittedObject && !state.restoring.contains(t.id) && t.kind.integration.isSuspended(obj)) {
            if (!now.equals(t.spec) && state.scheduler.jobs().updateSpec(now)) {
                LOG.info("{}: its edited spec is taken up ({} pod sets, {} members)", t.key(), now.podSets().size(),
                        now.podSets().stream().mapToInt(p -> p.count()).sum());
                t.spec = now;
                t.priority = now.priority();
                t.published = null;
                state.invalidPublished.remove(t.uid);
                state.kube.event(obj, "Normal", REASON_UPDATED, "The edited spec is queued: " + describe(now));
            }
            return;
        }
        if (now.priority() != t.priority) {
            state.scheduler.jobs().setPriority(t.id, now.priority());
            t.priority = now.priority();
        }
        if (admittedObject && s.state().holdsResources() && t.admittedSpec != null && !sameAdmission(now, t.spec)) {
            refuseEdit(t, obj);
        }
    }

    /**
     * A known object the engine holds pending runs (its owner unsuspended it, or wrote an admission): read afresh
     * and, if it still runs, suspend it; Fairway's annotations on it are removed, nothing is restored.
     */
    private void suspendRunningWithoutAdmission(TrackedObject t) {
        try {
            GenericKubernetesResource fresh = state.fetch(t);
            if (fresh == null || t.kind.integration.isSuspended(fresh)) {
                return; // a stale cache
            }
            if (state.kube.trusted(fresh)) {
                state.evictFresh(t); // Fairway's own admission whose eviction did not get through yet
                return;
            }
            state.kube.suspendUntrusted(t.kind, fresh);
            state.kube.event(fresh, "Warning", Keys.REASON_UNTRUSTED_ADMISSION, "Suspended: it ran without an admission by Fairway; it stays queued");
        } catch (KubernetesClientException e) {
            LOG.warn("{}: could not suspend it: {}", t.key(), e.getMessage());
        }
    }

    /** @return true when the edit leaves what admission depends on unchanged: pod sets and queue */
    private static boolean sameAdmission(JobSpec now, JobSpec admitted) {
        return now.podSets().equals(admitted.podSets()) && now.queue().equals(admitted.queue());
    }

    private void refuseEdit(TrackedObject t, GenericKubernetesResource obj) {
        String rv = obj.getMetadata().getResourceVersion();
        if (rv != null && rv.equals(t.refusedVersion)) {
            return;
        }
        t.refusedVersion = rv;
        Set<String> fields = new TreeSet<>();
        JsonDiff.changes(t.admittedSpec, submittedView(state.translator, t.kind, obj)).keySet().forEach(p -> fields.add(p.substring(1).replace('/', '.').replace("~1", "/").replace("~0", "~")));
        String msg = "The edit of " + String.join(", ", fields) + " is not applied while the " + t.kind.kindName()
                + " is admitted: Fairway keeps the admitted spec (" + describe(t.spec) + "); suspend or recreate it to change that";
        LOG.warn("{}: {}", t.key(), msg);
        state.kube.event(obj, "Warning", REASON_EDIT_REFUSED, msg);
    }

    private static String describe(JobSpec s) {
        List<String> parts = new ArrayList<>();
        s.podSets().forEach(p -> parts.add(p.name() + " x" + p.count() + " " + p.resources()));
        return "queue " + s.queue() + ", " + String.join("; ", parts);
    }

    void feedback() {
        for (TrackedObject t : state.tracked.all()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = state.scheduler.status(t.id).orElse(null);
            if (s == null || !s.state().holdsResources() || state.restoring.contains(t.id)) {
                continue;
            }
            GenericKubernetesResource obj = t.kind.informer.getStore().getByKey(t.key());
            if (obj == null || !t.uid.equals(obj.getMetadata().getUid())) {
                continue;
            }
            List<Pod> pods = state.podsOf(t);
            int members = s.admission().counts().values().stream().mapToInt(Integer::intValue).sum();
            long running = pods.stream().filter(p -> "Running".equals(Kube.phase(p)) || "Succeeded".equals(Kube.phase(p))).count();
            WorkloadOutcome o;
            try {
                o = t.kind.integration.outcome(obj, pods);
            } catch (IllegalArgumentException e) {
                LOG.debug("{}: outcome unreadable: {}", t.key(), e.getMessage());
                continue;
            }
            if (o.phase() == WorkloadOutcome.Phase.FAILED) {
                end(t, obj, false, o.message());
            } else if (o.phase() == WorkloadOutcome.Phase.SUCCEEDED) {
                end(t, obj, true, "");
            } else {
                warn(t, obj, pods);
                if (s.state() == JobState.ADMITTED && running >= members) {
                    state.scheduler.reportStarted(t.id);
                }
            }
        }
    }

    /** Emits the integration's warning about a running object as a Warning Event, each distinct one once. */
    private void warn(TrackedObject t, GenericKubernetesResource obj, List<Pod> pods) {
        String w;
        try {
            w = t.kind.integration.warning(obj, pods).orElse(null);
        } catch (IllegalArgumentException e) {
            return;
        }
        if (w != null && !w.equals(t.warned)) {
            LOG.warn("{}: {}", t.key(), w);
            state.kube.event(obj, "Warning", Keys.REASON_OPERATOR_WARNING, w);
        }
        t.warned = w;
    }

    private void end(TrackedObject t, GenericKubernetesResource obj, boolean success, String message) {
        t.ended = true;
        state.policy.unpin(t.id);
        if (success) {
            state.scheduler.reportFinished(t.id);
        } else {
            state.scheduler.reportFailed(t.id, message);
        }
        mark(t, obj, success ? "Succeeded" : "Failed");
        LOG.info("{} {} {}", t.kind.kindName(), t.key(), success ? "succeeded" : "failed: " + message);
    }

    /** Writes the finished mark; on failure it is kept and written again by a later pass. */
    private void mark(TrackedObject t, GenericKubernetesResource obj, String outcome) {
        if (Kube.annotation(obj, Keys.FINISHED_ANNOTATION) != null) {
            t.unmarkedOutcome = null;
            return;
        }
        try {
            state.kube.markFinished(t.kind, obj, outcome);
            t.unmarkedOutcome = null;
        } catch (KubernetesClientException e) {
            t.unmarkedOutcome = outcome;
            LOG.warn("cannot mark {} finished (retried next pass): {}", t.key(), e.getMessage());
        }
    }
}
