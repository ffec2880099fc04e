package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fairway.k8s.audit.ApiRules;
import io.fairway.k8s.audit.CrdSchemas;
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
                    if (!apiVersion.contains("/")) {
                        continue; // core/v1 (the pod-group example's pods): checked by the API server's own types
                    }
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
