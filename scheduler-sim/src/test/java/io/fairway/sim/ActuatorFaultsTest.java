package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import io.fairway.sim.trace.Trace;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * An actuator that fails or times out on many decisions: failed starts are retried with backoff, the ones it gives
 * up on go back to pending through the engine, and the engine never disagrees with the simulated machines.
 */
class ActuatorFaultsTest {
    private static final ActuatorFaults HEAVY = ActuatorFaults.NONE.withFailureRate("admit", 0.4).withTimeoutRate("admit", 0.2)
            .withRetry(20, 5, 60, 3);

    /** The first 300 jobs of the bundled Philly sample on the bundled cluster and queues. */
    private static SimulationInput philly300() {
        Trace t = Defaults.trace();
        List<SimJob> jobs = t.jobs().stream().sorted(Comparator.comparingLong(SimJob::submitMillis)).limit(300).toList();
        return new SimulationInput("philly-300", Defaults.cluster(), Defaults.withMissingLocalQueues(Defaults.queues(), t.localQueueKeys()),
                jobs, List.of());
    }

    private static SimulationResult run(String policy, ActuatorFaults faults, long seed) {
        return Simulator.run(philly300(), policy, SimulationOptions.DEFAULTS.withSeed(seed).withRecordEvents(true).withActuatorFaults(faults));
    }

    private static Map<String, Long> count(SimulationResult r, String type) {
        return r.events().stream().filter(e -> e.type().equals(type) && e.job() != null)
                .collect(Collectors.groupingBy(EventRecord::job, TreeMap::new, Collectors.counting()));
    }

    @Test
    void underHeavyFailuresEveryJobFinishesExactlyOnceAndTheEngineAgreesWithTheMachines() {
        for (String policy : List.of("best-effort-fifo", "themis")) {
            SimulationResult r = run(policy, HEAVY, 3);
            assertThat(r.jobs()).as(policy).hasSize(300 - r.skipped().size());
            assertThat(r.jobs()).as(policy + ": every job completes").allMatch(JobOutcome::completed);
            Map<String, Long> succeeded = count(r, "SUCCEEDED");
            assertThat(succeeded).as(policy + ": one SUCCEEDED per job").hasSize(r.jobs().size());
            assertThat(succeeded.values()).as(policy).containsOnly(1L);
            ActuatorMetrics a = r.actuator();
            assertThat(a.engineMismatches()).as(policy + ": engine/simulator disagreements").isZero();
            assertThat(a.failures()).as(policy).isPositive();
            assertThat(a.timeouts()).as(policy).isPositive();
            assertThat(a.retries()).as(policy).isPositive();
            assertThat(a.givenUp()).as(policy + ": with 3 attempts at 60% failure, some starts are given up").isPositive();
            assertThat(a.maxAttemptsOfOneDecision()).as(policy).isEqualTo(3);
            assertThat(a.attempts()).as(policy).isEqualTo(count(r, "STARTED").values().stream().mapToLong(Long::longValue).sum()
                    + a.failures() + a.timeouts());
            // the event log shows each failure, timeout and give-up; each give-up is followed by the engine's REQUEUED
            assertThat(r.events().stream().filter(e -> e.type().equals("ACTUATOR_FAILURE")).count()).as(policy).isEqualTo(a.failures());
            assertThat(r.events().stream().filter(e -> e.type().equals("ACTUATOR_TIMEOUT")).count()).as(policy).isEqualTo(a.timeouts());
            List<EventRecord> log = r.events();
            long gaveUp = 0;
            for (int i = 0; i < log.size(); i++) {
                EventRecord e = log.get(i);
                if (e.type().equals("ACTUATOR_GAVE_UP")) {
                    gaveUp++;
                    EventRecord next = log.get(i + 1);
                    assertThat(next.job()).isEqualTo(e.job());
                    assertThat(next.type()).isEqualTo("REQUEUED");
                    assertThat(next.reason()).contains("the actuator failed to start it after 3 attempt(s)");
                }
            }
            assertThat(gaveUp).as(policy).isEqualTo(a.givenUp());
        }
    }

    @Test
    void retriesWaitWithExponentialBackoffUpToTheCap() {
        ActuatorFaults f = ActuatorFaults.NONE.withFailureRate("admit", 1.0).withRetry(30, 10, 25, 4);
        assertThat(List.of(f.backoffMillis(1), f.backoffMillis(2), f.backoffMillis(3))).containsExactly(10_000L, 20_000L, 25_000L);
        SimulationInput in = SimTestInputs.input(SimTestInputs.nodes(SimTestInputs.gpuNode("n-0", io.fairway.api.model.GpuTopology.nvSwitch8("H100"), null)),
                SimTestInputs.oneQueue(8), List.of(), SimTestInputs.gpuJob("j", 0, 100, 8));
        SimulationResult r = Simulator.run(in, "best-effort-fifo", SimulationOptions.DEFAULTS.withRecordEvents(true)
                .withActuatorFaults(f).withMaxSimulatedSeconds(200));
        // every attempt fails: attempts at 0, 10, 30, 55 s; given up at 55 s, re-admitted at once, and so on
        List<Double> failures = r.actuations().stream().filter(a -> a.kind().equals("ActuatorFailure")).limit(4)
                .map(a -> a.timeMillis() / 1000.0).toList();
        assertThat(failures).containsExactly(0.0, 10.0, 30.0, 55.0);
        assertThat(r.actuator().givenUp()).isGreaterThanOrEqualTo(3);
        assertThat(r.job("j").completed()).isFalse();
        assertThat(r.actuator().engineMismatches()).isZero();
    }

    @Test
    void sameSeedSameRunAndNoFaultsChangesNothing() {
        SimulationResult a = run("best-effort-fifo", HEAVY, 5);
        SimulationResult b = run("best-effort-fifo", HEAVY, 5);
        assertThat(a.events()).isEqualTo(b.events());
        assertThat(a.actuator()).isEqualTo(b.actuator());
        SimulationResult none = run("best-effort-fifo", ActuatorFaults.NONE, 5);
        SimulationResult zero = run("best-effort-fifo", ActuatorFaults.NONE.withFailureRate("admit", 0), 5);
        assertThat(zero.jobs()).isEqualTo(none.jobs());
        assertThat(zero.events()).isEqualTo(none.events());
        assertThat(none.actuator()).isEqualTo(ActuatorMetrics.NONE);
        assertThat(a.metrics().avgQueueingDelaySeconds()).as("failed starts delay jobs").isGreaterThan(none.metrics().avgQueueingDelaySeconds());
    }

    @Test
    void failedNodeRequestsAreRetriedAndTheJobsStillFinish() {
        Scenario s = ScenarioConfig.load(Path.of("../examples/scenarios/cedana-autoscaling.yaml"));
        ActuatorFaults f = ActuatorFaults.NONE.withFailureRate("provision", 0.5).withFailureRate("admit", 0.3).withRetry(30, 10, 120, 2);
        String policy = s.policies().isEmpty() ? "best-effort-fifo" : s.policies().get(0);
        SimulationResult r = Simulator.run(s.input(), policy, SimulationOptions.DEFAULTS.withRecordEvents(true).withActuatorFaults(f));
        assertThat(r.jobs()).allMatch(JobOutcome::completed);
        assertThat(count(r, "SUCCEEDED").values()).containsOnly(1L);
        assertThat(r.actuations()).anyMatch(a -> a.kind().equals("ActuatorFailure") && a.detail().startsWith("provision attempt"));
        assertThat(r.actuator().engineMismatches()).isZero();
    }

    @Test
    void badSettingsAreRefusedNamingTheFieldAndValue() {
        assertThatThrownBy(() -> ActuatorFaults.NONE.withFailureRate("preempt", 0.1)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("unknown decision kind preempt");
        assertThatThrownBy(() -> ActuatorFaults.NONE.withFailureRate("admit", 1.5)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("actuatorFaults.failureRates.admit must be in 0..1, was 1.5");
        assertThatThrownBy(() -> ActuatorFaults.NONE.withFailureRate("admit", 0.7).withTimeoutRate("admit", 0.5))
                .hasMessageContaining("failure rate + timeout rate of admit must be <= 1, was 1.2");
        assertThatThrownBy(() -> ActuatorFaults.NONE.withRetry(30, 10, 5, 3)).hasMessageContaining("backoffCapSeconds must be a number of seconds from backoffBaseSeconds (10.0) to 1e10, was 5.0");
        assertThatThrownBy(() -> ActuatorFaults.NONE.withRetry(30, 10, 50, 0)).hasMessageContaining("maxAttempts must be in 1..100, was 0");
        assertThatThrownBy(() -> ActuatorFaults.NONE.withRetry(0, 10, 50, 3)).hasMessageContaining("timeoutSeconds must be a number of seconds greater than 0 and at most 1e10 (about 317 years), was 0.0");
    }
}
