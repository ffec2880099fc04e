package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static io.fairway.core.engine.Fixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Gangs land whole on the fewest nodes, and small jobs fill partly used nodes so whole nodes stay free. */
class GangPlacementTest {

    private static Placement placement(Scheduler s, String id) {
        return s.status(id).orElseThrow().admission().placement();
    }

    @Test
    void aGangThatFitsOnlyInPiecesIsNotPlacedAtAll() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1"), h100("n2"), h100("n3")).build();
        for (int i = 0; i < 3; i++) {
            s.submit(gpuJob("filler" + i, 1, 4));
        }
        s.runRound();
        // 12 GPUs free in all, 4 per node: a gang of 2 x 6 could only run split, so it does not run
        s.submit(gpuJob("gang", 2, 6));
        RoundResult r = s.runRound();
        assertThat(r.decisions()).isEmpty();
        assertThat(state(s, "gang")).isEqualTo(JobState.PENDING);
        assertThat(s.status("gang").orElseThrow().admission()).isNull();
        // nothing was reserved for it: the free GPUs still take other work
        s.submit(gpuJob("four", 1, 4));
        s.runRound();
        assertThat(state(s, "four")).isEqualTo(JobState.ADMITTED);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aGangGoesOnTheFewestNodes() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1"), h100("n2"), h100("n3"), h100("n4")).build();
        s.submit(gpuJob("four-by-two", 4, 2));
        s.submit(gpuJob("three-by-four", 3, 4));
        s.runRound();
        assertThat(placement(s, "four-by-two").nodes()).hasSize(1);
        assertThat(placement(s, "four-by-two").members()).hasSize(4);
        assertThat(placement(s, "three-by-four").nodes()).hasSize(2);
        assertThat(placement(s, "three-by-four").members()).hasSize(3);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void everyPodSetOfAGangIsPlacedTogether() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1"), h100("n2")).build();
        s.submit(JobSpec.builder("train").queue("lq")
                .podSet(PodSet.of("launcher", 1, Resources.builder().cpu(2).build()))
                .podSet(PodSet.of("workers", 2, Resources.builder().cpu(8).gpus(8).build()))
                .build());
        RoundResult r = s.runRound();
        assertThat(r.decisions()).singleElement().isInstanceOfSatisfying(Admit.class, a -> {
            assertThat(a.counts()).containsEntry("launcher", 1).containsEntry("workers", 2);
            assertThat(a.placement().count("launcher")).isEqualTo(1);
            assertThat(a.placement().count("workers")).isEqualTo(2);
            assertThat(a.placement().gpuCount()).isEqualTo(16);
            for (MemberPlacement m : a.placement().members()) {
                assertThat(m.gpus()).hasSize(m.podSet().equals("workers") ? 8 : 0);
            }
            assertThat(a.placement().nodes()).containsExactlyInAnyOrder("n1", "n2");
        });
    }

    @Test
    void aGangWithOnePodSetThatCannotFitLeavesItsOtherPodSetsUnplacedToo() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).build();
        s.submit(JobSpec.builder("train").queue("lq")
                .podSet(PodSet.of("launcher", 1, Resources.builder().cpu(2).build()))
                .podSet(PodSet.of("workers", 2, Resources.builder().cpu(8).gpus(8).build()))
                .build());
        s.submit(JobSpec.builder("cpu-job").queue("lq").members(1, Resources.builder().cpu(60).build()).build());
        RoundResult r = s.runRound();
        // the launcher alone would fit; the job is still not admitted, and the cpu it would have used is free
        assertThat(r.decisions()).extracting(d -> d.jobId()).containsExactly("cpu-job");
        assertThat(state(s, "train")).isEqualTo(JobState.PENDING);
    }

    @Test
    void bestFitPutsASmallJobOnTheFullestNodeAndKeepsAWholeNodeFree() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1"), h100("n2"), h100("n3")).build();
        s.submit(gpuJob("six", 1, 6));
        s.runRound();
        String used = placement(s, "six").nodes().iterator().next();

        s.submit(gpuJob("two", 1, 2));
        s.runRound();
        assertThat(placement(s, "two").nodes()).containsExactly(used);

        s.submit(gpuJob("eight-a", 1, 8));
        s.submit(gpuJob("eight-b", 1, 8));
        s.runRound();
        assertThat(state(s, "eight-a")).isEqualTo(JobState.ADMITTED);
        assertThat(state(s, "eight-b")).isEqualTo(JobState.ADMITTED);
        Set<String> nodes = new HashSet<>(placement(s, "eight-a").nodes());
        nodes.addAll(placement(s, "eight-b").nodes());
        assertThat(nodes).hasSize(2).doesNotContain(used);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void gpusOfOneNodeAreNeverSharedBetweenJobs() {
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).build();
        for (int i = 0; i < 5; i++) {
            s.submit(gpuJob("j" + i, 1, 3));
        }
        s.runRound();
        Set<Integer> seen = new HashSet<>();
        int admitted = 0;
        for (var j : s.jobs().all()) {
            if (j.admission() != null) {
                admitted++;
                for (int g : j.admission().placement().members().get(0).gpus()) {
                    assertThat(seen.add(g)).as("GPU %d given twice", g).isTrue();
                }
            }
        }
        assertThat(admitted).isEqualTo(2);
        assertThat(seen).hasSize(6).allMatch(g -> g >= 0 && g < 8);
        assertThat(List.copyOf(seen)).doesNotHaveDuplicates();
    }
}
