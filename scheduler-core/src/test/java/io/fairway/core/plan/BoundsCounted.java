package io.fairway.core.plan;

import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import java.util.Map;

/** A bundled policy that notes what the round's bounds ({@link RoundBounds}) answered: in its last round, and in all. */
final class BoundsCounted implements SchedulingPolicy {
    private final SchedulingPolicy inner;
    /** Searches and quota attempts answered in the last round. */
    int searches;
    int quota;
    /** Searches and quota attempts answered in all rounds. */
    int allSearches;
    int allQuota;

    /** @param policy a bundled policy's name */
    BoundsCounted(String policy) {
        this.inner = Policies.create(policy, Map.of());
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public void plan(PolicyContext ctx) {
        inner.plan(ctx);
        searches = ((PlanContext) ctx).boundedSearches();
        quota = ((PlanContext) ctx).standingQuotaFailures();
        allSearches += searches;
        allQuota += quota;
    }
}
