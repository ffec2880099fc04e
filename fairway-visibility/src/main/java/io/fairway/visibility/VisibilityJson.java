package io.fairway.visibility;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Resources;
import java.util.Map;
import java.util.TreeMap;

/** The JSON of the answers: one shared mapper, the error body, and the pieces several answers share. */
final class VisibilityJson {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private VisibilityJson() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    static String write(Object node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    static HttpResponse ok(Object node) {
        return HttpResponse.json(200, write(node));
    }

    /** @return a value cut to 64 characters, for error messages that repeat what a client sent */
    static String clip(String s) {
        return s == null ? null : s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }

    static HttpResponse errorResponse(ApiException e) {
        ObjectNode o = object();
        o.put("status", e.status);
        o.put("error", e.error);
        if (e.parameter != null) {
            o.put("parameter", e.parameter);
            o.put("value", e.value);
        }
        o.put("message", e.getMessage());
        return HttpResponse.json(e.status, write(o));
    }

    static ObjectNode resources(Resources r) {
        ObjectNode o = object();
        for (int i = 0; i < r.size(); i++) {
            o.put(r.name(i), r.amount(i));
        }
        return o;
    }

    static ObjectNode reason(PendingReason r) {
        if (r == null) {
            return null;
        }
        ObjectNode o = object();
        o.put("code", r.code().name());
        o.put("message", r.message());
        ObjectNode d = o.putObject("details");
        new TreeMap<>(r.details() == null ? Map.<String, Long>of() : r.details()).forEach(d::put);
        return o;
    }

    /** The placement of a job holding resources, or null. */
    static ObjectNode placement(Admit a) {
        if (a == null) {
            return null;
        }
        ObjectNode o = object();
        ObjectNode f = o.putObject("flavors");
        new TreeMap<>(a.flavors()).forEach(f::put);
        ObjectNode c = o.putObject("counts");
        new TreeMap<>(a.counts()).forEach(c::put);
        o.put("admittedAtMillis", a.admittedAtMillis());
        o.put("locality", a.placement() == null || a.placement().locality() == null ? null : a.placement().locality().name());
        ArrayNode nodes = o.putArray("nodes");
        ArrayNode members = o.putArray("members");
        if (a.placement() != null) {
            a.placement().nodes().stream().sorted().forEach(nodes::add);
            for (MemberPlacement m : a.placement().members()) {
                ObjectNode mo = members.addObject();
                mo.put("podSet", m.podSet());
                mo.put("index", m.index());
                mo.put("node", m.node());
                ArrayNode g = mo.putArray("gpus");
                m.gpus().forEach(g::add);
            }
        }
        return o;
    }

    /** The fields every job answer starts with. */
    static ObjectNode jobHead(JobStatus j, String clusterQueue) {
        ObjectNode o = object();
        o.put("id", j.id());
        o.put("namespace", j.spec().namespace());
        o.put("localQueue", j.spec().queue());
        o.put("clusterQueue", clusterQueue);
        o.put("jobSet", j.spec().jobSet());
        o.put("owner", j.spec().owner());
        o.put("priority", j.spec().priority());
        return o;
    }
}
