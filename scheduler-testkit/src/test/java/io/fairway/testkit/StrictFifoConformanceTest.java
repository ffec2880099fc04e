package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code strict-fifo} policy passes the conformance suite. */
class StrictFifoConformanceTest extends PolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("strict-fifo");
    }
}
