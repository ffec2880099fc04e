package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Map;

/**
 * A Kubernetes label selector ({@code matchLabels} and {@code matchExpressions}), as a ClusterQueue's
 * {@code namespaceSelector} uses it: a set of labels matches when it carries every label of {@code matchLabels} and
 * meets every expression. The empty selector matches everything; {@link #NOTHING} matches nothing (Kueue's meaning
 * of an absent {@code namespaceSelector}).
 *
 * @param matchLabels labels that must be present with these values
 * @param matchExpressions requirements that must all hold
 */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) implements java.io.Serializable {
    /** Matches every set of labels. */
    public static final LabelSelector EVERYTHING = new LabelSelector(Map.of(), List.of());
    /** Matches no set of labels. */
    public static final LabelSelector NOTHING = new LabelSelector(Map.of(), List.of(new Requirement("kubernetes.io/metadata.name", Operator.IN, List.of())));

    /** Normalises nulls to empty. */
    public LabelSelector {
        matchLabels = Map.copyOf(matchLabels == null ? Map.of() : matchLabels);
        matchExpressions = List.copyOf(matchExpressions == null ? List.of() : matchExpressions);
    }

    /**
     * @param labels a set of labels (a namespace's)
     * @return true when they match
     */
    public boolean matches(Map<String, String> labels) {
        for (Map.Entry<String, String> e : matchLabels.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (Requirement r : matchExpressions) {
            if (!r.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** A selector expression's operator. */
    public enum Operator {
        /** The label's value is one of the values. */
        IN,
        /** The label is absent or its value is none of the values. */
        NOT_IN,
        /** The label is present. */
        EXISTS,
        /** The label is absent. */
        DOES_NOT_EXIST
    }

    /**
     * One expression.
     *
     * @param key the label key
     * @param operator the operator
     * @param values the values (for {@code IN} and {@code NOT_IN}; empty for the others)
     */
    public record Requirement(String key, Operator operator, List<String> values) implements java.io.Serializable {
        /** Validates: a key and an operator; values only where the operator takes them. */
        public Requirement {
            InvalidSpecException.requireName("matchExpressions[].key", key);
            InvalidSpecException.check(operator != null, "matchExpressions[" + key + "].operator", operator,
                    "label selector on %s: an operator is required (In, NotIn, Exists or DoesNotExist)", key);
            values = List.copyOf(values == null ? List.of() : values);
            InvalidSpecException.check(values.isEmpty() || operator == Operator.IN || operator == Operator.NOT_IN,
                    "matchExpressions[" + key + "].values", values, "label selector on %s: %s takes no values, was given %s", key, operator, values);
        }

        boolean matches(Map<String, String> labels) {
            String v = labels.get(key);
            return switch (operator) {
                case IN -> v != null && values.contains(v);
                case NOT_IN -> v == null || !values.contains(v);
                case EXISTS -> v != null;
                case DOES_NOT_EXIST -> v == null;
            };
        }
    }
}
