package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** An unknown policy tells a newcomer which jar to add, not just an empty list of known ones. */
class UnknownPolicyMessageTest {

    @Test
    void withNoPolicyJarOnThePathTheErrorSaysWhichJarsToAdd() {
        String message = Policies.unknownPolicy("best-effort-fifo", Set.of());
        assertThat(message).contains("io.fairway:policies-fifo").contains("not on the class path")
                .contains("no policy jar").doesNotContain("known policies: )");
        String custom = Policies.unknownPolicy("my-policy", Set.of());
        assertThat(custom).contains("no policy jar is on the class path").contains("io.fairway:policies-fifo")
                .contains("io.fairway:policies-themis").contains("META-INF/services/io.fairway.api.spi.PolicyProvider")
                .doesNotEndWith(": ");
    }

    @Test
    void aBuiltInPolicyFromAJarThatIsMissingNamesThatJar() {
        // The tests of scheduler-core have policies-fifo on their path, not policies-themis.
        assertThatThrownBy(() -> Scheduler.builder().policy("themis").build())
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> assertThat(e.value()).isEqualTo("themis"))
                .hasMessageContaining("io.fairway:policies-themis").hasMessageContaining("best-effort-fifo");
        assertThatThrownBy(() -> Policies.create("round-robin", Map.of()))
                .hasMessageContaining("unknown policy \"round-robin\"; known policies: ");
    }

    @Test
    void theTableOfBuiltInPoliciesMatchesWhatPoliciesFifoProvides() {
        Set<String> fifo = Policies.available().keySet();
        Policies.BUILT_IN.forEach((name, artifact) -> {
            if (artifact.equals("io.fairway:policies-fifo")) {
                assertThat(fifo).as("policies-fifo provides %s", name).contains(name);
            }
        });
        assertThat(fifo).allSatisfy(name -> assertThat(Policies.BUILT_IN).containsEntry(name, "io.fairway:policies-fifo"));
    }
}
