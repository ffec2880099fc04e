package io.fairway.k8s.kinds;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fairway.k8s.integration.Specs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * The upstream CustomResourceDefinitions kept beside the repository ({@code ../shared/k8s-crds/<operator>/}, byte-identical
 * copies of each operator's released CRD, with their provenance): loaded to validate what an integration writes against
 * the operator's real schema, and to serve them on the mock API server. A test that needs them skips with a message when
 * they are absent, and fails instead when {@code FAIRWAY_REQUIRE_SHARED} is set (not 0 or false), as CI sets it.
 */
public final class SharedCrds {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Map<String, JsonNode> CACHE = new ConcurrentHashMap<>();

    private SharedCrds() {
    }

    /** @return the folder of upstream CRDs; skips (or fails under FAIRWAY_REQUIRE_SHARED) when it is absent */
    public static Path dir() {
        Path d = Path.of("..", "..", "shared", "k8s-crds").toAbsolutePath().normalize();
        if (!Files.isDirectory(d)) {
            String msg = "the upstream CRDs are not at " + d + " (../shared/k8s-crds beside the repository)";
            String req = System.getenv("FAIRWAY_REQUIRE_SHARED");
            if (req != null && !req.isBlank() && !req.equals("0") && !req.equalsIgnoreCase("false")) {
                fail(msg + "; FAIRWAY_REQUIRE_SHARED is set, so this fails rather than skips");
            }
            Assumptions.abort(msg + "; skipped");
        }
        return d;
    }

    /**
     * @param file a CRD file under the folder, e.g. {@code trainer/v2.3.0/trainer.kubeflow.org_trainjobs.yaml}
     * @return it, as JSON
     */
    public static JsonNode crd(String file) {
        Path p = dir().resolve(file);
        return CACHE.computeIfAbsent(p.toString(), k -> {
            try {
                return YAML.readTree(p.toFile());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** @return the CRD as a fabric8 object (to serve it through an {@link io.fairway.k8s.integration.ApiLookup}) */
    static GenericKubernetesResource resource(JsonNode crd) {
        return Specs.MAPPER.convertValue(crd, GenericKubernetesResource.class);
    }

    /**
     * @param crd a CRD
     * @param version the served version
     * @param object an object of its kind (apiVersion, kind, metadata, spec, status)
     * @return what the version's OpenAPI v3 schema finds wrong with it (draft 4 semantics, as OpenAPI 3.0's)
     */
    static List<String> errors(JsonNode crd, String version, JsonNode object) {
        for (JsonNode v : crd.at("/spec/versions")) {
            if (version.equals(v.path("name").asText())) {
                List<String> out = new ArrayList<>();
                JsonNode schema = v.at("/schema/openAPIV3Schema");
                for (ValidationMessage m : JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema).validate(object)) {
                    out.add(m.getMessage());
                }
                for (String top : List.of("spec", "status")) {
                    if (object.has(top)) {
                        pruned(object.get(top), schema.at("/properties/" + top), "/" + top, out);
                    }
                }
                return out;
            }
        }
        throw new AssertionError("the CRD serves no version " + version);
    }

    /** The API server prunes fields a structural schema does not list: each such field of the object is an error. */
    private static void pruned(JsonNode value, JsonNode schema, String path, List<String> out) {
        if (schema.isMissingNode() || schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            return;
        }
        if (value.isObject()) {
            JsonNode props = schema.path("properties");
            JsonNode additional = schema.path("additionalProperties");
            value.fields().forEachRemaining(e -> {
                if (props.has(e.getKey())) {
                    pruned(e.getValue(), props.get(e.getKey()), path + "/" + e.getKey(), out);
                } else if (additional.isObject()) {
                    pruned(e.getValue(), additional, path + "/" + e.getKey(), out);
                } else if (!additional.asBoolean(false)) {
                    out.add(path + "/" + e.getKey() + ": not in the CRD's schema (the API server would prune it)");
                }
            });
        } else if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                pruned(value.get(i), schema.path("items"), path + "/" + i, out);
            }
        }
    }

    /**
     * @param crd a CRD
     * @param version a version
     * @param pointer a JSON Pointer of a property in that version's schema, e.g. {@code /properties/spec/properties/pod}
     * @param property a property to remove there
     * @return a copy of the CRD without it (what an older operator's CRD looks like)
     */
    public static JsonNode without(JsonNode crd, String version, String pointer, String property) {
        JsonNode copy = crd.deepCopy();
        for (JsonNode v : copy.at("/spec/versions")) {
            if (version.equals(v.path("name").asText())) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) v.at("/schema/openAPIV3Schema" + pointer + "/properties")).remove(property);
            }
        }
        return copy;
    }
}
