package io.fairway.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** --checkpoint-interval: jobs without checkpointing get it, the others keep theirs, and preemptions then lose less. */
class CheckpointsTest {
    private static SimJob job(String id, Checkpointing c) {
        JobSpec.Builder b = JobSpec.builder(id).queue("lq").members(1, Resources.builder().gpus(1).build());
        if (c != null) {
            b.checkpointing(c);
        }
        return new SimJob(b.build(), 3600);
    }

    @Test
    void durationsInTheUsualUnits() {
        assertThat(Checkpoints.parseDuration("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Checkpoints.parseDuration("600s")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Checkpoints.parseDuration("600")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Checkpoints.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Checkpoints.parseDuration("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Checkpoints.parseDuration("1.5h")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Checkpoints.parseDuration("PT10M")).isEqualTo(Duration.ofMinutes(10));
        for (String bad : List.of("", "ten minutes", "10x", "1h30", "m", "-5m")) {
            assertThatThrownBy(() -> Checkpoints.parseDuration(bad)).as(bad).isInstanceOf(InvalidSpecException.class)
                    .hasMessageContaining("is not a duration");
        }
        assertThatThrownBy(() -> Checkpoints.every(Duration.ZERO)).isInstanceOf(InvalidSpecException.class).hasMessageContaining("> 0");
    }

    @Test
    void onlyJobsWithoutCheckpointingGetIt() {
        Checkpointing own = new Checkpointing(300, 5, 30);
        List<SimJob> out = Checkpoints.whereMissing(List.of(job("none", null), job("own", own)), Checkpoints.every(Duration.ofMinutes(10)));
        assertThat(out).extracting(SimJob::id).containsExactly("none", "own");
        assertThat(out.get(0).spec().checkpointing()).isEqualTo(new Checkpointing(600, 0, Checkpoints.DEFAULT_RESTORE_SECONDS));
        assertThat(out.get(1).spec().checkpointing()).isSameAs(own);
        assertThat(out.get(0).durationSeconds()).isEqualTo(3600);
    }

    @Test
    void aPreemptedJobThenLosesOnlyTheWorkSinceItsLastCheckpoint() {
        // LAS on the first 300 jobs of the Philly sample preempts; with checkpoints every 10 minutes less work is redone
        var in = new io.fairway.sim.SimulationInput("sample", io.fairway.sim.config.Defaults.cluster(), io.fairway.sim.config.Defaults.queues(),
                io.fairway.sim.config.Defaults.trace().limit(300).jobs(), List.of());
        SimulationResult without = Simulator.run(in, "tiresias-las", SimulationOptions.DEFAULTS);
        SimulationResult with = Simulator.run(Checkpoints.whereMissing(in, Checkpoints.every(Duration.ofMinutes(10))), "tiresias-las",
                SimulationOptions.DEFAULTS);
        assertThat(without.metrics().preemptions()).isPositive();
        assertThat(with.metrics().preemptions()).isPositive();
        assertThat(with.metrics().lostWorkSeconds()).isLessThan(without.metrics().lostWorkSeconds());
        assertThat(with.metrics().lostWorkSeconds() / with.metrics().preemptions()).isLessThanOrEqualTo(600);
    }
}
