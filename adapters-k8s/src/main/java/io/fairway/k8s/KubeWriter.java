package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every write the adapter makes to the API server, and core/v1 Events. Queued objects of every kind are written
 * through their {@link EnabledKind}'s resource context: an integration's edit (suspend, admit, evict, resize) goes as a
 * JSON patch of exactly the paths it changed, guarded by the object's resourceVersion so it applies only to the
 * version it was computed from (lists are written whole); annotations alone go as JSON merge patches. No server-side
 * apply and no strategic merge patch.
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
    /** Seals the admissions this adapter writes; null until the key is read (nothing is trusted then). */
    private volatile AdmissionSeal seal;

    KubeWriter(KubernetesClient client, String identity) {
        this.client = client;
        this.identity = identity == null ? "fairway" : identity;
    }

    /** @param seal the seal of the admissions this adapter writes and trusts */
    void seal(AdmissionSeal seal) {
        this.seal = seal;
    }

    /**
     * @param object an object as read
     * @return true when its admission and original-template annotations were written by Fairway (the seal verifies)
     */
    boolean trusted(HasMetadata object) {
        AdmissionSeal s = seal;
        return s != null && s.verify(object);
    }

    private String sealOf(HasMetadata object, String admission, String original) {
        AdmissionSeal s = seal;
        if (s == null) {
            throw new IllegalStateException("the admission key is not loaded; nothing is admitted until it is");
        }
        return s.seal(object, admission, original);
    }

    /** @return the object as the API server has it now, or null when it is gone */
    GenericKubernetesResource fetch(EnabledKind kind, String namespace, String name) {
        return client.genericKubernetesResources(kind.context).inNamespace(namespace).withName(name).get();
    }

    /** Suspends an object that was created unsuspended, before any of its pods are scheduled. */
    void suspend(EnabledKind kind, GenericKubernetesResource object) {
        ObjectNode edited = Specs.toJson(object);
        kind.integration.setSuspended(edited, true);
        write(kind, object, edited);
        LOG.info("suspended {} {} until Fairway admits it", kind.kindName(), Kube.key(object));
    }

    /**
     * Admits an object: its integration edits each pod set (the flavor's node labels and tolerations, the topology
     * gate, the admitted count); the previous value of every path it changed is recorded in
     * {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION}, the admission in {@value Keys#ADMISSION_ANNOTATION}, and the object
     * is resumed. One JSON patch of exactly the changed paths, guarded by the resourceVersion (lists are written whole:
     * a merge patch would replace them on a real API server, but the mock server concatenates them).
     */
    OriginalTemplate admit(EnabledKind kind, GenericKubernetesResource object, AdmissionRecord admission, List<PodSetTemplate> podSets,
            List<PodSetAdmission> admissions) {
        object = clearStartedMarkers(kind, object);
        ObjectNode before = Specs.toJson(object);
        ObjectNode edited = before.deepCopy();
        kind.integration.admit(edited, podSets, admissions);
        if (kind.integration.restoreAfterSuspend() && kind.integration.isSuspended(object)
                && !JsonDiff.changes(before.path("spec"), edited.path("spec")).isEmpty()) {
            java.util.Optional<String> held = kind.integration.editsHeld(object);
            if (held.isPresent()) {
                // the API server would refuse the edits: a later round admits it again
                throw new KubernetesClientException(kind.kindName() + " " + Kube.key(object)
                        + " cannot take an admission yet: " + held.get());
            }
        }
        OriginalTemplate original = originals(object, before, edited);
        ObjectNode ann = annotations(edited);
        ann.put(Keys.ADMISSION_ANNOTATION, admission.toJson());
        ann.put(Keys.ORIGINAL_TEMPLATE_ANNOTATION, original.toJson());
        ann.put(Keys.SEAL_ANNOTATION, sealOf(object, admission.toJson(), original.toJson()));
        ann.remove(Keys.PENDING_REASON_ANNOTATION);
        if (kind.integration.resumeAfterEdits(object)) {
            kind.integration.setSuspended(edited, true);
            object = write(kind, object, edited);
            edited = Specs.toJson(object);
        }
        kind.integration.setSuspended(edited, false);
        write(kind, object, edited);
        return original;
    }

    /**
     * Evicts an object: suspends it and writes back every path admission changed, exactly as it was (removing
     * what admission added), and forgets the admission. For a kind whose API server fixes the templates of a running
     * or started object ({@link io.fairway.k8s.integration.Integration#restoreAfterSuspend()}: a batch/v1 Job) this
     * takes three writes, each accepted by a real API server: the suspension; the started markers
     * ({@code status.startTime}) cleared through the status subresource; then the templates restored and the
     * admission forgotten. A failure between them leaves the object suspended with its admission recorded, which the
     * next pass finishes (an eviction is retried; a rebuilt adapter finishes the eviction of a suspended object that
     * still records one). So does a kind whose API server holds the edits until the object's pods are gone
     * ({@link io.fairway.k8s.integration.Integration#editsHeld}: a TrainJob while its JobSet has active pods): the
     * eviction stops after the suspension and is finished by a later pass.
     *
     * @return true when the eviction is complete; false when the object is suspended but the restore waits
     */
    boolean evict(EnabledKind kind, GenericKubernetesResource object) {
        return evict(kind, object, null);
    }

    /**
     * Evicts an object, restoring from the record the engine kept when it admitted it (the object's own annotation,
     * which its owner can edit, only when there is none and its seal verifies).
     *
     * @param known the previous values Fairway recorded at admission, or null (then the sealed annotation is read)
     * @return true when the eviction is complete; false when the object is suspended but the restore waits
     *     ({@link io.fairway.k8s.integration.Integration#editsHeld}); the caller retries it in a later pass
     */
    boolean evict(EnabledKind kind, GenericKubernetesResource object, OriginalTemplate known) {
        if (kind.integration.restoreAfterSuspend() && !kind.integration.isSuspended(object)) {
            ObjectNode suspended = Specs.toJson(object);
            kind.integration.setSuspended(suspended, true);
            object = write(kind, object, suspended);
        }
        if (kind.integration.restoreAfterSuspend()) {
            java.util.Optional<String> held = kind.integration.editsHeld(object);
            if (held.isPresent()) {
                LOG.info("{} {} is suspended; its admission is undone in a later pass: {}", kind.kindName(), Kube.key(object), held.get());
                return false;
            }
        }
        object = clearStartedMarkers(kind, object);
        ObjectNode edited = Specs.toJson(object);
        String origText = Kube.annotation(object, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        OriginalTemplate o = known == null ? null : known.only(AdmissionPaths.of(kind.integration, object));
        if (o != null) {
            LOG.debug("{}: restored from the record kept at admission", Kube.key(object));
        } else if (origText != null && !trusted(object)) {
            LOG.warn("{}: its {} was not written by Fairway (no valid {}); it is not applied", Kube.key(object),
                    Keys.ORIGINAL_TEMPLATE_ANNOTATION, Keys.SEAL_ANNOTATION);
        } else if (origText != null) {
            try {
                o = OriginalTemplate.parse(origText).only(AdmissionPaths.of(kind.integration, object));
            } catch (IllegalArgumentException e) {
                LOG.warn("{}: unreadable {}: {}", Kube.key(object), Keys.ORIGINAL_TEMPLATE_ANNOTATION, e.getMessage());
            }
        }
        if (o != null) {
            o.restoreInto(edited);
        } else {
            try {
                for (PodSetTemplate ps : kind.integration.podSets(object)) {
                    dropTopologyGate(edited, ps.templatePointer() + "/spec/schedulingGates");
                }
            } catch (IllegalArgumentException e) {
                LOG.debug("{}: no pod sets to ungate: {}", Kube.key(object), e.getMessage());
            }
        }
        kind.integration.setSuspended(edited, true);
        ObjectNode ann = annotations(edited);
        ann.remove(Keys.ADMISSION_ANNOTATION);
        ann.remove(Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        ann.remove(Keys.SEAL_ANNOTATION);
        if (ann.isEmpty() && object.getMetadata().getAnnotations() == null) {
            ((ObjectNode) edited.get("metadata")).remove("annotations");
        }
        write(kind, object, edited);
        return true;
    }

    /**
     * @return the previous value of every path the edit changes, added to those the object already records (the
     *     value recorded first, before admission, wins)
     */
    private OriginalTemplate originals(GenericKubernetesResource object, ObjectNode before, ObjectNode edited) {
        Map<String, JsonNode> prev = new LinkedHashMap<>();
        JsonDiff.changes(before, edited).keySet().forEach(p -> prev.put(p, JsonDiff.previous(before, p)));
        OriginalTemplate original = new OriginalTemplate(prev);
        String origText = Kube.annotation(object, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        if (origText != null && !trusted(object)) {
            LOG.warn("{}: its {} was not written by Fairway; it is replaced by the values read now", Kube.key(object), Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        } else if (origText != null) {
            try {
                original = OriginalTemplate.parse(origText).plus(original);
            } catch (IllegalArgumentException e) {
                LOG.warn("{}: unreadable {} replaced: {}", Kube.key(object), Keys.ORIGINAL_TEMPLATE_ANNOTATION, e.getMessage());
            }
        }
        return original;
    }

    private static void dropTopologyGate(ObjectNode object, String pointer) {
        JsonNode gates = object.at(pointer);
        if (!gates.isArray()) {
            return;
        }
        ArrayNode rest = F.arrayNode();
        gates.forEach(g -> {
            if (!Keys.TOPOLOGY_GATE.equals(g.path("name").asText())) {
                rest.add(g);
            }
        });
        JsonDiff.put(object, pointer, rest.isEmpty() ? null : rest);
    }

    private static ObjectNode annotations(ObjectNode object) {
        ObjectNode meta = object.has("metadata") ? (ObjectNode) object.get("metadata") : object.putObject("metadata");
        return meta.path("annotations").isObject() ? (ObjectNode) meta.get("annotations") : meta.putObject("annotations");
    }

    /**
     * Writes an edit: a JSON patch of exactly the paths that differ between the object as read and the edited JSON,
     * guarded by the object's resourceVersion.
     */
    GenericKubernetesResource write(EnabledKind kind, GenericKubernetesResource object, ObjectNode edited) {
        ObjectNode before = Specs.toJson(object);
        ArrayNode ops = guarded(object);
        JsonDiff.changes(before, edited).forEach((path, value) -> {
            if (value.isMissingNode()) {
                ops.add(F.objectNode().put("op", "remove").put("path", path));
            } else {
                ops.add(op(before.at(path).isMissingNode() ? "add" : "replace", path, value)); // "add" at a list index would insert
            }
        });
        if (ops.size() > (object.getMetadata().getResourceVersion() != null ? 1 : 0)) {
            return client.genericKubernetesResources(kind.context).inNamespace(object.getMetadata().getNamespace())
                    .withName(object.getMetadata().getName()).patch(JSON_PATCH, ops.toString());
        }
        return object;
    }

    /**
     * Clears the kind's started markers of a suspended object through the status subresource (guarded by the
     * resourceVersion), so the API server lets its templates change again: the step Kueue takes between suspending a
     * Job and restoring its template. A real API server accepts it only once the suspension is stored.
     *
     * @return the object as the API server has it afterwards
     */
    GenericKubernetesResource clearStartedMarkers(EnabledKind kind, GenericKubernetesResource object) {
        if (!kind.integration.isSuspended(object)) {
            return object;
        }
        ObjectNode json = Specs.toJson(object);
        ArrayNode ops = guarded(object);
        for (String p : kind.integration.startedMarkers()) {
            JsonNode v = json.at(p);
            if (!v.isMissingNode() && !v.isNull()) {
                ops.add(F.objectNode().put("op", "remove").put("path", p));
            }
        }
        if (ops.size() <= (object.getMetadata().getResourceVersion() != null ? 1 : 0)) {
            return object;
        }
        GenericKubernetesResource after = client.genericKubernetesResources(kind.context).inNamespace(object.getMetadata().getNamespace())
                .withName(object.getMetadata().getName()).subresource("status").patch(JSON_PATCH, ops.toString());
        LOG.debug("{} {}: cleared {} so its templates may change", kind.kindName(), Kube.key(object), kind.integration.startedMarkers());
        return after;
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
        if (cur == null || cur.isEmpty()) {
            // fabric8 reads absent annotations as an empty map: add the whole map, as an "add" below a missing
            // member is refused by a real API server (RFC 6902)
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

    private static ObjectNode op(String op, String path, JsonNode value) {
        ObjectNode n = F.objectNode().put("op", op).put("path", path);
        n.set("value", value);
        return n;
    }

    /**
     * Changes an admitted elastic object's pod count and records its new placement; the count as written before
     * admission is kept in {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION} (so preemption restores it, and the object
     * still reads as submitted).
     */
    OriginalTemplate resize(EnabledKind kind, GenericKubernetesResource object, String podSet, int count, AdmissionRecord admission) {
        ObjectNode before = Specs.toJson(object);
        ObjectNode edited = before.deepCopy();
        kind.integration.setCount(edited, podSet, count);
        OriginalTemplate original = originals(object, before, edited);
        ObjectNode ann = annotations(edited);
        ann.put(Keys.ADMISSION_ANNOTATION, admission.toJson());
        ann.put(Keys.ORIGINAL_TEMPLATE_ANNOTATION, original.toJson());
        ann.put(Keys.SEAL_ANNOTATION, sealOf(object, admission.toJson(), original.toJson()));
        write(kind, object, edited);
        return original;
    }

    /** Records the admission only (a restored object whose recorded admission differs in its flavors or counts). */
    void recordAdmission(EnabledKind kind, HasMetadata object, AdmissionRecord admission) {
        String original = Kube.annotation(object, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        mergeAnnotations(kind, object, Map.of(Keys.ADMISSION_ANNOTATION, admission.toJson(),
                Keys.SEAL_ANNOTATION, sealOf(object, admission.toJson(), original)));
    }

    /**
     * Stops an object that runs without an admission Fairway wrote (created unsuspended, unsuspended by its owner,
     * or carrying a copied or forged admission): suspends it and removes Fairway's annotations from it, restoring
     * nothing (a record Fairway did not seal is never applied).
     */
    void suspendUntrusted(EnabledKind kind, GenericKubernetesResource object) {
        ObjectNode edited = Specs.toJson(object);
        kind.integration.setSuspended(edited, true);
        GenericKubernetesResource after = write(kind, object, edited);
        ObjectNode stripped = Specs.toJson(after);
        ObjectNode ann = annotations(stripped);
        boolean had = ann.remove(Keys.ADMISSION_ANNOTATION) != null;
        had |= ann.remove(Keys.ORIGINAL_TEMPLATE_ANNOTATION) != null;
        had |= ann.remove(Keys.SEAL_ANNOTATION) != null;
        if (had) {
            write(kind, after, stripped);
        }
        LOG.warn("suspended {} {}: it ran without an admission written by Fairway", kind.kindName(), Kube.key(object));
    }

    /** Marks an object that ended, so a restarted adapter does not queue it again. */
    void markFinished(EnabledKind kind, HasMetadata object, String outcome) {
        mergeAnnotations(kind, object, Map.of(Keys.FINISHED_ANNOTATION, outcome));
    }

    /** Sets the pending-reason annotation and records an Event with the reason. */
    void publishPending(EnabledKind kind, HasMetadata object, String reason, String eventReason, String type) {
        mergeAnnotations(kind, object, Map.of(Keys.PENDING_REASON_ANNOTATION, reason));
        event(object, type, eventReason, reason);
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
        if (rest.isEmpty()) {
            ops.add(F.objectNode().put("op", "remove").put("path", "/spec/schedulingGates"));
        } else {
            ops.add(op("add", "/spec/schedulingGates", Json.MAPPER.valueToTree(rest)));
        }
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

    private void mergeAnnotations(EnabledKind kind, HasMetadata object, Map<String, String> annotations) {
        ObjectNode p = F.objectNode();
        ObjectNode a = p.putObject("metadata").putObject("annotations");
        annotations.forEach(a::put);
        client.genericKubernetesResources(kind.context).inNamespace(object.getMetadata().getNamespace()).withName(object.getMetadata().getName())
                .patch(MERGE, p.toString());
    }
}
