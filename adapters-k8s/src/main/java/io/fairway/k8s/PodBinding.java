package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Node;
import io.fairway.k8s.integration.PodRef;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's binding: each gated pod of an admitted object is bound to its member's node (by its pod set and index,
 * as its integration reads them) and ungated, and users are told why an object waits (its pending reason as an Event
 * and an annotation).
 */
final class PodBinding {
    private static final Logger LOG = LoggerFactory.getLogger(PodBinding.class);

    private final AdapterState state;

    PodBinding(AdapterState state) {
        this.state = state;
    }

    /**
     * Hands each tracked object that has not ended, with its status in the engine, to {@code action}; nothing while
     * this replica may not write.
     */
    private void forEachLive(BiConsumer<TrackedObject, JobStatus> action) {
        if (!state.mayWrite()) {
            return;
        }
        for (TrackedObject t : state.tracked.all()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = state.scheduler.status(t.id).orElse(null);
            if (s != null) {
                action.accept(t, s);
            }
        }
    }

    /** Binds each gated pod of an admitted Job to its member's node and removes the gate. */
    void bindPods() {
        forEachLive((t, s) -> {
            if (s.admission() != null && (s.state() == JobState.ADMITTED || s.state() == JobState.RUNNING)) {
                bindPodsOf(t, s.admission());
            }
        });
    }

    private void bindPodsOf(TrackedObject t, Admit a) {
        List<Pod> pods = state.podsOf(t);
        Set<String> liveUids = new HashSet<>();
        Set<TrackedObject.Member> used = new HashSet<>();
        for (Pod p : pods) {
            if (Kube.terminal(p)) {
                continue;
            }
            liveUids.add(p.getMetadata().getUid());
            TrackedObject.Member m = t.members.get(p.getMetadata().getUid());
            if (m == null && !Kube.hasGate(p)) {
                String ma = Kube.annotation(p, Keys.MEMBER_ANNOTATION);
                Integer i = ma == null ? null : parseOrNull(ma);
                PodRef ref = t.kind.integration.podOf(p).orElse(null);
                m = i == null || ref == null ? null : new TrackedObject.Member(ref.podSet(), i);
            }
            if (m != null) {
                used.add(m);
            }
        }
        t.members.keySet().retainAll(liveUids);
        for (Pod p : pods) {
            if (Kube.terminal(p) || !Kube.hasGate(p) || t.members.containsKey(p.getMetadata().getUid())) {
                continue;
            }
            PodRef ref = t.kind.integration.podOf(p).orElse(null);
            if (ref == null) {
                continue;
            }
            int count = a.counts().getOrDefault(ref.podSet(), 0);
            TrackedObject.Member member = null;
            Integer ci = ref.index();
            if (ci != null && ci >= 0 && ci < count && !used.contains(new TrackedObject.Member(ref.podSet(), ci))) {
                member = new TrackedObject.Member(ref.podSet(), ci);
            }
            for (int i = 0; member == null && i < count; i++) {
                if (!used.contains(new TrackedObject.Member(ref.podSet(), i))) {
                    member = new TrackedObject.Member(ref.podSet(), i);
                }
            }
            if (member == null) {
                LOG.debug("{}: pod {} has no free member slot in pod set {} yet", t.key(), p.getMetadata().getName(), ref.podSet());
                continue;
            }
            MemberPlacement mp = memberOf(a, member);
            if (mp == null) {
                continue;
            }
            Node n = state.modelNodes.get(mp.node());
            String host = n == null ? mp.node() : n.label(Node.HOSTNAME_LABEL);
            try {
                state.kube.ungate(p, member.index(), host, mp.gpus());
                t.members.put(p.getMetadata().getUid(), member);
                used.add(member);
                LOG.debug("{}: pod {} is member {} of {} on {}", t.key(), p.getMetadata().getName(), member.index(), member.podSet(), mp.node());
            } catch (KubernetesClientException e) {
                LOG.warn("{}: cannot bind pod {}: {}", t.key(), p.getMetadata().getName(), e.getMessage());
            }
        }
    }

    private static MemberPlacement memberOf(Admit a, TrackedObject.Member member) {
        for (MemberPlacement m : a.placement().members()) {
            if (m.podSet().equals(member.podSet()) && m.index() == member.index()) {
                return m;
            }
        }
        return null;
    }

    private static Integer parseOrNull(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    void publishReasons() {
        forEachLive((t, s) -> {
            if (s.state() != JobState.PENDING || s.pendingReason() == null
                    || s.pendingReason().code() == PendingReason.Code.NOT_YET_CONSIDERED || state.policy.pinned().contains(t.id)) {
                return;
            }
            String text = s.pendingReason().code() + ": " + s.pendingReason().message();
            if (text.equals(t.published)) {
                return;
            }
            GenericKubernetesResource obj = t.kind.informer.getStore().getByKey(t.key());
            if (obj == null) {
                obj = state.fetch(t);
            }
            if (obj == null) {
                return;
            }
            try {
                state.kube.publishPending(t.kind, obj, text, Keys.REASON_PENDING, "Normal");
                t.published = text;
            } catch (KubernetesClientException e) {
                LOG.warn("cannot publish the pending reason of {}: {}", t.key(), e.getMessage());
            }
        });
    }
}
