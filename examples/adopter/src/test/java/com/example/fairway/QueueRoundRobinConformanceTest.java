package com.example.fairway;

import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.testkit.FairPolicyConformance;

/**
 * Fairway's conformance suite on this policy: the invariants (capacity, GPUs, gangs, quota, one state per job,
 * determinism, nothing the core must refuse, all under faults) and, since the policy promises that no job starves,
 * the no-starvation properties — jobs submitted at once, under faults, and arriving continuously.
 */
class QueueRoundRobinConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return new QueueRoundRobinPolicy(); // a fresh instance each time
    }
}
