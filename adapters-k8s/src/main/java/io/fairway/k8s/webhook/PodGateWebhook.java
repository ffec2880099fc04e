package io.fairway.k8s.webhook;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.k8s.podgroup.PodGroupController;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides the AdmissionReviews ({@code admission.k8s.io/v1}) of Fairway's mutating webhook, as Kueue's pod,
 * Deployment, StatefulSet and LeaderWorkerSet webhooks do for the same kinds (pkg/controller/jobs/pod,
 * deployment, statefulset and leaderworkerset in kubernetes-sigs/kueue):
 * <ul>
 *   <li>a <b>Pod</b> created with a queue label ({@code fairway.io/queue-name} or {@code kueue.x-k8s.io/queue-name})
 *       gets the scheduling gate {@value PodGroupController#GATE} (unless it has Fairway's or Kueue's already), so it
 *       waits until the pod group controller admits it; one that names a node ({@code spec.nodeName}, which would
 *       bypass the gate), carries Fairway's admission annotation, or names a queue that is not a DNS label is refused;</li>
 *   <li>a Pod update that removes the gate or writes Fairway's admission annotation is refused unless Fairway's own
 *       service account makes it: only Fairway admits;</li>
 *   <li>a <b>Deployment</b> with a queue label gets it copied into its pod template (each of its pods is then one
 *       queued pod);</li>
 *   <li>a <b>StatefulSet</b> with a queue label gets it copied into its pod template with the pod group label (its
 *       name), the group's size ({@code spec.replicas}) and the serving and fast-admission annotations: its pods are one
 *       serving group, queued from its first pod; its size changes only to or from 0 while it is queued;</li>
 *   <li>a <b>LeaderWorkerSet</b> with a queue label gets it copied into its leader and worker templates (each of its
 *       groups is then one serving group).</li>
 * </ul>
 * Anything else, and any object in a namespace Fairway does not manage, is allowed unchanged. A review that cannot be
 * read is answered with an error; the decision is a pure function of the review (no API calls), so hostile input
 * costs one bounded parse.
 */
public final class PodGateWebhook {
    private static final Logger LOG = LoggerFactory.getLogger(PodGateWebhook.class);
    /** The largest review read, in bytes (two objects of at most 1.5 MiB, as etcd stores, and the envelope). */
    public static final int MAX_REVIEW_BYTES = 3 * 1024 * 1024 + 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final List<String> QUEUE_LABELS = List.of("fairway.io/queue-name", "kueue.x-k8s.io/queue-name");
    private static final List<String> GATES = List.of(PodGroupController.GATE, PodGroupController.KUEUE_GATE);

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(128).maxStringLength(MAX_REVIEW_BYTES).build());
    }

    private final Predicate<String> managedNamespace;
    private final Set<String> admitters;

    /**
     * @param managedNamespace whether Fairway queues the objects of a namespace (the webhook's namespace selector
     *     limits what reaches it; this is checked again)
     * @param admitters the user names allowed to ungate a pod: Fairway's service account
     *     ({@code system:serviceaccount:<namespace>:<name>})
     */
    public PodGateWebhook(Predicate<String> managedNamespace, Collection<String> admitters) {
        this.managedNamespace = managedNamespace;
        this.admitters = Set.copyOf(admitters);
    }

    /**
     * @param body the request body: an AdmissionReview
     * @return the AdmissionReview answering it
     * @throws IllegalArgumentException naming what is wrong when the body is not a readable AdmissionReview
     */
    public byte[] review(byte[] body) {
        JsonNode review;
        try {
            review = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("the body is not JSON: " + clip(e instanceof com.fasterxml.jackson.core.JacksonException j ? j.getOriginalMessage() : e.getMessage()));
        }
        if (review == null || !review.isObject() || !"admission.k8s.io/v1".equals(review.path("apiVersion").asText())
                || !"AdmissionReview".equals(review.path("kind").asText())) {
            throw new IllegalArgumentException("the body must be an admission.k8s.io/v1 AdmissionReview");
        }
        JsonNode req = review.path("request");
        String uid = req.path("uid").asText("");
        if (!req.isObject() || uid.isEmpty() || uid.length() > 128) {
            throw new IllegalArgumentException("request.uid must be set (at most 128 characters)");
        }
        Decision d;
        try {
            d = decide(req);
        } catch (RuntimeException e) {
            LOG.warn("admission review {}: {}", clip(uid), e.toString());
            d = Decision.deny("the request could not be read: " + clip(e.getMessage()));
        }
        ObjectNode out = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode r = out.putObject("response").put("uid", uid).put("allowed", d.allowed());
        if (!d.allowed()) {
            r.putObject("status").put("code", 403).put("reason", "Forbidden").put("message", d.message());
        } else if (d.patch() != null && !d.patch().isEmpty()) {
            r.put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(d.patch().toString().getBytes(StandardCharsets.UTF_8)));
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A decision.
     *
     * @param allowed whether the request is allowed
     * @param message why not
     * @param patch the JSON patch to apply, or null
     */
    record Decision(boolean allowed, String message, ArrayNode patch) {
        static final Decision ALLOW = new Decision(true, null, null);

        static Decision deny(String message) {
            return new Decision(false, message, null);
        }

        static Decision patch(ArrayNode ops) {
            return new Decision(true, null, ops);
        }
    }

    private Decision decide(JsonNode req) {
        String group = req.at("/resource/group").asText("");
        String resource = req.at("/resource/resource").asText("");
        String op = req.path("operation").asText("");
        String ns = req.path("namespace").asText("");
        if (!req.path("subResource").asText("").isEmpty() || ns.isEmpty() || !managedNamespace.test(ns)) {
            return Decision.ALLOW;
        }
        JsonNode obj = req.path("object");
        if (!op.equals("CREATE") && !op.equals("UPDATE") || !obj.isObject()) {
            return Decision.ALLOW;
        }
        String key = queueKey(obj.path("metadata"));
        if (group.isEmpty() && resource.equals("pods")) {
            return op.equals("CREATE") ? podCreate(obj, key) : podUpdate(req.path("oldObject"), obj, req.at("/userInfo/username").asText(""));
        }
        if (key == null) {
            return Decision.ALLOW;
        }
        String queue = obj.path("metadata").path("labels").path(key).asText();
        if (!DNS_LABEL.matcher(queue).matches()) {
            return Decision.deny("metadata.labels[" + key + "] must be a DNS label (a LocalQueue's name), was \"" + clip(queue) + "\"");
        }
        ArrayNode ops = JsonNodeFactory.instance.arrayNode();
        if (group.equals("apps") && resource.equals("deployments")) {
            labels(ops, obj, "/spec/template", List.of(key), List.of(queue));
        } else if (group.equals("apps") && resource.equals("statefulsets")) {
            String name = obj.path("metadata").path("name").asText("");
            if (!DNS_LABEL.matcher(name).matches()) {
                return Decision.deny("metadata.name of a queued StatefulSet must be a DNS label, was \"" + clip(name) + "\"");
            }
            JsonNode r = obj.at("/spec/replicas");
            int replicas = r.isMissingNode() || r.isNull() ? 1 : r.asInt(-1);
            if (replicas < 0 || !r.isMissingNode() && !r.isNull() && !r.isIntegralNumber()) {
                return Decision.deny("spec.replicas must be a whole number >= 0, was " + clip(r.toString()));
            }
            if (op.equals("UPDATE")) {
                JsonNode or = req.at("/oldObject/spec/replicas");
                int old = or.isMissingNode() || or.isNull() ? 1 : or.asInt(-1);
                if (old != replicas && old != 0 && replicas != 0 && queueKey(req.at("/oldObject/metadata")) != null) {
                    return Decision.deny("spec.replicas of a queued StatefulSet changes only to or from 0 (its pods are one group of "
                            + old + "), was changed to " + replicas);
                }
            }
            labels(ops, obj, "/spec/template", List.of(key, PodGroupController.GROUP_LABEL), List.of(queue, name));
            annotations(ops, obj, "/spec/template", List.of(PodGroupController.TOTAL_COUNT_ANNOTATION, PodGroupController.SERVING_ANNOTATION,
                    PodGroupController.FAST_ADMISSION_ANNOTATION), List.of(Integer.toString(Math.max(1, replicas)), "true", "true"));
        } else if (group.equals("leaderworkerset.x-k8s.io") && resource.equals("leaderworkersets")) {
            if (obj.at("/spec/leaderWorkerTemplate/leaderTemplate").isObject()) {
                labels(ops, obj, "/spec/leaderWorkerTemplate/leaderTemplate", List.of(key), List.of(queue));
            }
            if (!obj.at("/spec/leaderWorkerTemplate/workerTemplate").isObject()) {
                return Decision.deny("spec.leaderWorkerTemplate.workerTemplate must be set");
            }
            labels(ops, obj, "/spec/leaderWorkerTemplate/workerTemplate", List.of(key), List.of(queue));
        }
        return Decision.patch(ops);
    }

    private Decision podCreate(JsonNode pod, String key) {
        if (key == null) {
            return Decision.ALLOW;
        }
        String queue = pod.path("metadata").path("labels").path(key).asText();
        if (!DNS_LABEL.matcher(queue).matches()) {
            return Decision.deny("metadata.labels[" + key + "] must be a DNS label (a LocalQueue's name), was \"" + clip(queue) + "\"");
        }
        if (!pod.at("/spec/nodeName").asText("").isEmpty()) {
            return Decision.deny("spec.nodeName is set (\"" + clip(pod.at("/spec/nodeName").asText()) + "\"): a queued pod is placed by Fairway; remove "
                    + "spec.nodeName or the label " + key);
        }
        if (pod.path("metadata").path("annotations").has(PodGroupController.ADMITTED_ANNOTATION)) {
            return Decision.deny("metadata.annotations[" + PodGroupController.ADMITTED_ANNOTATION + "] is written by Fairway alone, at admission");
        }
        JsonNode gates = pod.at("/spec/schedulingGates");
        ArrayNode ops = JsonNodeFactory.instance.arrayNode();
        if (gates.isArray()) {
            for (JsonNode g : gates) {
                if (GATES.contains(g.path("name").asText())) {
                    return Decision.patch(ops);
                }
            }
            ops.addObject().put("op", "add").put("path", "/spec/schedulingGates/-").putObject("value").put("name", PodGroupController.GATE);
        } else if (gates.isMissingNode() || gates.isNull()) {
            if (!pod.path("spec").isObject()) {
                return Decision.deny("spec must be an object");
            }
            ops.addObject().put("op", "add").put("path", "/spec/schedulingGates").putArray("value").addObject().put("name", PodGroupController.GATE);
        } else {
            return Decision.deny("spec.schedulingGates must be a list");
        }
        return Decision.patch(ops);
    }

    private Decision podUpdate(JsonNode old, JsonNode pod, String user) {
        if (!old.isObject() || admitters.contains(user)) {
            return Decision.ALLOW;
        }
        boolean wasGated = gated(old);
        if (wasGated && !gated(pod)) {
            return Decision.deny("only Fairway removes the scheduling gate of a queued pod (" + PodGroupController.GATE + " or " + PodGroupController.KUEUE_GATE
                    + "); the pod is admitted when its queue has room");
        }
        JsonNode before = old.path("metadata").path("annotations").path(PodGroupController.ADMITTED_ANNOTATION);
        JsonNode after = pod.path("metadata").path("annotations").path(PodGroupController.ADMITTED_ANNOTATION);
        if (!before.equals(after)) {
            return Decision.deny("metadata.annotations[" + PodGroupController.ADMITTED_ANNOTATION + "] is written by Fairway alone, at admission");
        }
        return Decision.ALLOW;
    }

    private static boolean gated(JsonNode pod) {
        for (JsonNode g : pod.at("/spec/schedulingGates")) {
            if (GATES.contains(g.path("name").asText())) {
                return true;
            }
        }
        return false;
    }

    /** @return the queue label the object carries (Fairway's first), or null */
    private static String queueKey(JsonNode metadata) {
        JsonNode labels = metadata.path("labels");
        for (String k : QUEUE_LABELS) {
            if (labels.path(k).isTextual()) {
                return k;
            }
        }
        return null;
    }

    private static void labels(ArrayNode ops, JsonNode obj, String template, List<String> keys, List<String> values) {
        entries(ops, obj, template, "labels", keys, values);
    }

    private static void annotations(ArrayNode ops, JsonNode obj, String template, List<String> keys, List<String> values) {
        entries(ops, obj, template, "annotations", keys, values);
    }

    /** Adds the ops that set {@code template.metadata.<field>[key] = value} for each key, creating the maps as needed. */
    private static void entries(ArrayNode ops, JsonNode obj, String template, String field, List<String> keys, List<String> values) {
        JsonNode t = obj.at(template);
        if (!t.isObject()) {
            ops.addObject().put("op", "add").put("path", template).putObject("value");
        }
        JsonNode meta = t.path("metadata");
        boolean metaCreated = ops.findValues("path").stream().anyMatch(p -> p.asText().equals(template + "/metadata"));
        if (!meta.isObject() && !metaCreated) {
            ops.addObject().put("op", "add").put("path", template + "/metadata").putObject("value");
        }
        JsonNode map = meta.path(field);
        if (!map.isObject()) {
            ObjectNode value = ops.addObject().put("op", "add").put("path", template + "/metadata/" + field).putObject("value");
            for (int i = 0; i < keys.size(); i++) {
                value.put(keys.get(i), values.get(i));
            }
            return;
        }
        for (int i = 0; i < keys.size(); i++) {
            if (!values.get(i).equals(map.path(keys.get(i)).asText(null))) {
                ops.addObject().put("op", "add").put("path", template + "/metadata/" + field + "/" + escape(keys.get(i))).put("value", values.get(i));
            }
        }
    }

    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static String clip(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 120; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f || Character.getType(c) == Character.FORMAT ? '?' : c);
        }
        return s.length() > 120 ? b + "…" : b.toString();
    }
}
