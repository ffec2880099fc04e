package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.model.NodeAffinity;
import io.fairway.api.model.NodeAffinity.Expression;
import io.fairway.api.model.NodeAffinity.Operator;
import io.fairway.api.model.NodeAffinity.Term;
import io.fairway.sim.config.SimulationConfigException;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A job's required node affinity, written in a scenario's job entries. */
class NodeAffinityInputTest extends TempFiles {
    private static final String HEAD = """
                name: affinity
                cluster:
                  clusters:
                    - name: default
                      nodeGroups:
                        - {namePrefix: gpu, count: 4, gpuShape: nvswitch-8, gpuModel: H100, cpu: "96", memory: 1024Gi}
                """ + TestScenarios.gpuQueue(32);

    @Test
    void aJobsAffinityIsReadAndDecidesWhereItRuns() throws IOException {
        Scenario s = ScenarioConfig.load(scenario(HEAD, """
                  - id: picky
                    durationSeconds: 60
                    queue: lq
                    gpus: 8
                    nodeAffinity:
                      - matchExpressions:
                          - {key: kubernetes.io/hostname, operator: NotIn, values: [gpu-0, gpu-1, gpu-2]}
                      - matchExpressions:
                          - {key: no-such-label, operator: Exists}
                """));
        NodeAffinity expected = NodeAffinity.of(Term.of(Expression.of("kubernetes.io/hostname", Operator.NotIn, "gpu-0", "gpu-1", "gpu-2")),
                Term.of(Expression.of("no-such-label", Operator.Exists)));
        assertThat(s.input().jobs().get(0).spec().podSets().get(0).affinity()).isEqualTo(expected);
        SimulationResult r = Simulator.run(s.input(), "best-effort-fifo", SimulationOptions.DEFAULTS.withRecordEvents(true));
        assertThat(r.job("picky").completed()).isTrue();
        String nodes = r.actuations().stream().filter(a -> a.jobId().equals("picky") && a.kind().equals("Admit")).findFirst()
                .orElseThrow().detail();
        assertThat(nodes).contains("gpu-3").doesNotContain("gpu-0");
    }

    @Test
    void aBadOperatorOrValueIsRefusedNamingTheField() {
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: j, durationSeconds: 5, queue: lq, gpus: 8, nodeAffinity: [{matchExpressions: [{key: zone, operator: Near, values: [a]}]}]}
                """))).isInstanceOf(SimulationConfigException.class).hasMessageContaining("nodeAffinity[0].matchExpressions[0].operator")
                .hasMessageContaining("Near");
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: j, durationSeconds: 5, queue: lq, gpus: 8, nodeAffinity: [{matchExpressions: [{key: gen, operator: Gt, values: [new]}]}]}
                """))).isInstanceOf(SimulationConfigException.class).hasMessageContaining("nodeAffinity[0].matchExpressions[0].values")
                .hasMessageContaining("new");
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: j, durationSeconds: 5, queue: lq, gpus: 8, nodeAffinity: [{matchExpressions: []}]}
                """))).isInstanceOf(SimulationConfigException.class).hasMessageContaining("nodeAffinity[0].matchExpressions");
    }
}
