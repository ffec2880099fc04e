package io.fairway.k8s.integration;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Helpers for {@link Integration}s: reading fields of a {@link GenericKubernetesResource} by JSON Pointer, editing an
 * object's JSON, the default admission edit of a pod template, and reading pods.
 */
public final class Specs {
    /** The mapper between fabric8 objects and JSON trees: nulls left out, unknown fields ignored. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .setDefaultPropertyInclusion(JsonInclude.Include.NON_NULL)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Specs() {
    }

    /**
     * @param object a fabric8 object (typed or generic)
     * @return its JSON as the API server would return it (a new tree)
     */
    public static ObjectNode toJson(HasMetadata object) {
        return MAPPER.valueToTree(object);
    }

    /**
     * @param object an object
     * @param pointer a JSON Pointer, e.g. {@code /spec/suspend}
     * @return the node there, or a missing node
     */
    public static JsonNode at(HasMetadata object, String pointer) {
        return toJson(object).at(JsonPointer.compile(pointer));
    }

    /**
     * @param object an object
     * @param pointer where an integer is
     * @param absent the value when the field is absent
     * @return the integer
     * @throws InvalidSpecException naming the field when it holds something else
     */
    public static int intAt(HasMetadata object, String pointer, int absent) {
        return intOf(at(object, pointer), pointer, absent);
    }

    /**
     * @param node a node (missing or null: absent)
     * @param field the field's name for the error
     * @param absent the value when absent
     * @return its integer value
     * @throws InvalidSpecException naming the field when it is not an integer
     */
    public static int intOf(JsonNode node, String field, int absent) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return absent;
        }
        InvalidSpecException.check(node.isIntegralNumber() && node.canConvertToInt(), field, node.toString(), "%s must be an integer, was %s", field, node);
        return node.intValue();
    }

    /**
     * @param object an object
     * @param pointer where a boolean is
     * @param absent the value when the field is absent
     * @return the boolean
     */
    public static boolean boolAt(HasMetadata object, String pointer, boolean absent) {
        JsonNode n = at(object, pointer);
        return n.isBoolean() ? n.booleanValue() : absent;
    }

    /**
     * @param object an object
     * @param pointer where a pod template is
     * @return it, read as a fabric8 pod template (a copy)
     * @throws InvalidSpecException naming the field when there is none
     */
    public static PodTemplateSpec template(HasMetadata object, String pointer) {
        return templateOf(at(object, pointer), pointer);
    }

    /**
     * @param node a pod template's JSON
     * @param pointer where it is, for the error
     * @return it, read as a fabric8 pod template (a copy)
     * @throws InvalidSpecException naming the field when it is absent or has no spec
     */
    public static PodTemplateSpec templateOf(JsonNode node, String pointer) {
        InvalidSpecException.check(node != null && node.isObject() && node.path("spec").isObject(), pointer.substring(1).replace('/', '.'), null,
                "%s: no pod template", pointer.substring(1).replace('/', '.'));
        return MAPPER.convertValue(node, PodTemplateSpec.class);
    }

    /**
     * Sets a field, creating the objects on its path.
     *
     * @param object the JSON to edit
     * @param pointer the field, e.g. {@code /spec/runPolicy/suspend}
     * @param value a boolean, number, string, or anything Jackson can turn into JSON
     */
    public static void set(ObjectNode object, String pointer, Object value) {
        List<String> segs = segments(pointer);
        JsonNode parent = object;
        for (int i = 0; i < segs.size() - 1; i++) {
            String seg = segs.get(i);
            JsonNode next = parent.isArray() ? parent.get(Integer.parseInt(seg)) : parent.get(seg);
            if (next == null || next.isNull()) {
                if (!(parent instanceof ObjectNode o)) {
                    throw new IllegalArgumentException("no element " + seg + " at " + pointer);
                }
                next = o.putObject(seg);
            }
            parent = next;
        }
        String last = segs.get(segs.size() - 1);
        JsonNode v = MAPPER.valueToTree(value);
        if (parent instanceof ArrayNode a) {
            a.set(Integer.parseInt(last), v);
        } else {
            ((ObjectNode) parent).set(last, v);
        }
    }

    /**
     * @param pointer a JSON Pointer
     * @return its unescaped segments
     */
    static List<String> segments(String pointer) {
        if (pointer == null || !pointer.startsWith("/")) {
            throw new IllegalArgumentException("not a JSON Pointer: " + pointer);
        }
        List<String> out = new java.util.ArrayList<>();
        for (String s : pointer.substring(1).split("/", -1)) {
            out.add(s.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }

    /**
     * The default admission edit of one pod template: the admission's node labels merged into its node selector,
     * its tolerations and scheduling gates added when not there yet.
     *
     * @param object the object's JSON
     * @param templatePointer where the pod template is
     * @param admission what to add
     */
    public static void injectIntoTemplate(ObjectNode object, String templatePointer, PodSetAdmission admission) {
        JsonNode t = object.at(JsonPointer.compile(templatePointer));
        if (!(t instanceof ObjectNode template)) {
            throw new IllegalArgumentException("no pod template at " + templatePointer);
        }
        ObjectNode spec = template.has("spec") && template.get("spec").isObject() ? (ObjectNode) template.get("spec") : template.putObject("spec");
        if (!admission.nodeSelector().isEmpty()) {
            ObjectNode sel = spec.path("nodeSelector").isObject() ? (ObjectNode) spec.get("nodeSelector") : spec.putObject("nodeSelector");
            new java.util.TreeMap<>(admission.nodeSelector()).forEach(sel::put);
        }
        if (!admission.tolerations().isEmpty()) {
            ArrayNode tols = spec.path("tolerations").isArray() ? (ArrayNode) spec.get("tolerations") : spec.putArray("tolerations");
            for (Toleration tol : admission.tolerations()) {
                JsonNode n = MAPPER.valueToTree(tol);
                boolean present = false;
                for (JsonNode e : tols) {
                    present |= e.equals(n);
                }
                if (!present) {
                    tols.add(n);
                }
            }
        }
        if (!admission.schedulingGates().isEmpty()) {
            ArrayNode gates = spec.path("schedulingGates").isArray() ? (ArrayNode) spec.get("schedulingGates") : spec.putArray("schedulingGates");
            for (String g : admission.schedulingGates()) {
                boolean present = false;
                for (JsonNode e : gates) {
                    present |= g.equals(e.path("name").asText(null));
                }
                if (!present) {
                    gates.addObject().put("name", g);
                }
            }
        }
    }

    /**
     * @param object an object
     * @param key a label key
     * @return the label's value, when set
     */
    public static Optional<String> label(HasMetadata object, String key) {
        Map<String, String> m = object.getMetadata() == null ? null : object.getMetadata().getLabels();
        return Optional.ofNullable(m == null ? null : m.get(key));
    }

    /**
     * @param text an integer, or null
     * @return it, or null when absent or not an integer
     */
    public static Integer intOrNull(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * @param object an object with {@code status.conditions}
     * @param type a condition type
     * @return the condition's JSON when its status is {@code "True"}, else empty
     */
    public static Optional<JsonNode> trueCondition(HasMetadata object, String type) {
        for (JsonNode c : at(object, "/status/conditions")) {
            if (type.equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /**
     * @param condition a condition's JSON
     * @param fallback the text when it has neither reason nor message
     * @return {@code reason: message}
     */
    public static String describe(JsonNode condition, String fallback) {
        String r = condition.path("reason").asText("");
        String m = condition.path("message").asText("");
        String s = r.isEmpty() ? m : m.isEmpty() ? r : r + ": " + m;
        return s.isEmpty() ? fallback : s;
    }

    /**
     * An outcome from pods alone, for kinds whose status says little: failed when a pod failed, succeeded when every
     * pod set has as many succeeded pods as pods and none is left running.
     *
     * @param pods the object's pods
     * @param podSets its pod sets
     * @return the outcome
     */
    public static WorkloadOutcome podsOutcome(List<Pod> pods, List<PodSetTemplate> podSets) {
        long succeeded = 0;
        long live = 0;
        for (Pod p : pods) {
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            if ("Failed".equals(phase)) {
                return WorkloadOutcome.failed("pod " + p.getMetadata().getName() + " failed");
            }
            if ("Succeeded".equals(phase)) {
                succeeded++;
            } else {
                live++;
            }
        }
        int want = podSets.stream().mapToInt(PodSetTemplate::count).sum();
        return succeeded >= want && live == 0 ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }
}
