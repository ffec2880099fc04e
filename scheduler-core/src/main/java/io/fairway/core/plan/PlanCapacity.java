package io.fairway.core.plan;

import io.fairway.api.spi.CapacityView;
import io.fairway.core.placement.CapacityPlan;

/** The policy's view of the cluster's capacity and of what is free in the round's plan. */
record PlanCapacity(CapacityPlan cap) implements CapacityView {
    @Override
    public long totalGpus() {
        return cap.totalGpus();
    }

    @Override
    public long freeGpus() {
        return cap.freeGpus();
    }

    @Override
    public int largestFreeGpusOnOneNode() {
        return cap.largestFree();
    }

    @Override
    public int schedulableNodes() {
        return cap.schedulableCount();
    }

    @Override
    public long total(String resource) {
        return cap.total(resource);
    }
}
