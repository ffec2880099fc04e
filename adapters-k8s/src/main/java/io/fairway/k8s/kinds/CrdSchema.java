package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fairway.k8s.integration.Specs;

/**
 * Reading a served CustomResourceDefinition's schema: which fields the installed operator's API has. The API server
 * prunes fields a structural schema does not list, so a field missing here is one a write would silently lose.
 */
final class CrdSchema {
    private CrdSchema() {
    }

    /**
     * @param crd a CustomResourceDefinition ({@code apiextensions.k8s.io/v1})
     * @param version the served version to look in
     * @param path property names from the root, e.g. {@code spec}, {@code pod}, {@code tolerations}
     * @return true when the version's schema lists the field, false when it does not, null when the version is not
     *     served or has no schema (nothing can be said)
     */
    static Boolean has(GenericKubernetesResource crd, String version, String... path) {
        JsonNode schema = schema(crd, version);
        if (schema == null) {
            return null;
        }
        JsonNode n = schema;
        for (String p : path) {
            if (n.path("x-kubernetes-preserve-unknown-fields").asBoolean(false) && !n.path("properties").has(p)) {
                return true;
            }
            n = n.path("properties").path(p);
            if (n.isMissingNode()) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param crd a CustomResourceDefinition
     * @param version a version name
     * @return true when that version is served
     */
    static boolean serves(GenericKubernetesResource crd, String version) {
        return schemaVersion(crd, version) != null;
    }

    private static JsonNode schemaVersion(GenericKubernetesResource crd, String version) {
        for (JsonNode v : Specs.toJson(crd).at("/spec/versions")) {
            if (version.equals(v.path("name").asText()) && v.path("served").asBoolean(true)) {
                return v;
            }
        }
        return null;
    }

    private static JsonNode schema(GenericKubernetesResource crd, String version) {
        JsonNode v = schemaVersion(crd, version);
        JsonNode s = v == null ? null : v.at("/schema/openAPIV3Schema");
        return s == null || !s.isObject() ? null : s;
    }
}
