package io.fairway.policies.fifo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fair-share policies' parameters: read as documented, bad values refused naming the parameter and the value. */
class FairShareOptionsTest {
    private final FifoPolicies.FairShareOverTime provider = new FifoPolicies.FairShareOverTime();

    @Test
    void withoutParametersNothingChanges() {
        assertThat(((FairSharePolicy) provider.create(Map.of())).options()).isEqualTo(FairSharePolicy.Options.NONE);
    }

    @Test
    void parametersAreRead() {
        FairSharePolicy p = (FairSharePolicy) new FifoPolicies.FairSharing().create(Map.of("preemptToFairShare", "true", "priorityFirst", "TRUE",
                "rankWithNextJob", "false", "protectedFractionOfFairShare", "0.5", "fairSharePreemptionStrategies", "LessThanInitialShare"));
        assertThat(p.options().preemptToFairShare()).isTrue();
        assertThat(p.options().priorityFirst()).isTrue();
        assertThat(p.options().rankWithNextJob()).isFalse();
        assertThat(p.options().protectedFractionOfFairShare()).isEqualTo(0.5);
        assertThat(p.options().strategies()).containsExactly(FairSharePolicy.Strategy.LESS_THAN_INITIAL_SHARE);
        assertThat(((FairSharePolicy) provider.create(Map.of("fairSharePreemptionStrategies", "LessThanInitialShare/LessThanOrEqualToFinalShare")))
                .options().strategies()).isEqualTo(List.of(FairSharePolicy.Strategy.LESS_THAN_INITIAL_SHARE,
                FairSharePolicy.Strategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE));
        assertThat(provider.parameters()).contains("preemptToFairShare", "protectedFractionOfFairShare");
    }

    @Test
    void badValuesAreRefusedNamingTheParameterAndTheValue() {
        assertThatThrownBy(() -> provider.create(Map.of("protectedFractionOfFairShare", "-1"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("protectedFractionOfFairShare").hasMessageContaining("-1");
        assertThatThrownBy(() -> provider.create(Map.of("protectedFractionOfFairShare", "half"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("half");
        assertThatThrownBy(() -> provider.create(Map.of("preemptToFairShare", "yes"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("preemptToFairShare").hasMessageContaining("yes");
        assertThatThrownBy(() -> provider.create(Map.of("fairSharePreemptionStrategies", "Always"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("Always");
        assertThatThrownBy(() -> provider.create(Map.of("preemptToFairshare", "true"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("preemptToFairshare").hasMessageContaining("preemptToFairShare");
    }
}
