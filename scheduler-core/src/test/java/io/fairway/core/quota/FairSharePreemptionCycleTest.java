package io.fairway.core.quota;

import org.junit.jupiter.api.Test;

/**
 * A history that once preempted for fair share for ever: two ClusterQueues (weights 2 and 1, no cohort),
 * LessThanInitialShare before LessThanOrEqualToFinalShare, nothing protected, the heavier queue under
 * LowerOrNewerEqualPriority. Its newer, smaller job preempted the other queue's job for fair share while its older,
 * larger job waited; the next round the older job preempted it within the ClusterQueue, the queue ended above the
 * other, which preempted back, and so on. The scenario is the property's sample 6765, replayed deterministically:
 * after every change, the quiet rounds that follow end without preemptions for fair share.
 */
class FairSharePreemptionCycleTest {
    @Test
    void aQuietRoundAfterFairSharePreemptionSettlesPreemptsNothing() {
        new FairSharePreemptionProperties().preemptionToFairShareMakesNoCycles(6765L);
    }
}
