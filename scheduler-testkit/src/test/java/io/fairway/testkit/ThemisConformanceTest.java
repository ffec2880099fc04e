package io.fairway.testkit;

import io.fairway.api.spi.SchedulingPolicy;

/**
 * The built-in {@code themis} policy passes the whole conformance suite, the admission bound under continuous arrival
 * included, like every other bundled policy.
 *
 * <p>It was once exempt from that bound: Themis ranks apps by finish-time fairness ρ = T_shared ÷ T_id, and under a
 * steady overload of 1–3-minute jobs each newcomer reaches a high ρ within a round or two, so a 4-GPU job of a few
 * minutes (or one that announces no run time) was outbid for 15–28 rounds. The policy now keeps a bound of its own:
 * a waiting job whose wait exceeds {@code overdueFactor} (4) × the seconds the cluster needs for the remaining work of
 * the jobs submitted before it, plus its own announced run, starts before the auction as soon as it fits on the free
 * GPUs. (The suite also found a real fault here earlier, fixed: jobs submitted without a submission time had their ρ
 * counted from the clock's epoch; see {@code ThemisPolicyTest.aJobWithoutASubmitTimeIsAgedFromItsSubmissionNotFromTheClocksEpoch}.)
 */
class ThemisConformanceTest extends FairPolicyConformance {
    @Override
    protected SchedulingPolicy policy() {
        return BuiltInPolicies.named("themis");
    }
}
