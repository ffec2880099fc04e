package io.fairway.k8s.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An audited client of the mock API server: every request it makes, as RBAC sees it (API group, resource with its
 * subresource, verb), to check against the rules of an RBAC manifest — every request allowed, every granted verb used.
 */
public final class RbacAudit {
    private static final Pattern PATH = Pattern.compile("^/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?$");

    /** The requests seen, as {@code group/resource[/subresource]:verb} ({@code core} for the core group). */
    public final Set<String> used = ConcurrentHashMap.newKeySet();

    /**
     * @param server the mock server
     * @return a client whose every request is recorded in {@link #used}
     */
    public KubernetesClient client(KubernetesMockServer server) {
        return server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("rbac-audit", new Interceptor() {
            @Override
            public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
                record(request);
            }
        })));
    }

    /** The requests seen with where they were made: {@code rule@namespace}, {@code rule@*} for a cluster-wide request. */
    public final Set<String> usedWhere = ConcurrentHashMap.newKeySet();

    /** @param request a request to record, from a client's own interceptor */
    public void record(HttpRequest request) {
        used.add(rule(request));
        Matcher m = PATH.matcher(request.uri().getPath());
        usedWhere.add(rule(request) + "@" + (m.matches() && m.group(2) != null ? m.group(2) : "*"));
    }

    /**
     * The requests seen that the manifest's rules do not allow where they were made: a Role allows in its namespace
     * (renamed through {@code renamed}), a ClusterRole everywhere.
     *
     * @param manifest an RBAC manifest
     * @param renamed namespaces of the manifest to read as others (its example namespace as the test's)
     * @return the denied {@code rule@namespace} requests
     * @throws IOException when it cannot be read
     */
    public Set<String> denied(Path manifest, java.util.Map<String, String> renamed) throws IOException {
        Set<String> allowed = new TreeSet<>();
        Set<String> clusterWide = new TreeSet<>();
        try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class).readValues(Files.readString(manifest))) {
            for (JsonNode d : docs.readAll()) {
                String kind = d.path("kind").asText();
                if (!List.of("ClusterRole", "Role").contains(kind)) {
                    continue;
                }
                String ns = d.at("/metadata/namespace").asText("");
                ns = renamed.getOrDefault(ns, ns);
                for (JsonNode rule : d.path("rules")) {
                    for (JsonNode g : rule.path("apiGroups")) {
                        for (JsonNode res : rule.path("resources")) {
                            for (JsonNode v : rule.path("verbs")) {
                                String r = (g.asText().isEmpty() ? "core" : g.asText()) + "/" + res.asText() + ":" + v.asText();
                                (kind.equals("Role") ? allowed : clusterWide).add(kind.equals("Role") ? r + "@" + ns : r);
                            }
                        }
                    }
                }
            }
        }
        Set<String> out = new TreeSet<>();
        for (String u : usedWhere) {
            String rule = u.substring(0, u.lastIndexOf('@'));
            if (!clusterWide.contains(rule) && !allowed.contains(u)) {
                out.add(u);
            }
        }
        return out;
    }

    /**
     * @param r a request
     * @return {@code group/resource[/subresource]:verb}
     */
    static String rule(HttpRequest r) {
        Matcher m = PATH.matcher(r.uri().getPath());
        if (!m.matches()) {
            return "unparsed:" + r.uri().getPath();
        }
        String group = m.group(1) == null ? "core" : m.group(1);
        String resource = m.group(3) + (m.group(5) == null ? "" : "/" + m.group(5));
        boolean named = m.group(4) != null;
        String query = r.uri().getQuery() == null ? "" : r.uri().getQuery();
        String verb = switch (r.method()) {
            case "GET" -> named ? "get" : query.contains("watch=true") ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> r.method();
        };
        return group + "/" + resource + ":" + verb;
    }

    /**
     * @param manifest an RBAC manifest (ClusterRoles and Roles; bindings are skipped)
     * @return every {@code group/resource:verb} its rules grant
     * @throws IOException when it cannot be read
     */
    public static Set<String> granted(Path manifest) throws IOException {
        Set<String> out = new TreeSet<>();
        try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class).readValues(Files.readString(manifest))) {
            for (JsonNode d : docs.readAll()) {
                if (!List.of("ClusterRole", "Role").contains(d.path("kind").asText())) {
                    continue;
                }
                for (JsonNode rule : d.path("rules")) {
                    for (JsonNode g : rule.path("apiGroups")) {
                        for (JsonNode res : rule.path("resources")) {
                            for (JsonNode v : rule.path("verbs")) {
                                out.add((g.asText().isEmpty() ? "core" : g.asText()) + "/" + res.asText() + ":" + v.asText());
                            }
                        }
                    }
                }
            }
        }
        return out;
    }
}
