package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code fair-share-over-time} policy passes the conformance suite. */
class FairShareOverTimeConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("fair-share-over-time");
    }
}
