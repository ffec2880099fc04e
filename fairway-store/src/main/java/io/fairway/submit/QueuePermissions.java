package io.fairway.submit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Who may do what in which queue, in the shape of Armada's queue permissions:
 *
 * <pre>{@code
 * queues:
 *   - name: team-a
 *     permissions:
 *       - subjects: [{kind: Group, name: ml}, {kind: User, name: alice}]
 *         verbs: [submit, cancel, reprioritize, watch]
 * }</pre>
 *
 * A queue not listed allows nothing. A subject of kind {@code User} matches the token's subject, {@code Group} one of
 * its groups; {@code Group} named {@code *} matches everyone authenticated.
 */
public final class QueuePermissions {
    /** What a request does. */
    public enum Verb {
        /** submit jobs to the queue */
        SUBMIT,
        /** cancel jobs of the queue */
        CANCEL,
        /** change the priority of jobs of the queue */
        REPRIORITIZE,
        /** read a job set's events */
        WATCH
    }

    private final Map<String, Map<Verb, Set<String>>> grants;

    private QueuePermissions(Map<String, Map<Verb, Set<String>>> grants) {
        this.grants = grants;
    }

    /**
     * @param yaml the permissions (see the class comment)
     * @return them
     * @throws IllegalArgumentException naming the field and value that is wrong
     */
    public static QueuePermissions parse(String yaml) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
        } catch (IOException e) {
            throw new IllegalArgumentException("permissions: not YAML: " + e.getMessage(), e);
        }
        Map<String, Map<Verb, Set<String>>> out = new HashMap<>();
        JsonNode queues = root == null ? null : root.get("queues");
        if (queues == null || !queues.isArray()) {
            throw new IllegalArgumentException("permissions: 'queues' must be a list");
        }
        for (int i = 0; i < queues.size(); i++) {
            JsonNode q = queues.get(i);
            String name = q.path("name").asText("");
            if (!name.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
                throw new IllegalArgumentException("permissions: queues[" + i + "].name must be a queue name, was '" + name + "'");
            }
            Map<Verb, Set<String>> verbs = out.computeIfAbsent(name, k -> new HashMap<>());
            JsonNode perms = q.path("permissions");
            for (int j = 0; j < perms.size(); j++) {
                String at = "queues[" + i + "].permissions[" + j + "]";
                Set<String> subjects = new HashSet<>();
                for (JsonNode s : perms.get(j).path("subjects")) {
                    String kind = s.path("kind").asText("");
                    String sub = s.path("name").asText("");
                    if (!(kind.equals("User") || kind.equals("Group")) || sub.isBlank()) {
                        throw new IllegalArgumentException("permissions: " + at + ".subjects: each needs kind User or Group and a name, was " + s);
                    }
                    subjects.add(kind.toLowerCase(Locale.ROOT) + ":" + sub);
                }
                EnumSet<Verb> vs = EnumSet.noneOf(Verb.class);
                Iterator<JsonNode> it = perms.get(j).path("verbs").elements();
                while (it.hasNext()) {
                    String v = it.next().asText("");
                    try {
                        vs.add(Verb.valueOf(v.toUpperCase(Locale.ROOT)));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("permissions: " + at + ".verbs: unknown verb '" + v
                                + "' (submit, cancel, reprioritize, watch)", e);
                    }
                }
                for (Verb v : vs) {
                    verbs.computeIfAbsent(v, k -> new HashSet<>()).addAll(subjects);
                }
            }
        }
        return new QueuePermissions(out);
    }

    /**
     * @param who the principal
     * @param verb what it does
     * @param queue where
     * @return true when a grant of the queue names the user, one of its groups, or the group {@code *}
     */
    public boolean allows(Principal who, Verb verb, String queue) {
        Set<String> s = grants.getOrDefault(queue, Map.of()).getOrDefault(verb, Set.of());
        if (s.contains("user:" + who.name()) || s.contains("group:*")) {
            return true;
        }
        for (String g : who.groups()) {
            if (s.contains("group:" + g)) {
                return true;
            }
        }
        return false;
    }
}
