package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fields of a queued object that admission changed, as they were before: kept in the annotation
 * {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION} so that preemption restores the object exactly. Each field is a JSON
 * Pointer into the object with its previous value, or JSON {@code null} when the field was absent (preemption then
 * removes it).
 *
 * <pre>{"fields":{"/spec/parallelism":4,"/spec/template/spec/nodeSelector":null}}</pre>
 *
 * <p>The annotation written by earlier versions for batch/v1 Jobs ({@code nodeSelector}, {@code tolerations},
 * {@code schedulingGates}, {@code parallelism}) is still read, as the same four paths of a Job.
 *
 * @param fields previous values by JSON Pointer ({@link NullNode} where the field was absent)
 */
public record OriginalTemplate(Map<String, JsonNode> fields) {
    private static final Map<String, String> LEGACY = Map.of(
            "nodeSelector", "/spec/template/spec/nodeSelector",
            "tolerations", "/spec/template/spec/tolerations",
            "schedulingGates", "/spec/template/spec/schedulingGates",
            "parallelism", "/spec/parallelism");

    /** Copies, in path order. */
    public OriginalTemplate {
        Map<String, JsonNode> m = new TreeMap<>();
        if (fields != null) {
            fields.forEach((k, v) -> m.put(k, v == null ? NullNode.getInstance() : v));
        }
        fields = java.util.Collections.unmodifiableMap(m);
    }

    /**
     * @param pointer a field
     * @return its value before admission, or null when it was absent (or admission did not change it)
     */
    public JsonNode valueOf(String pointer) {
        JsonNode v = fields.get(pointer);
        return v == null || v.isNull() ? null : v;
    }

    /** @return a batch/v1 Job's parallelism before admission, or null when admission did not change it or it was unset */
    public Integer parallelism() {
        JsonNode v = valueOf("/spec/parallelism");
        return v == null ? null : v.intValue();
    }

    /**
     * @param other fields recorded later
     * @return these fields, and those of {@code other} not recorded here (the earliest value of a field wins)
     */
    OriginalTemplate plus(OriginalTemplate other) {
        Map<String, JsonNode> m = new LinkedHashMap<>(other.fields);
        m.putAll(fields);
        return new OriginalTemplate(m);
    }

    /**
     * @param allowed the paths a restore may write
     * @return these fields, only those allowed
     */
    OriginalTemplate only(java.util.function.Predicate<String> allowed) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        fields.forEach((k, v) -> {
            if (allowed.test(k)) {
                m.put(k, v);
            }
        });
        return new OriginalTemplate(m);
    }

    /**
     * Writes the previous values back into an object's JSON: a field that was absent is removed.
     *
     * @param object the object's JSON, edited in place
     */
    void restoreInto(ObjectNode object) {
        fields.forEach((pointer, value) -> JsonDiff.put(object, pointer, value.isNull() ? null : value.deepCopy()));
    }

    /** @return the JSON for the annotation */
    public String toJson() {
        ObjectNode n = Json.MAPPER.createObjectNode();
        ObjectNode f = n.putObject("fields");
        fields.forEach(f::set);
        return n.toString();
    }

    /**
     * @param json the annotation's value
     * @return the fields
     * @throws IllegalArgumentException when it cannot be read
     */
    public static OriginalTemplate parse(String json) {
        JsonNode n = Json.read(json, JsonNode.class);
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("unreadable original template: " + json);
        }
        Map<String, JsonNode> m = new LinkedHashMap<>();
        if (n.has("fields")) {
            n.get("fields").properties().forEach(e -> m.put(e.getKey(), e.getValue()));
        } else {
            LEGACY.forEach((k, p) -> m.put(p, n.has(k) ? n.get(k) : NullNode.getInstance()));
        }
        return new OriginalTemplate(m);
    }
}
