package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static io.fairway.k8s.MockCluster.until;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The RBAC in {@code deploy/rbac.yaml} is least privilege: every request the controller makes through a whole
 * scenario (leader election, ConfigMap configuration, admission, pod binding, Events, PriorityClass, preemption,
 * deletion) is allowed by it, and every verb it grants is used.
 */
class RbacTest extends AdapterTestBase {
    private static final Path RBAC = Path.of("..", "deploy", "rbac.yaml");
    /** The namespaced install: writes only in the managed namespace ({@code team-a} in the file, {@code default} here). */
    private static final Path NAMESPACED_RBAC = Path.of("..", "deploy", "namespaced", "rbac.yaml");

    /** One API request, as RBAC sees it. */
    record Access(String group, String resource, String verb, String namespace, String name) {
        String rule() {
            return (group.isEmpty() ? "core" : group) + "/" + resource + ":" + verb;
        }
    }

    /** One RBAC rule, with where it applies (null namespace: everywhere). */
    record Rule(Set<String> groups, Set<String> resources, Set<String> verbs, Set<String> names, String namespace) {
        boolean allows(Access a) {
            return groups.contains(a.group()) && resources.contains(a.resource()) && verbs.contains(a.verb())
                    && (namespace == null || namespace.equals(a.namespace())) && (names.isEmpty() || names.contains(a.name()));
        }
    }

    /** The example of every kind besides batch/v1 Job (deploy/examples/), each with its RBAC file of the same name. */
    private static final List<String> EXAMPLES = List.of("jobset", "pytorchjob", "tfjob", "xgboostjob", "paddlejob", "jaxjob", "mpijob", "trainjob",
            "rayjob", "raycluster", "appwrapper");
    /** A second ClusterQueue for the examples, so the scenario's preemption of low by high is unchanged. */
    private static final String KINDS_QUEUE = """
              - name: kinds
                resourceGroups:
                  - coveredResources: [cpu, memory, nvidia.com/gpu]
                    flavors:
                      - name: general
                        resources:
                          - {name: cpu, nominalQuota: 192}
                          - {name: memory, nominalQuota: 2Ti}
                          - {name: nvidia.com/gpu, nominalQuota: 32}
            localQueues:
              - {name: kinds, namespace: default, clusterQueue: kinds}
            """;

    private final Set<Access> accesses = ConcurrentHashMap.newKeySet();
    private boolean allKinds;
    private final List<KindScenario> kinds = new ArrayList<>();

    @Test
    void theDeployedRbacAllowsExactlyWhatTheControllerDoes() throws IOException {
        runScenario(null);
        checkAgainst(rules(RBAC, Map.of()));
    }

    @Test
    void withEveryKindEnabledTheRbacAndEachIntegrationsRulesAllowExactlyWhatTheControllerDoes() throws IOException {
        allKinds = true;
        runScenario(null);
        List<Rule> rules = new ArrayList<>(rules(RBAC, Map.of()));
        for (String kind : EXAMPLES) {
            rules.addAll(rules(Path.of("..", "deploy", "integrations", kind + ".yaml"), Map.of()));
        }
        checkAgainst(rules);
    }

    @Test
    void withEveryKindEnabledTheNamespacedRbacAllowsWhatTheControllerDoes() throws IOException {
        allKinds = true;
        runScenario("default");
        List<Rule> rules = new ArrayList<>(rules(NAMESPACED_RBAC, Map.of("team-a", "default")));
        for (String kind : EXAMPLES) {
            rules.addAll(rules(Path.of("..", "deploy", "namespaced", "integrations", kind + ".yaml"), Map.of("team-a", "default")));
        }
        checkAgainst(rules);
        assertThat(accesses).filteredOn(a -> !a.verb().equals("get") && !a.verb().equals("list") && !a.verb().equals("watch"))
                .allSatisfy(a -> assertThat(a.namespace()).as("write %s", a).isIn("default", "fairway-system"));
    }

    @Test
    void theNamespacedRbacAllowsWhatTheControllerDoesWithNamespaceAndWritesNothingElsewhere() throws IOException {
        runScenario("default");
        List<Rule> rules = rules(NAMESPACED_RBAC, Map.of("team-a", "default"));
        checkAgainst(rules);
        // cluster-wide it may only read: nodes, PriorityClasses, pods (what other workloads use on each node)
        for (Rule r : rules) {
            if (r.namespace() == null) {
                assertThat(r.verbs()).as("cluster-wide verbs on %s", r.resources()).isSubsetOf("get", "list", "watch");
            }
        }
        assertThat(accesses).filteredOn(a -> !a.verb().equals("get") && !a.verb().equals("list") && !a.verb().equals("watch"))
                .allSatisfy(a -> assertThat(a.namespace()).as("write %s", a).isIn("default", "fairway-system"));
        assertThat(accesses).filteredOn(a -> a.resource().equals("jobs")).allSatisfy(a -> assertThat(a.namespace()).isEqualTo("default"));
    }

    private void runScenario(String namespace) throws IOException {
        cluster.node("n1", 64, 256, 0, Map.of("fairway.io/pool", "general", "team", "ml"));
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        String config = JobLifecycleTest.PREEMPTING;
        if (allKinds) {
            for (int i = 2; i <= 5; i++) { // n5: room for the Ray examples too
                cluster.node("n" + i, 64, 1024, 8, Map.of("fairway.io/pool", "general"));
            }
            config = "integrations: " + KindScenario.ALL + "\n" + config.replace("localQueues:\n", KINDS_QUEUE);
            for (String example : EXAMPLES) {
                kinds.add(new KindScenario(cluster, example, "default", "kinds"));
            }
        }
        cluster.client.configMaps().inNamespace("fairway-system").resource(new ConfigMapBuilder().withNewMetadata().withName("fairway-queues")
                .endMetadata().addToData("queues.yaml", config).build()).create();
        cluster.createJob(cluster.jobBuilder("default", "low", "q", 2, "16", 0, false).build());
        KubernetesClient audited = cluster.server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("audit",
                new Interceptor() {
                    @Override
                    public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
                        accesses.add(access(request));
                    }
                })));
        start(audited, AdapterOptions.builder()
                .namespace(namespace)
                .configMap("fairway-system", "fairway-queues", null)
                .leaderElection("fairway-system", "fairway-controller", "audited")
                .leaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200)));
        until(adapter::isLeader, "the audited adapter leads");

        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "low")), "low is admitted");
        for (KindScenario k : kinds) {
            reconcileUntil(adapter, () -> !k.suspended(), k.integration.name() + " is admitted (" + Kube.annotation(k.now(), Keys.PENDING_REASON_ANNOTATION) + ")");
        }
        cluster.createPods("default", "low");
        reconcileUntil(adapter, () -> cluster.pods("default", "low").stream().noneMatch(Kube::hasGate), "low's pods are bound");
        cluster.createJob(cluster.jobBuilder("default", "high", "q", 1, "16", 0, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, () -> suspended(cluster.job("default", "low")) && !suspended(cluster.job("default", "high")), "high preempts low");
        cluster.client.batch().v1().jobs().inNamespace("default").withName("low").delete();
        reconcileUntil(adapter, () -> adapter.status("default", "low").isEmpty(), "the deleted job is forgotten");
        until(() -> accesses.stream().anyMatch(a -> a.resource().equals("leases") && a.verb().equals("patch")), "the Lease is renewed");
    }

    private void checkAgainst(List<Rule> rules) {
        List<String> denied = new ArrayList<>();
        for (Access a : accesses) {
            if (rules.stream().noneMatch(r -> r.allows(a))) {
                denied.add(a.toString());
            }
        }
        assertThat(denied).as("requests the RBAC does not allow").isEmpty();
        Set<String> granted = new TreeSet<>();
        for (Rule r : rules) {
            for (String g : r.groups()) {
                for (String res : r.resources()) {
                    r.verbs().forEach(v -> granted.add((g.isEmpty() ? "core" : g) + "/" + res + ":" + v));
                }
            }
        }
        Set<String> used = new TreeSet<>();
        accesses.forEach(a -> used.add(a.rule()));
        assertThat(used).as("verbs the controller uses").isEqualTo(granted);
    }

    static Access access(HttpRequest r) {
        String[] p = r.uri().getPath().replaceAll("^/+", "").split("/");
        int i;
        String group;
        if (p[0].equals("api")) {
            group = "";
            i = 2;
        } else {
            group = p[1];
            i = 3;
        }
        String ns = null;
        if (i < p.length && p[i].equals("namespaces") && i + 2 < p.length) {
            ns = p[i + 1];
            i += 2;
        }
        String resource = i + 2 < p.length ? p[i] + "/" + p[i + 2] : p[i]; // a subresource is its own RBAC resource (jobs/status)
        String name = i + 1 < p.length ? p[i + 1] : null;
        String query = r.uri().getQuery() == null ? "" : r.uri().getQuery();
        String verb = switch (r.method()) {
            case "GET" -> name != null ? "get" : query.contains("watch=true") ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> r.method();
        };
        return new Access(group, resource, verb, ns, name);
    }

    static List<Rule> rules() throws IOException {
        return rules(RBAC, Map.of());
    }

    /** @param renamed namespaces of the file to read as others (the managed namespace of the example) */
    static List<Rule> rules(Path file, Map<String, String> renamed) throws IOException {
        List<Rule> out = new ArrayList<>();
        try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class).readValues(Files.readString(file))) {
            for (JsonNode d : docs.readAll()) {
                String kind = d.path("kind").asText();
                if (!kind.equals("ClusterRole") && !kind.equals("Role")) {
                    continue;
                }
                String ns = kind.equals("Role") ? d.path("metadata").path("namespace").asText() : null;
                ns = ns == null ? null : renamed.getOrDefault(ns, ns);
                for (JsonNode r : d.path("rules")) {
                    out.add(new Rule(set(r.path("apiGroups")), set(r.path("resources")), set(r.path("verbs")), set(r.path("resourceNames")), ns));
                }
            }
        }
        return out;
    }

    private static Set<String> set(JsonNode n) {
        Set<String> s = new TreeSet<>();
        n.forEach(x -> s.add(x.asText()));
        return s;
    }
}
