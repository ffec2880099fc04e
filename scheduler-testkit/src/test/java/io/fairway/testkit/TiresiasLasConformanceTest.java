package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code tiresias-las} policy passes the conformance suite. */
class TiresiasLasConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("tiresias-las");
    }
}
