package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.model.Resources;
import org.junit.jupiter.api.Test;

class FairnessTest {
    @Test
    void isolatedTimeIsTheDurationWhenTheJobFitsItsShare() {
        // 64 GPUs, 8 jobs present: a share of 8 GPUs
        assertThat(Fairness.isolatedSeconds(100, 8, 64, 8)).isEqualTo(100);
        assertThat(Fairness.isolatedSeconds(100, 4, 64, 8)).isEqualTo(100);
    }

    @Test
    void isolatedTimeStretchesWhenTheJobNeedsMoreThanItsShare() {
        assertThat(Fairness.isolatedSeconds(100, 16, 64, 8)).isEqualTo(200);
        assertThat(Fairness.isolatedSeconds(100, 32, 64, 6)).isCloseTo(300, within(1e-9));
        assertThat(Fairness.isolatedSeconds(100, 64, 64, 0.5)).isEqualTo(100); // N < 1 counts as 1
    }

    @Test
    void rhoIsJctOverIsolatedTime() {
        assertThat(Fairness.rho(300, Fairness.isolatedSeconds(100, 16, 64, 8))).isEqualTo(1.5);
        assertThat(Fairness.rho(50, 100)).isEqualTo(0.5);
    }

    @Test
    void dominantShareForJobsWithoutGpus() {
        Resources cap = Resources.builder().cpu(128).memoryGiB(512).build();
        assertThat(Fairness.dominantShare(Resources.builder().cpu(32).memoryGiB(256).build(), cap)).isEqualTo(0.5);
        assertThat(Fairness.isolatedSeconds(300, 0.25, 8.0 / 3)).isEqualTo(300);
        assertThat(Fairness.isolatedSeconds(300, 0.5, 4)).isEqualTo(600);
    }

    @Test
    void jainIndexOnHandComputedNumbers() {
        assertThat(Fairness.jainIndex(new double[] {1, 1, 1, 1})).isEqualTo(1.0);
        assertThat(Fairness.jainIndex(new double[] {1, 1, 2})).isCloseTo(16.0 / 18, within(1e-12));
        assertThat(Fairness.jainIndex(new double[] {4, 0, 0, 0})).isEqualTo(0.25);
        assertThat(Fairness.jainIndex(new double[] {0.5, 1.8})).isCloseTo(5.29 / 6.98, within(1e-12));
        assertThat(Fairness.jainIndex(new double[0])).isNaN();
    }

    @Test
    void nearestRankPercentilesAndMeans() {
        double[] v = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
        assertThat(Fairness.percentile(v, 50)).isEqualTo(5);
        assertThat(Fairness.percentile(v, 95)).isEqualTo(10);
        assertThat(Fairness.percentile(v, 90)).isEqualTo(9);
        assertThat(Fairness.percentile(new double[] {7}, 99)).isEqualTo(7);
        assertThat(Fairness.mean(v)).isEqualTo(5.5);
        assertThat(Fairness.max(v)).isEqualTo(10);
        assertThat(Fairness.percentile(new double[0], 50)).isNaN();
    }
}
