package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The two example scenarios of examples/scenarios, run under the policies they name. */
class ScenariosTest {
    private static final Path DIR = Path.of("../examples/scenarios");

    private static List<SimulationResult> run(String file) {
        Scenario s = ScenarioConfig.load(DIR.resolve(file));
        assertThat(s.policies()).isNotEmpty();
        return s.policies().stream()
                .map(p -> Simulator.run(s.input(), p, SimulationOptions.DEFAULTS.withRecordEvents(true)))
                .toList();
    }

    @Test
    void cedanaQuotaKeepsTheThirdJobSuspendedUntilQuotaFrees() {
        for (SimulationResult r : run("cedana-quota.yaml")) {
            assertThat(r.job("job-1").firstStartSeconds()).as(r.policy()).isZero();
            assertThat(r.job("job-2").firstStartSeconds()).as(r.policy()).isZero();
            List<EventRecord> job3 = r.events().stream().filter(e -> "job-3".equals(e.job())).toList();
            assertThat(job3).as(r.policy()).anySatisfy(e -> {
                assertThat(e.type()).isEqualTo("PENDING");
                assertThat(e.timeMillis()).isZero();
                assertThat(e.reason()).startsWith("QUOTA:");
            });
            // no Admit for job-3 while the quota is used, and nothing provisioned for it ever
            assertThat(r.actuations()).as(r.policy())
                    .noneMatch(a -> "job-3".equals(a.jobId()) && a.kind().equals("Admit") && a.timeMillis() < 600_000)
                    .noneMatch(a -> a.kind().equals("Provision"));
            assertThat(r.events()).noneMatch(e -> e.type().equals("PROVISIONED"));
            // admitted the moment job-1 finishes and returns its 32 cores
            assertThat(r.actuations()).filteredOn(a -> "job-3".equals(a.jobId()) && a.kind().equals("Admit"))
                    .singleElement().extracting(ActuationRecord::timeMillis).isEqualTo(600_000L);
            assertThat(r.job("job-3").firstStartSeconds()).isEqualTo(600);
            assertThat(r.job("job-3").completionSeconds()).isEqualTo(900);
            assertThat(r.metrics().completed()).isEqualTo(3);
        }
    }

    @Test
    void fluxLateQueueKeepsTheJobUntilItsQueueExists() {
        for (SimulationResult r : run("flux-late-queue.yaml")) {
            JobOutcome j = r.job("early-bird");
            assertThat(r.events()).filteredOn(e -> e.type().equals("PENDING")).first().satisfies(e -> {
                assertThat(e.job()).isEqualTo("early-bird");
                assertThat(e.timeMillis()).isZero();
                assertThat(e.reason()).startsWith("QUEUE_NOT_FOUND:");
            });
            assertThat(r.events()).noneMatch(e -> e.type().equals("CANCELLED") || e.type().equals("FAILED"));
            assertThat(j.firstStartSeconds()).isEqualTo(300);
            assertThat(j.completionSeconds()).isEqualTo(900);
            assertThat(j.completed()).isTrue();
        }
    }
}
