package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code priority} policy passes the conformance suite. */
class PriorityConformanceTest extends PolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("priority");
    }
}
