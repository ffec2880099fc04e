package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy syntax of the command line: names, parameters, and the errors a user gets. */
class PolicySpecTest {
    @Test
    void aPolicyWithParametersSeparatedByCommas() {
        PolicySpec p = PolicySpec.parse("themis:f=0.2,leaseMinutes=10");
        assertThat(p.name()).isEqualTo("themis");
        assertThat(p.parameters()).containsExactly(Map.entry("f", "0.2"), Map.entry("leaseMinutes", "10"));
        assertThat(p.label()).isEqualTo("themis:f=0.2,leaseMinutes=10");
        assertThat(PolicySpec.parse(p.label())).isEqualTo(p);
    }

    @Test
    void aTokenWithoutEqualsStartsTheNextPolicy() {
        assertThat(PolicySpec.parseList("themis:f=0.2,leaseMinutes=10,tiresias-las, strict-fifo"))
                .containsExactly(new PolicySpec("themis", Map.of("f", "0.2", "leaseMinutes", "10")), PolicySpec.of("tiresias-las"),
                        PolicySpec.of("strict-fifo"));
        // ";" is the same separator: the older themis-repro syntax still reads
        assertThat(PolicySpec.parseList("themis:f=0.5;leaseMinutes=20;srtf:preempt=false"))
                .containsExactly(new PolicySpec("themis", Map.of("f", "0.5", "leaseMinutes", "20")), new PolicySpec("srtf", Map.of("preempt", "false")));
        assertThat(PolicySpec.parseList("strict-fifo,priority")).extracting(PolicySpec::label).containsExactly("strict-fifo", "priority");
    }

    @Test
    void repeatedOptionsAreJoinedAndDuplicatesDropped() {
        assertThat(PolicySpec.parseAll(List.of("themis:f=0.2", "themis", "themis:f=0.2", "srtf")))
                .extracting(PolicySpec::label).containsExactly("themis:f=0.2", "themis", "srtf");
    }

    @Test
    void malformedSpecsAreRefusedNamingTheToken() {
        assertThatThrownBy(() -> PolicySpec.parseList("f=0.2,themis")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("\"f=0.2\"").hasMessageContaining("before any policy name");
        assertThatThrownBy(() -> PolicySpec.parse("themis:f")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("parameter \"f\" is not KEY=VALUE");
        assertThatThrownBy(() -> PolicySpec.parse("themis:f=")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("parameter \"f=\" is not KEY=VALUE");
        assertThatThrownBy(() -> PolicySpec.parse("themis:f=0.1,f=0.2")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("parameter f is given twice");
        assertThatThrownBy(() -> PolicySpec.parse(":f=1")).isInstanceOf(InvalidSpecException.class).hasMessageContaining("no policy name");
        assertThatThrownBy(() -> PolicySpec.parse("themis,srtf")).isInstanceOf(InvalidSpecException.class).hasMessageContaining("expected one");
    }

    @Test
    void checkNamesAnUnknownParameterAndListsTheKnownOnes() {
        assertThatThrownBy(() -> PolicySpec.parse("themis:f=0.2,leaseMinuets=10").check()).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("policy themis: unknown parameter(s) [leaseMinuets]").hasMessageContaining("known: [")
                .hasMessageContaining("leaseMinutes").hasMessageContaining("reserveAboveRho");
        assertThatThrownBy(() -> PolicySpec.parse("tiresias-las:quantum=5").check()).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("unknown parameter(s) [quantum]; known: [k, thresholds]");
        assertThatThrownBy(() -> PolicySpec.parse("strict-fifo:x=1").check()).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("strict-fifo takes no parameters").hasMessageContaining("x");
        assertThatThrownBy(() -> PolicySpec.parse("themis:f=lots").check()).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("f must be a number, was \"lots\"");
        // list values take "/" on a command line
        PolicySpec.parse("tiresias-las:thresholds=3250/7200/18000,k=2").check();
        PolicySpec.parse("themis:f=0.2,leaseMinutes=10").check();
    }
}
