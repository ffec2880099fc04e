package io.fairway.k8s.unifiedjob;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.Specs;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the controller knows of one UnifiedJob, and the {@code status} it writes from it. */
final class UnifiedJobState {
    /** The condition types, in the order they are listed. */
    static final List<String> CONDITION_TYPES = List.of("Queued", "Admitted", "Running", "Resized", "Preempted", "Finished");

    final String uid;
    final String namespace;
    final String name;
    final String id;
    UnifiedJobs.Spec spec;
    Integration integration;
    /** Queued, Admitted, Running, Preempted, Finished or Failed. */
    String state = "Queued";
    int target;
    String pendingReason = "";
    String clusterQueue;
    Map<String, String> flavors = Map.of();
    Map<String, Integer> counts = Map.of();
    Placement placement;
    boolean ended;
    boolean underlyingExists;
    /** The admission as recorded in {@code status.admission} (JSON), or null while not admitted. */
    String admission;
    /** After a restart: the recorded admission the engine is asked to restore, until the round that does. */
    io.fairway.k8s.AdmissionRecord adopting;
    private final Map<String, ObjectNode> conditions = new LinkedHashMap<>();

    UnifiedJobState(String uid, String namespace, String name, String id) {
        this.uid = uid;
        this.namespace = namespace;
        this.name = name;
        this.id = id;
    }

    String key() {
        return namespace + "/" + name;
    }

    /**
     * Sets a condition; its transition time changes only when its status does.
     *
     * @param type one of {@link #CONDITION_TYPES}
     * @param status True or False
     * @param reason a CamelCase reason
     * @param message a message
     */
    void condition(String type, boolean status, String reason, String message) {
        String s = status ? "True" : "False";
        ObjectNode cur = conditions.get(type);
        if (cur == null && !status) {
            return; // a condition never set is not listed as False
        }
        String time = cur != null && s.equals(cur.path("status").asText()) ? cur.path("lastTransitionTime").asText()
                : Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        ObjectNode c = Specs.MAPPER.createObjectNode();
        c.put("type", type);
        c.put("status", s);
        c.put("reason", reason);
        c.put("message", message == null ? "" : message);
        c.put("lastTransitionTime", time);
        conditions.put(type, c);
    }

    /**
     * Takes back the conditions a previous controller wrote (after a restart), so their transition times stay.
     *
     * @param written {@code status.conditions} as read
     */
    void restoreConditions(com.fasterxml.jackson.databind.JsonNode written) {
        for (com.fasterxml.jackson.databind.JsonNode c : written) {
            String type = c.path("type").asText("");
            if (CONDITION_TYPES.contains(type) && c.isObject()) {
                conditions.put(type, (ObjectNode) c.deepCopy());
            }
        }
    }

    /** @return {@code target/min-max} */
    String replicas() {
        return target + "/" + (spec == null ? "?" : spec.min() + "-" + spec.max());
    }

    /** @return the status object this state writes (no null fields) */
    ObjectNode status() {
        ObjectNode s = Specs.MAPPER.createObjectNode();
        s.put("state", state);
        s.put("replicas", replicas());
        s.put("targetReplicas", target);
        s.put("pendingReason", pendingReason == null ? "" : pendingReason);
        if (clusterQueue != null) {
            s.put("clusterQueue", clusterQueue);
        }
        if (admission != null) {
            s.put("admission", admission);
        }
        if (underlyingExists && integration != null) {
            ObjectNode u = s.putObject("underlying");
            u.put("apiVersion", integration.kind().apiVersion());
            u.put("kind", integration.kind().kind());
            u.put("name", name);
        }
        if (placement != null) {
            ArrayNode p = s.putArray("placement");
            Map<String, List<String>> nodes = new TreeMap<>();
            for (MemberPlacement m : placement.members()) {
                nodes.computeIfAbsent(m.podSet(), k -> new ArrayList<>()).add(m.node());
            }
            nodes.forEach((ps, ns) -> {
                ObjectNode e = p.addObject();
                e.put("podSet", ps);
                e.put("count", ns.size());
                if (flavors.get(ps) != null) {
                    e.put("flavor", flavors.get(ps));
                }
                ns.forEach(e.putArray("nodes")::add);
            });
        }
        ArrayNode cs = s.putArray("conditions");
        for (String t : CONDITION_TYPES) {
            if (conditions.containsKey(t)) {
                cs.add(conditions.get(t));
            }
        }
        return s;
    }
}
