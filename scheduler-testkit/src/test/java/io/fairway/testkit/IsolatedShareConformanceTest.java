package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code isolated-share} policy passes the conformance suite. */
class IsolatedShareConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("isolated-share");
    }
}
