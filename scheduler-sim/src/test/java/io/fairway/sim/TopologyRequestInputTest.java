package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterSpec;
import io.fairway.sim.config.SimulationConfigException;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import io.fairway.sim.trace.TopologyText;
import io.fairway.sim.trace.Trace;
import io.fairway.sim.trace.TraceFormat;
import io.fairway.sim.trace.TraceFormatException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A job's topology request, written in a scenario's job entries and in the native CSV's topology column. */
class TopologyRequestInputTest extends TempFiles {
    private static final String RACK = ClusterSpec.RACK_LABEL;

    private static final Map<String, TopologyRequest> EXPECTED = Map.of(
            "rack-required", TopologyRequest.required(RACK),
            "rack-preferred", TopologyRequest.preferred(RACK),
            "one-node", TopologyRequest.required("kubernetes.io/hostname"),
            "nvlink", TopologyRequest.nvlinkDomain(),
            "spread", TopologyRequest.spreadAcrossNodes(),
            "none", TopologyRequest.NONE);

    private static Map<String, TopologyRequest> topologies(List<SimJob> jobs) {
        return jobs.stream().collect(Collectors.toMap(SimJob::id, j -> j.spec().podSets().get(0).topology(), (a, b) -> a));
    }

    private static final String HEAD = """
                name: topo
                cluster:
                  clusters:
                    - name: default
                      topologyLevels: [fairway.io/rack]
                      nodeGroups:
                        - {namePrefix: gpu, count: 4, racks: 2, gpuShape: nvswitch-8, gpuModel: H100, cpu: "96", memory: 1024Gi}
                """ + TestScenarios.gpuQueue(32);

    @Test
    void scenarioJobsAndCsvRowsCarryTheSameRequests() throws IOException {
        Scenario s = ScenarioConfig.load(scenario(HEAD, """
                  - {id: rack-required, durationSeconds: 60, queue: lq, gpus: 16, topology: {required: fairway.io/rack}}
                  - {id: rack-preferred, durationSeconds: 60, queue: lq, gpus: 16, topology: {preferred: fairway.io/rack}}
                  - {id: one-node, durationSeconds: 60, queue: lq, gpus: 8, topology: {required: kubernetes.io/hostname}}
                  - {id: nvlink, durationSeconds: 60, queue: lq, gpus: 8, topology: {nvlinkDomain: true}}
                  - {id: spread, durationSeconds: 60, queue: lq, members: 4, resources: {nvidia.com/gpu: "1"}, topology: {spread: true}}
                  - {id: none, durationSeconds: 60, queue: lq, gpus: 8}
                """));
        assertThat(topologies(s.input().jobs())).isEqualTo(EXPECTED);

        Path csv = file("t.csv", """
                id,submit_seconds,duration_seconds,gpus,queue,topology
                rack-required,0,60,16,lq,required:fairway.io/rack
                rack-preferred,0,60,16,lq,preferred:fairway.io/rack
                one-node,0,60,8,lq,required:kubernetes.io/hostname
                nvlink,0,60,8,lq,nvlink-domain
                spread,0,60,4,lq,spread
                none,0,60,8,lq,
                """);
        Trace t = TraceFormat.NATIVE.reader().read(csv);
        assertThat(topologies(t.jobs())).isEqualTo(EXPECTED);
        // and the text form reads back what it writes
        for (TopologyRequest r : EXPECTED.values()) {
            assertThat(TopologyText.parse(TopologyText.format(r))).isEqualTo(r);
        }
    }

    @Test
    void aGangOf24ThatMustFitOne16GpuRackNeverRunsAndSaysWhy() throws IOException {
        Scenario s = ScenarioConfig.load(scenario(HEAD, """
                  - {id: in-a-rack, durationSeconds: 600, queue: lq, gpus: 24, topology: {required: fairway.io/rack}}
                  - {id: anywhere, submitSeconds: 10, durationSeconds: 600, queue: lq, gpus: 24}
                  - {id: sixteen, submitSeconds: 20, durationSeconds: 600, queue: lq, gpus: 16, topology: {required: fairway.io/rack}}
                """));
        SimulationResult r = Simulator.run(s.input(), "best-effort-fifo", SimulationOptions.DEFAULTS.withRecordEvents(true));
        assertThat(r.job("in-a-rack").firstStartSeconds()).isNaN();
        assertThat(r.events()).anySatisfy(e -> {
            assertThat(e.job()).isEqualTo("in-a-rack");
            assertThat(e.reason()).startsWith("GANG_LARGER_THAN_ANY_DOMAIN:").contains("in one fairway.io/rack");
        });
        assertThat(r.job("anywhere").firstStartSeconds()).isEqualTo(10); // the same gang without the request spans both racks
        assertThat(r.job("sixteen").completed()).isTrue();
        String nodes = r.actuations().stream().filter(a -> a.jobId().equals("sixteen") && a.kind().equals("Admit")).findFirst()
                .orElseThrow().detail();
        // racks are gpu-0, gpu-1 and gpu-2, gpu-3: the 16-GPU gang holds both nodes of one of them
        assertThat(nodes).satisfiesAnyOf(d -> assertThat(d).contains("gpu-0").contains("gpu-1").doesNotContain("gpu-2").doesNotContain("gpu-3"),
                d -> assertThat(d).contains("gpu-2").contains("gpu-3").doesNotContain("gpu-0").doesNotContain("gpu-1"));
    }

    @Test
    void badRequestsAreRefusedNamingTheJobAndValue() throws IOException {
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: both, durationSeconds: 60, queue: lq, gpus: 8, topology: {required: fairway.io/rack, preferred: fairway.io/rack}}
                """))).isInstanceOf(SimulationConfigException.class).hasMessageContaining("give exactly one of required");
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: typo, durationSeconds: 60, queue: lq, gpus: 8, topology: {required: fairway.io/rak}}
                """))).isInstanceOf(SimulationConfigException.class)
                .hasMessageContaining("job typo: topology level fairway.io/rak is not a topology level of the cluster")
                .hasMessageContaining("known levels: fairway.io/rack, kubernetes.io/hostname");
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: field, durationSeconds: 60, queue: lq, gpus: 8, topology: {level: fairway.io/rack}}
                """))).isInstanceOf(SimulationConfigException.class).hasMessageContaining("unknown field \"level\"")
                .hasMessageContaining("preferred").hasMessageContaining("required");
        Path csv = file("bad.csv", "id,submit_seconds,duration_seconds,gpus,topology\nj1,0,60,8,rack\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(csv)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(":2").hasMessageContaining("topology \"rack\" is not one of required:LEVEL");
    }

    @Test
    void theExampleScenarioShowsBothGangs() {
        Scenario s = ScenarioConfig.load(Path.of("../examples/scenarios/rack-gang.yaml"));
        SimulationResult r = Simulator.run(s.input(), s.policies().get(0), SimulationOptions.DEFAULTS);
        assertThat(r.job("gang-24-one-rack").firstStartSeconds()).isNaN();
        assertThat(r.job("gang-24-anywhere").completed()).isTrue();
        assertThat(r.job("gang-16-one-rack").firstStartSeconds()).isZero();
        assertThat(r.metrics().completed()).isEqualTo(3);
    }
}
