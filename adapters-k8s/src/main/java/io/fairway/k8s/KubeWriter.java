package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.api.model.ResourceFlavor;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every write the adapter makes to the API server, and core/v1 Events. Maps and scalars (suspension, annotations,
 * parallelism) go as JSON merge patches; writes that set lists (tolerations, scheduling gates) or must restore fields
 * exactly (eviction) go as JSON patches guarded by the object's resourceVersion, so they apply only to the version
 * they were computed from. No server-side apply and no strategic merge patch.
 */
final class KubeWriter {
    private static final Logger LOG = LoggerFactory.getLogger(KubeWriter.class);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
    private static final PatchContext JSON_PATCH = PatchContext.of(PatchType.JSON);
    private static final DateTimeFormatter TS = DateTimeFormatter.ISO_INSTANT;

    private final KubernetesClient client;
    private final String identity;
    private final AtomicLong eventSeq = new AtomicLong(System.nanoTime());

    KubeWriter(KubernetesClient client, String identity) {
        this.client = client;
        this.identity = identity == null ? "fairway" : identity;
    }

    /** @return the Job as the API server has it now, or null when it is gone */
    Job fetch(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    /** Suspends a Job that was created unsuspended, before any of its pods are scheduled. */
    void suspend(Job job) {
        ObjectNode p = F.objectNode();
        p.putObject("spec").put("suspend", true);
        mergeJob(job, p);
        LOG.info("suspended {} until Fairway admits it", Kube.key(job));
    }

    /**
     * Admits a Job: records the admission and the template as it was, merges the flavor's node labels and
     * tolerations into the pod template, gates its pods, sets the admitted parallelism, and unsuspends it. Lists are
     * written whole with a JSON patch guarded by the resourceVersion (a merge patch would replace them on a real API
     * server, but the mock server concatenates them).
     */
    void admit(Job job, AdmissionRecord admission, ResourceFlavor flavor, int parallelism) {
        String origText = Kube.annotation(job, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        OriginalTemplate original = origText != null ? OriginalTemplate.parse(origText) : OriginalTemplate.of(job);
        ArrayNode ops = guarded(job);
        Map<String, String> ann = new LinkedHashMap<>();
        ann.put(Keys.ADMISSION_ANNOTATION, admission.toJson());
        ann.put(Keys.ORIGINAL_TEMPLATE_ANNOTATION, original.toJson());
        annotate(ops, job, ann, List.of(Keys.PENDING_REASON_ANNOTATION));
        ops.add(op("add", "/spec/suspend", F.booleanNode(false)));
        if (original.parallelism() == null || original.parallelism() != parallelism) {
            ops.add(op("add", "/spec/parallelism", F.numberNode(parallelism)));
        }
        Map<String, String> selector = new LinkedHashMap<>(original.nodeSelector() == null ? Map.of() : original.nodeSelector());
        if (flavor != null) {
            selector.putAll(flavor.nodeLabels());
        }
        if (!selector.isEmpty()) {
            ops.add(op("add", "/spec/template/spec/nodeSelector", Json.MAPPER.valueToTree(selector)));
        }
        List<Toleration> tolerations = new ArrayList<>(original.tolerations() == null ? List.of() : original.tolerations());
        if (flavor != null) {
            for (io.fairway.api.model.Toleration t : flavor.tolerations()) {
                Toleration k = new Toleration(t.effect().isEmpty() ? null : t.effect(), t.key().isEmpty() ? null : t.key(), t.operator(), null,
                        t.value().isEmpty() ? null : t.value());
                if (!tolerations.contains(k)) {
                    tolerations.add(k);
                }
            }
        }
        if (!tolerations.isEmpty()) {
            ops.add(op("add", "/spec/template/spec/tolerations", Json.MAPPER.valueToTree(tolerations)));
        }
        List<PodSchedulingGate> gates = new ArrayList<>(original.schedulingGates() == null ? List.of() : original.schedulingGates());
        if (gates.stream().noneMatch(g -> Keys.TOPOLOGY_GATE.equals(g.getName()))) {
            gates.add(new PodSchedulingGate(Keys.TOPOLOGY_GATE));
        }
        ops.add(op("add", "/spec/template/spec/schedulingGates", Json.MAPPER.valueToTree(gates)));
        patchJob(job, ops);
    }

    /**
     * Evicts a Job: suspends it and restores the pod template and parallelism exactly as they were before
     * admission (a JSON patch, so fields admission added are removed, not merged), and forgets the admission.
     */
    void evict(Job job) {
        ArrayNode ops = guarded(job);
        ops.add(op("add", "/spec/suspend", F.booleanNode(true)));
        String origText = Kube.annotation(job, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        PodSpec current = job.getSpec().getTemplate().getSpec();
        if (origText != null) {
            OriginalTemplate o = OriginalTemplate.parse(origText);
            restore(ops, "/spec/template/spec/nodeSelector", o.nodeSelector(), current.getNodeSelector() != null);
            restore(ops, "/spec/template/spec/tolerations", o.tolerations(), current.getTolerations() != null);
            restore(ops, "/spec/template/spec/schedulingGates", o.schedulingGates(), current.getSchedulingGates() != null);
            restore(ops, "/spec/parallelism", o.parallelism(), job.getSpec().getParallelism() != null);
        } else if (current.getSchedulingGates() != null) {
            List<PodSchedulingGate> rest = current.getSchedulingGates().stream().filter(g -> !Keys.TOPOLOGY_GATE.equals(g.getName())).toList();
            restore(ops, "/spec/template/spec/schedulingGates", rest.isEmpty() ? null : rest, true);
        }
        annotate(ops, job, Map.of(), List.of(Keys.ADMISSION_ANNOTATION, Keys.ORIGINAL_TEMPLATE_ANNOTATION));
        patchJob(job, ops);
    }

    /**
     * A JSON patch that applies only to the version of the object it was computed from: a real API server answers a
     * failed {@code test} with 422 (the mock server in CRUD mode never answers, and the client times out).
     */
    private static ArrayNode guarded(HasMetadata o) {
        ArrayNode ops = F.arrayNode();
        if (o.getMetadata().getResourceVersion() != null) {
            ops.add(op("test", "/metadata/resourceVersion", F.textNode(o.getMetadata().getResourceVersion())));
        }
        return ops;
    }

    /** Adds JSON patch operations that set and remove annotations. */
    private static void annotate(ArrayNode ops, HasMetadata o, Map<String, String> set, List<String> remove) {
        Map<String, String> cur = o.getMetadata().getAnnotations();
        if (cur == null) {
            if (!set.isEmpty()) {
                ops.add(op("add", "/metadata/annotations", Json.MAPPER.valueToTree(set)));
            }
            return;
        }
        set.forEach((k, v) -> ops.add(op("add", "/metadata/annotations/" + Kube.pointer(k), F.textNode(v))));
        for (String k : remove) {
            if (cur.containsKey(k) && !set.containsKey(k)) {
                ops.add(F.objectNode().put("op", "remove").put("path", "/metadata/annotations/" + Kube.pointer(k)));
            }
        }
    }

    private void patchJob(Job job, ArrayNode ops) {
        client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
                .patch(JSON_PATCH, ops.toString());
    }

    private static void restore(ArrayNode ops, String path, Object original, boolean present) {
        if (original != null) {
            ops.add(op("add", path, Json.MAPPER.valueToTree(original)));
        } else if (present) {
            ops.add(F.objectNode().put("op", "remove").put("path", path));
        }
    }

    private static ObjectNode op(String op, String path, JsonNode value) {
        ObjectNode n = F.objectNode().put("op", op).put("path", path);
        n.set("value", value);
        return n;
    }

    /** Changes an admitted elastic Job's parallelism and records its new placement. */
    void resize(Job job, int parallelism, AdmissionRecord admission) {
        ObjectNode p = F.objectNode();
        p.putObject("metadata").putObject("annotations").put(Keys.ADMISSION_ANNOTATION, admission.toJson());
        p.putObject("spec").put("parallelism", parallelism);
        mergeJob(job, p);
    }

    /** Records the admission only (a restored Job whose recorded admission differs in its flavors or counts). */
    void recordAdmission(Job job, AdmissionRecord admission) {
        ObjectNode p = F.objectNode();
        p.putObject("metadata").putObject("annotations").put(Keys.ADMISSION_ANNOTATION, admission.toJson());
        mergeJob(job, p);
    }

    /** Marks a Job that ended, so a restarted adapter does not queue it again. */
    void markFinished(Job job, String outcome) {
        ObjectNode p = F.objectNode();
        p.putObject("metadata").putObject("annotations").put(Keys.FINISHED_ANNOTATION, outcome);
        mergeJob(job, p);
    }

    /** Sets the pending-reason annotation and records an Event with the reason. */
    void publishPending(Job job, String reason, String eventReason, String type) {
        ObjectNode p = F.objectNode();
        p.putObject("metadata").putObject("annotations").put(Keys.PENDING_REASON_ANNOTATION, reason);
        mergeJob(job, p);
        event(job, type, eventReason, reason);
    }

    /**
     * Binds a gated pod to its member's node: removes the gate and sets a node selector for the host, and records
     * the member index and GPU ids. (A real API server accepts a stricter node selector on a pod while it is gated.)
     */
    void ungate(Pod pod, int member, String hostname, List<Integer> gpus) {
        ArrayNode ops = guarded(pod);
        Map<String, String> ann = new LinkedHashMap<>();
        ann.put(Keys.MEMBER_ANNOTATION, Integer.toString(member));
        ann.put(Keys.GPUS_ANNOTATION, String.join(",", gpus.stream().map(String::valueOf).toList()));
        annotate(ops, pod, ann, List.of());
        Map<String, String> selector = new LinkedHashMap<>(pod.getSpec().getNodeSelector() == null ? Map.of() : pod.getSpec().getNodeSelector());
        selector.values().removeIf(java.util.Objects::isNull);
        selector.put(io.fairway.api.model.Node.HOSTNAME_LABEL, hostname);
        ops.add(op("add", "/spec/nodeSelector", Json.MAPPER.valueToTree(selector)));
        List<PodSchedulingGate> rest = pod.getSpec().getSchedulingGates().stream().filter(g -> !Keys.TOPOLOGY_GATE.equals(g.getName())).toList();
        restore(ops, "/spec/schedulingGates", rest.isEmpty() ? null : rest, true);
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).patch(JSON_PATCH, ops.toString());
    }

    /** Records a core/v1 Event about an object; failures are logged, never thrown. */
    void event(HasMetadata about, String type, String reason, String message) {
        String now = TS.format(Instant.now().atOffset(ZoneOffset.UTC));
        String ns = about.getMetadata().getNamespace() == null ? "default" : about.getMetadata().getNamespace();
        Event e = new EventBuilder()
                .withNewMetadata()
                    .withName(about.getMetadata().getName() + "." + Long.toHexString(eventSeq.incrementAndGet()))
                    .withNamespace(ns)
                .endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder()
                        .withApiVersion(about.getApiVersion()).withKind(about.getKind())
                        .withName(about.getMetadata().getName()).withNamespace(about.getMetadata().getNamespace())
                        .withUid(about.getMetadata().getUid()).build())
                .withType(type)
                .withReason(reason)
                .withMessage(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource().withComponent(Keys.COMPONENT).endSource()
                .withReportingComponent("fairway.io/" + Keys.COMPONENT)
                .withReportingInstance(identity)
                .build();
        try {
            client.v1().events().inNamespace(ns).resource(e).create();
        } catch (KubernetesClientException ex) {
            LOG.warn("could not record event {} on {}: {}", reason, Kube.key(about), ex.getMessage());
        }
    }

    private void mergeJob(Job job, ObjectNode patch) {
        client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
                .patch(MERGE, patch.toString());
    }
}
