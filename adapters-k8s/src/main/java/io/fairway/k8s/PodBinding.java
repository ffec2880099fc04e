package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Node;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's binding: each gated pod of an admitted Job is bound to its member's node and ungated, and users are
 * told why a Job waits (its pending reason as an Event and an annotation).
 */
final class PodBinding {
    private static final Logger LOG = LoggerFactory.getLogger(FairwayAdapter.class);

    private final AdapterState state;

    PodBinding(AdapterState state) {
        this.state = state;
    }

    /** Binds each gated pod of an admitted Job to its member's node and removes the gate. */
    void bindPods() {
        if (!state.mayWrite()) {
            return;
        }
        for (Tracked t : state.byUid.values()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = state.scheduler.status(t.id).orElse(null);
            if (s == null || s.admission() == null || !(s.state() == JobState.ADMITTED || s.state() == JobState.RUNNING)) {
                continue;
            }
            Admit a = s.admission();
            int count = a.counts().getOrDefault(JobTranslator.POD_SET, 0);
            List<Pod> pods = state.podsOf(t);
            Set<String> liveUids = new HashSet<>();
            Set<Integer> used = new HashSet<>();
            for (Pod p : pods) {
                if (Kube.terminal(p)) {
                    continue;
                }
                liveUids.add(p.getMetadata().getUid());
                Integer m = t.members.get(p.getMetadata().getUid());
                if (m == null && !Kube.hasGate(p)) {
                    String ma = Kube.annotation(p, Keys.MEMBER_ANNOTATION);
                    m = ma == null ? null : parseOrNull(ma);
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
                Integer member = null;
                String idx = Kube.annotation(p, Keys.COMPLETION_INDEX);
                if (idx == null) {
                    idx = Kube.label(p, Keys.COMPLETION_INDEX);
                }
                Integer ci = idx == null ? null : parseOrNull(idx);
                if (ci != null && ci < count && !used.contains(ci)) {
                    member = ci;
                }
                for (int i = 0; member == null && i < count; i++) {
                    if (!used.contains(i)) {
                        member = i;
                    }
                }
                if (member == null) {
                    LOG.debug("Job {}: pod {} has no free member slot yet", t.key(), p.getMetadata().getName());
                    continue;
                }
                MemberPlacement mp = memberOf(a, member);
                if (mp == null) {
                    continue;
                }
                Node n = state.modelNodes.get(mp.node());
                String host = n == null ? mp.node() : n.label(Node.HOSTNAME_LABEL);
                try {
                    state.kube.ungate(p, member, host, mp.gpus());
                    t.members.put(p.getMetadata().getUid(), member);
                    used.add(member);
                    LOG.debug("Job {}: pod {} is member {} on {}", t.key(), p.getMetadata().getName(), member, mp.node());
                } catch (KubernetesClientException e) {
                    LOG.warn("Job {}: cannot bind pod {}: {}", t.key(), p.getMetadata().getName(), e.getMessage());
                }
            }
        }
    }

    private static MemberPlacement memberOf(Admit a, int index) {
        for (MemberPlacement m : a.placement().members()) {
            if (m.podSet().equals(JobTranslator.POD_SET) && m.index() == index) {
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
        if (!state.mayWrite()) {
            return;
        }
        for (Tracked t : state.byUid.values()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = state.scheduler.status(t.id).orElse(null);
            if (s == null || s.state() != JobState.PENDING || s.pendingReason() == null
                    || s.pendingReason().code() == PendingReason.Code.NOT_YET_CONSIDERED || state.policy.pinned().contains(t.id)) {
                continue;
            }
            String text = s.pendingReason().code() + ": " + s.pendingReason().message();
            if (text.equals(t.published)) {
                continue;
            }
            Job job = state.jobInformer.getStore().getByKey(t.key());
            if (job == null) {
                job = state.kube.fetch(t.namespace, t.name);
            }
            if (job == null) {
                continue;
            }
            try {
                state.kube.publishPending(job, text, Keys.REASON_PENDING, "Normal");
                t.published = text;
            } catch (KubernetesClientException e) {
                LOG.warn("cannot publish the pending reason of {}: {}", t.key(), e.getMessage());
            }
        }
    }
}
