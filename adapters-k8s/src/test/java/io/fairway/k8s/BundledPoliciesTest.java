package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.core.Policies;
import org.junit.jupiter.api.Test;

/**
 * The controller runs with every policy of the project: the FIFO family and themis are on its runtime class path,
 * which is what fairway-k8s.jar is shaded from.
 */
class BundledPoliciesTest {
    @Test
    void everyPolicyOfTheProjectIsFoundByName() {
        assertThat(Policies.available().keySet()).contains("strict-fifo", "best-effort-fifo", "priority", "fair-sharing",
                "fair-share-over-time", "tiresias-las", "srtf", "isolated-share", "themis");
    }
}
