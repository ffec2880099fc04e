package io.fairway.core.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A running elastic job shrunk and grown back within one plan (what the bundled policies do when shrinking it does not
 * make enough room) holds what it held: the member comes back on its own GPU, and the round decides nothing for it. The
 * grow used to place the member wherever the search found room first, here another node's last free GPU: a move of a
 * running member, decided for nothing.
 */
class ShrinkAndGrowBackTest {
    private static final Map<String, Placement> WHERE = Map.of(
            "a", placement("w", List.of(new MemberPlacement("w", 0, "n1", List.of(0)), new MemberPlacement("w", 1, "n1", List.of(1)))),
            "b", placement("main", List.of(new MemberPlacement("main", 0, "n1", List.of(2, 3, 4, 5)))),
            "c", placement("main", List.of(new MemberPlacement("main", 0, "n2", List.of(0, 1, 2, 3, 4, 5, 6)))));

    private static Placement placement(String podSet, List<MemberPlacement> members) {
        return new Placement(members, Locality.NVLINK_DOMAIN, 1.0);
    }

    /** Round 1 places each job where {@link #WHERE} says; later rounds shrink {@code a} to one member, then grow it back to two. */
    static final class ShrinkThenGrowBack implements SchedulingPolicy {
        int round;
        Attempt back;

        @Override
        public String name() {
            return "shrink-then-grow-back";
        }

        @Override
        public void plan(PolicyContext ctx) {
            round++;
            if (round == 1) {
                for (JobStatus j : ctx.pending()) {
                    assertThat(ctx.tryAdmit(j, WHERE.get(j.id())).admitted()).as("%s placed", j.id()).isTrue();
                }
                return;
            }
            JobStatus a = ctx.holding().stream().filter(j -> j.id().equals("a")).findFirst().orElseThrow();
            ctx.resize(a, "w", 1);
            back = ctx.resize(a, "w", 2);
        }
    }

    @Test
    void aJobShrunkAndGrownBackInOnePlanHoldsWhatItHeld() {
        ShrinkThenGrowBack policy = new ShrinkThenGrowBack();
        Scheduler.Builder b = Scheduler.builder().policy(policy).flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().cpu(64).gpus(16).build()).build())
                .localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq", "cq"))
                .clock(() -> 1_000);
        for (String n : List.of("n1", "n2")) {
            b.node(Node.builder(n).capacity(Resources.builder().cpu(32).memoryGiB(256).build()).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = b.build();
        s.submit(JobSpec.builder("a").queue("lq").podSet(PodSet.of("w", 2, Resources.builder().cpu(1).gpus(1).build()).withMinCount(1)).build());
        s.submit(JobSpec.builder("b").queue("lq").podSet(PodSet.of("main", 1, Resources.builder().cpu(1).gpus(4).build())).build());
        s.submit(JobSpec.builder("c").queue("lq").podSet(PodSet.of("main", 1, Resources.builder().cpu(1).gpus(7).build())).build());
        s.runRound();
        for (String id : List.of("a", "b", "c")) {
            s.reportStarted(id);
        }
        Placement before = s.status("a").orElseThrow().admission().placement();

        RoundResult second = s.runRound(); // n1 keeps 2 GPUs free, n2 one: the grow's search alone would take n2's

        assertThat(policy.back.admitted()).as("a grows back").isTrue();
        assertThat(policy.back.admission().placement().members()).as("on the GPUs it held").isEqualTo(before.members());
        assertThat(second.decisions()).as("nothing decided for a").noneMatch(d -> d instanceof Resize r && r.jobId().equals("a"));
        assertThat(second.refused()).isEmpty();
        assertThat(s.status("a").orElseThrow().admission().placement().members()).isEqualTo(before.members());
        assertThat(s.checkInvariants()).isEmpty();
    }
}
