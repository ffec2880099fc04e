package io.fairway.sim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.trace.Trace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SweepTest {
    private static SweepWorkload small() {
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            jobs.add(new SimJob(JobSpec.builder("j" + i).queue("default").submitTimeMillis(i * 30_000L)
                    .members(1, Resources.builder().gpus(1 << (i % 4)).build()).estimatedSeconds(600 + 60 * i).build(), 600 + 60 * i));
        }
        return SweepWorkloads.fixed("small", "tiresias", new Trace("generated", jobs), 5);
    }

    @Test
    void policiesRunWithTheirParametersUnderTheirLabels() {
        List<double[]> updates = new ArrayList<>();
        List<SweepRow> rows = Sweep.runPolicies(List.of(small()), List.of(Sweep.Policy.of("best-effort-fifo"),
                new Sweep.Policy("themis:f=0.5", "themis", Map.of("f", "0.5"))), SimulationOptions.DEFAULTS, 2,
                (fraction, done, runs, label) -> updates.add(new double[] {fraction, done, runs}));
        assertThat(rows).extracting(SweepRow::policy).containsExactly("best-effort-fifo", "themis:f=0.5");
        assertThat(updates.get(updates.size() - 1)).containsExactly(1.0, 2, 2);
        for (int i = 1; i < updates.size(); i++) {
            assertThat(updates.get(i)[0]).isGreaterThanOrEqualTo(updates.get(i - 1)[0]);
        }
        assertThat(rows).allMatch(r -> r.completed() == 12 && r.seed() == 5);

        // the parameters reach the policy: themis refuses one it does not know
        assertThatThrownBy(() -> Sweep.runPolicies(List.of(small()), List.of(Sweep.Policy.of("best-effort-fifo"),
                new Sweep.Policy("themis:bogus=1", "themis", Map.of("bogus", "1"))), SimulationOptions.DEFAULTS, 1, Sweep.Progress.NONE))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("bogus");
    }

    @Test
    void arrivalUtilisationCountsOnlyTheArrivalSpan() {
        // two 1-GPU jobs of 1,000 s, at 0 and 100 s, on 64 GPUs: 1 GPU busy over the 100-s arrival span → 1/64;
        // over the 1,100-s makespan 2,000 GPU-s → 2000 / (64 × 1100)
        List<SimJob> jobs = List.of(
                new SimJob(JobSpec.builder("a").queue("default").members(1, Resources.builder().gpus(1).build()).build(), 1000),
                new SimJob(JobSpec.builder("b").queue("default").submitTimeMillis(100_000).members(1, Resources.builder().gpus(1).build())
                        .build(), 1000));
        SweepWorkload w = SweepWorkloads.fixed("two", "tiresias", new Trace("generated", jobs), 1);
        SweepRow r = Sweep.run(List.of(w), List.of("best-effort-fifo"), SimulationOptions.DEFAULTS, 1, Sweep.Progress.NONE).get(0);
        assertThat(r.arrivalUtilisation()).isCloseTo(1.0 / 64, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(r.utilisation()).isCloseTo(2000.0 / (64 * 1100), org.assertj.core.api.Assertions.within(1e-12));
    }

    @Test
    void contentionIsJudgedByMakespanOrArrivalUtilisation() {
        // FIFO busy 30 % of the makespan but 70 % of the arrival span
        List<SweepRow> rows = List.of(
                new SweepRow("w", "philly", 21, 3, 3, false, 64, 10, "themis", false, 10, 5, 1, 100, 200, 1000, 0, 0.5, 0.9, 0, 1, 1),
                new SweepRow("w", "philly", 21, 3, 3, false, 64, 10, "best-effort-fifo", false, 10, 9, 1, 100, 200, 1000, 0, 0.3, 0.7, 0, 1,
                        1));
        assertThat(Sweep.withContention(rows, false)).noneMatch(SweepRow::contended);
        assertThat(Sweep.withContention(rows, true)).allMatch(SweepRow::contended);
        assertThat(Sweep.withContention(rows, true).get(0).withoutTiming()).isEqualTo(new SweepRow("w", "philly", 21, 3, 3, false, 64, 10,
                "themis", true, 10, 5, 1, 100, 200, 1000, 0, 0.5, 0.9, 0, 0, 0));
    }

    @Test
    void aSweepWithoutFifoOrWithALabelTwiceIsRefused() {
        assertThatThrownBy(() -> Sweep.run(List.of(small()), List.of("themis", "tiresias-las"), SimulationOptions.DEFAULTS, 1,
                Sweep.Progress.NONE)).isInstanceOf(InvalidSpecException.class).hasMessageContaining("best-effort-fifo or strict-fifo");
        assertThatThrownBy(() -> Sweep.run(List.of(small()), List.of("strict-fifo", "strict-fifo"), SimulationOptions.DEFAULTS, 1,
                Sweep.Progress.NONE)).isInstanceOf(InvalidSpecException.class).hasMessageContaining("its own label");
    }
}
