package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Provision;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.core.RoundResult;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's actuation: the engine's decisions written to the API server through each object's integration — an
 * admission resumes the object with its flavors per pod set and its placement, a preemption suspends it and restores
 * every field admission changed, a resize sets a pod set's count — and the
 * round's node decisions carried out as Karpenter NodeClaims. Every write is fenced by the Lease
 * ({@link AdapterState#mayWrite()}).
 */
final class Actuation {
    private static final Logger LOG = LoggerFactory.getLogger(Actuation.class);

    private final AdapterState state;

    Actuation(AdapterState state) {
        this.state = state;
    }

    /** The engine's actuator: carries each decision out on the API server. Runs on the reconcile thread. */
    void apply(List<Decision> decisions) {
        state.beforeWrites.run();
        // node decisions are carried out once the round's node requests are known (actuateNodes)
        Decision.Handler onApiServer = new Decision.Handler(this::applyAdmit, this::applyPreempt, this::applyResize,
                p -> state.pass.provisions.add(p), dp -> state.pass.deprovisions.add(dp));
        for (Decision d : decisions) {
            if ((d instanceof Admit || d instanceof Preempt || d instanceof Resize) && !state.mayWrite()) {
                state.fencedWrites++;
                continue;
            }
            try {
                d.applyTo(onApiServer);
            } catch (KubernetesClientException | IllegalArgumentException e) {
                LOG.warn("could not apply {}: {}", d, e.getMessage());
                if (d instanceof Admit) {
                    state.actuationFailures.add(new String[] {d.jobId(), e.getMessage()});
                } else if (d instanceof Preempt) {
                    state.evictionsToRetry.add(d.jobId());
                }
            }
        }
    }

    private void applyAdmit(Admit a) {
        TrackedObject t = state.tracked.byId(a.jobId());
        if (t == null) {
            if (state.handlers.stream().noneMatch(h -> h.owns(a.jobId()))) {
                LOG.warn("admission of unknown job {}", a.jobId());
            } // else carried out by that controller after the round
            return;
        }
        AdmissionRecord rec = AdmissionRecord.of(a);
        GenericKubernetesResource obj = state.fetch(t);
        if (obj == null) {
            state.actuationFailures.add(new String[] {a.jobId(), "the " + t.kind.kindName() + " is gone"});
            return;
        }
        if (state.restoring.remove(a.jobId())) {
            String cur = Kube.annotation(obj, Keys.ADMISSION_ANNOTATION);
            if (cur == null || !AdmissionRecord.parse(cur).equals(rec)) {
                state.kube.recordAdmission(t.kind, obj, rec);
            }
            LOG.info("{}: admission restored on {}", t.key(), a.placement().nodes());
            return;
        }
        List<PodSetTemplate> podSets = t.kind.integration.podSets(obj);
        List<PodSetAdmission> admissions = new ArrayList<>();
        for (PodSetTemplate ps : podSets) {
            ResourceFlavor flavor = flavorOfPodSet(a.flavors(), ps.name());
            List<Toleration> tolerations = new ArrayList<>();
            if (flavor != null) {
                for (io.fairway.api.model.Toleration x : flavor.tolerations()) {
                    tolerations.add(new Toleration(x.effect().isEmpty() ? null : x.effect(), x.key().isEmpty() ? null : x.key(), x.operator(), null,
                            x.value().isEmpty() ? null : x.value()));
                }
            }
            List<String> nodes = a.placement().members().stream().filter(m -> m.podSet().equals(ps.name()))
                    .sorted(java.util.Comparator.comparingInt(MemberPlacement::index)).map(MemberPlacement::node).toList();
            admissions.add(new PodSetAdmission(ps.name(), a.counts().getOrDefault(ps.name(), ps.count()), flavor == null ? Map.of() : flavor.nodeLabels(),
                    tolerations, List.of(Keys.TOPOLOGY_GATE), nodes));
        }
        t.admittedSpec = KindObjectSync.submittedView(state.translator, t.kind, obj);
        t.original = state.kube.admit(t.kind, obj, rec, podSets, admissions);
        t.published = null;
        t.members.clear();
        state.pass.admitted.add(a.jobId());
        state.metrics.admitted(System.currentTimeMillis() - t.spec.submitTimeMillis());
        String flavors = a.flavors().size() == 1 ? "flavor " + a.flavors().values().iterator().next() : "flavors " + new java.util.TreeMap<>(a.flavors());
        state.kube.event(obj, "Normal", Keys.REASON_ADMITTED, "Admitted by ClusterQueue " + a.clusterQueue() + " with " + flavors
                + " on " + String.join(", ", a.placement().nodes()));
        LOG.info("{} {} admitted by {} on {}", t.kind.kindName(), t.key(), a.clusterQueue(), a.placement().nodes());
    }

    /** A pod set's flavor; with flavors from several resource groups, one flavor with all their labels and tolerations. */
    private ResourceFlavor flavorOfPodSet(Map<String, String> flavors, String podSet) {
        List<String> names = io.fairway.api.decision.Admit.flavorsOf(flavors, podSet);
        if (names.size() <= 1) {
            return flavorOf(flavors.get(podSet));
        }
        return io.fairway.core.admission.FlavorUnion.of(flavorOf(names.get(0)), names.subList(1, names.size()).stream().map(this::flavorOf).toList());
    }

    private ResourceFlavor flavorOf(String name) {
        if (name == null) {
            return null;
        }
        for (ResourceFlavor f : state.config.flavorModels()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    private void applyPreempt(Preempt p) {
        TrackedObject t = state.tracked.byId(p.jobId());
        state.restoring.remove(p.jobId());
        if (t == null) {
            return;
        }
        state.policy.unpin(p.jobId());
        t.members.clear();
        GenericKubernetesResource obj = state.fetch(t);
        if (obj == null) {
            return;
        }
        if (state.kube.evict(t.kind, obj, t.original)) {
            t.original = null;
        } else {
            state.evictionsToRetry.add(p.jobId()); // suspended; the restore is finished by a later pass
        }
        state.pass.evicted.add(p.jobId());
        state.kube.event(obj, "Normal", Keys.REASON_PREEMPTED, "Evicted and suspended: " + p.reason());
        LOG.info("{} {} evicted: {}", t.kind.kindName(), t.key(), p.reason());
    }

    private void applyResize(Resize r) {
        TrackedObject t = state.tracked.byId(r.jobId());
        JobStatus s = state.scheduler.status(r.jobId()).orElse(null);
        if (t == null || s == null || s.admission() == null) {
            return;
        }
        GenericKubernetesResource obj = state.fetch(t);
        if (obj == null) {
            return;
        }
        if (!t.kind.integration.resizableInPlace(obj)) {
            LOG.warn("{}: {} cannot be resized; the resize to {} is not carried out", t.key(), t.kind.name(), r.targetCount());
            return;
        }
        Admit a = s.admission();
        Map<String, Integer> counts = new java.util.TreeMap<>(a.counts());
        counts.put(r.podSet(), r.targetCount());
        t.original = state.kube.resize(t.kind, obj, r.podSet(), r.targetCount(), AdmissionRecord.of(a.clusterQueue(), a.flavors(), counts, r.placement()));
        state.kube.event(obj, "Normal", Keys.REASON_RESIZED, "Pod set " + r.podSet() + " resized to " + r.targetCount() + " pods");
        LOG.info("{} resized: pod set {} to {}", t.key(), r.podSet(), r.targetCount());
    }

    /**
     * Evictions whose write failed, or whose restore the API server holds until the object's pods are gone, are
     * retried while the engine still has the job waiting (an admission in the meantime takes over).
     */
    void retryEvictions() {
        for (String id : new ArrayList<>(state.evictionsToRetry)) {
            TrackedObject t = state.tracked.byId(id);
            JobStatus s = state.scheduler.status(id).orElse(null);
            if (t == null || s == null || s.state() != JobState.PENDING) {
                state.evictionsToRetry.remove(id);
                continue;
            }
            try {
                if (state.evictFresh(t)) {
                    state.evictionsToRetry.remove(id);
                    LOG.info("{}: eviction finished", t.key());
                }
            } catch (KubernetesClientException e) {
                LOG.warn("{}: eviction failed again: {}", t.key(), e.getMessage());
            }
        }
    }

    void handleActuationFailures() {
        for (String[] f : state.actuationFailures) {
            state.scheduler.reportEvicted(f[0], "could not apply the admission: " + f[1]);
        }
        state.actuationFailures.clear();
    }

    /**
     * Restores that the round made are done; a restore the round could not make (a node is gone, or the recorded
     * admission no longer fits) becomes an eviction, so nothing runs that the engine does not count.
     */
    void settleRestores(RoundResult r) {
        Set<String> admitted = new HashSet<>();
        for (Decision d : r.decisions()) {
            if (d instanceof Admit a) {
                admitted.add(a.jobId());
            }
        }
        for (String id : state.policy.pinned()) {
            if (admitted.contains(id)) {
                state.policy.unpin(id);
                continue;
            }
            Placement p = state.policy.pinOf(id);
            TrackedObject t = state.tracked.byId(id);
            if (p == null || t == null) {
                continue;
            }
            // the round could not re-admit it at its recorded placement (a node is gone, or it no longer fits the
            // quota or the nodes): it must not keep running outside the engine's book-keeping
            boolean nodeGone = !state.modelNodes.keySet().containsAll(p.nodes());
            state.policy.unpin(id);
            state.restoring.remove(id);
            GenericKubernetesResource obj = state.fetch(t);
            if (obj != null) {
                if (state.kube.evict(t.kind, obj, t.original)) {
                    t.original = null;
                } else {
                    state.evictionsToRetry.add(id);
                }
                state.kube.event(obj, "Normal", Keys.REASON_PREEMPTED, "Evicted and suspended: " + (nodeGone ? "a node it ran on is gone"
                        : "its recorded admission no longer fits the quota or the nodes"));
                state.pass.evicted.add(id);
            }
        }
    }

    /**
     * Carries out the round's node decisions: a Provision becomes NodeClaims for the jobs of its node request (none
     * when they exist already), a Deprovision deletes the node's NodeClaim and keeps new work off the node.
     */
    void actuateNodes(RoundResult r) {
        if (state.pass.provisions.isEmpty() && state.pass.deprovisions.isEmpty() || !state.mayWrite()) {
            return;
        }
        Map<String, NodePool> pools = new HashMap<>();
        state.config.nodePoolModels().forEach(p -> pools.put(p.name(), p));
        List<io.fairway.core.snapshot.Provisioning.Request> requests = new ArrayList<>(r.requests());
        for (Provision p : state.pass.provisions) {
            io.fairway.core.snapshot.Provisioning.Request req = null;
            for (io.fairway.core.snapshot.Provisioning.Request q : requests) {
                if (q.pool().equals(p.nodePool()) && q.instanceType().equals(p.instanceType()) && q.count() == p.count()) {
                    req = q;
                    break;
                }
            }
            requests.remove(req);
            NodePool pool = pools.get(p.nodePool());
            io.fairway.api.model.InstanceType type = pool == null ? null : pool.instanceType(p.instanceType());
            if (type == null) {
                LOG.warn("{}: no node pool {} with instance type {} in the configuration", p, p.nodePool(), p.instanceType());
                continue;
            }
            List<JobSpec> specs = new ArrayList<>();
            for (String id : req == null ? List.<String>of() : req.jobs()) {
                TrackedObject t = state.tracked.byId(id);
                if (t != null) {
                    specs.add(t.spec);
                }
            }
            try {
                Set<String> registered = new HashSet<>(state.claims.claimOfNode.values());
                state.claims.provision(pool, type, p.count(), specs, p.reason(), state.claims.cache, registered);
            } catch (KubernetesClientException e) {
                LOG.warn("could not create the NodeClaims of {}: {}", p, e.getMessage());
            }
        }
        for (Deprovision d : state.pass.deprovisions) {
            String claim = state.claims.claimOfNode.get(d.node());
            if (claim == null && state.claims.deprovisioning.contains(d.node())) {
                LOG.debug("{}: its NodeClaim is deleted already; the node is going away", d);
                continue;
            }
            if (claim == null) {
                LOG.warn("{}: node {} has no NodeClaim of Fairway's; it is left to the cluster", d, d.node());
                continue;
            }
            try {
                state.claims.delete(d.node(), claim);
                state.claims.cache.remove(claim);
                state.claims.deprovisioning.add(d.node());
            } catch (KubernetesClientException e) {
                LOG.warn("could not delete NodeClaim {} of node {}: {}", claim, d.node(), e.getMessage());
            }
        }
    }
}
