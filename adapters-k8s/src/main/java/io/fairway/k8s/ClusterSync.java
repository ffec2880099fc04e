package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Placement;
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
 * The adapter's node sync: Nodes (and Fairway's NodeClaims) into the engine's nodes, less what pods Fairway does not
 * manage take ({@link KindObjectSync} syncs the queued objects). Runs under the adapter's lock, on the reconcile thread.
 */
final class ClusterSync {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterSync.class);
    /** A node whose model changed while jobs run on it is re-read by a rebuild, at most this often. */
    private static final long NODE_REBUILD_MIN_INTERVAL_MILLIS = 30_000;

    private final AdapterState state;
    private final NodeLoss nodeLoss;

    ClusterSync(AdapterState state) {
        this.state = state;
        this.nodeLoss = new NodeLoss(state);
    }

    void syncNodes(List<KindObject> jobs) {
        Map<String, Resources> unmanaged = unmanagedUse(jobs);
        Map<String, Node> desired = new LinkedHashMap<>();
        List<io.fabric8.kubernetes.api.model.Node> kubeNodes = new ArrayList<>(state.nodeInformer.getStore().list());
        kubeNodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        refreshClaims();
        state.claims.claimOfNode.clear();
        Map<String, String> notices = new TreeMap<>();
        for (io.fabric8.kubernetes.api.model.Node n : kubeNodes) {
            try {
                io.fabric8.kubernetes.api.model.Node kn = n;
                boolean goingAway = state.claims.deprovisioning.contains(n.getMetadata().getName());
                GenericKubernetesResource claim = state.claims.cache.isEmpty() ? null : NodeClaims.claimOf(n, state.claims.cache);
                if (claim != null) {
                    // the claim's labels (pool, instance type, capacity type, GPU shape) fill in what the Node lacks
                    state.claims.claimOfNode.put(n.getMetadata().getName(), claim.getMetadata().getName());
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
        state.claims.deprovisioning.retainAll(desired.keySet());
        for (String gone : new ArrayList<>(state.modelNodes.keySet())) {
            if (!desired.containsKey(gone)) {
                LOG.info("node {} is gone", gone);
                state.modelNodes.remove(gone);
                nodeLoss.removeGone(gone);
            }
        }
        applyToEngine(desired);
        notices.forEach((node, notice) -> {
            if (state.modelNodes.containsKey(node)) {
                nodeLoss.drainOnce(node, notice);
            }
        });
    }

    /** What pods Fairway does not manage use, by node (empty unless the adapter counts unmanaged pods). */
    private Map<String, Resources> unmanagedUse(List<KindObject> jobs) {
        Set<String> managed = new HashSet<>();
        jobs.forEach(w -> w.kind().integration.podOwners(w.object()).forEach(owner -> managed.add(w.kind().podKey(w.object().getMetadata().getNamespace(), owner))));
        Map<String, Resources> unmanaged = new HashMap<>();
        if (state.options.countUnmanagedPods()) {
            for (Pod p : state.podInformer.getStore().list()) {
                String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
                if (node == null || Kube.terminal(p) || managedPod(p, managed)) {
                    continue;
                }
                try {
                    unmanaged.merge(node, PodResources.of(p), Resources::plus);
                } catch (InvalidSpecException e) {
                    LOG.debug("pod {}: unreadable requests: {}", Kube.key(p), e.getMessage());
                }
            }
        }
        return unmanaged;
    }

    /**
     * Brings the engine's nodes to the desired ones: adds new nodes, cordons or uncordons, and replaces a changed idle node;
     * a changed node that jobs run on is re-read by a rebuild (at most every {@value #NODE_REBUILD_MIN_INTERVAL_MILLIS} ms).
     */
    private void applyToEngine(Map<String, Node> desired) {
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
    }

    /** Lists Fairway's NodeClaims when node pools are configured (keeping the last list when the API server fails). */
    private void refreshClaims() {
        if (state.config.nodePools().isEmpty()) {
            state.claims.cache = new TreeMap<>();
            return;
        }
        try {
            state.claims.cache = state.claims.list();
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

    /** @return true when the pod runs for one of the queued objects (by the pod index's keys) */
    private boolean managedPod(Pod p, Set<String> managed) {
        if (state.podGroups != null && state.podGroups.manages(p)) {
            return true;
        }
        for (io.fairway.k8s.integration.Integration i : state.available) {
            var ref = i.podOf(p);
            if (ref.isPresent() && (managed.contains(i.name() + "|" + p.getMetadata().getNamespace() + "/" + ref.get().ownerName())
                    || state.unifiedJobs != null && state.unifiedJobs.manages(p.getMetadata().getNamespace(), ref.get().ownerName()))) {
                return true;
            }
        }
        return false;
    }
}
