package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fairway.k8s.audit.ApiRules;
import io.fairway.k8s.audit.CrdSchemas;
import io.fairway.k8s.integration.Specs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every manifest in {@code deploy/examples} is accepted by a real API server as written: each object of an
 * operator's kind validates against that operator's upstream CRD (no field the API server would prune, types and
 * required fields as declared), a UnifiedJob against Fairway's own CRD, a batch/v1 Job against kube-apiserver's
 * create rules. (What the adapter writes into them is checked by the tests' API server in every adapter test.)
 */
class DeployExamplesSchemaTest {
    private static final Path EXAMPLES = Path.of("..", "deploy", "examples");

    @Test
    void everyExampleValidatesAgainstItsUpstreamSchema() throws IOException {
        CrdSchemas.requireShared();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(EXAMPLES)) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        for (Path f : files) {
            try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class).readValues(Files.readString(f))) {
                for (JsonNode o : docs.readAll()) {
                    if (o == null || o.isNull() || o.isEmpty()) {
                        continue;
                    }
                    String apiVersion = o.path("apiVersion").asText();
                    String kind = o.path("kind").asText();
                    String where = f.getFileName() + " " + kind + " " + o.at("/metadata/name").asText() + ": ";
                    if (apiVersion.equals("batch/v1") && kind.equals("Job")) {
                        ApiRules.jobCreate(o).forEach(p -> problems.add(where + p));
                        checked++;
                        continue;
                    }
                    Class<?> builtIn = BUILT_IN.get(apiVersion + " " + kind);
                    if (builtIn != null) {
                        unknownFields(Specs.MAPPER.convertValue(o, builtIn), "").forEach(p -> problems.add(where + p + " is not a field of " + kind));
                        checked++;
                        continue;
                    }
                    assertThat(apiVersion).as(where + "a kind this test knows").contains("/");
                    String group = apiVersion.substring(0, apiVersion.indexOf('/'));
                    Optional<JsonNode> crd = crdFor(group, kind);
                    assertThat(crd).as(where + "the upstream CRD of %s", apiVersion + " " + kind).isPresent();
                    CrdSchemas.problems(crd.get(), o).forEach(p -> problems.add(where + p));
                    checked++;
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(checked).isGreaterThanOrEqualTo(files.size() - 1);
    }

    /** Built-in kinds, checked against the Kubernetes API types (fabric8's models, generated from its OpenAPI schema). */
    private static final java.util.Map<String, Class<?>> BUILT_IN = java.util.Map.of(
            "v1 Pod", io.fabric8.kubernetes.api.model.Pod.class,
            "apps/v1 Deployment", io.fabric8.kubernetes.api.model.apps.Deployment.class,
            "apps/v1 StatefulSet", io.fabric8.kubernetes.api.model.apps.StatefulSet.class);

    /**
     * @return the paths of the fields of a built-in object that its API type does not declare (fabric8 keeps them in
     *     {@code additionalProperties}; kube-apiserver would refuse or drop them)
     */
    static List<String> unknownFields(Object model, String path) {
        List<String> out = new ArrayList<>();
        if (model == null || !model.getClass().getPackageName().startsWith("io.fabric8.kubernetes.api.model")) {
            if (model instanceof java.util.Collection<?> c) {
                int i = 0;
                for (Object e : c) {
                    out.addAll(unknownFields(e, path + "[" + i++ + "]"));
                }
            } else if (model instanceof java.util.Map<?, ?> m) {
                m.forEach((k, v) -> out.addAll(unknownFields(v, path + "[" + k + "]")));
            }
            return out;
        }
        for (java.lang.reflect.Method g : model.getClass().getMethods()) {
            if (g.getParameterCount() != 0 || !g.getName().startsWith("get") || g.getDeclaringClass() == Object.class) {
                continue;
            }
            Object v;
            try {
                v = g.invoke(model);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            String name = Character.toLowerCase(g.getName().charAt(3)) + g.getName().substring(4);
            if (name.equals("additionalProperties") && v instanceof java.util.Map<?, ?> extra) {
                extra.keySet().forEach(k -> out.add(path + "." + k)); // (a CRD schema's own additionalProperties keyword is a field)
            } else if (!(v instanceof io.fabric8.kubernetes.api.model.Quantity)) {
                out.addAll(unknownFields(v, path + "." + name));
            }
        }
        return out;
    }

    @Test
    void anUndeclaredFieldOfABuiltInKindIsFound() {
        JsonNode bad = Specs.MAPPER.valueToTree(java.util.Map.of("apiVersion", "apps/v1", "kind", "StatefulSet", "metadata", java.util.Map.of("name", "x"),
                "spec", java.util.Map.of("replica", 3, "template", java.util.Map.of("spec", java.util.Map.of("containers", List.of(java.util.Map.of(
                        "name", "c", "resource", java.util.Map.of())))))));
        assertThat(unknownFields(Specs.MAPPER.convertValue(bad, io.fabric8.kubernetes.api.model.apps.StatefulSet.class), ""))
                .containsExactlyInAnyOrder(".spec.replica", ".spec.template.spec.containers[0].resource");
    }

    private static Optional<JsonNode> crdFor(String group, String kind) throws IOException {
        if (group.equals("fairway.io")) {
            try (Stream<Path> s = Files.list(Path.of("..", "deploy", "crds"))) {
                for (Path p : s.toList()) {
                    JsonNode c = new YAMLMapper().readTree(p.toFile());
                    if (c.at("/spec/names/kind").asText().equals(kind)) {
                        return Optional.of(c);
                    }
                }
            }
            return Optional.empty();
        }
        String plural = kind.toLowerCase(java.util.Locale.ROOT) + "s";
        // the TrainJob example is written for Trainer v2.0 (spec.podSpecOverrides), which the TrainJob integration targets
        return CrdSchemas.crd(group, plural, kind.equals("TrainJob") ? "v2.0.0" : CrdSchemas.TRAINER_DEFAULT);
    }
}
