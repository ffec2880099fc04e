package io.fairway.api.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link PreemptionPolicy#isNever()} answers what {@code equals(NEVER)} answers, for every policy there is. */
class PreemptionPolicyTest {
    @Test
    void isNeverIsEqualityWithNever() {
        int never = 0;
        int policies = 0;
        for (PreemptionPolicy.WithinClusterQueue w : PreemptionPolicy.WithinClusterQueue.values()) {
            for (PreemptionPolicy.ReclaimWithinCohort r : PreemptionPolicy.ReclaimWithinCohort.values()) {
                for (PreemptionPolicy.BorrowWithinCohort b : PreemptionPolicy.BorrowWithinCohort.values()) {
                    for (PreemptionPolicy.CohortRules c : PreemptionPolicy.CohortRules.values()) {
                        for (Integer threshold : b == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY ? new Integer[] {null, 5} : new Integer[] {null}) {
                            PreemptionPolicy p = new PreemptionPolicy(w, r, b, threshold, c);
                            assertThat(p.isNever()).as("%s", p).isEqualTo(p.equals(PreemptionPolicy.NEVER));
                            never += p.isNever() ? 1 : 0;
                            policies++;
                        }
                    }
                }
            }
        }
        assertThat(never).isEqualTo(1);
        assertThat(policies).isGreaterThan(10);
        assertThat(new PreemptionPolicy(null, null, null).isNever()).isTrue(); // nulls read as Never
    }
}
