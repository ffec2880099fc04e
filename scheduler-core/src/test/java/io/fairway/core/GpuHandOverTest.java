package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.plan.HeldCharges;
import io.fairway.core.plan.PlanContext;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.validation.Validator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * GPUs that change hands inside one round: a job that grows into GPUs a preemption of the same round frees, and two
 * elastic jobs that trade GPUs. Neither may leave a GPU looking free while a job holds it, nor refuse a plan whose end
 * state gives every GPU to at most one job.
 */
class GpuHandOverTest {
    private final AtomicLong now = new AtomicLong(1_000);
    /** What the test's policy does in the next round. */
    private Consumer<PolicyContext> next = ctx -> { };

    private Scheduler scheduler() {
        SchedulingPolicy scripted = new SchedulingPolicy() {
            @Override
            public String name() {
                return "scripted";
            }

            @Override
            public void plan(PolicyContext ctx) {
                next.accept(ctx);
            }
        };
        return Scheduler.builder().clock(now::get).policy(scripted).flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).cpu(100).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"))
                .node(Node.builder("n0").capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
    }

    private static JobSpec rigid(String id, int gpus) {
        return JobSpec.builder(id).queue("q").members(1, Resources.builder().gpus(gpus).cpu(1).build()).build();
    }

    private static JobSpec elastic(String id, int max) {
        return JobSpec.builder(id).queue("q").podSet(PodSet.of("workers", max, Resources.builder().gpus(1).cpu(1).build()).withMinCount(1)).build();
    }

    private static JobStatus job(PolicyContext ctx, String id, boolean holding) {
        return (holding ? ctx.holding() : ctx.pending()).stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
    }

    /**
     * The round's decisions are applied resizes first, then preemptions: the grown job is charged GPUs the preempted
     * job still holds at that moment, and the preempted job then gives them back. The engine's kept charges must not
     * let that give-back free the GPUs the grown job now holds, or the next round offers them again.
     */
    @Test
    void aJobGrownIntoGpusAPreemptionFreedKeepsThemInTheNextRound() {
        Scheduler s = scheduler();
        s.submit(rigid("big", 4));
        s.submit(rigid("filler", 3));
        s.submit(elastic("elastic", 2));
        next = ctx -> {
            ctx.tryAdmit(job(ctx, "big", false));
            ctx.tryAdmit(job(ctx, "filler", false));
            ctx.tryAdmit(job(ctx, "elastic", false), Map.of("workers", 1));
        };
        assertThat(s.runRound().decisions()).hasSize(3);
        next = ctx -> {
            assertThat(ctx.preempt(job(ctx, "big", true), "make room")).isTrue();
            assertThat(ctx.resize(job(ctx, "elastic", true), "workers", 2).admitted()).isTrue();
        };
        RoundResult handOver = s.runRound();
        assertThat(handOver.decisions()).hasAtLeastOneElementOfType(Resize.class).hasAtLeastOneElementOfType(Preempt.class);
        assertThat(handOver.refused()).isEmpty();

        // the next round: 8 GPUs, filler holds 3 and elastic 2, so 3 are free and a job of 4 cannot be placed
        EngineState st = s.state();
        HeldCharges.Charged kept = st.read(st::chargedForRound);
        Snapshot snap = s.snapshot();
        assertThat(kept.capacity().sameFreeAs(new PlanContext(snap).plan().capacityPlan()))
                .as("the kept free capacity (GPU by GPU) is what the holding jobs leave").isTrue();
        s.submit(rigid("four", 4));
        next = ctx -> ctx.tryAdmit(job(ctx, "four", false));
        RoundResult after = s.runRound();
        assertThat(after.refused()).as("no placement on a GPU a job holds").isEmpty();
        assertThat(after.decisions()).isEmpty();
        assertThat(s.checkInvariants()).isEmpty();
    }

    /**
     * Two elastic jobs trade GPUs in one plan: each new placement is free once both jobs have given back what they
     * held, though neither is while the other still holds its old GPUs. The validator accepts both.
     */
    @Test
    void twoResizesThatTradeGpusAreBothAccepted() {
        Scheduler s = scheduler();
        s.submit(elastic("a", 2));
        s.submit(elastic("b", 2));
        next = ctx -> ctx.pending().forEach(ctx::tryAdmit);
        assertThat(s.runRound().decisions()).hasSize(2);
        Snapshot snap = s.snapshot();
        Admit a = snap.holding().stream().filter(j -> j.id().equals("a")).findFirst().orElseThrow().admission();
        Admit b = snap.holding().stream().filter(j -> j.id().equals("b")).findFirst().orElseThrow().admission();
        MemberPlacement a1 = a.placement().members().get(1);
        MemberPlacement b1 = b.placement().members().get(1);
        Admit aTraded = withSecondMemberOn(a, b1);
        Admit bTraded = withSecondMemberOn(b, a1);

        Validator.Outcome v = Validator.validate(snap, List.of(), List.of(aTraded, bTraded), List.of());

        assertThat(v.refused()).isEmpty();
        assertThat(v.resizes()).containsExactly(aTraded, bTraded);
    }

    private static Admit withSecondMemberOn(Admit a, MemberPlacement other) {
        List<MemberPlacement> members = new ArrayList<>(a.placement().members());
        MemberPlacement m = members.get(1);
        members.set(1, new MemberPlacement(m.podSet(), m.index(), other.node(), other.gpus()));
        Placement p = new Placement(members, a.placement().locality(), a.placement().throughputFactor());
        return new Admit(a.jobId(), a.clusterQueue(), a.flavors(), a.counts(), p, a.admittedAtMillis(), a.leaseExpiresAtMillis(), a.admissionOrder());
    }
}
