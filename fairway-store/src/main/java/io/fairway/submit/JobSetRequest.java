package io.fairway.submit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job set to submit, in the shape {@code armadactl submit} reads:
 *
 * <pre>{@code
 * queue: team-a
 * jobSetId: run-7
 * jobs:
 *   - priority: 0
 *     namespace: default
 *     labels: {app: train}
 *     annotations: {fairway.io/podset-required-topology: topology.kubernetes.io/rack}
 *     parallelism: 4          # a gang of 4 pods, admitted together (Fairway's addition)
 *     podSpec: {containers: [...], restartPolicy: Never}
 * }</pre>
 *
 * @param queue the queue
 * @param jobSetId the job set
 * @param jobs the jobs, at least one
 */
public record JobSetRequest(String queue, String jobSetId, List<Item> jobs) {
    /** The most jobs in one request. */
    public static final int MAX_JOBS = 10_000;
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TOP = Set.of("queue", "jobSetId", "jobs");
    private static final Set<String> ITEM = Set.of("priority", "namespace", "labels", "annotations", "parallelism", "podSpec", "clientId");
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final java.util.regex.Pattern SET = java.util.regex.Pattern.compile("[A-Za-z0-9][-A-Za-z0-9_.]{0,127}");

    /**
     * One job of the set.
     *
     * @param priority its priority (higher first)
     * @param namespace the namespace its pods run in (default {@code default})
     * @param labels labels of the Job
     * @param annotations annotations of the Job (topology requests among them)
     * @param parallelism pods run together as a gang, 1..10,000
     * @param podSpec the pod spec, as Kubernetes takes it
     */
    public record Item(int priority, String namespace, Map<String, String> labels, Map<String, String> annotations, int parallelism,
                       ObjectNode podSpec) {
        /** Copies. */
        public Item {
            labels = Map.copyOf(labels);
            annotations = Map.copyOf(annotations);
        }
    }

    /** Copies. */
    public JobSetRequest {
        jobs = List.copyOf(jobs);
    }

    /**
     * @param text the job set, YAML or JSON
     * @return it, checked
     * @throws IllegalArgumentException naming the field and value that is wrong
     */
    public static JobSetRequest parse(String text) {
        JsonNode root;
        try {
            root = text.stripLeading().startsWith("{") ? JSON.readTree(text) : YAML.readTree(text); // JSON parses several times faster
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("job set: not YAML or JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("job set: must be a mapping with queue, jobSetId and jobs");
        }
        unknown(root, TOP, "");
        String queue = text(root, "queue");
        String set = text(root, "jobSetId");
        check(NAME.matcher(queue).matches(), "queue", queue, "a queue name (lowercase letters, digits and '-', at most 63)");
        check(SET.matcher(set).matches(), "jobSetId", set, "1..128 letters, digits, '-', '_' or '.'");
        JsonNode jobs = root.get("jobs");
        check(jobs != null && jobs.isArray() && !jobs.isEmpty() && jobs.size() <= MAX_JOBS, "jobs", jobs == null ? null : jobs.size() + " jobs",
                "a list of 1.." + MAX_JOBS + " jobs");
        List<Item> items = new ArrayList<>(jobs.size());
        String lastNs = null;
        for (int i = 0; i < jobs.size(); i++) {
            String at = "jobs[" + i + "]";
            JsonNode j = jobs.get(i);
            check(j.isObject(), at, j, "a mapping");
            unknown(j, ITEM, at + ".");
            JsonNode p = j.get("priority");
            check(p == null || p.canConvertToInt() && p.isIntegralNumber(), at + ".priority", p, "an integer");
            String ns = j.has("namespace") ? j.get("namespace").asText() : "default";
            check(ns.equals(lastNs) || NAME.matcher(ns).matches(), at + ".namespace", ns, "a namespace name");
            JsonNode par = j.get("parallelism");
            check(par == null || par.isIntegralNumber() && par.asInt() >= 1 && par.asInt() <= 10_000, at + ".parallelism", par, "1..10000");
            JsonNode pod = j.get("podSpec");
            check(pod != null && pod.isObject() && pod.path("containers").isArray() && !pod.path("containers").isEmpty(), at + ".podSpec",
                    pod == null ? null : "(no containers)", "a pod spec with at least one container");
            items.add(new Item(p == null ? 0 : p.asInt(), ns, strings(j, "labels", at), strings(j, "annotations", at),
                    par == null ? 1 : par.asInt(), (ObjectNode) pod)); // the tree is this request's own
            lastNs = ns;
        }
        return new JobSetRequest(queue, set, items);
    }

    private static Map<String, String> strings(JsonNode j, String field, String at) {
        JsonNode m = j.get(field);
        Map<String, String> out = new LinkedHashMap<>();
        if (m == null || m.isNull()) {
            return out;
        }
        check(m.isObject(), at + "." + field, m, "a mapping of strings");
        Iterator<Map.Entry<String, JsonNode>> it = m.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            check(e.getValue().isValueNode() && e.getKey().length() <= 316, at + "." + field + "." + e.getKey(), e.getValue(), "a string");
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private static void unknown(JsonNode o, Set<String> known, String at) {
        Iterator<String> it = o.fieldNames();
        while (it.hasNext()) {
            String f = it.next();
            check(known.contains(f), at + f, "(unknown field)", "one of " + new java.util.TreeSet<>(known));
        }
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        check(v != null && v.isTextual(), field, v, "a string");
        return v.asText();
    }

    static void check(boolean ok, String field, Object value, String expected) {
        if (!ok) {
            String v = String.valueOf(value);
            throw new IllegalArgumentException(field + " must be " + expected + ", was " + (v.length() > 80 ? v.substring(0, 77) + "..." : v));
        }
    }
}
