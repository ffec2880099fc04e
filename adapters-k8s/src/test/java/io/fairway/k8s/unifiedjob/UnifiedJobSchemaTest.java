package io.fairway.k8s.unifiedjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The UnifiedJob CRD ({@code deploy/crds/fairway.io_unifiedjobs.yaml}): a structural schema (every field typed,
 * unknown fields only under {@code spec.template.spec}), printer columns for queue, state, replicas and reason, the
 * status subresource; the example manifests validate against its OpenAPI v3 schema (with a JSON-schema validator,
 * OpenAPI 3.0's schema being draft 4's) and malformed UnifiedJobs do not.
 */
class UnifiedJobSchemaTest {
    static final Path CRD = Path.of("..", "deploy", "crds", "fairway.io_unifiedjobs.yaml");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static JsonSchema schema;

    static JsonNode crd() {
        try {
            return YAML.readTree(CRD.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static synchronized JsonSchema schema() {
        if (schema == null) {
            JsonNode openApi = crd().at("/spec/versions/0/schema/openAPIV3Schema");
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(openApi);
        }
        return schema;
    }

    /**
     * @param unifiedJob a UnifiedJob's JSON (metadata, spec, status)
     * @return what the CRD's schema finds wrong with it
     */
    static List<String> errors(JsonNode unifiedJob) {
        List<String> out = new ArrayList<>();
        for (ValidationMessage m : schema().validate(unifiedJob)) {
            out.add(m.getMessage());
        }
        return out;
    }

    @Test
    void theCrdIsStructuralWithStatusAndPrinterColumns() {
        JsonNode v = crd().at("/spec/versions/0");
        assertThat(crd().at("/spec/group").asText()).isEqualTo("fairway.io");
        assertThat(crd().at("/spec/scope").asText()).isEqualTo("Namespaced");
        assertThat(v.path("name").asText()).isEqualTo("v1alpha1");
        assertThat(v.at("/subresources/status").isObject()).isTrue();
        List<String> columns = new ArrayList<>();
        v.path("additionalPrinterColumns").forEach(c -> columns.add(c.path("name").asText() + "=" + c.path("jsonPath").asText()));
        assertThat(columns).contains("Queue=.spec.queueName", "State=.status.state", "Replicas=.status.replicas", "Reason=.status.pendingReason");
        List<String> untyped = new ArrayList<>();
        structural(v.at("/schema/openAPIV3Schema"), "", untyped);
        assertThat(untyped).as("every node of a structural schema has a type, or preserves unknown fields").isEmpty();
        assertThat(v.at("/schema/openAPIV3Schema/properties/spec/properties/template/properties/spec/x-kubernetes-preserve-unknown-fields").asBoolean())
                .isTrue();
    }

    private static void structural(JsonNode s, String path, List<String> untyped) {
        if (!s.has("type") && !s.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
            untyped.add(path);
        }
        for (Iterator<String> it = s.path("properties").fieldNames(); it.hasNext();) {
            String f = it.next();
            structural(s.path("properties").path(f), path + "." + f, untyped);
        }
        if (s.path("items").isObject()) {
            structural(s.path("items"), path + "[]", untyped);
        }
        if (s.path("additionalProperties").isObject()) {
            structural(s.path("additionalProperties"), path + "{}", untyped);
        }
    }

    @Test
    void theExampleManifestsAreValid() throws IOException {
        List<Path> examples;
        try (Stream<Path> s = Files.list(Path.of("..", "deploy", "examples"))) {
            examples = s.filter(p -> p.getFileName().toString().startsWith("unifiedjob-") || p.getFileName().toString().equals("minicluster.yaml"))
                    .sorted().toList();
        }
        assertThat(examples).isNotEmpty();
        for (Path p : examples) {
            assertThat(errors(YAML.readTree(p.toFile()))).as(p.toString()).isEmpty();
        }
    }

    @Test
    void malformedUnifiedJobsAreRejectedNamingTheField() throws IOException {
        ObjectNode good = (ObjectNode) YAML.readTree(Path.of("..", "deploy", "examples", "unifiedjob-minicluster.yaml").toFile());
        assertThat(errors(good)).isEmpty();

        ObjectNode noType = good.deepCopy();
        ((ObjectNode) noType.get("spec")).remove("jobType");
        assertThat(errors(noType)).anySatisfy(m -> assertThat(m).contains("jobType"));

        ObjectNode zeroMin = good.deepCopy();
        ((ObjectNode) zeroMin.at("/spec/replicaSpec")).put("minReplicas", 0);
        assertThat(errors(zeroMin)).anySatisfy(m -> assertThat(m).contains("minReplicas"));

        ObjectNode badQueue = good.deepCopy();
        ((ObjectNode) badQueue.get("spec")).put("queueName", "Not_A_Queue");
        assertThat(errors(badQueue)).anySatisfy(m -> assertThat(m).contains("queueName"));

        ObjectNode badState = good.deepCopy();
        badState.putObject("status").put("state", "Sleeping");
        assertThat(errors(badState)).anySatisfy(m -> assertThat(m).contains("state"));

        ObjectNode badCondition = good.deepCopy();
        badCondition.putObject("status").putArray("conditions").addObject().put("type", "Exploded").put("status", "True");
        assertThat(errors(badCondition)).anySatisfy(m -> assertThat(m).contains("type"));
    }

    @Test
    void theKustomizationInstallsTheCrd() throws IOException {
        JsonNode k = YAML.readTree(Path.of("..", "deploy", "kustomization.yaml").toFile());
        List<String> resources = new ArrayList<>();
        k.path("resources").forEach(r -> resources.add(r.asText()));
        assertThat(resources).contains("crds/fairway.io_unifiedjobs.yaml");
        assertThat(Set.copyOf(resources)).hasSameSizeAs(resources);
    }
}
