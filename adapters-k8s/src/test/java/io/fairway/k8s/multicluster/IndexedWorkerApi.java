package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's API server for load runs: only what the worker executor asks (nodes, pods, batch/v1 Jobs: list, get,
 * create, merge-patch, delete), with the objects kept by key like a real API server, so that a create or a get costs
 * the same with 10 copies as with 10,000. fabric8's CRUD mock matches every request against every object it holds,
 * which made the mock server, not the executor, the limit of the dispatch figures. It records when each copy was
 * created (by the job id annotation).
 */
final class IndexedWorkerApi extends Dispatcher {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Map<String, ObjectNode> nodes = new TreeMap<>();
    private final Map<String, ObjectNode> jobs = new TreeMap<>();
    private final AtomicLong version = new AtomicLong(1);
    /** When each copy was created (System.nanoTime()), by job id. */
    final Map<String, Long> created = new ConcurrentHashMap<>();

    @Override
    public synchronized MockResponse dispatch(RecordedRequest r) {
        try {
            String full = r.getPath();
            int q = full.indexOf('?');
            String path = q < 0 ? full : full.substring(0, q);
            String query = q < 0 ? "" : URLDecoder.decode(full.substring(q + 1), StandardCharsets.UTF_8);
            String m = r.getMethod();
            String[] p = path.substring(1).split("/");
            if (path.equals("/api/v1/nodes")) {
                if (m.equals("POST")) {
                    ObjectNode n = (ObjectNode) JSON.readTree(r.getUtf8Body());
                    stamp(n);
                    nodes.put(n.path("metadata").path("name").asText(), n);
                    return json(201, n);
                }
                return json(200, list("NodeList", "v1", nodes, null));
            }
            if (path.equals("/api/v1/pods")) {
                return json(200, list("PodList", "v1", Map.of(), null));
            }
            if (path.equals("/apis/batch/v1/jobs")) {
                return json(200, list("JobList", "batch/v1", jobs, query.startsWith("labelSelector=") ? query.substring("labelSelector=".length()) : null));
            }
            // /apis/batch/v1/namespaces/NS/jobs[/NAME]
            if (p.length >= 6 && p[0].equals("apis") && p[1].equals("batch") && p[3].equals("namespaces") && p[5].equals("jobs")) {
                String ns = p[4];
                if (p.length == 6 && m.equals("POST")) {
                    ObjectNode j = (ObjectNode) JSON.readTree(r.getUtf8Body());
                    String key = ns + "/" + j.path("metadata").path("name").asText();
                    if (jobs.containsKey(key)) {
                        return status(409, "AlreadyExists", "jobs.batch \"" + key + "\" already exists");
                    }
                    ((ObjectNode) j.get("metadata")).put("namespace", ns);
                    stamp(j);
                    jobs.put(key, j);
                    String id = j.path("metadata").path("annotations").path(MultiClusterManager.JOB_ID_ANNOTATION).asText("");
                    if (!id.isEmpty()) {
                        created.put(id, System.nanoTime());
                    }
                    return json(201, j);
                }
                if (p.length == 7) {
                    String key = ns + "/" + p[6];
                    ObjectNode j = jobs.get(key);
                    if (j == null) {
                        return status(404, "NotFound", "jobs.batch \"" + p[6] + "\" not found");
                    }
                    switch (m) {
                        case "GET" -> {
                            return json(200, j);
                        }
                        case "PATCH" -> {
                            merge(j, JSON.readTree(r.getUtf8Body()));
                            stamp(j);
                            return json(200, j);
                        }
                        case "DELETE" -> {
                            jobs.remove(key);
                            return json(200, j);
                        }
                        default -> {
                            return status(405, "MethodNotAllowed", m);
                        }
                    }
                }
            }
            return status(404, "NotFound", path);
        } catch (IOException | RuntimeException e) {
            return status(400, "BadRequest", String.valueOf(e.getMessage()));
        }
    }

    private void stamp(ObjectNode o) {
        ObjectNode meta = o.has("metadata") ? (ObjectNode) o.get("metadata") : o.putObject("metadata");
        if (!meta.has("uid")) {
            meta.put("uid", java.util.UUID.randomUUID().toString());
            meta.put("creationTimestamp", Instant.now().toString().replaceAll("\\.\\d+Z$", "Z"));
        }
        meta.put("resourceVersion", Long.toString(version.incrementAndGet()));
    }

    private static void merge(ObjectNode into, JsonNode patch) {
        Iterator<Map.Entry<String, JsonNode>> it = patch.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNull()) {
                into.remove(e.getKey());
            } else if (e.getValue().isObject() && into.get(e.getKey()) instanceof ObjectNode o) {
                merge(o, e.getValue());
            } else {
                into.set(e.getKey(), e.getValue());
            }
        }
    }

    private ObjectNode list(String kind, String apiVersion, Map<String, ObjectNode> items, String selector) {
        ObjectNode l = JSON.createObjectNode();
        l.put("kind", kind);
        l.put("apiVersion", apiVersion);
        l.putObject("metadata").put("resourceVersion", Long.toString(version.get()));
        ArrayNode a = l.putArray("items");
        String k = null;
        String v = null;
        if (selector != null && selector.contains("=")) {
            k = selector.substring(0, selector.indexOf('='));
            v = selector.substring(selector.indexOf('=') + 1);
        }
        for (ObjectNode o : items.values()) {
            if (k == null || v.equals(o.path("metadata").path("labels").path(k).asText(null))) {
                a.add(o);
            }
        }
        return l;
    }

    private static MockResponse json(int code, JsonNode body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body.toString());
    }

    private static MockResponse status(int code, String reason, String message) {
        ObjectNode s = JSON.createObjectNode();
        s.put("kind", "Status");
        s.put("apiVersion", "v1");
        s.put("status", "Failure");
        s.put("reason", reason);
        s.put("message", message);
        s.put("code", code);
        return json(code, s);
    }
}
