package io.fairway.sim.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.model.Node;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.Resources;
import io.fairway.config.QueuesConfig;
import io.fairway.sim.ClusterAction;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.QueueModel;
import io.fairway.sim.TempFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class YamlConfigTest extends TempFiles {

    @Test
    void bundledClusterIs64V100In2Racks() {
        ClusterModel c = Defaults.cluster();
        assertThat(c.nodes()).hasSize(8);
        assertThat(c.totalGpus()).isEqualTo(64);
        assertThat(c.nodes()).allMatch(n -> n.gpus().shape().equals("hybrid-cube-mesh-8") && n.gpus().model().equals("V100"));
        assertThat(c.nodes()).extracting(n -> n.label("fairway.io/rack"))
                .containsExactly("rack-0", "rack-0", "rack-0", "rack-0", "rack-1", "rack-1", "rack-1", "rack-1");
        assertThat(c.clusters().get(0).topologyLevels()).containsExactly("fairway.io/rack");
    }

    @Test
    void bundledQueuesCoverTheClusterAndEveryQueueOfTheSample() {
        QueueModel q = Defaults.queues();
        // one team (ClusterQueue) per virtual cluster of the sample, sharing the whole cluster through one cohort
        assertThat(q.clusterQueues()).hasSize(10).allSatisfy(cq -> {
            assertThat(cq.cohort()).isEqualTo("philly");
            assertThat(cq.groupFor(Resources.GPU).flavors().get(0).quota(Resources.GPU).nominal()).isZero();
            assertThat(cq.queueingStrategy()).isNull();
        });
        assertThat(q.cohorts()).singleElement().satisfies(c -> {
            assertThat(c.resourceGroups().get(0).flavors().get(0).quota(Resources.GPU).nominal()).isEqualTo(64);
            assertThat(c.resourceGroups().get(0).flavors().get(0).quota(Resources.CPU).nominal()).isEqualTo(512_000);
        });
        for (String key : Defaults.trace().localQueueKeys()) {
            String ns = key.split("/")[0];
            String name = key.split("/")[1];
            assertThat(q.hasLocalQueue(ns, name)).as(key).isTrue();
            assertThat(q.localQueues()).filteredOn(lq -> lq.name().equals(name)).singleElement()
                    .satisfies(lq -> assertThat(lq.clusterQueue()).isEqualTo(name));
        }
        QueueModel derived = Defaults.queuesFor(Defaults.cluster(), Defaults.trace().localQueueKeys());
        assertThat(derived.localQueues()).hasSameSizeAs(q.localQueues());
        assertThat(derived.clusterQueues().get(0).groupFor(Resources.GPU).flavors().get(0).quota(Resources.GPU).nominal()).isEqualTo(64);
    }

    @Test
    void clusterFileWithGroupsLabelsAndTaints() throws IOException {
        Path p = file("cluster.yaml", """
                clusters:
                  - name: east
                    topologyLevels: [fairway.io/rack]
                    nodeGroups:
                      - {namePrefix: h100, count: 3, gpuShape: nvswitch-8, gpuModel: H100, cpu: "96", memory: 1Ti, racks: 3,
                         labels: {pool: train}, taints: [{key: gpu, value: "true", effect: NoSchedule}]}
                      - {namePrefix: cpu, count: 2, cpu: "32", memory: 64Gi}
                """);
        ClusterModel c = ClusterConfig.load(p);
        assertThat(c.nodes()).extracting(Node::name).containsExactly("h100-0", "h100-1", "h100-2", "cpu-0", "cpu-1");
        Node h = c.nodes().get(1);
        assertThat(h.cluster()).isEqualTo("east");
        assertThat(h.labels()).containsEntry("pool", "train").containsEntry("fairway.io/rack", "rack-1");
        assertThat(h.taints()).hasSize(1);
        assertThat(h.capacity()).isEqualTo(Resources.builder().cpu(96).memoryGiB(1024).gpus(8).build());
        assertThat(c.totalGpus()).isEqualTo(24);
    }

    /** Kueue's field names are mapped once, by the configuration module (its QueuesConfigTest); the simulator reads a file into that model. */
    @Test
    void queuesFileIsReadIntoTheConfigurationModulesModel() throws IOException {
        String yaml = """
                flavors: [{name: a100, nodeLabels: {gpu: a100}}]
                clusterQueues:
                  - name: team-a
                    queueingStrategy: StrictFIFO
                    resourceGroups:
                      - coveredResources: [nvidia.com/gpu]
                        flavors: [{name: a100, resources: [{name: nvidia.com/gpu, nominalQuota: 16}]}]
                localQueues: [{name: gpu, namespace: team-a, clusterQueue: team-a}]
                """;
        QueueModel q = QueueFiles.load(file("queues.yaml", yaml));
        assertThat(q).isEqualTo(QueueFiles.toModel(QueuesConfig.parse("queues.yaml", yaml), "queues.yaml"));
        assertThat(q.clusterQueues().get(0).queueingStrategy()).isEqualTo(QueueingStrategy.STRICT_FIFO);
        assertThat(q.clusterQueues().get(0).groupFor(Resources.GPU).flavors().get(0).quota(Resources.GPU).nominal())
                .isEqualTo(16);
        assertThat(q.localQueues()).extracting(l -> l.key() + "->" + l.clusterQueue()).containsExactly("team-a/gpu->team-a");
    }

    @Test
    void malformedYamlNamesFileAndLine() throws IOException {
        Path p = file("broken.yaml", """
                flavors:
                  - name: default
                clusterQueues:
                  - name: cq
                    cohort: a: b
                """);
        assertThatThrownBy(() -> QueueFiles.load(p)).isInstanceOf(SimulationConfigException.class)
                .hasMessageStartingWith(p + ":5:")
                .satisfies(e -> assertThat(((SimulationConfigException) e).line()).isEqualTo(5));
    }

    @Test
    void unknownFieldNamesItsLineAndPath() throws IOException {
        Path p = file("typo.yaml", """
                flavors:
                  - name: default
                clusterQueues:
                  - name: cq
                    nominalQuotas: 5
                """);
        assertThatThrownBy(() -> QueueFiles.load(p)).isInstanceOf(SimulationConfigException.class)
                .hasMessageStartingWith(p + ":5:")
                .hasMessageStartingWith(p + ":5:5: clusterQueues[0]: unknown field")
                .hasMessageContaining("unknown field \"nominalQuotas\"; known fields: cohort, fairSharing");
    }

    @Test
    void invalidValueNamesTheLineWhereItsRecordStarts() throws IOException {
        Path p = file("bad-quantity.yaml", """
                flavors:
                  - name: default
                clusterQueues:
                  - name: cq
                    resourceGroups:
                      - coveredResources: [cpu]
                        flavors:
                          - name: default
                            resources:
                              - {name: cpu, nominalQuota: plenty}
                """);
        assertThatThrownBy(() -> QueueFiles.load(p)).isInstanceOf(SimulationConfigException.class)
                .hasMessageStartingWith(p + ":10:")
                .hasMessageContaining("resource cpu: \"plenty\" is not a quantity");
        Path strategy = file("bad-strategy.yaml", """
                clusterQueues:
                  - name: cq
                    queueingStrategy: Random
                """);
        assertThatThrownBy(() -> QueueFiles.load(strategy)).hasMessageStartingWith(strategy + ":2:")
                .hasMessageContaining("unknown value \"Random\"; known: StrictFIFO, BestEffortFIFO");
        Path shape = file("bad-shape.yaml", "clusters:\n  - nodeGroups:\n      - {namePrefix: n, count: 1, gpuShape: octopus}\n");
        assertThatThrownBy(() -> ClusterConfig.load(shape)).hasMessageStartingWith(shape + ":3:").hasMessageContaining("unknown GPU shape \"octopus\"");
    }

    @Test
    void undefinedFlavorIsNamed() throws IOException {
        Path p = file("flavor.yaml", """
                flavors: [{name: default}]
                clusterQueues:
                  - name: cq
                    resourceGroups:
                      - coveredResources: [cpu]
                        flavors: [{name: spot, resources: [{name: cpu, nominalQuota: 4}]}]
                """);
        assertThatThrownBy(() -> QueueFiles.load(p)).isInstanceOf(SimulationConfigException.class)
                .hasMessage(p + ": ClusterQueue cq: flavor spot is not defined under flavors (defined: [default])");
    }

    @Test
    void emptyAndMissingFilesAreClearErrors() throws IOException {
        Path p = file("empty.yaml", "");
        assertThatThrownBy(() -> ClusterConfig.load(p)).isInstanceOf(SimulationConfigException.class).hasMessage(p + ": is empty");
        assertThatThrownBy(() -> ClusterConfig.load(dir.resolve("nope.yaml"))).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageContaining("nope.yaml");
    }

    @Test
    void scenarioWithJobsAndEvents() throws IOException {
        Path p = file("s.yaml", """
                name: tiny
                policies: [strict-fifo]
                seed: 7
                cluster:
                  clusters: [{name: c, nodeGroups: [{namePrefix: n, count: 1, gpuShape: nvswitch-8, cpu: "8"}]}]
                queues:
                  flavors: [{name: default}]
                  clusterQueues:
                    - name: cq
                      resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: default, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]}]
                jobs:
                  - {id: a, submitSeconds: 1.5, durationSeconds: 60, queue: q, gpus: 16, model: vgg16, priority: 3}
                  - {id: b, durationSeconds: 60, queue: q, members: 2, resources: {nvidia.com/gpu: "2"},
                     checkpointing: {intervalSeconds: 10, restoreCostSeconds: 2}}
                events:
                  - {at: 30, addLocalQueue: {name: q, clusterQueue: cq}}
                  - {at: 40, cordonNode: n-0}
                """);
        Scenario s = ScenarioConfig.load(p);
        assertThat(s.name()).isEqualTo("tiny");
        assertThat(s.policies()).containsExactly("strict-fifo");
        assertThat(s.seed()).isEqualTo(7);
        assertThat(s.input().jobs()).hasSize(2);
        assertThat(s.input().jobs().get(0).submitMillis()).isEqualTo(1500);
        assertThat(s.input().jobs().get(0).spec().podSets().get(0).count()).isEqualTo(2);
        assertThat(s.input().jobs().get(1).spec().checkpointing().restoreCostSeconds()).isEqualTo(2);
        assertThat(s.input().actions()).containsExactly(
                new ClusterAction.AddLocalQueue(30_000, new io.fairway.api.model.LocalQueue("default", "q", "cq")),
                new ClusterAction.CordonNode(40_000, "n-0", true));
    }

    @Test
    void scenarioEventNeedsExactlyOneAction() throws IOException {
        Path p = file("e.yaml", """
                cluster: {clusters: [{nodeGroups: [{namePrefix: n, count: 1, cpu: "8"}]}]}
                queues: {}
                jobs: []
                events:
                  - {at: 5, removeNode: n-0, cancelJob: x}
                """);
        assertThatThrownBy(() -> ScenarioConfig.load(p)).isInstanceOf(SimulationConfigException.class)
                .hasMessageStartingWith(p + ":5:").hasMessageContaining("give exactly one of");
    }

    @Test
    void aJobCarriesItsOwnNodeSelectorAndTolerations() throws IOException {
        io.fairway.api.job.PodSet ps = ScenarioConfig.load(Path.of("../examples/scenarios/fair-share-preemption.yaml")).input().jobs().stream()
                .filter(j -> j.spec().id().equals("b0")).findFirst().orElseThrow().spec().podSets().get(0);
        assertThat(ps.nodeSelector()).containsEntry("pool", "batch");
        assertThat(ps.tolerations()).containsExactly(new io.fairway.api.model.Toleration("dedicated", "Equal", "batch", "NoSchedule"));
        Path p = file("bad-toleration.yaml", """
                name: bad
                cluster: {clusters: [{nodeGroups: [{namePrefix: n, count: 1, cpu: "8"}]}]}
                queues: {}
                jobs:
                  - {id: j, durationSeconds: 5, resources: {cpu: "1"}, tolerations: [{key: dedicated, operator: Sometimes}]}
                """);
        assertThatThrownBy(() -> ScenarioConfig.load(p)).isInstanceOf(SimulationConfigException.class).hasMessageContaining("Sometimes");
    }

    @Test
    void exampleFilesUnderExamplesLoad() {
        for (String f : List.of("cedana-quota.yaml", "flux-late-queue.yaml")) {
            assertThat(ScenarioConfig.load(Path.of("../examples/scenarios", f)).input().jobs()).isNotEmpty();
        }
    }
}
