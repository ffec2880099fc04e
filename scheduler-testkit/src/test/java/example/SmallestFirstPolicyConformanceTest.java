package example;

import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.testkit.FairPolicyConformance;

/** The example policy, run through the conformance suite exactly as a third party would. */
class SmallestFirstPolicyConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return new SmallestFirstPolicy();
    }
}
