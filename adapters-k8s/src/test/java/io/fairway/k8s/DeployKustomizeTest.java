package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fairway.config.QueuesConfig;
import io.fairway.k8s.integration.Integrations;
import io.fairway.k8s.webhook.WebhookServer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/} renders with {@code kubectl kustomize} (Debian's kubernetes-client) for each install: cluster-wide
 * ({@code deploy/}), namespaced ({@code deploy/namespaced}) and Kueue-compatible ({@code deploy/kueue-compatible}, with
 * the admission webhook component {@code deploy/webhook}); every built-in object it renders uses only fields of its
 * Kubernetes API type; and the pieces that must agree do: the webhook's Service, port, path, certificate Secret and
 * mount, the controller's flags and defaults, the namespace and object selectors that limit the webhook, and the queue
 * configuration's integrations. Skips when kubectl is missing, fails instead when {@code FAIRWAY_REQUIRE_KUBECTL} is
 * set (as CI sets it).
 */
class DeployKustomizeTest {
    private static final Path DEPLOY = Path.of("..", "deploy");

    static Path kubectl() {
        String env = System.getenv("FAIRWAY_KUBECTL");
        List<Path> candidates = new ArrayList<>();
        if (env != null && !env.isBlank()) {
            candidates.add(Path.of(env));
        }
        candidates.add(Path.of("/usr/bin/kubectl"));
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isBlank()) {
                candidates.add(Path.of(dir, "kubectl"));
            }
        }
        Optional<Path> found = candidates.stream().filter(Files::isExecutable).findFirst();
        if (found.isEmpty()) {
            String req = System.getenv("FAIRWAY_REQUIRE_KUBECTL");
            String msg = "kubectl is not installed (Debian: apt-get install kubernetes-client; or set FAIRWAY_KUBECTL)";
            if (req != null && !req.isBlank() && !req.equals("0") && !req.equalsIgnoreCase("false")) {
                throw new AssertionError(msg + " and FAIRWAY_REQUIRE_KUBECTL is set");
            }
            Assumptions.abort(msg + "; skipped (set FAIRWAY_REQUIRE_KUBECTL=1 to make this fail)");
        }
        return found.get();
    }

    /** @return the objects {@code kubectl kustomize} renders for the folder, as the documented command renders them */
    static List<JsonNode> render(String dir) throws Exception {
        Process p = new ProcessBuilder(kubectl().toString(), "kustomize", "--load-restrictor", "LoadRestrictionsNone", DEPLOY.resolve(dir).toString())
                .redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("kubectl kustomize deploy/%s: %s", dir, err).isZero();
        List<JsonNode> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = new YAMLMapper().readerFor(JsonNode.class).readValues(out)) {
            it.forEachRemaining(d -> {
                if (d != null && !d.isNull() && !d.isEmpty()) {
                    docs.add(d);
                }
            });
        }
        assertThat(docs).as("deploy/%s renders objects", dir).isNotEmpty();
        for (JsonNode d : docs) {
            HasMetadata typed = Serialization.unmarshal(d.toString());
            if (!(typed instanceof GenericKubernetesResource)) {
                assertThat(DeployExamplesSchemaTest.unknownFields(typed, "")).as("%s %s: fields its API type does not declare", d.path("kind").asText(),
                        d.at("/metadata/name").asText()).isEmpty();
            }
        }
        return docs;
    }

    private static List<JsonNode> all(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
    }

    private static JsonNode one(List<JsonNode> docs, String kind, String name) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind) && d.at("/metadata/name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    private static List<String> args(List<JsonNode> docs) {
        List<String> out = new ArrayList<>();
        one(docs, "Deployment", "fairway-controller").at("/spec/template/spec/containers/0/args").forEach(a -> out.add(a.asText()));
        return out;
    }

    private static List<String> verbs(List<JsonNode> docs, String group, String resource) {
        List<String> out = new ArrayList<>();
        for (String k : List.of("ClusterRole", "Role")) {
            for (JsonNode r : all(docs, k)) {
                for (JsonNode rule : r.path("rules")) {
                    boolean g = StreamSupport.stream(rule.path("apiGroups").spliterator(), false).anyMatch(x -> x.asText().equals(group));
                    boolean res = StreamSupport.stream(rule.path("resources").spliterator(), false).anyMatch(x -> x.asText().equals(resource));
                    if (g && res) {
                        rule.path("verbs").forEach(v -> out.add(v.asText()));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void theClusterWideInstallRendersWithoutTheWebhook() throws Exception {
        List<JsonNode> docs = render(".");
        assertThat(args(docs)).noneMatch(a -> a.startsWith("--namespace") || a.startsWith("--webhook"));
        assertThat(all(docs, "MutatingWebhookConfiguration")).isEmpty();
        assertThat(all(docs, "ClusterRole")).isNotEmpty();
    }

    @Test
    void theNamespacedInstallRendersWithItsNamespaceAndRolesOnly() throws Exception {
        List<JsonNode> docs = render("namespaced");
        assertThat(args(docs)).contains("--namespace=team-a");
        assertThat(all(docs, "Role")).allSatisfy(r -> assertThat(r.at("/metadata/namespace").asText()).isIn("team-a", "fairway-system"));
        for (JsonNode cr : all(docs, "ClusterRole")) {
            cr.path("rules").forEach(rule -> rule.path("verbs").forEach(v -> assertThat(v.asText()).as("cluster-wide, it only reads").isIn("get", "list", "watch")));
        }
    }

    @Test
    void theKueueCompatibleInstallServesTheWebhookConsistentlyAndLimitsIt() throws Exception {
        List<JsonNode> docs = render("kueue-compatible");
        List<String> args = args(docs);
        assertThat(args).as("the queues come from Kueue's own objects").contains("--webhook-port=9443", "--kueue-objects");
        JsonNode deployment = one(docs, "Deployment", "fairway-controller");
        JsonNode container = deployment.at("/spec/template/spec/containers/0");
        assertThat(container.path("ports")).anySatisfy(p -> {
            assertThat(p.path("name").asText()).isEqualTo("webhook");
            assertThat(p.path("containerPort").asInt()).isEqualTo(9443);
        });
        String usage = FairwayController.usage();
        JsonNode mount = StreamSupport.stream(container.path("volumeMounts").spliterator(), false)
                .filter(m -> m.path("name").asText().equals("webhook-tls")).findFirst().orElseThrow();
        assertThat(usage).as("the controller reads the certificate where it is mounted (its --webhook-cert-dir default)")
                .contains(mount.path("mountPath").asText());
        String secret = StreamSupport.stream(deployment.at("/spec/template/spec/volumes").spliterator(), false)
                .filter(v -> v.path("name").asText().equals("webhook-tls")).findFirst().orElseThrow().at("/secret/secretName").asText();
        JsonNode cert = one(docs, "Certificate", "fairway-webhook");
        assertThat(cert.at("/spec/secretName").asText()).as("cert-manager writes the Secret the pods mount").isEqualTo(secret);

        JsonNode service = one(docs, "Service", "fairway-webhook");
        assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo("webhook");
        assertThat(service.at("/spec/selector")).isEqualTo(deployment.at("/spec/selector/matchLabels"));
        String svcName = service.at("/metadata/name").asText() + "." + service.at("/metadata/namespace").asText() + ".svc";
        assertThat(cert.at("/spec/dnsNames")).extracting(JsonNode::asText).contains(svcName);

        JsonNode mwc = one(docs, "MutatingWebhookConfiguration", "fairway-pod-gate");
        assertThat(mwc.at("/metadata/annotations/cert-manager.io~1inject-ca-from").asText()).isEqualTo("fairway-system/fairway-webhook");
        List<String> queueLabels = new ArrayList<>();
        for (JsonNode w : mwc.path("webhooks")) {
            assertThat(w.at("/clientConfig/service/name").asText()).isEqualTo("fairway-webhook");
            assertThat(w.at("/clientConfig/service/namespace").asText()).isEqualTo("fairway-system");
            assertThat(w.at("/clientConfig/service/path").asText()).isEqualTo(WebhookServer.PATH);
            assertThat(w.path("failurePolicy").asText()).isEqualTo("Fail");
            assertThat(w.path("sideEffects").asText()).isEqualTo("None");
            assertThat(w.path("admissionReviewVersions")).extracting(JsonNode::asText).containsExactly("v1");
            JsonNode ns = w.at("/namespaceSelector/matchExpressions/0");
            assertThat(ns.path("key").asText()).isEqualTo("kubernetes.io/metadata.name");
            assertThat(ns.path("operator").asText()).isEqualTo("NotIn");
            assertThat(ns.path("values")).extracting(JsonNode::asText).as("never the control plane's or Fairway's own pods").contains("kube-system", "fairway-system");
            JsonNode obj = w.at("/objectSelector/matchExpressions/0");
            assertThat(obj.path("operator").asText()).isEqualTo("Exists");
            queueLabels.add(obj.path("key").asText());
            List<String> resources = new ArrayList<>();
            w.path("rules").forEach(r -> r.path("resources").forEach(x -> resources.add(x.asText())));
            assertThat(resources).containsExactlyInAnyOrder("pods", "deployments", "statefulsets", "leaderworkersets");
        }
        assertThat(queueLabels).as("only objects with a queue label reach it").containsExactlyInAnyOrder(Keys.QUEUE_LABEL, Keys.KUEUE_QUEUE_LABEL);

        JsonNode sa = one(docs, "ServiceAccount", "fairway-controller");
        String ns = sa.at("/metadata/namespace").asText();
        assertThat(FairwayController.defaultAdmitter(ns)).as("the webhook lets the controller's service account ungate pods by default")
                .isEqualTo("system:serviceaccount:" + ns + ":" + sa.at("/metadata/name").asText());
        assertThat(container.path("env")).as("the controller learns its namespace").anySatisfy(e -> assertThat(e.path("name").asText()).isEqualTo("POD_NAMESPACE"));
        assertThat(verbs(docs, "", "pods")).contains("patch", "delete");
        assertThat(verbs(docs, "leaderworkerset.x-k8s.io", "leaderworkersets")).contains("get");
        assertThat(verbs(docs, "kueue.x-k8s.io", "clusterqueues")).as("Kueue's queues are read and watched").contains("list", "watch");
        assertThat(verbs(docs, "kueue.x-k8s.io", "clusterqueues/status")).as("and their status written").contains("patch");

        QueuesConfig config = QueuesConfig.parse("kueue-compatible", one(docs, "ConfigMap", "fairway-queues").at("/data/queues.yaml").asText());
        assertThat(config.integrations()).contains(Integrations.POD_GROUPS);
        assertThat(config.clusterQueues()).as("the ConfigMap does not also define queues Kueue's objects define").isEmpty();
        Integrations.enabled(config.integrations());
    }
}
