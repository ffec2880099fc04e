package io.fairway.k8s.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The upstream CustomResourceDefinitions of the kinds Fairway queues (copies kept beside the repository, in
 * {@code ../shared/k8s-crds}, never in it), and a check of an object against the structural schema of its served
 * version as kube-apiserver applies it: fields the schema does not declare (where it does not preserve unknown
 * fields) are what the API server would prune, wrong types, missing required fields and values outside an enum are
 * what it would refuse. The tests' API server refuses all of them, so a write that would silently lose a field on a
 * real cluster fails a test here.
 *
 * <p>Tests that need the CRDs call {@link #requireShared()}: they skip with a message when the folder is missing,
 * and fail instead when {@code FAIRWAY_REQUIRE_SHARED=1} is set (as CI does).
 */
public final class CrdSchemas {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Map<String, Optional<JsonNode>> CRDS = new ConcurrentHashMap<>();
    /** The Trainer release whose TrainJob CRD is checked by default (the folder holds v2.0.0 and v2.3.0). */
    public static final String TRAINER_DEFAULT = "v2.3.0";

    private CrdSchemas() {
    }

    /** @return the folder of upstream CRDs, or empty when this machine does not have it */
    public static Optional<Path> sharedCrds() {
        String env = System.getenv("FAIRWAY_SHARED");
        for (Path p : new Path[] {env == null ? null : Path.of(env, "k8s-crds"), Path.of("..", "..", "shared", "k8s-crds"),
                Path.of("..", "shared", "k8s-crds")}) {
            if (p != null && Files.isRegularFile(p.resolve("PROVENANCE.md"))) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** @return true when a missing shared folder must fail a test: {@code FAIRWAY_REQUIRE_SHARED} set (not 0/false) */
    public static boolean sharedRequired() {
        String v = System.getenv("FAIRWAY_REQUIRE_SHARED");
        return v != null && !v.isBlank() && !v.equals("0") && !v.equalsIgnoreCase("false") || Boolean.getBoolean("fairway.requireShared");
    }

    /**
     * Skips the calling test when the upstream CRDs are missing (fails it when they are required).
     *
     * @return the folder
     */
    public static Path requireShared() {
        Optional<Path> p = sharedCrds();
        if (p.isEmpty()) {
            String msg = "the upstream CRDs (../shared/k8s-crds beside the repository) are missing";
            if (sharedRequired()) {
                throw new AssertionError(msg + " and FAIRWAY_REQUIRE_SHARED is set");
            }
            Assumptions.abort(msg + "; skipped (set FAIRWAY_REQUIRE_SHARED=1 to make this fail)");
        }
        return p.get();
    }

    /**
     * @param group an API group
     * @param plural a resource's plural name
     * @return the upstream CRD of that resource, or empty when the shared folder or the CRD is missing
     */
    public static Optional<JsonNode> crd(String group, String plural) {
        return crd(group, plural, TRAINER_DEFAULT);
    }

    /**
     * @param group an API group
     * @param plural a resource's plural name
     * @param trainerVersion for Trainer's kinds, the release ("v2.0.0" or "v2.3.0")
     * @return the upstream CRD of that resource, or empty when the shared folder or the CRD is missing
     */
    public static Optional<JsonNode> crd(String group, String plural, String trainerVersion) {
        return CRDS.computeIfAbsent(group + "/" + plural + "@" + trainerVersion, k -> load(group, plural, trainerVersion));
    }

    private static Optional<JsonNode> load(String group, String plural, String trainerVersion) {
        Optional<Path> dir = sharedCrds();
        if (dir.isEmpty()) {
            return Optional.empty();
        }
        String file = group + "_" + plural + ".yaml";
        try (Stream<Path> s = Files.walk(dir.get())) {
            List<Path> found = s.filter(p -> p.getFileName().toString().equals(file)).sorted().toList();
            Path chosen = found.stream().filter(p -> !group.startsWith("trainer.") || p.toString().contains(trainerVersion)).findFirst()
                    .orElse(found.isEmpty() ? null : found.get(0));
            return chosen == null ? Optional.empty() : Optional.of(YAML.readTree(chosen.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the openAPIV3Schema of the CRD's version, or null when it does not serve that version */
    static JsonNode schema(JsonNode crd, String version) {
        for (JsonNode v : crd.at("/spec/versions")) {
            if (version.equals(v.path("name").asText())) {
                return v.at("/schema/openAPIV3Schema");
            }
        }
        return null;
    }

    /** @return whether the CRD's version has the status subresource */
    static boolean hasStatus(JsonNode crd, String version) {
        for (JsonNode v : crd.at("/spec/versions")) {
            if (version.equals(v.path("name").asText())) {
                return v.at("/subresources/status").isObject();
            }
        }
        return false;
    }

    /**
     * @param crd a CRD
     * @param object an object of its kind
     * @return what the API server would prune or refuse in it (empty: accepted as it is)
     */
    public static List<String> problems(JsonNode crd, JsonNode object) {
        String apiVersion = object.path("apiVersion").asText();
        String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
        JsonNode schema = schema(crd, version);
        if (schema == null) {
            return List.of("apiVersion: " + apiVersion + " is not served by the CRD " + crd.at("/metadata/name").asText());
        }
        List<String> out = new ArrayList<>();
        check("", schema, object, true, out);
        return out;
    }

    private static void check(String path, JsonNode schema, JsonNode value, boolean root, List<String> out) {
        if (value == null || value.isNull()) {
            return; // a null is dropped by the API server's decoding unless nullable: treated as absent
        }
        if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
            if (!value.isIntegralNumber() && !value.isTextual()) {
                out.add(at(path) + ": must be an integer or a string, was " + value);
            }
            return;
        }
        String type = schema.path("type").asText("");
        boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        switch (type) {
            case "object" -> {
                if (!value.isObject()) {
                    out.add(at(path) + ": must be an object, was " + value.getNodeType());
                    return;
                }
                JsonNode props = schema.path("properties");
                JsonNode extra = schema.get("additionalProperties");
                boolean embedded = root || schema.path("x-kubernetes-embedded-resource").asBoolean(false);
                for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> e = it.next();
                    String k = e.getKey();
                    String p = path + "." + k;
                    if (embedded && (k.equals("apiVersion") || k.equals("kind"))) {
                        continue;
                    }
                    if (embedded && k.equals("metadata") && !props.has("metadata")) {
                        continue; // ObjectMeta, validated by the API server itself
                    }
                    if (root && k.equals("metadata")) {
                        continue;
                    }
                    if (props.has(k)) {
                        check(p, props.get(k), e.getValue(), false, out);
                    } else if (extra != null && extra.isObject()) {
                        check(p, extra, e.getValue(), false, out);
                    } else if (extra != null && extra.asBoolean(false) || preserve) {
                        continue;
                    } else if (!e.getValue().isNull()) {
                        out.add(at(p) + ": unknown field (the API server prunes it)");
                    }
                }
                for (JsonNode r : schema.path("required")) {
                    if (!value.has(r.asText()) || value.get(r.asText()).isNull()) {
                        out.add(at(path + "." + r.asText()) + ": Required value");
                    }
                }
            }
            case "array" -> {
                if (!value.isArray()) {
                    out.add(at(path) + ": must be a list, was " + value.getNodeType());
                    return;
                }
                for (int i = 0; i < value.size(); i++) {
                    check(path + "[" + i + "]", schema.path("items"), value.get(i), false, out);
                }
            }
            case "string" -> {
                if (!value.isTextual()) {
                    out.add(at(path) + ": must be a string, was " + value);
                }
            }
            case "integer" -> {
                if (!value.isIntegralNumber()) {
                    out.add(at(path) + ": must be an integer, was " + value);
                }
            }
            case "number" -> {
                if (!value.isNumber()) {
                    out.add(at(path) + ": must be a number, was " + value);
                }
            }
            case "boolean" -> {
                if (!value.isBoolean()) {
                    out.add(at(path) + ": must be a boolean, was " + value);
                }
            }
            default -> {
                // no type: anything (only with x-kubernetes-preserve-unknown-fields in a structural schema)
            }
        }
        if (schema.has("enum") && (value.isValueNode())) {
            boolean ok = false;
            for (JsonNode e : schema.get("enum")) {
                ok |= e.equals(value);
            }
            if (!ok) {
                out.add(at(path) + ": Unsupported value " + value + ", supported: " + schema.get("enum"));
            }
        }
    }

    private static String at(String path) {
        return path.isEmpty() ? "." : path.substring(1);
    }
}
