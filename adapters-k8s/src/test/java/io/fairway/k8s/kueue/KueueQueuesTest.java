package io.fairway.k8s.kueue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Taint;
import io.fairway.api.model.Toleration;
import io.fairway.config.QueuesConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every field of Kueue's ResourceFlavor, ClusterQueue, LocalQueue, Cohort, Topology and WorkloadPriorityClass, as
 * {@link KueueQueues} maps it: the same model the ConfigMap builds, or a finding naming the field. The field table of
 * the guide "Switching from Kueue" cites these tests.
 */
class KueueQueuesTest {
    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void resourceFlavorFields() {
        KueueQueues.Mapped m = map("""
                kind: ResourceFlavor
                metadata: {name: spot}
                spec:
                  nodeLabels: {instance-type: spot}
                  nodeTaints: [{key: spot, value: "true", effect: NoSchedule, timeAdded: "2026-01-01T00:00:00Z"}]
                  tolerations:
                  - {key: spot, operator: Equal, value: "true", effect: NoSchedule}
                  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
                """);
        ResourceFlavor f = m.config().flavorModels().get(0);
        assertThat(f).isEqualTo(new ResourceFlavor("spot", Map.of("instance-type", "spot"), List.of(new Taint("spot", "true", "NoSchedule")),
                List.of(new Toleration("spot", "Equal", "true", "NoSchedule"), new Toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute"))));
        assertThat(fields(m)).containsExactlyInAnyOrder("ResourceFlavor spot spec.nodeTaints[0].timeAdded",
                "ResourceFlavor spot spec.tolerations[1].tolerationSeconds");
        assertThat(m.findings()).noneMatch(KueueQueues.Finding::holds);
    }

    @Test
    void topologyLevelsComeFromTheTopologyTheFlavorsNameWithTheHostImplicit() {
        KueueQueues.Mapped m = map("""
                kind: Topology
                metadata: {name: default}
                spec: {levels: [{nodeLabel: block}, {nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
                ---
                kind: Topology
                metadata: {name: other}
                spec: {levels: [{nodeLabel: zone}]}
                ---
                kind: ResourceFlavor
                metadata: {name: a}
                spec: {topologyName: default}
                ---
                kind: ResourceFlavor
                metadata: {name: b}
                spec: {topologyName: other}
                ---
                kind: ResourceFlavor
                metadata: {name: c}
                spec: {topologyName: missing}
                """);
        assertThat(m.config().topologyLevels()).containsExactly("block", "rack");
        assertThat(fields(m)).containsExactlyInAnyOrder("ResourceFlavor b spec.topologyName", "ResourceFlavor c spec.topologyName");
        assertThat(map("kind: ResourceFlavor\nmetadata: {name: a}\n").config().topologyLevels()).isEmpty();
    }

    @Test
    void clusterQueueFieldsMapToTheClusterQueueModel() {
        KueueQueues.Mapped m = map(FLAVOR + """
                ---
                kind: ClusterQueue
                metadata: {name: cq, annotations: {fairway.io/priority-factor: "2.5"}}
                spec:
                  cohortName: team
                  namespaceSelector: {}
                  queueingStrategy: StrictFIFO
                  preemption: {withinClusterQueue: LowerOrNewerEqualPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
                  fairSharing: {weight: 500m}
                  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor}
                  stopPolicy: None
                  resourceGroups:
                  - coveredResources: [cpu, memory]
                    flavors:
                    - name: default
                      resources:
                      - {name: cpu, nominalQuota: 10, borrowingLimit: "2", lendingLimit: 500m}
                      - {name: memory, nominalQuota: 64Gi}
                """);
        assertThat(m.findings()).isEmpty();
        ClusterQueue q = m.config().clusterQueueModels().get(0);
        assertThat(q.cohort()).isEqualTo("team");
        assertThat(q.queueingStrategy()).isEqualTo(QueueingStrategy.STRICT_FIFO);
        assertThat(q.preemption()).isEqualTo(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY));
        assertThat(q.fairSharingWeight()).isEqualTo(0.5);
        assertThat(q.priorityFactor()).isEqualTo(2.5);
        assertThat(q.flavorFungibility()).isEqualTo(FlavorFungibility.TRY_NEXT_FLAVOR);
        assertThat(q.stopped()).isFalse();
        assertThat(q.resourceGroups().get(0).coveredResources()).containsExactly("cpu", "memory");
        assertThat(q.resourceGroups().get(0).flavors().get(0).resources()).containsExactly(new ResourceQuota("cpu", 10_000, 2_000, 500),
                new ResourceQuota("memory", 64L << 30, ResourceQuota.UNLIMITED, ResourceQuota.UNLIMITED));
        // the same ClusterQueue in the ConfigMap's YAML builds the same model
        QueuesConfig yaml = configMapCq("""
                cohort: team
                queueingStrategy: StrictFIFO
                preemption: {withinClusterQueue: LowerOrNewerEqualPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
                fairSharing: {weight: 0.5}
                priorityFactor: 2.5
                flavorFungibility: {whenCanBorrow: TryNextFlavor}
                resourceGroups:
                  - coveredResources: [cpu, memory]
                    flavors:
                      - name: default
                        resources: [{name: cpu, nominalQuota: 10, borrowingLimit: 2, lendingLimit: 500m}, {name: memory, nominalQuota: 64Gi}]
                """);
        assertThat(q).isEqualTo(yaml.clusterQueueModels().get(0));
    }

    @Test
    void kueueDefaultsAreFairwaysDefaults() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", "flavorFungibility: {whenCanBorrow: MayStopSearch}"));
        ClusterQueue q = m.config().clusterQueueModels().get(0);
        assertThat(q.queueingStrategy()).isEqualTo(QueueingStrategy.BEST_EFFORT_FIFO); // the CRD's default for an omitted field
        assertThat(q.preemption()).isEqualTo(PreemptionPolicy.NEVER);
        assertThat(q.flavorFungibility()).isEqualTo(FlavorFungibility.BORROW_FIRST);
        assertThat(q.fairSharingWeight()).isEqualTo(1.0);
        assertThat(q.priorityFactor()).isEqualTo(1.0);
        assertThat(q.cohort()).isNull();
    }

    @Test
    void v1beta1NamesTheCohortSpecCohortAndListsAdmissionChecks() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", "cohort: team\n  admissionChecks: [prov]"));
        assertThat(m.config().clusterQueueModels().get(0).cohort()).isEqualTo("team");
        assertThat(m.config().clusterQueueModels().get(0).stopped()).isTrue();
        assertThat(m.inactive().get("cq")[1]).contains("spec.admissionChecks");
        assertThat(fields(m)).containsExactly("ClusterQueue cq spec.admissionChecks");
    }

    @Test
    void fieldsThatWouldChangeWhatMayRunHoldTheClusterQueue() {
        for (String field : List.of("admissionChecksStrategy: {admissionChecks: [{name: prov}]}", "admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}",
                "concurrentAdmissionPolicy: {migration: {mode: Never}}")) {
            KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", field));
            String name = field.substring(0, field.indexOf(':'));
            assertThat(fields(m)).as(name).containsExactly("ClusterQueue cq spec." + name);
            assertThat(m.findings().get(0).holds()).isTrue();
            assertThat(m.config().clusterQueueModels().get(0).stopped()).as(name + " holds the ClusterQueue").isTrue();
            assertThat(m.inactive()).containsKey("cq");
        }
    }

    @Test
    void fieldsFairwayDoesNotImplementAreReportedAndTheRestIsUsed() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", """
                namespaceSelector: {}
                  flavorFungibility: {whenCanPreempt: MayStopSearch, preference: BorrowingOverPreemption}
                  preemption: {borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}}
                  stopPolicy: HoldAndDrain
                  someFutureField: 1""") + """
                ---
                kind: LocalQueue
                metadata: {name: lq, namespace: ns}
                spec: {clusterQueue: cq, fairSharing: {weight: 2}}
                """);
        assertThat(fields(m)).containsExactlyInAnyOrder("ClusterQueue cq spec.flavorFungibility.whenCanPreempt",
                "ClusterQueue cq spec.flavorFungibility.preference",
                "ClusterQueue cq spec.stopPolicy", "ClusterQueue cq spec.someFutureField", "LocalQueue lq spec.fairSharing");
        assertThat(m.findings()).noneMatch(KueueQueues.Finding::holds);
        ClusterQueue q = m.config().clusterQueueModels().get(0);
        assertThat(q.stopped()).as("HoldAndDrain holds").isTrue();
        assertThat(q.preemption().borrowWithinCohort()).isEqualTo(PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY);
        assertThat(m.config().localQueueModels()).hasSize(1);
    }

    @Test
    void maxPriorityThresholdBoundsWhomABorrowingJobMayPreemptAsTheConfigMapDoes() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", "cohortName: team\n  preemption: {reclaimWithinCohort: Any, "
                + "borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}}"));
        assertThat(m.findings()).isEmpty();
        PreemptionPolicy p = m.config().clusterQueueModels().get(0).preemption();
        assertThat(p.borrowWithinCohort()).isEqualTo(PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY);
        assertThat(p.maxPriorityThreshold()).isEqualTo(100);
        QueuesConfig yaml = configMapCq("""
                cohort: team
                queueingStrategy: BestEffortFIFO
                preemption: {reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}}
                resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]}]
                """);
        assertThat(m.config().clusterQueueModels()).isEqualTo(yaml.clusterQueueModels());
        // a value that is not an integer is reported, naming the field, and no threshold is used
        KueueQueues.Mapped bad = map(FLAVOR + "---\n" + cq("cq", "preemption: {borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: high}}"));
        assertThat(fields(bad)).containsExactly("ClusterQueue cq spec.preemption.borrowWithinCohort.maxPriorityThreshold");
        assertThat(bad.config().clusterQueueModels().get(0).preemption().maxPriorityThreshold()).isNull();
    }

    @Test
    void aClusterQueueNamingAMissingFlavorIsInactiveAsInKueue() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", "").replace("name: default", "name: gone"));
        assertThat(m.config().clusterQueues()).isEmpty();
        assertThat(m.inactive().get("cq")).containsExactly("FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): gone.");
    }

    @Test
    void aWeightOfZeroIsRefusedNamingTheField() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", "fairSharing: {weight: 0}"));
        assertThat(m.config().clusterQueues()).isEmpty();
        assertThat(m.inactive().get("cq")[1]).contains("fairSharing.weight");
    }

    @Test
    void namespaceSelectorSelectsTheLocalQueuesAsKueueSelectsWorkloads() {
        String objects = FLAVOR + "---\n" + cq("all", "namespaceSelector: {}") + "---\n" + cq("none", "") + "---\n"
                + cq("labels", "namespaceSelector: {matchLabels: {team: a}}") + "---\n"
                + cq("exprs", "namespaceSelector: {matchExpressions: [{key: team, operator: In, values: [a, b]}, {key: frozen, operator: DoesNotExist}]}")
                + lq("a", "all") + lq("a", "none") + lq("a", "labels") + lq("a", "exprs") + lq("b", "labels") + lq("b", "exprs") + lq("c", "exprs");
        KueueQueues.Mapped m = KueueQueues.map(objects(objects, Map.of("a", Map.of("team", "a"), "b", Map.of("team", "b"), "c",
                Map.of("team", "b", "frozen", "yes"))), null);
        assertThat(m.config().localQueueModels()).extracting(l -> l.namespace() + "/" + l.name())
                .containsExactlyInAnyOrder("a/all", "a/labels", "a/exprs", "b/exprs");
        assertThat(m.localQueuesNotLoaded()).containsOnlyKeys("a/none", "b/labels", "c/exprs");
        assertThat(m.localQueuesNotLoaded().get("a/none")[0]).isEqualTo("NamespaceNotSelected");
        // applied here, with Kueue's meaning (absent: no namespace); the engine, whose absent selector means every
        // namespace, is given no selector and only the LocalQueues selected
        assertThat(m.config().clusterQueueModels()).allSatisfy(q -> assertThat(q.namespaceSelector()).isNull());
        assertThat(m.config().clusterQueueModels()).extracting(ClusterQueue::name).contains("none");
        assertThat(Selectors.matches(YAML.createObjectNode().set("matchExpressions", YAML.createArrayNode()
                .add(YAML.createObjectNode().put("key", "team").put("operator", "NotIn").set("values", YAML.createArrayNode().add("a")))), Map.of())).isTrue();
        assertThat(Selectors.matches(YAML.createObjectNode().set("matchExpressions", YAML.createArrayNode()
                .add(YAML.createObjectNode().put("key", "team").put("operator", "Exists"))), Map.of())).isFalse();
    }

    @Test
    void localQueueFieldsAndAStoppedLocalQueue() {
        KueueQueues.Mapped m = map(FLAVOR + "---\n" + cq("cq", "namespaceSelector: {}") + lq("a", "cq") + """
                ---
                kind: LocalQueue
                metadata: {name: held, namespace: a}
                spec: {clusterQueue: cq, stopPolicy: Hold}
                """);
        assertThat(m.config().localQueueModels()).extracting(l -> l.namespace() + "/" + l.name() + "->" + l.clusterQueue()).containsExactly("a/cq->cq");
        assertThat(m.localQueuesNotLoaded().get("a/held")).containsExactly("Stopped", "LocalQueue is stopped");
    }

    @Test
    void cohortFields() {
        KueueQueues.Mapped m = map(FLAVOR + """
                ---
                kind: Cohort
                metadata: {name: child}
                spec:
                  parentName: root
                  fairSharing: {weight: 3}
                  resourceGroups:
                  - coveredResources: [cpu]
                    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4, lendingLimit: 1}]}]
                ---
                kind: Cohort
                metadata: {name: root}
                """);
        assertThat(m.findings()).isEmpty();
        Cohort child = m.config().cohortModels().get(0);
        QueuesConfig yaml = QueuesConfig.parse("test", """
                flavors: [{name: default}]
                cohorts:
                  - name: child
                    parent: root
                    fairSharing: {weight: 3}
                    resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4, lendingLimit: 1}]}]}]
                  - name: root
                """);
        assertThat(m.config().cohortModels()).isEqualTo(yaml.cohortModels());
        assertThat(child.parent()).isEqualTo("root");
    }

    @Test
    void workloadPriorityClassValues() {
        KueueQueues.Mapped m = map("""
                kind: WorkloadPriorityClass
                metadata: {name: high}
                value: 10000
                description: urgent
                ---
                kind: WorkloadPriorityClass
                metadata: {name: low}
                value: -5
                """);
        assertThat(m.priorityClasses()).containsExactlyInAnyOrderEntriesOf(Map.of("high", 10000, "low", -5));
    }

    @Test
    void theMappingIsIndependentOfTheOrderObjectsArrive() {
        String a = FLAVOR + "---\n" + cq("b", "namespaceSelector: {}") + "---\n" + cq("a", "namespaceSelector: {}") + lq("x", "a") + lq("x", "b");
        KueueQueues.Mapped one = map(a);
        List<JsonNode> docs = docs(a);
        java.util.Collections.reverse(docs);
        KueueQueues.Mapped two = KueueQueues.map(objects(docs, Map.of()), null);
        assertThat(two.config()).isEqualTo(one.config());
    }

    // ------------------------------------------------------------------ helpers

    private static final String FLAVOR = "kind: ResourceFlavor\nmetadata: {name: default}\n";

    private static String cq(String name, String extraSpec) {
        return """
                kind: ClusterQueue
                metadata: {name: %s}
                spec:
                  %s
                  resourceGroups:
                  - coveredResources: [cpu]
                    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
                """.formatted(name, extraSpec);
    }

    /** @return the queues of a ConfigMap holding one ClusterQueue {@code cq} over the flavor {@code default}, with these fields (YAML) */
    private static QueuesConfig configMapCq(String fields) {
        return QueuesConfig.parse("test", "flavors: [{name: default}]\nclusterQueues:\n  - name: cq\n" + fields.indent(4));
    }

    private static String lq(String ns, String cq) {
        return "---\nkind: LocalQueue\nmetadata: {name: " + cq + ", namespace: " + ns + "}\nspec: {clusterQueue: " + cq + "}\n";
    }

    private static KueueQueues.Mapped map(String yaml) {
        return KueueQueues.map(objects(yaml, Map.of()), null);
    }

    private static List<String> fields(KueueQueues.Mapped m) {
        return m.findings().stream().map(f -> f.kind() + " " + f.name() + " " + f.field()).toList();
    }

    private static KueueQueues.Objects objects(String yaml, Map<String, Map<String, String>> ns) {
        return objects(docs(yaml), ns);
    }

    private static KueueQueues.Objects objects(List<JsonNode> docs, Map<String, Map<String, String>> ns) {
        Map<String, List<JsonNode>> by = new java.util.HashMap<>();
        for (JsonNode d : docs) {
            by.computeIfAbsent(d.path("kind").asText(), k -> new ArrayList<>()).add(d);
        }
        return new KueueQueues.Objects(by.get("ResourceFlavor"), by.get("ClusterQueue"), by.get("LocalQueue"), by.get("Cohort"), by.get("Topology"),
                by.get("WorkloadPriorityClass"), ns);
    }

    private static List<JsonNode> docs(String yaml) {
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode d : it.readAll()) {
                if (d != null && !d.isNull() && !d.isEmpty()) {
                    out.add(d);
                }
            }
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
