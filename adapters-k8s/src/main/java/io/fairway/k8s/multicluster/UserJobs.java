package io.fairway.k8s.multicluster;

import static io.fairway.k8s.multicluster.MultiClusterManager.COPY_LABEL;
import static io.fairway.k8s.multicluster.MultiClusterManager.EPOCH_ANNOTATION;
import static io.fairway.k8s.multicluster.MultiClusterManager.JOB_ID_ANNOTATION;
import static io.fairway.k8s.multicluster.MultiClusterManager.ORIGIN_UID_ANNOTATION;
import static io.fairway.k8s.multicluster.MultiClusterManager.REASON_DISPATCHED;
import static io.fairway.k8s.multicluster.MultiClusterManager.REASON_FINISHED;
import static io.fairway.k8s.multicluster.MultiClusterManager.REASON_REQUEUED;
import static io.fairway.k8s.multicluster.MultiClusterManager.REASON_RUNNING;
import static io.fairway.k8s.multicluster.MultiClusterManager.STATE_ANNOTATION;
import static io.fairway.k8s.multicluster.MultiClusterManager.WORKER_ANNOTATION;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.core.Scheduler;
import io.fairway.k8s.AdmissionRecord;
import io.fairway.k8s.JobTranslator;
import io.fairway.k8s.Keys;
import io.fairway.k8s.RestoringPolicy;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The users' Jobs in the manager cluster: read into the engine (submitted, suspended, restored at the copy a worker
 * holds, re-prioritised, cancelled when deleted), and each Job's state mirrored back onto it (annotations and an Event
 * at each change). Runs under the manager's lock.
 */
final class UserJobs {
    private static final Logger LOG = LoggerFactory.getLogger(UserJobs.class);
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    private final MultiClusterManager m;
    private final KubernetesClient manager;
    private final Scheduler scheduler;
    private final RestoringPolicy policy;
    private final JobTranslator translator;
    private final MultiClusterManager.Settings settings;
    private final AtomicLong eventSeq = new AtomicLong(System.nanoTime());
    private final Map<String, UserJob> byId = new LinkedHashMap<>();
    private final Map<String, String> idOfUid = new HashMap<>();
    private final Map<String, String[]> outcomes = new HashMap<>();

    UserJobs(MultiClusterManager m, KubernetesClient manager, Scheduler scheduler, RestoringPolicy policy, JobTranslator translator,
             MultiClusterManager.Settings settings) {
        this.m = m;
        this.manager = manager;
        this.scheduler = scheduler;
        this.policy = policy;
        this.translator = translator;
        this.settings = settings;
    }

    /** @return whether {@code uid} is the user's Job the engine knows as {@code id} */
    boolean isOrigin(String id, String uid) {
        UserJob t = byId.get(id);
        return t != null && t.uid.equals(uid);
    }

    /** @return the user's Job as the manager cluster has it now, or null */
    Job userJob(String id) {
        UserJob t = byId.get(id);
        if (t == null) {
            return null;
        }
        Job j = manager.batch().v1().jobs().inNamespace(t.namespace).withName(t.name).get();
        return j == null || !t.uid.equals(j.getMetadata().getUid()) ? null : j;
    }

    void recordOutcome(String id, String outcome, String message) {
        outcomes.put(id, new String[] {outcome, message});
    }

    List<Job> listUserJobs() {
        List<Job> jobs = new ArrayList<>(settings.namespace() == null
                ? manager.batch().v1().jobs().inAnyNamespace().list().getItems()
                : manager.batch().v1().jobs().inNamespace(settings.namespace()).list().getItems());
        jobs.removeIf(j -> translator.queueLabel(j) == null || "true".equals(j.getMetadata().getLabels().get(COPY_LABEL)));
        jobs.sort(Comparator.comparingLong((Job j) -> BatchJobFields.creationMillis(j)).thenComparing(BatchJobFields::key));
        return jobs;
    }

    /** A copy found in a worker at start: where its Job ran. */
    record Admitted(String worker, String uid, AdmissionRecord admission, String outcome, String message) {
    }

    /** At start: the copies in each worker that answers (an executor pass first, so the workers' nodes are known). */
    Map<String, Admitted> copiesInWorkers() {
        Map<String, Admitted> out = new HashMap<>();
        for (WorkerExecutor w : m.workers()) {
            w.pollOnce();
            if (!w.reachable()) {
                continue;
            }
            for (Job c : w.copies()) {
                String id = BatchJobFields.annotation(c, JOB_ID_ANNOTATION);
                String adm = BatchJobFields.annotation(c, Keys.ADMISSION_ANNOTATION);
                if (id == null || adm == null || !m.owns(c) || out.containsKey(id) && out.get(id).outcome() != null) {
                    continue;
                }
                String cond = BatchJobFields.finishedCondition(c);
                String outcome = cond == null ? null : "Complete".equals(cond) ? "Succeeded" : "Failed";
                try {
                    out.put(id, new Admitted(w.name(), BatchJobFields.annotation(c, ORIGIN_UID_ANNOTATION), AdmissionRecord.parse(adm), outcome,
                            "Failed".equals(outcome) ? BatchJobFields.failureMessage(c) : ""));
                } catch (IllegalArgumentException e) {
                    LOG.warn("copy {} in worker {} has an unreadable admission; it will be deleted", BatchJobFields.key(c), w.name());
                }
            }
        }
        return out;
    }

    void syncJobs(List<Job> jobs, Map<String, Admitted> copies) {
        Set<String> seen = new HashSet<>();
        for (Job job : jobs) {
            String uid = job.getMetadata().getUid();
            if (uid == null) {
                continue;
            }
            seen.add(uid);
            if (idOfUid.containsKey(uid)) {
                updatePriority(byId.get(idOfUid.get(uid)), job);
                continue;
            }
            if (BatchJobFields.annotation(job, Keys.FINISHED_ANNOTATION) != null) {
                continue;
            }
            String id = BatchJobFields.key(job);
            Admitted copy = copies.get(id);
            if (copy != null && copy.outcome() != null && uid.equals(copy.uid())) {
                // it ended in its worker while no manager was watching: record the end, never run it again
                Map<String, String> ann = new LinkedHashMap<>();
                ann.put(Keys.FINISHED_ANNOTATION, copy.outcome());
                ann.put(STATE_ANNOTATION, "Succeeded".equals(copy.outcome()) ? "SUCCEEDED" : "FAILED");
                ann.put(Keys.PENDING_REASON_ANNOTATION, null);
                if (patchUserJob(job, ann, REASON_FINISHED, "Succeeded".equals(copy.outcome()) ? "Normal" : "Warning",
                        copy.outcome() + " in worker " + copy.worker() + (copy.message().isEmpty() ? "" : ": " + copy.message()))) {
                    idOfUid.put(uid, id);
                }
                continue;
            }
            UserJob old = byId.get(id);
            if (old != null) {
                forgetJob(old); // deleted and created again under the same name
            }
            JobSpec spec;
            try {
                spec = translator.toSpec(job, id);
                scheduler.submit(spec);
            } catch (InvalidSpecException e) {
                String text = Keys.REASON_INVALID + ": " + e.getMessage();
                if (!text.equals(BatchJobFields.annotation(job, Keys.PENDING_REASON_ANNOTATION))) {
                    patchUserJob(job, Map.of(Keys.PENDING_REASON_ANNOTATION, text), Keys.REASON_INVALID, "Warning", e.getMessage());
                }
                continue; // read again on the next pass: the user may fix it
            }
            UserJob t = new UserJob(id, uid, job.getMetadata().getNamespace(), job.getMetadata().getName());
            t.priority = spec.priority();
            t.publishedState = BatchJobFields.annotation(job, STATE_ANNOTATION);
            t.publishedWorker = BatchJobFields.annotation(job, WORKER_ANNOTATION);
            byId.put(id, t);
            idOfUid.put(uid, id);
            if (!BatchJobFields.suspended(job)) {
                try {
                    manager.batch().v1().jobs().inNamespace(t.namespace).withName(t.name).patch(MERGE, BatchJobFields.json(Map.of("spec", Map.of("suspend", true))));
                    LOG.info("Job {} suspended: it runs in a worker cluster once admitted", id);
                } catch (KubernetesClientException e) {
                    LOG.warn("cannot suspend {}: {}", id, e.getMessage());
                }
            }
            Admitted a = copies.get(id);
            if (a != null && a.outcome() == null && uid.equals(a.uid())) {
                policy.pin(id, a.admission().placement());
                LOG.info("Job {} has a copy in worker {}; restoring its admission there", id, a.worker());
            }
        }
        for (String uid : new ArrayList<>(idOfUid.keySet())) {
            if (!seen.contains(uid)) {
                String id = idOfUid.remove(uid);
                UserJob t = byId.get(id);
                if (t != null && t.uid.equals(uid)) {
                    LOG.info("Job {} was deleted from the manager cluster; cancelling it", id);
                    forgetJob(t);
                }
            }
        }
    }

    /** A queued or running Job whose priority label changed gets its new priority (which may preempt, or let it be). */
    private void updatePriority(UserJob t, Job job) {
        if (t == null || !t.uid.equals(job.getMetadata().getUid())) {
            return;
        }
        int p;
        try {
            p = translator.toSpec(job, t.id).priority();
        } catch (InvalidSpecException e) {
            return;
        }
        if (p != t.priority && scheduler.jobs().setPriority(t.id, p)) {
            LOG.info("Job {}: priority {} -> {}", t.id, t.priority, p);
            t.priority = p;
        }
    }

    void forgetJob(UserJob t) {
        byId.remove(t.id);
        policy.unpin(t.id);
        outcomes.remove(t.id);
        scheduler.cancel(t.id);
        scheduler.jobs().forget(t.id);
    }

    /** Mirrors each Job's state onto the user's Job (annotations and an Event at each change). */
    void mirror() {
        for (UserJob t : new ArrayList<>(byId.values())) {
            JobStatus s = scheduler.status(t.id).orElse(null);
            if (s == null) {
                continue;
            }
            String state = s.state().name();
            String worker = s.state().holdsResources() ? scheduler.clusters().clusterOf(t.id) : null;
            String reason = s.state() == JobState.PENDING && s.pendingReason() != null
                    && s.pendingReason().code() != PendingReason.Code.NOT_YET_CONSIDERED
                    ? s.pendingReason().code() + ": " + s.pendingReason().message() : null;
            if (state.equals(t.publishedState) && java.util.Objects.equals(worker, t.publishedWorker)
                    && (reason == null || reason.equals(t.publishedReason))) {
                continue;
            }
            Job job = manager.batch().v1().jobs().inNamespace(t.namespace).withName(t.name).get();
            if (job == null || !t.uid.equals(job.getMetadata().getUid())) {
                continue;
            }
            Map<String, String> ann = new LinkedHashMap<>();
            ann.put(STATE_ANNOTATION, state);
            ann.put(WORKER_ANNOTATION, worker);
            ann.put(EPOCH_ANNOTATION, worker == null ? null : Long.toString(scheduler.jobs().epoch(t.id)));
            ann.put(Keys.PENDING_REASON_ANNOTATION, reason);
            String eventReason;
            String message;
            String type = "Normal";
            switch (s.state()) {
                case ADMITTED -> {
                    eventReason = REASON_DISPATCHED;
                    message = "Admitted by ClusterQueue " + s.admission().clusterQueue() + " into worker " + worker + " on "
                            + String.join(", ", s.admission().placement().nodes());
                }
                case RUNNING -> {
                    eventReason = REASON_RUNNING;
                    message = "Running in worker " + worker;
                }
                case SUCCEEDED, FAILED, CANCELLED -> {
                    String[] o = outcomes.getOrDefault(t.id, new String[] {s.state() == JobState.SUCCEEDED ? "Succeeded" : "Failed", ""});
                    ann.put(Keys.FINISHED_ANNOTATION, o[0]);
                    eventReason = REASON_FINISHED;
                    message = o[0] + " in worker " + t.publishedWorker + (o[1].isEmpty() ? "" : ": " + o[1]);
                    type = s.state() == JobState.SUCCEEDED ? "Normal" : "Warning";
                }
                default -> {
                    boolean requeued = t.publishedWorker != null;
                    eventReason = requeued ? REASON_REQUEUED : Keys.REASON_PENDING;
                    message = requeued ? "Back to pending (was in worker " + t.publishedWorker + ")" + (reason == null ? "" : "; " + reason)
                            : reason == null ? "Pending" : reason;
                }
            }
            if (worker != null && t.publishedWorker != null && !worker.equals(t.publishedWorker)) {
                event(job, "Normal", REASON_REQUEUED, "Back to pending (was in worker " + t.publishedWorker + ", lost or preempted)");
            }
            if (patchUserJob(job, ann, eventReason, type, message)) {
                t.publishedState = state;
                t.publishedWorker = worker;
                t.publishedReason = reason;
                if (s.state().isTerminal()) {
                    byId.remove(t.id);
                    outcomes.remove(t.id);
                    scheduler.jobs().forget(t.id);
                }
            }
        }
    }

    private boolean patchUserJob(Job job, Map<String, String> annotations, String eventReason, String type, String message) {
        try {
            Map<String, Object> ann = new LinkedHashMap<>(annotations); // null values remove the annotation
            manager.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
                    .patch(MERGE, BatchJobFields.json(Map.of("metadata", Map.of("annotations", ann))));
        } catch (KubernetesClientException e) {
            LOG.warn("cannot annotate {}: {}", BatchJobFields.key(job), e.getMessage());
            return false;
        }
        event(job, type, eventReason, message);
        LOG.info("Job {}: {}", BatchJobFields.key(job), message);
        return true;
    }

    private void event(Job about, String type, String reason, String message) {
        String now = DateTimeFormatter.ISO_INSTANT.format(Instant.now().atOffset(ZoneOffset.UTC));
        String ns = about.getMetadata().getNamespace();
        try {
            manager.v1().events().inNamespace(ns).resource(new EventBuilder()
                    .withNewMetadata().withName(about.getMetadata().getName() + "." + Long.toHexString(eventSeq.incrementAndGet()))
                    .withNamespace(ns).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                            .withName(about.getMetadata().getName()).withNamespace(ns).withUid(about.getMetadata().getUid()).build())
                    .withType(type).withReason(reason)
                    .withMessage(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent(Keys.COMPONENT).endSource()
                    .withReportingComponent("fairway.io/" + Keys.COMPONENT).withReportingInstance(settings.identity())
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("could not record event {} on {}: {}", reason, BatchJobFields.key(about), e.getMessage());
        }
    }
}
