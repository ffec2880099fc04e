package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code srtf} policy passes the conformance suite. */
class SrtfConformanceTest extends PolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("srtf");
    }
}
