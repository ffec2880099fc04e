package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.sim.config.SimulationConfigException;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Priority classes in scenario files: the operator defines them under the queues, a job names one. */
class PriorityClassInputTest extends TempFiles {
    private static final String HEAD = """
                name: classes
                cluster: {clusters: [{nodeGroups: [{namePrefix: n, count: 1, cpu: "4"}]}]}
                queues:
                  flavors: [{name: default}]
                  priorityClasses:
                    - {name: system, value: 100, preemptible: false}
                    - {name: batch}
                  clusterQueues:
                    - name: cq
                      preemption: {withinClusterQueue: LowerPriority}
                      resourceGroups:
                        - coveredResources: [cpu]
                          flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
                  localQueues: [{name: lq, clusterQueue: cq}]
                """;

    @Test
    void aJobOfANonPreemptibleClassRunsToItsEndWhateverArrives() throws IOException {
        Scenario s = ScenarioConfig.load(scenario(HEAD, """
                  - {id: daemon, durationSeconds: 100, queue: lq, resources: {cpu: "4"}, priorityClass: system}
                  - {id: urgent, submitSeconds: 10, durationSeconds: 10, queue: lq, resources: {cpu: "4"}, priority: 1000}
                """));
        assertThat(s.input().jobs().get(0).spec().priorityClass().name()).isEqualTo("system");
        SimulationResult r = Simulator.run(s.input(), "best-effort-fifo", SimulationOptions.DEFAULTS);
        assertThat(r.job("daemon").preemptions()).isZero();
        assertThat(r.job("urgent").firstStartSeconds()).isGreaterThanOrEqualTo(100);
    }

    @Test
    void anUndefinedClassIsRefusedNamingIt() {
        assertThatThrownBy(() -> ScenarioConfig.load(scenario(HEAD, """
                  - {id: j, durationSeconds: 5, queue: lq, resources: {cpu: "1"}, priorityClass: platinum}
                """))).isInstanceOf(SimulationConfigException.class).hasMessageContaining("priorityClass").hasMessageContaining("platinum");
    }
}
