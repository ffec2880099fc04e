package io.fairway.core.plan;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PlacementSearch;
import io.fairway.core.placement.Placer;
import java.util.Map;
import java.util.Optional;

/** The engine's placement search as a policy calls it: it only looks, on the plan's free capacity. */
record PlanSearch(TentativePlan plan) implements PlacementSearch {
    @Override
    public Optional<Placement> find(JobStatus job, Map<String, Integer> counts, Map<String, String> flavors) {
        plan.cap.begin();
        Placer.Outcome o = plan.placer.place(job.spec(), counts, plan.flavorSpecs(flavors));
        if (o.result() != null) {
            plan.give(o.result().taken()); // a search only looks: give the capacity back
            return Optional.of(o.result().placement());
        }
        return Optional.empty();
    }
}
