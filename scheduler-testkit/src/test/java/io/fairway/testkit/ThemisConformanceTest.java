package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/**
 * The built-in {@code themis} policy passes the conformance suite, except the admission bound under continuous
 * arrival: under a steady overload of short jobs its auctions leave a waiting 4-GPU job unserved for longer than the
 * bound while dozens of later jobs are admitted (found by {@code noJobStarvesUnderContinuousArrival}: a job of 3 minutes
 * with ρ 2.7 bid and won nothing for 15 rounds, 32 later jobs admitted meanwhile). Themis promises finish-time fairness
 * over the run, not a bound on each job's wait; it is held to the drain (every job finished once arrivals stop).
 */
class ThemisConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("themis");
    }

    @Override
    protected boolean boundsAdmissionUnderContinuousArrival() {
        return false;
    }
}
