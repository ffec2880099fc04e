package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The difference between two versions of an object's JSON, as the JSON Pointers whose values differ: objects are
 * compared member by member, lists of the same length element by element, lists whose length changed and scalars
 * whole (a list is rewritten whole or element by element, never spliced). Used to turn an
 * integration's edit into a JSON patch of exactly the changed paths, and to record their previous values.
 */
final class JsonDiff {
    private JsonDiff() {
    }

    /**
     * @param before the object as read
     * @param after the edited object
     * @return each changed path with its value after the edit ({@link MissingNode} where the edit removed it), in
     *     document order
     */
    static Map<String, JsonNode> changes(JsonNode before, JsonNode after) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        diff("", before, after, out);
        return out;
    }

    private static void diff(String path, JsonNode a, JsonNode b, Map<String, JsonNode> out) {
        if (a != null && a.equals(b)) {
            return;
        }
        if (a != null && b != null && a.isObject() && b.isObject()) {
            TreeSet<String> keys = new TreeSet<>();
            a.fieldNames().forEachRemaining(keys::add);
            b.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                diff(path + "/" + Kube.pointer(k), a.get(k), b.get(k), out);
            }
            return;
        }
        if (a != null && b != null && a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                diff(path + "/" + i, a.get(i), b.get(i), out);
            }
            return;
        }
        out.put(path, b == null ? MissingNode.getInstance() : b);
    }

    /**
     * @param object an object's JSON
     * @param pointer a path
     * @return the value there, or {@link NullNode} when absent (the form {@link OriginalTemplate} records)
     */
    static JsonNode previous(JsonNode object, String pointer) {
        JsonNode v = object.at(pointer);
        return v.isMissingNode() ? NullNode.getInstance() : v.deepCopy();
    }

    /**
     * Sets or removes a field, creating the objects on its path when setting.
     *
     * @param object the JSON to edit
     * @param pointer the field
     * @param value the value, or null to remove the field
     */
    static void put(ObjectNode object, String pointer, JsonNode value) {
        List<String> segs = segments(pointer);
        JsonNode parent = object;
        for (int i = 0; i < segs.size() - 1; i++) {
            JsonNode next = parent.isArray() ? parent.get(Integer.parseInt(segs.get(i))) : parent.get(segs.get(i));
            if (next == null || next.isNull()) {
                if (value == null || !(parent instanceof ObjectNode o)) {
                    return;
                }
                next = o.putObject(segs.get(i));
            }
            parent = next;
        }
        String last = segs.get(segs.size() - 1);
        if (parent instanceof ObjectNode o) {
            if (value == null) {
                o.remove(last);
            } else {
                o.set(last, value);
            }
        } else if (parent instanceof ArrayNode a && value != null) {
            a.set(Integer.parseInt(last), value);
        }
    }

    private static List<String> segments(String pointer) {
        List<String> out = new ArrayList<>();
        for (String s : pointer.substring(1).split("/", -1)) {
            out.add(s.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }
}
