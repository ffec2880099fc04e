package io.fairway.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.NodeAffinity.Expression;
import io.fairway.api.model.NodeAffinity.Operator;
import io.fairway.api.model.NodeAffinity.Term;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeAffinityTest {
    private static Node node(Map<String, String> labels) {
        return Node.builder("n").labels(labels).capacity(Resources.builder().cpu(1).build()).build();
    }

    @Test
    void eachOperatorMatchesAsKubernetesDoes() {
        Node a7 = node(Map.of("zone", "a", "gen", "7"));
        Node b9 = node(Map.of("zone", "b", "gen", "9"));
        Node bare = node(Map.of());
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.In, "a", "c"))).matches(a7)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.In, "a", "c"))).matches(b9)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.In, "a"))).matches(bare)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.NotIn, "a"))).matches(a7)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.NotIn, "a"))).matches(b9)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.NotIn, "a"))).matches(bare)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.Exists))).matches(a7)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.Exists))).matches(bare)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.DoesNotExist))).matches(bare)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.DoesNotExist))).matches(a7)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("gen", Operator.Gt, "7"))).matches(b9)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("gen", Operator.Gt, "7"))).matches(a7)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("gen", Operator.Lt, "9"))).matches(a7)).isTrue();
        assertThat(NodeAffinity.of(Term.of(Expression.of("gen", Operator.Lt, "9"))).matches(b9)).isFalse();
        assertThat(NodeAffinity.of(Term.of(Expression.of("gen", Operator.Lt, "9"))).matches(bare)).isFalse(); // absent: no match
        assertThat(NodeAffinity.of(Term.of(Expression.of("zone", Operator.Gt, "1"))).matches(a7)).isFalse(); // not an integer
        assertThat(NodeAffinity.NONE.matches(bare)).isTrue();
    }

    @Test
    void termsAreOredAndExpressionsWithinATermAnded() {
        Node a7 = node(Map.of("zone", "a", "gen", "7"));
        Node b9 = node(Map.of("zone", "b", "gen", "9"));
        Term zoneAAndNew = Term.of(Expression.of("zone", Operator.In, "a"), Expression.of("gen", Operator.Gt, "8"));
        assertThat(NodeAffinity.of(zoneAAndNew).matches(a7)).isFalse();
        assertThat(NodeAffinity.of(zoneAAndNew).matches(b9)).isFalse();
        NodeAffinity orZoneB = NodeAffinity.of(zoneAAndNew, Term.of(Expression.of("zone", Operator.In, "b")));
        assertThat(orZoneB.matches(b9)).isTrue();
        assertThat(orZoneB.matches(a7)).isFalse();
    }

    @Test
    void badValuesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> Expression.of("gen", Operator.Gt, "seven")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("seven").extracting(e -> ((InvalidSpecException) e).field())
                .isEqualTo("nodeAffinity.matchExpressions[gen].values");
        assertThatThrownBy(() -> Expression.of("gen", Operator.Lt, "1", "2")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("exactly one");
        assertThatThrownBy(() -> Expression.of("zone", Operator.In)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("at least one value");
        assertThatThrownBy(() -> Expression.of("zone", Operator.Exists, "a")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("takes no values");
        assertThatThrownBy(() -> Operator.parse("nodeAffinity[0].operator", "Near")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("nodeAffinity[0].operator").hasMessageContaining("Near");
        assertThatThrownBy(() -> new Term(List.of())).isInstanceOf(InvalidSpecException.class);
    }
}
