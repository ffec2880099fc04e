package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.sim.config.Scenario;
import io.fairway.sim.config.ScenarioConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The quota scenarios of examples/scenarios (docs/concepts/quota.md), run in the simulator. */
class QuotaScenariosYamlTest {
    private static final Path DIR = Path.of("../examples/scenarios");

    private static SimulationResult run(String file) {
        Scenario s = ScenarioConfig.load(DIR.resolve(file));
        return Simulator.run(s.input(), s.policies().get(0), SimulationOptions.DEFAULTS.withRecordEvents(true));
    }

    private static List<ActuationRecord> actuations(SimulationResult r, String job, String kind) {
        return r.actuations().stream().filter(a -> job.equals(a.jobId()) && a.kind().equals(kind)).toList();
    }

    @Test
    void borrowerIsPreemptedWhenTheLenderReclaims() {
        SimulationResult r = run("borrow-and-reclaim.yaml");
        assertThat(r.job("a1").firstStartSeconds()).isZero();
        assertThat(r.job("a2").firstStartSeconds()).isZero(); // borrowed team-b's idle quota
        assertThat(actuations(r, "a2", "Preempt")).singleElement().extracting(ActuationRecord::timeMillis).isEqualTo(100_000L);
        assertThat(r.job("b1").firstStartSeconds()).isEqualTo(100); // team-b reclaims at once
        assertThat(r.job("a1").preemptions()).isZero(); // only the borrower is reclaimed
        assertThat(r.job("a2").preemptions()).isEqualTo(1);
        assertThat(actuations(r, "a2", "Admit")).hasSize(2);
        assertThat(actuations(r, "a2", "Admit").get(1).timeMillis()).isEqualTo(400_000L); // again when b1 is done
        assertThat(r.metrics().completed()).isEqualTo(3);
    }

    @Test
    void lendingLimitHoldsBackPartOfAnIdleQuota() {
        SimulationResult r = run("lending-limit.yaml");
        assertThat(r.job("a-big").firstStartSeconds()).isZero();
        assertThat(r.job("a-more").firstStartSeconds()).isEqualTo(600);
        assertThat(r.events()).anySatisfy(e -> {
            assertThat(e.job()).isEqualTo("a-more");
            assertThat(e.reason()).startsWith("QUOTA:").contains("lends 0").contains("team-b lends at most 4 of its 12");
        });
    }

    @Test
    void flavorsAreTriedInOrderWithFallbackToSpot() {
        SimulationResult r = run("two-flavors.yaml");
        assertThat(actuations(r, "j1", "Admit").get(0).detail()).contains("od-");
        assertThat(actuations(r, "j2", "Admit").get(0).detail()).contains("spot-");
        assertThat(actuations(r, "j3", "Admit").get(0).detail()).contains("spot-");
        assertThat(r.job("j4").firstStartSeconds()).isEqualTo(600);
        assertThat(r.events()).anySatisfy(e -> {
            assertThat(e.job()).isEqualTo("j4");
            assertThat(e.reason()).startsWith("QUOTA:");
        });
    }

    @Test
    void aJobOfSeveralPodSetsTakesAFlavorPerResourceGroup() {
        SimulationResult r = run("gpu-resource-groups.yaml");
        // both MPI jobs start at once: the first job's GPUs take a100, the second's fall back to h100; cpu is on-demand
        assertThat(r.job("mpi-1").firstStartSeconds()).isZero();
        assertThat(r.job("mpi-2").firstStartSeconds()).isZero();
        assertThat(actuations(r, "mpi-1", "Admit").get(0).detail()).contains("a100-0").doesNotContain("h100-0");
        assertThat(actuations(r, "mpi-2", "Admit").get(0).detail()).contains("h100-0").doesNotContain("a100-0");
        assertThat(r.events()).anySatisfy(e -> {
            assertThat(e.job()).isEqualTo("mpi-1");
            assertThat(e.reason()).contains("worker=on-demand").contains("worker/nvidia.com/gpu=a100").contains("launcher=on-demand");
        });
        // the 8-GPU job waits for GPU quota, then runs
        assertThat(r.job("single").firstStartSeconds()).isEqualTo(600);
        assertThat(r.metrics().completed()).isEqualTo(3);
    }

    @Test
    void priorityPreemptionTakesAMinimalSet() {
        SimulationResult r = run("priority-preemption.yaml");
        List<ActuationRecord> preempts = r.actuations().stream().filter(a -> a.kind().equals("Preempt")).toList();
        assertThat(preempts).singleElement().satisfies(p -> {
            assertThat(p.timeMillis()).isEqualTo(100_000L);
            assertThat(p.jobId()).isIn("low-2a", "low-4");
        });
        assertThat(r.job("urgent").firstStartSeconds()).isEqualTo(100);
        assertThat(r.metrics().completed()).isEqualTo(4);
    }

    @Test
    void busyQueuesShareACohortByWeight() {
        SimulationResult r = run("fair-sharing-weights.yaml");
        // GPU-seconds per queue while all three still have work (the first 600 s)
        double[] used = new double[3];
        for (JobOutcome j : r.jobs()) {
            double start = j.firstStartSeconds();
            double end = Math.min(j.completionSeconds(), 600);
            if (start < 600) {
                used[Integer.parseInt(j.id().substring(1, 2)) - 1] += (end - start) * j.gpus();
            }
        }
        double total = used[0] + used[1] + used[2];
        assertThat(total / 600).isCloseTo(24, within(0.5));
        assertThat(used[0] / total).isCloseTo(1 / 6.0, within(0.03));
        assertThat(used[1] / total).isCloseTo(2 / 6.0, within(0.03));
        assertThat(used[2] / total).isCloseTo(3 / 6.0, within(0.03));
    }
}
