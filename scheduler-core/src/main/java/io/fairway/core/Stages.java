package io.fairway.core;

import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.spi.PolicyContext;
import io.fairway.core.placement.CapacityPlan;
import io.fairway.core.placement.Placer;
import io.fairway.core.plan.PlanContext;
import io.fairway.core.plan.PlanOutput;
import io.fairway.core.provisioning.Provisioner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import io.fairway.core.snapshot.Snapshot;

/**
 * The round's stages one at a time, <b>for benchmarks and tests</b> that time or check one stage alone. An embedder
 * runs whole rounds ({@link Rounds#run}, {@link Scheduler}); these entry points may change with the stages.
 *
 * <pre>{@code
 * PolicyContext plan = Stages.planContext(snapshot);      // what Rounds.run hands the policy
 * plan.tryAdmit(job);                                      // admission (quota, flavors) and placement
 * List<Decision> nodes = Stages.provision(snapshot, plan, reasons);
 * }</pre>
 */
public final class Stages {
    private Stages() {
    }

    /**
     * The plan stage's starting point: the context a policy sees in a round of this snapshot, before it runs.
     *
     * @param snapshot the round's input
     * @return a fresh context, with an empty tentative plan
     */
    public static PolicyContext planContext(Snapshot snapshot) {
        return new PlanContext(snapshot);
    }

    /**
     * Placement alone, without quota or policy: places the jobs one after another, at full size, on a fresh plan
     * of the snapshot (each keeps what it took), as the snapshot's placement strategy does.
     *
     * @param snapshot the cluster state
     * @param jobs the jobs, in order
     * @return how many of them were placed
     */
    public static int placeInOrder(Snapshot snapshot, List<JobSpec> jobs) {
        CapacityPlan cap = new CapacityPlan(snapshot.nodes(), snapshot.clusters());
        for (JobStatus held : snapshot.holding()) {
            if (held.admission() == null) {
                continue;
            }
            Map<String, PodSet> podSets = new HashMap<>();
            held.spec().podSets().forEach(ps -> podSets.put(ps.name(), ps));
            for (MemberPlacement mp : held.admission().placement().members()) {
                Integer n = cap.nodeIndex(mp.node());
                PodSet ps = podSets.get(mp.podSet());
                if (n != null && ps != null) {
                    cap.take(n, cap.vector(ps.resources()), cap.gpuMask(n, mp.gpus()));
                }
            }
        }
        Placer placer = new Placer(cap, snapshot.placement());
        int placed = 0;
        for (JobSpec job : jobs) {
            if (placer.place(job, Map.of(), Map.of()).result() != null) {
                placed++;
            }
        }
        return placed;
    }

    /**
     * The provisioning stage alone: node requests for the admitted gangs that fit no node, node removals, and
     * consolidation, on a plan a policy (or nothing) filled. It charges the quota it reserves to that plan.
     *
     * @param snapshot the round's input
     * @param plan a context from {@link #planContext} of the same snapshot
     * @param reasons the pending reasons the plan produced, by job id
     * @return the Provision, Deprovision and migration decisions, in the order a round lists them
     * @throws IllegalArgumentException when {@code plan} does not come from {@link #planContext}
     */
    public static List<Decision> provision(Snapshot snapshot, PolicyContext plan, Map<String, PendingReason> reasons) {
        if (!(plan instanceof PlanContext ctx)) {
            throw new IllegalArgumentException("plan: a context from Stages.planContext expected, got " + plan.getClass().getName());
        }
        Provisioner.Outcome p = Provisioner.run(snapshot, PlanOutput.of(ctx), reasons, 1);
        List<Decision> out = new ArrayList<>(p.provisions().size() + p.deprovisions().size() + p.migrations().size());
        out.addAll(p.provisions());
        out.addAll(p.deprovisions());
        out.addAll(p.migrations());
        return out;
    }
}
