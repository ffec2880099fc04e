package io.fairway.sim.multicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fairway.sim.ClusterAction;
import io.fairway.sim.JobOutcome;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import io.fairway.sim.config.ClusterConfig;
import io.fairway.sim.config.SimulationConfigException;
import io.fairway.sim.config.QueueFiles;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import io.fairway.sim.trace.Trace;
import io.fairway.sim.trace.Traces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled multi-cluster example (examples/multi-cluster: 5 clusters, c2 lost at 2 h, c5 joining at 4 h, three
 * queues with priority factors 1, 2, 4) and the multi-cluster scenario, run by the multi-cluster engine from YAML.
 */
class MultiClusterRunTest {
    private static final Path EXAMPLE = Path.of("../examples/multi-cluster");
    private static SimulationInput example;
    private static MultiClusterRun.Result fair;

    @TempDir
    Path dir;

    @BeforeAll
    static void runTheExample() {
        ClusterConfig.Setup setup = ClusterConfig.loadSetup(EXAMPLE.resolve("clusters.yaml"));
        Trace t = Traces.read(EXAMPLE.resolve("jobs.csv"), null);
        example = new SimulationInput("example", setup.model(), QueueFiles.load(EXAMPLE.resolve("queues.yaml")), t.jobs(), setup.actions());
        fair = MultiClusterRun.run(example, "fair-share-over-time", SimulationOptions.DEFAULTS);
    }

    private static Map<String, MultiClusterRun.ClusterResult> byName(MultiClusterRun.Result r) {
        return r.clusters().stream().collect(Collectors.toMap(MultiClusterRun.ClusterResult::name, Function.identity()));
    }

    @Test
    void theClusterFileDescribesTheFleetItsLossAndItsJoin() {
        assertThat(example.cluster().clusters()).extracting(c -> c.name()).containsExactly("c0", "c1", "c2", "c3", "c4");
        assertThat(example.actions()).hasSize(2);
        assertThat(example.actions().get(0)).isEqualTo(new ClusterAction.LoseCluster(7_200_000, "c2"));
        ClusterAction.JoinCluster join = (ClusterAction.JoinCluster) example.actions().get(1);
        assertThat(join.atMillis()).isEqualTo(14_400_000);
        assertThat(join.nodes()).extracting(n -> n.name()).containsExactly("c5-0", "c5-1");
        assertThat(join.nodes()).allMatch(n -> n.cluster().equals("c5"));
    }

    @Test
    void everyJobFinishesExactlyOnceAndNoneRunsInTwoClusters() {
        assertThat(fair.jobs()).isEqualTo(450);
        assertThat(fair.completedOnce()).isEqualTo(450);
        assertThat(fair.completedMoreThanOnce()).isZero();
        assertThat(fair.unfinished()).isZero();
        assertThat(fair.maxConcurrentRuns()).isEqualTo(1);
        assertThat(fair.clusters().stream().mapToInt(MultiClusterRun.ClusterResult::completions).sum()).isEqualTo(450);
    }

    @Test
    void theLostClusterFencesIsDeclaredLostAfterTheGracePeriodAndItsJobsRestartElsewhere() {
        MultiClusterRun.ClusterResult c2 = byName(fair).get("c2");
        assertThat(fair.lostClusters()).containsExactly("c2");
        assertThat(c2.silentAtSeconds()).isEqualTo(7200);
        assertThat(c2.declaredLostAtSeconds()).isCloseTo(7200 + MultiClusterRun.GRACE_MILLIS / 1000.0, within(1.0));
        assertThat(c2.runsFenced()).isPositive();
        assertThat(fair.restartedAfterLoss()).isEqualTo(c2.runsFenced());
        MultiClusterRun.ClusterResult c5 = byName(fair).get("c5");
        assertThat(c5.joinedAtSeconds()).isEqualTo(14_400);
        assertThat(c5.runsStarted()).isPositive();
        assertThat(byName(fair).get("c0").joinedAtSeconds()).isNaN();
    }

    @Test
    void underFairShareTheQueuesGetMoreTheSmallerTheirFactorAndMoreThanUnderFifo() {
        Map<String, MultiClusterRun.QueueResult> q = fair.queues().stream()
                .collect(Collectors.toMap(MultiClusterRun.QueueResult::name, Function.identity()));
        assertThat(q.get("alpha").targetShare()).isCloseTo(4 / 7.0, within(1e-9));
        assertThat(q.get("alpha").contendedShare()).isGreaterThan(q.get("beta").contendedShare());
        assertThat(q.get("beta").contendedShare()).isGreaterThan(q.get("gamma").contendedShare());
        MultiClusterRun.Result fifo = MultiClusterRun.run(example, "best-effort-fifo", SimulationOptions.DEFAULTS);
        double fifoAlpha = fifo.queues().stream().filter(x -> x.name().equals("alpha")).findFirst().orElseThrow().contendedShare();
        assertThat(q.get("alpha").contendedShare()).isGreaterThan(fifoAlpha + 0.05);
        assertThat(q.get("alpha").avgWaitSeconds()).isLessThan(q.get("gamma").avgWaitSeconds());
        assertThat(fifo.completedOnce()).isEqualTo(450);
        assertThat(fifo.maxConcurrentRuns()).isEqualTo(1);
    }

    @Test
    void theScenarioLosesAndJoinsClustersAtItsEventTimesAndIsDeterministic() {
        Scenario s = ScenarioConfig.load(Path.of("../examples/scenarios/multi-cluster-loss.yaml"));
        assertThat(s.input().cluster().clusters()).extracting(c -> c.name()).containsExactly("west", "east", "north");
        MultiClusterRun.Result r = MultiClusterRun.run(s.input(), "fair-share-over-time", SimulationOptions.DEFAULTS);
        assertThat(r.completedOnce()).isEqualTo(8);
        assertThat(r.completedMoreThanOnce()).isZero();
        assertThat(r.maxConcurrentRuns()).isEqualTo(1);
        Map<String, MultiClusterRun.ClusterResult> c = byName(r);
        assertThat(c.get("east").declaredLostAtSeconds()).isCloseTo(1200, within(1.0));
        assertThat(c.get("east").completions()).isZero();
        assertThat(c.get("late").joinedAtSeconds()).isEqualTo(1800);
        assertThat(c.get("late").completions()).isPositive();
        assertThat(MultiClusterRun.run(s.input(), "fair-share-over-time", SimulationOptions.DEFAULTS)).isEqualTo(r);
        // the single-actuator simulator takes the same events: the cluster's nodes go at once, the late one's come
        SimulationResult single = Simulator.run(s.input(), "fair-share-over-time", SimulationOptions.DEFAULTS);
        assertThat(single.jobs()).allMatch(JobOutcome::completed);
    }

    @Test
    void clusterChangesNamingUnknownClustersOrImpossibleTimesAreRefused() throws Exception {
        String clusters = """
                clusters:
                  - {name: a, nodeGroups: [{namePrefix: a, count: 1, gpuShape: nvswitch-8, cpu: "8"}]}
                  - {name: b, nodeGroups: [{namePrefix: b, count: 1, gpuShape: nvswitch-8, cpu: "8"}]%s}
                """;
        Map<String, String> bad = Map.of(
                ", joinAtSeconds: -5", "joinAtSeconds must be >= 0, was -5.0",
                ", lostAtSeconds: -1", "lostAtSeconds must be >= 0, was -1.0",
                ", joinAtSeconds: 100, lostAtSeconds: 50", "cluster b: lost at 50.0 s, which is not after it joins at 100.0 s",
                ", lostAtSeconds: soon", "soon");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Path p = dir.resolve("c.yaml");
            Files.writeString(p, clusters.formatted(e.getKey()));
            assertThatThrownBy(() -> ClusterConfig.loadSetup(p)).as(e.getKey()).isInstanceOf(SimulationConfigException.class)
                    .hasMessageContaining(p.toString()).hasMessageContaining(e.getValue());
        }
        Path all = dir.resolve("all.yaml");
        Files.writeString(all, "clusters:\n  - {name: a, joinAtSeconds: 5, nodeGroups: [{namePrefix: a, count: 1, cpu: \"8\"}]}\n");
        assertThatThrownBy(() -> ClusterConfig.loadSetup(all)).hasMessageContaining("every cluster joins later");
        for (String event : List.of("{at: 60, joinCluster: nowhere}", "{at: 60, loseCluster: nowhere}")) {
            Path sc = dir.resolve("s.yaml");
            Files.writeString(sc, """
                    cluster:
                      clusters: [{name: a, nodeGroups: [{namePrefix: a, count: 1, cpu: "8"}]}]
                    queues: {}
                    jobs: []
                    events:
                      - %s
                    """.formatted(event));
            assertThatThrownBy(() -> ScenarioConfig.load(sc)).as(event).isInstanceOf(SimulationConfigException.class)
                    .hasMessageContaining("cluster nowhere is not described in the cluster section (known: [a])");
        }
    }
}
