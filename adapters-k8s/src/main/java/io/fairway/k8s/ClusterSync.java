package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's sync: Nodes (and Fairway's NodeClaims) into the engine's nodes, queued Jobs into its jobs (submitted,
 * restored at their recorded admission, re-prioritised, cancelled when deleted), and feedback from pods and Jobs
 * (started, finished, failed). Runs under the adapter's lock, on the reconcile thread.
 */
final class ClusterSync {
    private static final Logger LOG = LoggerFactory.getLogger(FairwayAdapter.class);
    /** A node whose model changed while jobs run on it is re-read by a rebuild, at most this often. */
    private static final long NODE_REBUILD_MIN_INTERVAL_MILLIS = 30_000;

    private final AdapterState state;
    private final NodeLoss nodeLoss;

    ClusterSync(AdapterState state) {
        this.state = state;
        this.nodeLoss = new NodeLoss(state);
    }

    void syncNodes(List<Job> jobs) {
        Set<String> managed = new HashSet<>();
        jobs.forEach(j -> managed.add(Kube.key(j)));
        Map<String, Resources> unmanaged = new HashMap<>();
        if (state.options.countUnmanagedPods()) {
            for (Pod p : state.podInformer.getStore().list()) {
                String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
                String job = Kube.jobNameOf(p);
                if (node == null || Kube.terminal(p) || job != null && managed.contains(p.getMetadata().getNamespace() + "/" + job)) {
                    continue;
                }
                try {
                    unmanaged.merge(node, PodResources.of(p), Resources::plus);
                } catch (InvalidSpecException e) {
                    LOG.debug("pod {}: unreadable requests: {}", Kube.key(p), e.getMessage());
                }
            }
        }
        Map<String, Node> desired = new LinkedHashMap<>();
        List<io.fabric8.kubernetes.api.model.Node> kubeNodes = new ArrayList<>(state.nodeInformer.getStore().list());
        kubeNodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        refreshClaims();
        state.claimOfNode.clear();
        Map<String, String> notices = new TreeMap<>();
        for (io.fabric8.kubernetes.api.model.Node n : kubeNodes) {
            try {
                io.fabric8.kubernetes.api.model.Node kn = n;
                boolean goingAway = state.deprovisioning.contains(n.getMetadata().getName());
                GenericKubernetesResource claim = state.claimCache.isEmpty() ? null : NodeClaims.claimOf(n, state.claimCache);
                if (claim != null) {
                    // the claim's labels (pool, instance type, capacity type, GPU shape) fill in what the Node lacks
                    state.claimOfNode.put(n.getMetadata().getName(), claim.getMetadata().getName());
                    Map<String, String> labels = new TreeMap<>(NodeClaims.labels(claim));
                    if (n.getMetadata().getLabels() != null) {
                        labels.putAll(n.getMetadata().getLabels());
                    }
                    kn = new NodeBuilder(n).editMetadata().withLabels(labels).endMetadata().build();
                    goingAway |= claim.getMetadata().getDeletionTimestamp() != null;
                }
                Node model = NodeTranslator.toModel(kn, unmanaged.getOrDefault(n.getMetadata().getName(), Resources.NONE));
                String notice = nodeLoss.noticeOf(n);
                if (notice != null) {
                    notices.put(n.getMetadata().getName(), notice);
                } else {
                    nodeLoss.noticeLifted(n.getMetadata().getName());
                }
                desired.put(n.getMetadata().getName(), goingAway || notice != null ? model.withUnschedulable(true) : model);
            } catch (InvalidSpecException e) {
                LOG.warn("node {} is left out: {}", n.getMetadata().getName(), e.getMessage());
            }
        }
        state.deprovisioning.retainAll(desired.keySet());
        for (String gone : new ArrayList<>(state.modelNodes.keySet())) {
            if (!desired.containsKey(gone)) {
                LOG.info("node {} is gone", gone);
                state.modelNodes.remove(gone);
                nodeLoss.removeGone(gone);
            }
        }
        for (Node n : desired.values()) {
            Node cur = state.modelNodes.get(n.name());
            if (cur == null) {
                state.scheduler.clusters().addNode(n);
                state.modelNodes.put(n.name(), n);
            } else if (!cur.equals(n)) {
                if (cur.withUnschedulable(n.unschedulable()).equals(n)) {
                    state.scheduler.clusters().cordon(n.name(), n.unschedulable());
                    state.modelNodes.put(n.name(), n);
                } else if (!nodeInUse(n.name())) {
                    state.scheduler.clusters().removeNode(n.name());
                    state.scheduler.clusters().addNode(n);
                    state.modelNodes.put(n.name(), n);
                } else if (System.currentTimeMillis() - state.lastRebuildMillis >= NODE_REBUILD_MIN_INTERVAL_MILLIS) {
                    LOG.info("node {} changed while jobs run on it; the engine is rebuilt on the next pass", n.name());
                    state.rebuildNeeded = true;
                    state.dirty.set(true);
                }
            }
        }
        notices.forEach((node, notice) -> {
            if (state.modelNodes.containsKey(node)) {
                nodeLoss.drainOnce(node, notice);
            }
        });
    }

    /** Lists Fairway's NodeClaims when node pools are configured (keeping the last list when the API server fails). */
    private void refreshClaims() {
        if (state.config.nodePools().isEmpty()) {
            state.claimCache = new TreeMap<>();
            return;
        }
        try {
            state.claimCache = state.claims.list();
        } catch (KubernetesClientException e) {
            LOG.warn("cannot list NodeClaims: {}", e.getMessage());
        }
    }

    private boolean nodeInUse(String node) {
        for (JobStatus j : state.scheduler.jobs().all()) {
            if (j.state().holdsResources() && j.admission() != null && j.admission().placement().nodes().contains(node)) {
                return true;
            }
        }
        for (String id : state.policy.pinned()) {
            Placement p = state.policy.pinOf(id);
            if (p != null && p.nodes().contains(node)) {
                return true;
            }
        }
        return false;
    }

    void syncJobs(List<Job> jobs) {
        Set<String> seen = new HashSet<>();
        for (Job job : jobs) {
            String uid = job.getMetadata().getUid();
            if (uid == null) {
                continue;
            }
            seen.add(uid);
            Tracked t = state.byUid.get(uid);
            if (t == null) {
                admitToEngine(job);
            } else if (!t.ended) {
                updatePriority(t, job);
            }
        }
        for (Tracked t : new ArrayList<>(state.byUid.values())) {
            if (seen.contains(t.uid)) {
                continue;
            }
            Job now = state.kube.fetch(t.namespace, t.name);
            if (now != null && t.uid.equals(now.getMetadata().getUid())) {
                continue; // not yet in the cache
            }
            LOG.info("Job {} was deleted; cancelling {}", t.key(), t.id);
            state.byUid.remove(t.uid);
            state.byId.remove(t.id);
            state.policy.unpin(t.id);
            state.restoring.remove(t.id);
            state.invalidPublished.remove(t.uid);
            state.scheduler.cancel(t.id);
        }
        state.invalidPublished.keySet().retainAll(seen);
    }

    /** A Job the engine does not know yet: submit it, restore its admission, or say why it cannot be queued. */
    private void admitToEngine(Job job) {
        String uid = job.getMetadata().getUid();
        if (Kube.finishedCondition(job) != null || Kube.annotation(job, Keys.FINISHED_ANNOTATION) != null) {
            return;
        }
        String id = idFor(job);
        JobSpec spec;
        try {
            spec = state.translator.toSpec(job, id);
            state.scheduler.submit(spec);
        } catch (InvalidSpecException e) {
            String msg = e.getMessage();
            if (!msg.equals(state.invalidPublished.get(uid)) && !(Keys.REASON_INVALID + ": " + msg).equals(Kube.annotation(job, Keys.PENDING_REASON_ANNOTATION))) {
                LOG.info("Job {} cannot be queued: {}", Kube.key(job), msg);
                try {
                    state.kube.publishPending(job, Keys.REASON_INVALID + ": " + msg, Keys.REASON_INVALID, "Warning");
                } catch (KubernetesClientException ex) {
                    LOG.warn("cannot annotate {}: {}", Kube.key(job), ex.getMessage());
                }
            }
            state.invalidPublished.put(uid, msg);
            return;
        }
        state.invalidPublished.remove(uid);
        Tracked t = new Tracked(uid, job.getMetadata().getNamespace(), job.getMetadata().getName(), id, spec);
        t.published = Kube.annotation(job, Keys.PENDING_REASON_ANNOTATION);
        state.byUid.put(uid, t);
        state.byId.put(id, t);
        String adm = Kube.annotation(job, Keys.ADMISSION_ANNOTATION);
        try {
            if (!Kube.suspended(job)) {
                if (adm != null) {
                    try {
                        AdmissionRecord rec = AdmissionRecord.parse(adm);
                        state.policy.pin(id, rec.placement());
                        state.restoring.add(id);
                        LOG.info("Job {} is admitted on {}; restoring its admission", t.key(), rec.placement().nodes());
                    } catch (IllegalArgumentException e) {
                        LOG.warn("Job {}: unreadable admission ({}); evicting it so it is admitted afresh", t.key(), e.getMessage());
                        state.evictFresh(t);
                    }
                } else {
                    state.kube.suspend(job);
                }
            } else if (adm != null) {
                LOG.info("Job {} is suspended but still carries an admission; finishing its eviction", t.key());
                state.evictFresh(t);
            }
        } catch (KubernetesClientException e) {
            LOG.warn("Job {}: {}", t.key(), e.getMessage());
        }
    }

    private String idFor(Job job) {
        String base = Kube.key(job);
        if (!state.byId.containsKey(base) && state.scheduler.status(base).isEmpty()) {
            return base;
        }
        String uid = job.getMetadata().getUid();
        return base + "@" + uid.substring(0, Math.min(8, uid.length()));
    }

    private void updatePriority(Tracked t, Job job) {
        int p;
        try {
            p = state.translator.toSpec(job, t.id).priority();
        } catch (InvalidSpecException e) {
            return;
        }
        if (p != t.priority) {
            state.scheduler.jobs().setPriority(t.id, p);
            t.priority = p;
        }
    }

    void feedback() {
        for (Tracked t : state.byUid.values()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = state.scheduler.status(t.id).orElse(null);
            if (s == null || !s.state().holdsResources() || state.restoring.contains(t.id)) {
                continue;
            }
            Job job = state.jobInformer.getStore().getByKey(t.key());
            if (job == null || !t.uid.equals(job.getMetadata().getUid())) {
                continue;
            }
            List<Pod> pods = state.podsOf(t);
            int members = s.admission().counts().values().stream().mapToInt(Integer::intValue).sum();
            long succeeded = pods.stream().filter(p -> "Succeeded".equals(Kube.phase(p))).count();
            long running = pods.stream().filter(p -> "Running".equals(Kube.phase(p))).count();
            long live = pods.stream().filter(p -> !Kube.terminal(p)).count();
            Integer completions = job.getSpec().getCompletions();
            String cond = Kube.finishedCondition(job);
            boolean done = "Complete".equals(cond)
                    || completions != null && succeeded >= completions
                    || completions == null && succeeded > 0 && live == 0;
            if ("Failed".equals(cond)) {
                end(t, job, false, Kube.failureMessage(job));
            } else if (done) {
                end(t, job, true, "");
            } else if (s.state() == JobState.ADMITTED && running + succeeded >= members) {
                state.scheduler.reportStarted(t.id);
            }
        }
    }

    private void end(Tracked t, Job job, boolean success, String message) {
        t.ended = true;
        state.policy.unpin(t.id);
        if (success) {
            state.scheduler.reportFinished(t.id);
        } else {
            state.scheduler.reportFailed(t.id, message);
        }
        try {
            state.kube.markFinished(job, success ? "Succeeded" : "Failed");
        } catch (KubernetesClientException e) {
            LOG.warn("cannot mark {} finished: {}", t.key(), e.getMessage());
        }
        LOG.info("Job {} {}", t.key(), success ? "succeeded" : "failed: " + message);
    }
}
