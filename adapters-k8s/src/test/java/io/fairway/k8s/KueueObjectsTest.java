package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fairway.api.job.JobStatus;
import io.fairway.config.QueuesConfig;
import io.fairway.k8s.audit.CrdSchemas;
import io.fairway.k8s.audit.RbacAudit;
import io.fairway.k8s.kueue.KueueApi;
import io.fairway.k8s.kueue.KueueSync;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The adapter reading its queues from Kueue's own objects: a setup written from Kueue's documentation
 * ({@code deploy/examples/kueue/setup.yaml}: a cohort tree, borrowing and lending limits, two tainted flavors, a
 * Topology, WorkloadPriorityClasses) runs from those objects alone and admits exactly what the equivalent ConfigMap
 * admits; ClusterQueue and LocalQueue status is written as Kueue writes it and validates against Kueue's CRD (the
 * tests' API server refuses anything else); unsupported fields are reported, never ignored; a running Kueue stops it.
 */
class KueueObjectsTest {
    private static final Path SETUP = Path.of("..", "deploy", "examples", "kueue", "setup.yaml");
    private static final Path CONFIGMAP = Path.of("..", "deploy", "examples", "kueue", "equivalent-configmap.yaml");
    private static final Path KUEUE_RBAC = Path.of("..", "deploy", "rbac-kueue-objects.yaml");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<MockCluster> clusters = new ArrayList<>();
    private final List<FairwayAdapter> adapters = new ArrayList<>();

    @AfterEach
    void close() {
        adapters.forEach(FairwayAdapter::close);
        clusters.forEach(MockCluster::close); // fails when the API server refused any write of the adapter
    }

    // ------------------------------------------------------------------ the scenario

    @Test
    void kueueObjectsAloneAdmitWhatTheEquivalentConfigMapAdmitsAndStatusValidates() throws IOException {
        MockCluster fromKueue = clusterWithTheExample();
        FairwayAdapter a = startOnKueueObjects(fromKueue);
        Map<String, String> kueueRun = scenario(fromKueue, a, true);

        MockCluster fromConfigMap = cluster();
        FairwayAdapter b = start(fromConfigMap, AdapterOptions.builder().kueueQueueLabel(true).queues(configMapQueues()));
        Map<String, String> configMapRun = scenario(fromConfigMap, b, false);

        assertThat(kueueRun).isEqualTo(configMapRun);
        // the scenario means something: the borrowing limit, the spot flavor and the priority classes all decide
        assertThat(kueueRun).containsEntry("before a4: team-a/a2", "ADMITTED team-a-cq on-demand") // borrowing 2, its limit
                .containsEntry("team-a/a1", "ADMITTED team-a-cq on-demand")
                .containsEntry("team-a/a4", "ADMITTED team-a-cq on-demand")        // preempted a2 (low priority)
                .containsEntry("team-a/a2", "PENDING")
                .containsEntry("team-a/a5", "PENDING");                           // spot: borrowingLimit 0
        assertThat(kueueRun.values()).anyMatch(v -> v.endsWith(" spot")).anyMatch(v -> v.startsWith("PENDING"));
        assertThat(kueueRun.get("team-a/a4")).startsWith("ADMITTED"); // high-priority: preempted a low-priority job
        assertThat(kueueRun.get("team-b/b3")).startsWith("ADMITTED");
        var b3 = a.status("team-b", "b3").orElseThrow().admission().placement();
        assertThat(io.fairway.api.decision.Placement.nodesOf(b3.members())).as("both members in one rack, and racks hold one node").hasSize(1);
        assertThat(kueueRun.values().stream().filter(v -> v.startsWith("PENDING"))).isNotEmpty();

        // the same engine configuration, model for model
        QueuesConfig mapped = a.state.config;
        QueuesConfig cm = configMapQueues();
        assertThat(mapped.flavorModels()).isEqualTo(cm.flavorModels());
        assertThat(mapped.cohortModels()).isEqualTo(cm.cohortModels());
        assertThat(mapped.clusterQueueModels()).isEqualTo(cm.clusterQueueModels());
        assertThat(mapped.localQueueModels()).isEqualTo(cm.localQueueModels());
        assertThat(mapped.topologyLevels()).isEqualTo(cm.topologyLevels());

        // ClusterQueue status as Kueue writes it, and valid against Kueue's CRD
        JsonNode teamA = object(fromKueue, KueueApi.Resource.CLUSTER_QUEUE, KueueApi.V1BETA2, null, "team-a-cq");
        assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "clusterqueues").orElseThrow(), teamA)).isEmpty();
        JsonNode st = teamA.path("status");
        long admittedA = kueueRun.entrySet().stream().filter(e -> e.getKey().startsWith("team-a/") && e.getValue().startsWith("ADMITTED")).count();
        long pendingA = kueueRun.entrySet().stream().filter(e -> e.getKey().startsWith("team-a/") && e.getValue().startsWith("PENDING")).count();
        assertThat(st.path("admittedWorkloads").asInt()).isEqualTo(admittedA);
        assertThat(st.path("reservingWorkloads").asInt()).isEqualTo(admittedA);
        assertThat(st.path("pendingWorkloads").asInt()).isEqualTo(pendingA);
        assertThat(condition(st, "Active").path("status").asText()).isEqualTo("True");
        assertThat(condition(st, "Active").path("reason").asText()).isEqualTo("Ready");
        JsonNode onDemand = st.path("flavorsUsage").get(0);
        assertThat(onDemand.path("name").asText()).isEqualTo("on-demand");
        assertThat(onDemand.at("/resources/0/total").asText()).isEqualTo("8");     // 6 nominal + 2 borrowed: the limit
        assertThat(onDemand.at("/resources/0/borrowed").asText()).isEqualTo("2");
        assertThat(st.path("flavorsReservation")).isEqualTo(st.path("flavorsUsage"));
        for (String cq : List.of("team-b-cq", "team-c-cq")) {
            JsonNode o = object(fromKueue, KueueApi.Resource.CLUSTER_QUEUE, KueueApi.V1BETA2, null, cq);
            assertThat(o.path("status").path("conditions")).isNotEmpty();
            assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "clusterqueues").orElseThrow(), o)).isEmpty();
        }
        JsonNode lq = object(fromKueue, KueueApi.Resource.LOCAL_QUEUE, KueueApi.V1BETA2, "team-a", "user-queue");
        assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "localqueues").orElseThrow(), lq)).isEmpty();
        assertThat(lq.at("/status/admittedWorkloads").asInt()).isEqualTo(admittedA);
        assertThat(lq.at("/status/pendingWorkloads").asInt()).isEqualTo(pendingA);
        assertThat(condition(lq.path("status"), "Active").path("reason").asText()).isEqualTo("Ready");
        assertThat(lq.at("/status/flavorsUsage/0/resources/0/total").asText()).isEqualTo("8");
        // nothing changed: nothing is written again
        String rv = teamA.at("/metadata/resourceVersion").asText();
        for (int i = 0; i < 3; i++) {
            a.reconcileOnce();
        }
        assertThat(object(fromKueue, KueueApi.Resource.CLUSTER_QUEUE, KueueApi.V1BETA2, null, "team-a-cq").at("/metadata/resourceVersion").asText())
                .as("an unchanged status is not written again").isEqualTo(rv);
    }

    @Test
    void v1beta1ObjectsGiveTheSameAdmissionsAndAV1beta1Status() throws IOException {
        MockCluster c2 = clusterWithTheExample();
        Map<String, String> v2 = scenario(c2, startOnKueueObjects(c2), true);
        MockCluster c1 = cluster();
        createKueueObjects(c1, KueueApi.V1BETA1);
        FairwayAdapter a = start(c1, AdapterOptions.builder().kueueObjects(KueueApi.V1BETA1, false, null));
        Map<String, String> v1 = scenario(c1, a, true);
        assertThat(v1).isEqualTo(v2);
        JsonNode cq = object(c1, KueueApi.Resource.CLUSTER_QUEUE, KueueApi.V1BETA1, null, "team-a-cq");
        assertThat(cq.at("/spec/cohort").asText()).isEqualTo("team-ab");
        assertThat(cq.at("/status/admittedWorkloads").asInt()).isPositive();
        JsonNode lq = object(c1, KueueApi.Resource.LOCAL_QUEUE, KueueApi.V1BETA1, "team-a", "user-queue");
        assertThat(lq.at("/status/flavorUsage/0/resources/0/total").asText()).isEqualTo("8"); // v1beta1's name of flavorsUsage
        assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "localqueues").orElseThrow(), lq)).isEmpty();
    }

    @Test
    void everyKueueExampleValidatesAgainstKueuesCrds() throws IOException {
        CrdSchemas.requireShared();
        int checked = 0;
        for (JsonNode o : docs(SETUP)) {
            String plural = plural(o.path("kind").asText());
            List<String> problems = CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, plural).orElseThrow(), o);
            assertThat(problems).as(o.path("kind").asText() + " " + o.at("/metadata/name").asText()).isEmpty();
            checked++;
        }
        assertThat(checked).isEqualTo(13);
        for (JsonNode o : docs(Path.of("..", "deploy", "examples", "kueue", "job.yaml"))) {
            assertThat(io.fairway.k8s.audit.ApiRules.jobCreate(o)).isEmpty();
            assertThat(o.at("/metadata/labels").path(KueueApi.QUEUE_NAME_LABEL).asText()).isEqualTo("user-queue");
        }
        // the equivalent ConfigMap is a valid Fairway configuration
        assertThat(configMapQueues().clusterQueues()).hasSize(3);
    }

    // ------------------------------------------------------------------ a flavor per resource group

    /** Kueue's most common GPU layout: cpu and memory in one resource group, GPUs in another, each with its own flavors. */
    private static final String GPU_SETUP = flavor("on-demand", "instance-type") + flavor("spot", "instance-type") + flavor("a100", "gpu-type")
            + flavor("h100", "gpu-type") + """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: ClusterQueue
            metadata: {name: gpu-cq}
            spec:
              namespaceSelector: {}
              resourceGroups:
              - coveredResources: [cpu, memory]
                flavors:
                - name: on-demand
                  resources: [{name: cpu, nominalQuota: 4}, {name: memory, nominalQuota: 32Gi}]
                - name: spot
                  resources: [{name: cpu, nominalQuota: 16}, {name: memory, nominalQuota: 128Gi}]
              - coveredResources: [nvidia.com/gpu]
                flavors:
                - name: a100
                  resources: [{name: nvidia.com/gpu, nominalQuota: 2}]
                - name: h100
                  resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
            ---
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: LocalQueue
            metadata: {name: user-queue, namespace: team-a}
            spec: {clusterQueue: gpu-cq}
            """;

    /** @return a v1beta2 ResourceFlavor {@code name} for the nodes whose label {@code label} is its name, and a separator */
    private static String flavor(String name, String label) {
        return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: %s}\nspec: {nodeLabels: {%s: %s}}\n---\n".formatted(name, label, name);
    }

    private static final String GPU_CONFIGMAP = """
            flavors:   # in the order of their names, as the objects are read
              - {name: a100, nodeLabels: {gpu-type: a100}}
              - {name: h100, nodeLabels: {gpu-type: h100}}
              - {name: on-demand, nodeLabels: {instance-type: on-demand}}
              - {name: spot, nodeLabels: {instance-type: spot}}
            clusterQueues:
              - name: gpu-cq
                queueingStrategy: BestEffortFIFO
                resourceGroups:
                  - coveredResources: [cpu, memory]
                    flavors:
                      - {name: on-demand, resources: [{name: cpu, nominalQuota: 4}, {name: memory, nominalQuota: 32Gi}]}
                      - {name: spot, resources: [{name: cpu, nominalQuota: 16}, {name: memory, nominalQuota: 128Gi}]}
                  - coveredResources: [nvidia.com/gpu]
                    flavors:
                      - {name: a100, resources: [{name: nvidia.com/gpu, nominalQuota: 2}]}
                      - {name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
            localQueues:
              - {name: user-queue, namespace: team-a, clusterQueue: gpu-cq}
            """;

    @Test
    void gpusInTheirOwnResourceGroupTakeTheirOwnFlavorOnNodesOfEveryFlavorAndStatusChargesEachResourceToIt() throws IOException {
        CrdSchemas.requireShared();
        MockCluster fromKueue = cluster();
        createObjects(fromKueue, GPU_SETUP);
        FairwayAdapter a = startOnKueueObjects(fromKueue);
        Map<String, String> kueueRun = gpuScenario(fromKueue, a);

        // g1: 2 cpus fit on-demand, 4 GPUs do not fit a100 (2): h100; g2: on-demand has 2 cpus left, so spot; 2 GPUs fit a100
        assertThat(kueueRun).containsEntry("g1", "{main=on-demand, main/nvidia.com/gpu=h100} on [od-h100]")
                .containsEntry("g2", "{main=spot, main/nvidia.com/gpu=a100} on [spot-a100]");
        for (String[] j : new String[][] {{"g1", "on-demand", "h100"}, {"g2", "spot", "a100"}}) {
            var sel = fromKueue.job("team-a", j[0]).getSpec().getTemplate().getSpec().getNodeSelector();
            assertThat(sel).as(j[0] + "'s pods select nodes of every flavor it took")
                    .containsEntry("instance-type", j[1]).containsEntry("gpu-type", j[2]);
        }

        // ClusterQueue and LocalQueue status: each resource on the flavor it took, valid against Kueue's CRDs
        JsonNode cq = object(fromKueue, KueueApi.Resource.CLUSTER_QUEUE, KueueApi.V1BETA2, null, "gpu-cq");
        assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "clusterqueues").orElseThrow(), cq)).isEmpty();
        Map<String, String> expected = Map.of("on-demand/cpu", "2", "on-demand/memory", "0", "spot/cpu", "4", "spot/memory", "0",
                "a100/nvidia.com/gpu", "2", "h100/nvidia.com/gpu", "4");
        assertThat(totals(cq.at("/status/flavorsUsage"))).isEqualTo(expected);
        assertThat(totals(cq.at("/status/flavorsReservation"))).isEqualTo(expected);
        assertThat(cq.at("/status/admittedWorkloads").asInt()).isEqualTo(2);
        JsonNode lq = object(fromKueue, KueueApi.Resource.LOCAL_QUEUE, KueueApi.V1BETA2, "team-a", "user-queue");
        assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "localqueues").orElseThrow(), lq)).isEmpty();
        assertThat(totals(lq.at("/status/flavorsUsage"))).isEqualTo(expected);
        assertThat(totals(lq.at("/status/flavorsReservation"))).isEqualTo(expected);

        // the equivalent ConfigMap: the same model and the same admissions
        QueuesConfig cm = QueuesConfig.parse("gpu", GPU_CONFIGMAP);
        assertThat(a.state.config.clusterQueueModels()).isEqualTo(cm.clusterQueueModels());
        assertThat(a.state.config.flavorModels()).isEqualTo(cm.flavorModels());
        MockCluster fromConfigMap = cluster();
        FairwayAdapter b = start(fromConfigMap, AdapterOptions.builder().kueueQueueLabel(true).queues(cm));
        assertThat(gpuScenario(fromConfigMap, b)).isEqualTo(kueueRun);
    }

    /** Four GPU nodes, one per pair of flavors, and two GPU jobs; each job's flavors and nodes. */
    private static Map<String, String> gpuScenario(MockCluster c, FairwayAdapter a) {
        for (String[] n : new String[][] {{"od-a100", "on-demand", "a100"}, {"od-h100", "on-demand", "h100"}, {"spot-a100", "spot", "a100"},
                {"spot-h100", "spot", "h100"}}) {
            c.node(n[0], 8, 64, 8, Map.of("instance-type", n[1], "gpu-type", n[2]));
        }
        for (String[] j : new String[][] {{"g1", "2", "4"}, {"g2", "4", "2"}}) {
            JobBuilder b = c.jobBuilder("team-a", j[0], null, 1, j[1], Integer.parseInt(j[2]), true);
            b.editMetadata().addToLabels(KueueApi.QUEUE_NAME_LABEL, "user-queue").endMetadata();
            c.createJob(b.build());
            quiesce(a);
        }
        Map<String, String> out = new TreeMap<>();
        for (String j : List.of("g1", "g2")) {
            JobStatus s = a.status("team-a", j).orElseThrow();
            out.put(j, s.admission() == null || !s.state().holdsResources() ? s.state().name()
                    : new TreeMap<>(s.admission().flavors()) + " on " + s.admission().placement().nodes());
        }
        return out;
    }

    /** {@code flavor/resource -> total} of a flavorsUsage or flavorsReservation list. */
    private static Map<String, String> totals(JsonNode flavors) {
        Map<String, String> out = new TreeMap<>();
        for (JsonNode f : flavors) {
            for (JsonNode r : f.path("resources")) {
                out.put(f.path("name").asText() + "/" + r.path("name").asText(), r.path("total").asText());
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ live edits

    @Test
    void anEditedClusterQueueTakesEffectOnTheRunningEngine() throws IOException {
        MockCluster c = clusterWithTheExample();
        FairwayAdapter a = startOnKueueObjects(c);
        nodes(c);
        c.createJob(job(c, "team-a", "a1", 4, null));
        c.createJob(job(c, "team-a", "a2", 4, null));
        c.createJob(job(c, "team-a", "a3", 4, null));
        quiesce(a);
        io.fairway.core.Scheduler engine = a.scheduler();
        // on-demand: 6 nominal + 2 borrowed holds two; spot: 2 nominal, borrowingLimit 0, too small for the third
        assertThat(admitted(a, "team-a", 3)).isEqualTo(2);
        // let team-a borrow spot capacity: the third job fits now
        editClusterQueueSpec(c, "team-a-cq", spec -> ((ObjectNode) spec.at("/resourceGroups/0/flavors/1/resources/0")).put("borrowingLimit", 2));
        MockCluster.reconcileUntil(a, () -> admitted(a, "team-a", 3) == 3, "the third job is admitted after the edit");
        assertThat(a.status("team-a", "a3").orElseThrow().admission().flavors().values()).containsExactly("spot");
        assertThat(a.scheduler()).as("applied through the engine's reconfiguration, not a rebuild").isSameAs(engine);
    }

    @Test
    void theConfigMapGivesThePolicyAndKueuesObjectsTheQueues() throws IOException {
        MockCluster c = clusterWithTheExample();
        c.client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("fairway-system").endMetadata().build()).create();
        c.client.configMaps().inNamespace("fairway-system").resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata()
                .withName("fairway-queues").endMetadata().addToData("queues.yaml", "policy: strict-fifo\nflavors: [{name: ignored}]\n").build()).create();
        FairwayAdapter a = start(c, AdapterOptions.builder().configMap("fairway-system", "fairway-queues", null)
                .kueueObjects(KueueApi.V1BETA2, false, null));
        a.reconcileOnce();
        assertThat(a.state.config.policy()).isEqualTo("strict-fifo");
        assertThat(a.state.config.flavors()).extracting(QueuesConfig.FlavorConfig::name).containsExactly("on-demand", "spot");
        assertThat(a.state.config.clusterQueues()).hasSize(3);
        io.fairway.core.Scheduler before = a.scheduler();
        c.client.configMaps().inNamespace("fairway-system").withName("fairway-queues")
                .edit(cm -> new io.fabric8.kubernetes.api.model.ConfigMapBuilder(cm).addToData("queues.yaml", "policy: priority\n").build());
        MockCluster.reconcileUntil(a, () -> "priority".equals(a.state.config.policy()), "the new policy is read");
        a.reconcileOnce();
        assertThat(a.scheduler()).as("a new policy rebuilds the engine").isNotSameAs(before);
        assertThat(a.scheduler().policy().name()).contains("priority");
    }

    // ------------------------------------------------------------------ unsupported fields

    @Test
    void aClusterQueueWithAdmissionChecksIsHeldWithAConditionAndAnEventNamingTheField() throws IOException {
        MockCluster c = clusterWithTheExample();
        editClusterQueueSpec(c, "team-c-cq", spec -> {
            spec.putObject("admissionChecksStrategy").putArray("admissionChecks").addObject().put("name", "prov-req");
            spec.putObject("flavorFungibility").put("preference", "BorrowingOverPreemption");
        });
        FairwayAdapter a = startOnKueueObjects(c);
        nodes(c);
        c.createJob(job(c, "team-c", "c1", 2, null));
        quiesce(a);
        assertThat(a.status("team-c", "c1").orElseThrow().state().name()).isEqualTo("PENDING");
        JsonNode cq = object(c, KueueApi.Resource.CLUSTER_QUEUE, KueueApi.V1BETA2, null, "team-c-cq");
        assertThat(CrdSchemas.problems(CrdSchemas.crd(KueueApi.GROUP, "clusterqueues").orElseThrow(), cq)).isEmpty();
        JsonNode active = condition(cq.path("status"), "Active");
        assertThat(active.path("status").asText()).isEqualTo("False");
        assertThat(active.path("message").asText()).contains("spec.admissionChecksStrategy");
        JsonNode unsupported = condition(cq.path("status"), KueueSync.UNSUPPORTED_CONDITION);
        assertThat(unsupported.path("message").asText()).contains("spec.admissionChecksStrategy").contains("spec.flavorFungibility.preference");
        assertThat(cq.at("/status/pendingWorkloads").asInt()).isEqualTo(1);
        List<String> events = new ArrayList<>();
        for (Event e : c.client.v1().events().inNamespace("default").list().getItems()) {
            if ("team-c-cq".equals(e.getInvolvedObject().getName()) && KueueSync.REASON_UNSUPPORTED.equals(e.getReason())) {
                events.add(e.getMessage());
            }
        }
        assertThat(events).anyMatch(m -> m.startsWith("spec.admissionChecksStrategy")).anyMatch(m -> m.startsWith("spec.flavorFungibility.preference"));
        // its LocalQueue says why it cannot be used
        JsonNode lq = object(c, KueueApi.Resource.LOCAL_QUEUE, KueueApi.V1BETA2, "team-c", "user-queue");
        assertThat(condition(lq.path("status"), "Active").path("reason").asText()).isEqualTo("ClusterQueueIsInactive");
        // the other queues run
        c.createJob(job(c, "team-a", "a1", 2, null));
        MockCluster.reconcileUntil(a, () -> admitted(a, "team-a", 1) == 1, "team-a's job is admitted");
        int sent = events.size();
        quiesce(a);
        long again = c.client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> KueueSync.REASON_UNSUPPORTED.equals(e.getReason())).count();
        assertThat(again).as("each field is reported once per object version").isEqualTo(sent);
    }

    @Test
    void aNamespaceSelectorThatDoesNotSelectTheNamespaceKeepsItsLocalQueueOut() throws IOException {
        MockCluster c = clusterWithTheExample();
        editClusterQueueSpec(c, "team-c-cq", spec -> spec.putObject("namespaceSelector").putObject("matchLabels").put("team", "c"));
        FairwayAdapter a = startOnKueueObjects(c);
        nodes(c);
        c.createJob(job(c, "team-c", "c1", 2, null));
        quiesce(a);
        assertThat(a.status("team-c", "c1").orElseThrow().state().name()).isEqualTo("PENDING");
        JsonNode lq = object(c, KueueApi.Resource.LOCAL_QUEUE, KueueApi.V1BETA2, "team-c", "user-queue");
        assertThat(condition(lq.path("status"), "Active").path("reason").asText()).isEqualTo("NamespaceNotSelected");
        // label the namespace: the LocalQueue is loaded and the job admitted
        c.client.namespaces().withName("team-c").edit(n -> new NamespaceBuilder(n).editMetadata().addToLabels("team", "c").endMetadata().build());
        MockCluster.reconcileUntil(a, () -> admitted(a, "team-c", 1) == 1, "the job is admitted once the namespace is selected");
    }

    // ------------------------------------------------------------------ a running Kueue

    @Test
    void aRunningKueueStopsTheAdapterFromStartingUnlessAllowed() throws IOException {
        MockCluster c = clusterWithTheExample();
        c.client.admissionRegistration().v1().validatingWebhookConfigurations().resource(new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata().withName("kueue-validating-webhook-configuration").endMetadata()
                .addNewWebhook().withName("vclusterqueue.kb.io").withAdmissionReviewVersions("v1").withSideEffects("None")
                .withNewClientConfig().withNewService().withName("kueue-webhook-service").withNamespace("kueue-system").endService().endClientConfig()
                .addNewRule().withApiGroups(KueueApi.GROUP).withApiVersions("v1beta2").withResources("clusterqueues").withOperations("CREATE", "UPDATE").endRule()
                .endWebhook().build()).create();
        assertThatThrownBy(() -> startOnKueueObjects(c))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Kueue is running")
                .hasMessageContaining("ValidatingWebhookConfiguration kueue-validating-webhook-configuration")
                .hasMessageContaining("--allow-kueue-controller");
        FairwayAdapter a = start(c, AdapterOptions.builder().kueueObjects(KueueApi.V1BETA2, true, null));
        assertThat(a.reconcileOnce().acted()).isTrue();
        a.close();
        adapters.remove(a);
        // honouring Kueue's queue label alone is enough to collide with it: refused too, unless allowed
        assertThatThrownBy(() -> start(c, AdapterOptions.builder().kueueQueueLabel(true).queues(configMapQueues())))
                .hasMessageContaining("Kueue is running");
        start(c, AdapterOptions.builder().kueueQueueLabel(true).allowRunningKueue(true, null).queues(configMapQueues())).close();
        start(c, AdapterOptions.builder().queues(configMapQueues())).close(); // Fairway's own label: no collision, not checked
    }

    @Test
    void aRenewedKueueLeaseStopsTheAdapterAndAStaleOneDoesNot() throws IOException {
        MockCluster c = clusterWithTheExample();
        c.client.leases().inNamespace("kueue-system").resource(new LeaseBuilder().withNewMetadata().withName(KueueApi.CONTROLLER_LEASE)
                .withNamespace("kueue-system").endMetadata().withNewSpec().withHolderIdentity("kueue-controller-manager-abc")
                .withRenewTime(ZonedDateTime.now().minusHours(1)).endSpec().build()).create();
        FairwayAdapter stale = startOnKueueObjects(c);
        stale.close();
        adapters.remove(stale);
        c.client.leases().inNamespace("kueue-system").withName(KueueApi.CONTROLLER_LEASE)
                .edit(l -> new LeaseBuilder(l).editSpec().withRenewTime(ZonedDateTime.now()).endSpec().build());
        assertThatThrownBy(() -> startOnKueueObjects(c))
                .hasMessageContaining("Lease kueue-system/" + KueueApi.CONTROLLER_LEASE);
    }

    // ------------------------------------------------------------------ RBAC and command line

    @Test
    void rbacYamlWithRbacKueueObjectsAllowsEveryRequestAndEachKueueGrantIsUsed() throws IOException {
        MockCluster c = clusterWithTheExample();
        RbacAudit audit = new RbacAudit();
        FairwayAdapter a = new FairwayAdapter(audit.client(c.server), AdapterOptions.builder().kueueObjects(KueueApi.V1BETA2, false, null).build(), null);
        adapters.add(a);
        a.start();
        scenario(c, a, true);
        Set<String> denied = new TreeSet<>(audit.denied(Path.of("..", "deploy", "rbac.yaml"), Map.of()));
        denied.retainAll(audit.denied(KUEUE_RBAC, Map.of()));
        assertThat(denied).as("requests neither rbac.yaml nor rbac-kueue-objects.yaml allows").isEmpty();
        assertThat(audit.used).as("every verb rbac-kueue-objects.yaml grants is used").containsAll(RbacAudit.granted(KUEUE_RBAC));
    }

    @Test
    void theCommandLineTurnsKueueObjectsOn() {
        FairwayController c = new FairwayController();
        new CommandLine(c).parseArgs("--kueue-objects", "--no-leader-elect");
        AdapterOptions o = c.options();
        assertThat(o.kueue().objects()).isTrue();
        assertThat(o.kueue().apiVersion()).isEqualTo(KueueApi.V1BETA2);
        assertThat(o.kueue().allowRunningKueue()).isFalse();
        assertThat(o.queueLabels()).contains(KueueApi.QUEUE_NAME_LABEL);
        FairwayController c1 = new FairwayController();
        new CommandLine(c1).parseArgs("--kueue-objects=v1beta1", "--allow-kueue-controller", "--kueue-namespace=kueue", "--no-leader-elect");
        assertThat(c1.options().kueue()).isEqualTo(new AdapterOptions.KueueMode(true, KueueApi.V1BETA1, true, "kueue"));
        FairwayController bad = new FairwayController();
        new CommandLine(bad).parseArgs("--kueue-objects=v1", "--no-leader-elect");
        assertThatThrownBy(bad::options).hasMessageContaining("--kueue-objects").hasMessageContaining("v1beta2").hasMessageContaining("v1");
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Four nodes (two per flavor, tainted as the flavors say), then jobs that contend: team-a fills its nominal
     * on-demand quota and borrows up to its limit, overflows to spot, and a high-priority job preempts within the
     * ClusterQueue; team-b and team-c run beside it.
     *
     * @return each job's end state: {@code ADMITTED <ClusterQueue> <flavor>} or {@code PENDING}
     */
    private Map<String, String> scenario(MockCluster c, FairwayAdapter a, boolean kueueLabels) {
        nodes(c);
        if (!kueueLabels) {
            io.fairway.k8s.audit.MockServers.priorityClass(c.client, "high-priority", 10000);
            io.fairway.k8s.audit.MockServers.priorityClass(c.client, "low-priority", 100);
        }
        String low = "low-priority";
        c.createJob(job(c, "team-a", "a1", 4, low, kueueLabels));
        c.createJob(job(c, "team-a", "a2", 4, low, kueueLabels));
        c.createJob(job(c, "team-a", "a3", 2, low, kueueLabels));
        c.createJob(job(c, "team-a", "a5", 2, low, kueueLabels));
        c.createJob(job(c, "team-b", "b1", 4, null, kueueLabels));
        c.createJob(job(c, "team-b", "b2", 4, null, kueueLabels));
        c.createJob(job(c, "team-c", "c1", 4, null, kueueLabels));
        c.createJob(job(c, "team-c", "c2", 8, null, kueueLabels));
        c.createJob(job(c, "team-c", "c3", 2, null, kueueLabels));
        // a gang of two that must share a rack (a level of the Topology; racks hold one node here)
        JobBuilder gang = c.jobBuilder("team-b", "b3", null, 2, "1", 0, true);
        gang.editMetadata().addToLabels(KueueApi.QUEUE_NAME_LABEL, "user-queue").endMetadata().editSpec().editTemplate().editOrNewMetadata()
                .addToAnnotations("kueue.x-k8s.io/podset-required-topology", "cloud.provider.com/topology-rack").endMetadata().endTemplate().endSpec();
        c.createJob(gang.build());
        quiesce(a);
        Map<String, String> out = new TreeMap<>();
        for (String j : List.of("team-a/a1", "team-a/a2")) {
            out.put("before a4: " + j, outcome(a, j));
        }
        c.createJob(job(c, "team-a", "a4", 4, "high-priority", kueueLabels));
        quiesce(a);
        for (String j : List.of("team-a/a1", "team-a/a2", "team-a/a3", "team-a/a4", "team-a/a5", "team-b/b1", "team-b/b2", "team-b/b3", "team-c/c1", "team-c/c2",
                "team-c/c3")) {
            out.put(j, outcome(a, j));
        }
        return out;
    }

    private static String outcome(FairwayAdapter a, String job) {
        String[] p = job.split("/");
        JobStatus s = a.status(p[0], p[1]).orElseThrow();
        return s.admission() != null && s.state().holdsResources()
                ? "ADMITTED " + s.admission().clusterQueue() + " " + s.admission().flavors().values().iterator().next()
                : s.state().name();
    }

    private Job job(MockCluster c, String ns, String name, int cpu, String priorityClass) {
        return job(c, ns, name, cpu, priorityClass, true);
    }

    private Job job(MockCluster c, String ns, String name, int cpu, String priorityClass, boolean kueueLabels) {
        JobBuilder b = c.jobBuilder(ns, name, null, 1, Integer.toString(cpu), 0, true);
        b.editMetadata().addToLabels(KueueApi.QUEUE_NAME_LABEL, "user-queue").endMetadata();
        if (priorityClass != null) {
            if (kueueLabels) {
                b.editMetadata().addToLabels(KueueApi.PRIORITY_CLASS_LABEL, priorityClass).endMetadata();
            } else {
                b.editSpec().editTemplate().editSpec().withPriorityClassName(priorityClass).endSpec().endTemplate().endSpec();
            }
        }
        return b.build();
    }

    private static void nodes(MockCluster c) {
        String[][] nodes = {{"od-1", "on-demand", "b1", "r1"}, {"od-2", "on-demand", "b1", "r2"}, {"spot-1", "spot", "b2", "r3"}, {"spot-2", "spot", "b2", "r4"}};
        for (String[] n : nodes) {
            c.node(n[0], 8, 64, 0, Map.of("instance-type", n[1], "cloud.provider.com/topology-block", n[2], "cloud.provider.com/topology-rack", n[3]));
            String key = n[1].equals("spot") ? "spot" : "dedicated";
            String value = n[1].equals("spot") ? "true" : "batch";
            c.client.nodes().withName(n[0]).edit(x -> new NodeBuilder(x).editSpec()
                    .withTaints(new TaintBuilder().withKey(key).withValue(value).withEffect("NoSchedule").build()).endSpec().build());
        }
    }

    private static long admitted(FairwayAdapter a, String ns, int jobs) {
        long n = 0;
        for (int i = 1; i <= jobs; i++) {
            var s = a.status(ns, ns.substring(ns.length() - 1) + i);
            if (s.isPresent() && s.get().state().holdsResources()) {
                n++;
            }
        }
        return n;
    }

    /** Reconciles until three passes in a row neither admit nor evict. */
    private static void quiesce(FairwayAdapter a) {
        int quiet = 0;
        for (int i = 0; i < 60 && quiet < 3; i++) {
            FairwayAdapter.ReconcileResult r = a.reconcileOnce();
            quiet = r.acted() && r.admitted().isEmpty() && r.evicted().isEmpty() ? quiet + 1 : 0;
            try {
                Thread.sleep(20); // the informers catch up with the adapter's own writes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private MockCluster cluster() {
        MockCluster c = new MockCluster();
        clusters.add(c);
        for (String ns : List.of("team-a", "team-b", "team-c", "kueue-system")) {
            c.client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
        }
        return c;
    }

    private FairwayAdapter start(MockCluster c, AdapterOptions.Builder b) {
        FairwayAdapter a = new FairwayAdapter(c.newClient(), b.build(), null);
        adapters.add(a);
        try {
            return a.start();
        } catch (RuntimeException e) {
            adapters.remove(a);
            a.close();
            throw e;
        }
    }

    /** @return a cluster holding the setup example's Kueue objects (v1beta2); the test is skipped without Kueue's CRDs */
    private MockCluster clusterWithTheExample() throws IOException {
        CrdSchemas.requireShared();
        MockCluster c = cluster();
        createKueueObjects(c, KueueApi.V1BETA2);
        return c;
    }

    /** @return an adapter reading its queues from the v1beta2 Kueue objects, started (no running Kueue allowed) */
    private FairwayAdapter startOnKueueObjects(MockCluster c) {
        return start(c, AdapterOptions.builder().kueueObjects(KueueApi.V1BETA2, false, null));
    }

    /** Edits the spec of a stored ClusterQueue, as a user would. */
    private static void editClusterQueueSpec(MockCluster c, String name, java.util.function.Consumer<ObjectNode> edit) {
        c.client.genericKubernetesResources(KueueApi.Resource.CLUSTER_QUEUE.context(KueueApi.V1BETA2)).withName(name).edit(o -> {
            ObjectNode n = JSON.valueToTree(o);
            edit.accept((ObjectNode) n.path("spec"));
            return JSON.convertValue(n, GenericKubernetesResource.class);
        });
    }

    /** Creates the objects of the setup example at the given version (v1beta1 names the cohort {@code spec.cohort}). */
    private static void createKueueObjects(MockCluster c, String version) throws IOException {
        createObjects(c, docs(SETUP), version);
    }

    /** Creates Kueue objects written as v1beta2 YAML. */
    private static void createObjects(MockCluster c, String yaml) throws IOException {
        createObjects(c, docs(yaml), KueueApi.V1BETA2);
    }

    private static void createObjects(MockCluster c, List<JsonNode> objects, String version) {
        for (JsonNode d : objects) {
            ObjectNode o = (ObjectNode) d;
            o.put("apiVersion", KueueApi.GROUP + "/" + version);
            if (version.equals(KueueApi.V1BETA1) && o.path("kind").asText().equals("ClusterQueue") && o.at("/spec/cohortName").isTextual()) {
                ((ObjectNode) o.path("spec")).set("cohort", ((ObjectNode) o.path("spec")).remove("cohortName"));
            }
            ((ObjectNode) o.path("metadata")).put("generation", 1); // as a real API server sets it (the mock server does not)
            KueueApi.Resource r = resource(o.path("kind").asText());
            GenericKubernetesResource g = JSON.convertValue(o, GenericKubernetesResource.class);
            var ops = c.client.genericKubernetesResources(r.context(version));
            if (r.namespaced()) {
                ops.inNamespace(o.at("/metadata/namespace").asText()).resource(g).create();
            } else {
                ops.resource(g).create();
            }
        }
        assertThat(c.rules.refusals()).as("Kueue's CRDs accept the example").isEmpty();
    }

    private static KueueApi.Resource resource(String kind) {
        for (KueueApi.Resource r : KueueApi.Resource.values()) {
            if (r.kind().equals(kind)) {
                return r;
            }
        }
        throw new IllegalArgumentException(kind);
    }

    private static String plural(String kind) {
        return resource(kind).plural();
    }

    private static JsonNode object(MockCluster c, KueueApi.Resource r, String version, String ns, String name) {
        var ops = c.client.genericKubernetesResources(r.context(version));
        GenericKubernetesResource g = ns == null ? ops.withName(name).get() : ops.inNamespace(ns).withName(name).get();
        return JSON.valueToTree(g);
    }

    private static JsonNode condition(JsonNode status, String type) {
        for (JsonNode c : status.path("conditions")) {
            if (c.path("type").asText().equals(type)) {
                return c;
            }
        }
        throw new AssertionError("no condition " + type + " in " + status);
    }

    private static List<JsonNode> docs(Path file) throws IOException {
        return docs(Files.readString(file));
    }

    private static List<JsonNode> docs(String yaml) throws IOException {
        try (MappingIterator<JsonNode> it = new YAMLMapper().readerFor(JsonNode.class).readValues(yaml)) {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode d : it.readAll()) {
                if (d != null && !d.isNull() && !d.isEmpty()) {
                    out.add(d);
                }
            }
            return out;
        }
    }

    private static QueuesConfig configMapQueues() throws IOException {
        ConfigMap cm = new YAMLMapper().readValue(Files.readString(CONFIGMAP), ConfigMap.class);
        return QueuesConfig.parse("equivalent-configmap.yaml", cm.getData().get("queues.yaml"));
    }
}
