package io.fairway.k8s.multicluster;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Scheduler;
import io.fairway.k8s.AdmissionRecord;
import io.fairway.k8s.JobTranslator;
import io.fairway.k8s.Keys;
import io.fairway.k8s.NodeTranslator;
import io.fairway.k8s.PodResources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor of one worker cluster, as MultiKueue's remote client: each {@link #pollOnce()} reads the worker's
 * Nodes and Job copies (and so shows the hub the worker is alive), takes its work from the {@link ExecutorHub},
 * applies it to the worker — an admitted Job is copied there unsuspended, with its flavor's node labels and
 * tolerations and the placement's hosts; a preempted one's copy is deleted — acknowledges it, and reports the
 * copies' status to the engine with the epoch each copy carries ({@value MultiClusterManager#EPOCH_ANNOTATION}).
 *
 * <p>A worker that does not answer is not polled for: after the hub's grace period it is declared lost and its
 * jobs go elsewhere. When it answers again it rejoins, and the copies the hub names (their run moved on) are deleted,
 * so no Job runs in two workers. Copies the engine no longer places in this worker at their epoch are deleted too.
 */
public final class WorkerExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerExecutor.class);
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
    /** The most work items one pass takes: at one pass a second, the most copies a worker gets a second. */
    static final int BATCH = 2_000;
    /** How many copies one pass creates at once (each is one call to the worker's API server). */
    private static final int PARALLEL_CREATES = 8;
    /** The threads that create copies, shared by the executors; daemon threads, started when first needed. */
    private static final java.util.concurrent.ExecutorService CREATORS = java.util.concurrent.Executors.newFixedThreadPool(PARALLEL_CREATES, r -> {
        Thread t = new Thread(r, "fairway-worker-create");
        t.setDaemon(true);
        return t;
    });

    private final String name;
    private final KubernetesClient client;
    private final MultiClusterManager manager;
    private final Map<String, Node> synced = new LinkedHashMap<>();
    private boolean reachable;
    private List<Job> lastCopies = List.of();
    private Map<String, Resources> unmanaged = Map.of();
    private long lastReachedMillis;

    /**
     * What one {@link #pollOnce()} saw and did.
     *
     * @param reached whether the worker's API server answered
     * @param applied work items applied
     * @param deleted keys ({@code namespace/name}) of the copies deleted
     */
    public record PollResult(boolean reached, int applied, List<String> deleted) {
        /** Copies. */
        public PollResult {
            deleted = List.copyOf(deleted);
        }
    }

    WorkerExecutor(String name, KubernetesClient client, MultiClusterManager manager, long nowMillis) {
        this.name = name;
        this.client = client;
        this.manager = manager;
        this.lastReachedMillis = nowMillis;
    }

    /** @return the worker's name (its cluster name in the engine) */
    public String name() {
        return name;
    }

    /** @return whether the worker answered on the last pass */
    public boolean reachable() {
        return reachable;
    }

    /** @return when the worker last answered, on the manager's clock */
    public long lastReachedMillis() {
        return lastReachedMillis;
    }

    /** The engine's name of a worker's node: unique across workers. */
    static String nodeName(String worker, String node) {
        return worker + "/" + node;
    }

    /**
     * One pass of the executor loop. Call it from one thread (the manager's loop does). It does nothing (and reports
     * the worker not reached) while its manager does not lead, or has not confirmed its Lease within the renew deadline.
     *
     * @return what it did
     */
    public PollResult pollOnce() {
        synchronized (manager.lock()) {
            if (!manager.mayPoll()) {
                return new PollResult(false, 0, List.of());
            }
            return pollLocked();
        }
    }

    /** A manager that starts leading counts the worker's silence from now. */
    void reset(long nowMillis) {
        reachable = false;
        lastReachedMillis = nowMillis;
    }

    private PollResult pollLocked() {
        Scheduler s = manager.scheduler();
        ExecutorHub hub = manager.hub();
        List<io.fabric8.kubernetes.api.model.Node> kubeNodes;
        List<Job> copies;
        try {
            kubeNodes = client.nodes().list().getItems();
            copies = listCopies();
            unmanaged = unmanagedUse(copies);
        } catch (KubernetesClientException e) {
            if (reachable) {
                LOG.warn("worker {} does not answer: {}", name, e.getMessage());
            }
            reachable = false;
            return new PollResult(false, 0, List.of());
        }
        reachable = true;
        lastReachedMillis = manager.clock().millis();
        if (!manager.confirmDispatch()) {
            return new PollResult(true, 0, List.of()); // another manager leads now (the store says so): touch nothing
        }
        List<String> deleted = new ArrayList<>();
        ExecutorHub.Poll poll = hub.poll(name, BATCH);
        if (poll.rejoinRequired()) {
            rejoin(hub, copies, kubeNodes, deleted);
            copies = listCopies();
            poll = hub.poll(name, BATCH);
        } else {
            syncNodes(s, kubeNodes);
        }
        int applied = apply(hub, poll.items(), copies, deleted);
        if (applied > 0) {
            try {
                copies = listCopies();
            } catch (KubernetesClientException e) {
                return new PollResult(false, applied, deleted);
            }
        }
        if (manager.recovered()) {
            reportAndClean(s, copies, deleted);
        }
        return new PollResult(true, applied, deleted);
    }

    /**
     * The worker is back after it was lost: its nodes replace what the engine knew, the copies whose run moved on meanwhile
     * are deleted (into {@code deleted}).
     */
    private void rejoin(ExecutorHub hub, List<Job> copies, List<io.fabric8.kubernetes.api.model.Node> kubeNodes, List<String> deleted) {
        Map<String, Long> running = new TreeMap<>();
        for (Job c : copies) {
            String id = BatchJobFields.annotation(c, MultiClusterManager.JOB_ID_ANNOTATION);
            Long epoch = BatchJobFields.parseLong(BatchJobFields.annotation(c, MultiClusterManager.EPOCH_ANNOTATION));
            if (id != null && epoch != null) {
                running.put(id, epoch);
            }
        }
        synced.clear();
        List<Node> nodes = new ArrayList<>();
        for (io.fabric8.kubernetes.api.model.Node k : kubeNodes) {
            Node n = toModel(k);
            nodes.add(n);
            synced.put(n.name(), n);
        }
        List<String> stop = hub.rejoin(name, nodes, running);
        LOG.info("worker {} rejoined with {} nodes; stopping {} stale copies {}", name, nodes.size(), stop.size(), stop);
        for (Job c : copies) {
            if (stop.contains(BatchJobFields.annotation(c, MultiClusterManager.JOB_ID_ANNOTATION))) {
                delete(c, "its run moved on while the worker was lost");
                deleted.add(BatchJobFields.key(c));
            }
        }
    }

    /**
     * Applies the polled work items in order and acks each applied one; the copies it deletes go into {@code deleted}.
     *
     * @return how many items were applied
     */
    private int apply(ExecutorHub hub, List<ExecutorHub.WorkItem> items, List<Job> copies, List<String> deleted) {
        int applied = 0;
        Set<String> present = new HashSet<>();
        copies.forEach(c -> present.add(BatchJobFields.key(c)));
        for (int i = 0; i < items.size(); ) {
            ExecutorHub.WorkItem w = items.get(i);
            if (w.decision() instanceof Admit) {
                // a run of admissions of distinct jobs: their copies are created at once (the rest keeps its order)
                List<ExecutorHub.WorkItem> run = new ArrayList<>();
                Set<String> jobs = new HashSet<>();
                while (i < items.size() && items.get(i).decision() instanceof Admit && jobs.add(items.get(i).jobId())) {
                    run.add(items.get(i++));
                }
                applied += applyAdmits(hub, run, present);
                continue;
            }
            i++;
            try {
                if (w.decision() instanceof Preempt) {
                    for (Job c : copies) {
                        Long e = BatchJobFields.parseLong(BatchJobFields.annotation(c, MultiClusterManager.EPOCH_ANNOTATION));
                        if (w.jobId().equals(BatchJobFields.annotation(c, MultiClusterManager.JOB_ID_ANNOTATION)) && e != null && e <= w.epoch()) {
                            delete(c, "preempted: " + ((Preempt) w.decision()).reason());
                            deleted.add(BatchJobFields.key(c));
                            present.remove(BatchJobFields.key(c));
                        }
                    }
                } else if (w.decision() instanceof Resize r) {
                    applyResize(r, copies);
                } else {
                    LOG.info("{} is left to worker {}'s autoscaler", w.decision(), name);
                }
                hub.ack(name, w.id());
                applied++;
            } catch (KubernetesClientException e) {
                LOG.warn("worker {}: could not apply {} (offered again after the ack timeout): {}", name, w.decision(), e.getMessage());
            }
        }
        return applied;
    }

    private List<Job> listCopies() {
        lastCopies = List.copyOf(client.batch().v1().jobs().inAnyNamespace().withLabel(MultiClusterManager.COPY_LABEL, "true").list().getItems());
        return lastCopies;
    }

    /** @return the copies in the worker as last read */
    List<Job> copies() {
        return lastCopies;
    }

    /** Adds new nodes, updates changed ones and removes gone ones (what runs on a gone node goes back to pending). */
    private void syncNodes(Scheduler s, List<io.fabric8.kubernetes.api.model.Node> kubeNodes) {
        Set<String> seen = new LinkedHashSet<>();
        for (io.fabric8.kubernetes.api.model.Node k : kubeNodes) {
            Node n = toModel(k);
            seen.add(n.name());
            Node before = synced.get(n.name());
            if (before == null) {
                if (s.clusters().clusterOfNode(n.name()) == null) {
                    s.clusters().addNode(n);
                } else {
                    s.clusters().updateNode(n);
                }
            } else if (!before.equals(n)) {
                s.clusters().updateNode(n);
            }
            synced.put(n.name(), n);
        }
        for (String gone : new ArrayList<>(synced.keySet())) {
            if (!seen.contains(gone)) {
                synced.remove(gone);
                if (s.clusters().clusterOfNode(gone) != null) {
                    List<String> requeued = s.clusters().removeNode(gone);
                    LOG.info("node {} left worker {}; jobs back to pending: {}", gone, name, requeued);
                }
            }
        }
    }

    /** What pods that are not copies (other workloads) request, per node: not Fairway's to place on. */
    private Map<String, Resources> unmanagedUse(List<Job> copies) {
        Set<String> copyKeys = new HashSet<>();
        copies.forEach(c -> copyKeys.add(BatchJobFields.key(c)));
        Map<String, Resources> use = new HashMap<>();
        for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
            String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            Map<String, String> labels = p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
            String job = labels.getOrDefault(Keys.JOB_NAME_LABEL, labels.get(Keys.LEGACY_JOB_NAME_LABEL));
            if (node == null || "Succeeded".equals(phase) || "Failed".equals(phase)
                    || job != null && copyKeys.contains(p.getMetadata().getNamespace() + "/" + job)) {
                continue;
            }
            try {
                use.merge(node, PodResources.of(p), Resources::plus);
            } catch (InvalidSpecException e) {
                LOG.debug("worker {}: pod {}/{} has unreadable requests: {}", name, p.getMetadata().getNamespace(), p.getMetadata().getName(),
                        e.getMessage());
            }
        }
        return use;
    }

    private Node toModel(io.fabric8.kubernetes.api.model.Node k) {
        Node n = NodeTranslator.toModel(k, unmanaged.getOrDefault(k.getMetadata().getName(), Resources.NONE));
        Map<String, String> labels = new LinkedHashMap<>(n.labels());
        labels.putIfAbsent(Node.HOSTNAME_LABEL, n.name());
        return new Node(nodeName(name, n.name()), name, labels, n.taints(), n.capacity(), n.gpus(), n.unschedulable());
    }

    /**
     * Applies admissions of distinct jobs, up to {@value #PARALLEL_CREATES} calls to the worker at once, and
     * acknowledges each applied one (in order, on the pass's thread).
     */
    private int applyAdmits(ExecutorHub hub, List<ExecutorHub.WorkItem> run, Set<String> present) {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>(run.size());
        for (ExecutorHub.WorkItem w : run) {
            Admit a = (Admit) w.decision();
            done.add(run.size() == 1 ? java.util.concurrent.CompletableFuture.runAsync(() -> applyAdmit(a, w.epoch(), present), Runnable::run)
                    : CREATORS.submit(() -> applyAdmit(a, w.epoch(), present)));
        }
        int applied = 0;
        for (int k = 0; k < run.size(); k++) {
            ExecutorHub.WorkItem w = run.get(k);
            try {
                done.get(k).get();
                hub.ack(name, w.id());
                applied++;
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable c = e.getCause();
                if (!(c instanceof KubernetesClientException)) {
                    throw c instanceof RuntimeException r ? r : new IllegalStateException(c);
                }
                LOG.warn("worker {}: could not apply {} (offered again after the ack timeout): {}", name, w.decision(), c.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return applied;
            }
        }
        return applied;
    }

    /**
     * Copies the user's Job into the worker, or adopts a copy already there (a re-offered item, a restarted manager).
     * Runs on the creating threads while the pass's thread waits under the manager's lock: it reads, never changes,
     * the manager's state.
     *
     * @param present the keys of the copies the worker listed at the start of this pass (not changed here)
     */
    private void applyAdmit(Admit a, long epoch, Set<String> present) {
        Job user = manager.userJob(a.jobId());
        if (user == null) {
            LOG.info("worker {}: Job {} is gone from the manager cluster; not copied", name, a.jobId());
            return;
        }
        String ns = user.getMetadata().getNamespace();
        String jobName = user.getMetadata().getName();
        AdmissionRecord rec = AdmissionRecord.of(a);
        if (!present.contains(ns + "/" + jobName)) {
            // no copy listed: create at once (one call), and look only when a Job of that name is in the way
            try {
                client.batch().v1().jobs().inNamespace(ns).resource(copyOf(user, a, rec, epoch)).create();
                LOG.debug("worker {}: {} copied at epoch {} onto {}", name, a.jobId(), epoch, a.placement().nodes());
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }
        Job existing = client.batch().v1().jobs().inNamespace(ns).withName(jobName).get();
        if (existing != null) {
            String origin = BatchJobFields.annotation(existing, MultiClusterManager.ORIGIN_UID_ANNOTATION);
            if (user.getMetadata().getUid().equals(origin)) {
                Map<String, String> ann = new LinkedHashMap<>();
                ann.put(MultiClusterManager.EPOCH_ANNOTATION, Long.toString(epoch));
                ann.put(Keys.ADMISSION_ANNOTATION, rec.toJson());
                client.batch().v1().jobs().inNamespace(ns).withName(jobName).patch(MERGE, BatchJobFields.json(Map.of("metadata", Map.of("annotations", ann))));
                LOG.info("worker {}: adopted the copy of {} at epoch {}", name, a.jobId(), epoch);
                return;
            }
            delete(existing, "a Job of that name from elsewhere is in the way");
        }
        client.batch().v1().jobs().inNamespace(ns).resource(copyOf(user, a, rec, epoch)).create();
        LOG.info("worker {}: {} copied at epoch {} onto {}", name, a.jobId(), epoch, a.placement().nodes());
    }

    private Job copyOf(Job user, Admit a, AdmissionRecord rec, long epoch) {
        Map<String, String> labels = new LinkedHashMap<>(user.getMetadata().getLabels() == null ? Map.of() : user.getMetadata().getLabels());
        labels.keySet().removeAll(manager.queueLabels()); // a Fairway in the worker must not queue the copy again
        labels.put(MultiClusterManager.COPY_LABEL, "true");
        Map<String, String> ann = new LinkedHashMap<>(user.getMetadata().getAnnotations() == null ? Map.of() : user.getMetadata().getAnnotations());
        ann.keySet().removeIf(k -> k.startsWith("fairway.io/") && !k.equals(Keys.MODEL_ANNOTATION) && !k.equals(Keys.ESTIMATED_SECONDS_ANNOTATION));
        ann.keySet().removeIf(k -> k.startsWith("kubectl.kubernetes.io/"));
        ann.put(MultiClusterManager.JOB_ID_ANNOTATION, a.jobId());
        ann.put(MultiClusterManager.ORIGIN_UID_ANNOTATION, user.getMetadata().getUid());
        ann.put(MultiClusterManager.EPOCH_ANNOTATION, Long.toString(epoch));
        ann.put(MultiClusterManager.MANAGER_ANNOTATION, manager.identity());
        ann.put(Keys.ADMISSION_ANNOTATION, rec.toJson());
        JobSpecBuilder spec = new JobSpecBuilder(user.getSpec()).withSuspend(false).withSelector(null).withManualSelector(null)
                .withParallelism(a.counts().getOrDefault(JobTranslator.POD_SET, user.getSpec().getParallelism() == null ? 1 : user.getSpec().getParallelism()));
        Job copy = new JobBuilder().withMetadata(new ObjectMetaBuilder().withName(user.getMetadata().getName())
                        .withNamespace(user.getMetadata().getNamespace()).withLabels(labels).withAnnotations(ann).build())
                .withSpec(spec.build()).build();
        if (copy.getSpec().getTemplate().getMetadata() != null && copy.getSpec().getTemplate().getMetadata().getLabels() != null) {
            Map<String, String> tl = new LinkedHashMap<>(copy.getSpec().getTemplate().getMetadata().getLabels());
            tl.keySet().removeIf(k -> k.equals("controller-uid") || k.equals("batch.kubernetes.io/controller-uid")
                    || k.equals(Keys.JOB_NAME_LABEL) || k.equals(Keys.LEGACY_JOB_NAME_LABEL));
            copy.getSpec().getTemplate().getMetadata().setLabels(tl);
        }
        PodSpec pod = copy.getSpec().getTemplate().getSpec();
        ResourceFlavor flavor = manager.flavor(a.flavors().get(JobTranslator.POD_SET));
        Map<String, String> selector = new LinkedHashMap<>(pod.getNodeSelector() == null ? Map.of() : pod.getNodeSelector());
        List<Toleration> tolerations = new ArrayList<>(pod.getTolerations() == null ? List.of() : pod.getTolerations());
        if (flavor != null) {
            selector.putAll(flavor.nodeLabels());
            for (io.fairway.api.model.Toleration t : flavor.tolerations()) {
                Toleration k = new Toleration(t.effect().isEmpty() ? null : t.effect(), t.key().isEmpty() ? null : t.key(), t.operator(), null,
                        t.value().isEmpty() ? null : t.value());
                if (!tolerations.contains(k)) {
                    tolerations.add(k);
                }
            }
        }
        List<String> hosts = new ArrayList<>();
        for (String node : a.placement().nodes()) {
            Node n = synced.get(node);
            String host = n == null ? node.substring(node.indexOf('/') + 1) : n.label(Node.HOSTNAME_LABEL);
            if (!hosts.contains(host)) {
                hosts.add(host);
            }
        }
        if (hosts.size() == 1) {
            selector.put(Node.HOSTNAME_LABEL, hosts.get(0));
        } else if (!hosts.isEmpty()) {
            copy.getSpec().getTemplate().getSpec().setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                    .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .withNodeSelectorTerms(new NodeSelectorTermBuilder().withMatchExpressions(new NodeSelectorRequirementBuilder()
                            .withKey(Node.HOSTNAME_LABEL).withOperator("In").withValues(hosts).build()).build())
                    .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        }
        pod.setNodeSelector(selector.isEmpty() ? null : selector);
        pod.setTolerations(tolerations.isEmpty() ? null : tolerations);
        return copy;
    }

    private void applyResize(Resize r, List<Job> copies) {
        for (Job c : copies) {
            if (r.jobId().equals(BatchJobFields.annotation(c, MultiClusterManager.JOB_ID_ANNOTATION))) {
                client.batch().v1().jobs().inNamespace(c.getMetadata().getNamespace()).withName(c.getMetadata().getName())
                        .patch(MERGE, BatchJobFields.json(Map.of("spec", Map.of("parallelism", r.targetCount()))));
                LOG.info("worker {}: {} resized to {}", name, r.jobId(), r.targetCount());
            }
        }
    }

    /** Reports each copy's status for its epoch; deletes the copies whose run is no longer the engine's here. */
    private void reportAndClean(Scheduler s, List<Job> copies, List<String> deleted) {
        for (Job c : copies) {
            String id = BatchJobFields.annotation(c, MultiClusterManager.JOB_ID_ANNOTATION);
            Long epoch = BatchJobFields.parseLong(BatchJobFields.annotation(c, MultiClusterManager.EPOCH_ANNOTATION));
            if (id == null || epoch == null || !manager.owns(c)) {
                continue;
            }
            if (manager.restoring(id)) {
                continue; // a restarted manager re-admits it here first
            }
            JobStatus st = s.status(id).orElse(null);
            boolean current = st != null && st.state().holdsResources() && s.jobs().epoch(id) == epoch && name.equals(s.clusters().clusterOf(id))
                    && manager.isOrigin(id, BatchJobFields.annotation(c, MultiClusterManager.ORIGIN_UID_ANNOTATION));
            if (!current) {
                try {
                    delete(c, st == null ? "the engine does not know it" : "its run here is over (" + st.state() + ")");
                    deleted.add(BatchJobFields.key(c));
                } catch (KubernetesClientException e) {
                    LOG.warn("worker {}: cannot delete {}: {}", name, BatchJobFields.key(c), e.getMessage());
                }
                continue;
            }
            String cond = BatchJobFields.finishedCondition(c);
            if ("Complete".equals(cond)) {
                if (s.reportFinished(id, epoch)) {
                    manager.recordOutcome(id, "Succeeded", "");
                }
            } else if ("Failed".equals(cond)) {
                String msg = BatchJobFields.failureMessage(c);
                if (s.reportFailed(id, msg)) {
                    manager.recordOutcome(id, "Failed", msg);
                }
            } else if (st.state() == JobState.ADMITTED && c.getStatus() != null) {
                int active = c.getStatus().getActive() == null ? 0 : c.getStatus().getActive();
                int succeeded = c.getStatus().getSucceeded() == null ? 0 : c.getStatus().getSucceeded();
                int members = st.admission() == null ? 1 : st.admission().counts().values().stream().mapToInt(Integer::intValue).sum();
                if (active + succeeded >= members) {
                    s.reportStarted(id, epoch);
                }
            }
        }
    }

    private void delete(Job c, String why) {
        client.batch().v1().jobs().inNamespace(c.getMetadata().getNamespace()).withName(c.getMetadata().getName())
                .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        LOG.info("worker {}: deleted the copy {} (epoch {}): {}", name, BatchJobFields.key(c), BatchJobFields.annotation(c, MultiClusterManager.EPOCH_ANNOTATION), why);
    }
}
