package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/** The built-in {@code best-effort-fifo} policy passes the conformance suite. */
class BestEffortFifoConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("best-effort-fifo");
    }
}
