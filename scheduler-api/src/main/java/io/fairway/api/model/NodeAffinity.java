package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.function.Function;

/**
 * A required node affinity, as Kubernetes' {@code requiredDuringSchedulingIgnoredDuringExecution}: a node is
 * allowed when it matches at least one term (OR between terms), and it matches a term when it matches every
 * expression of that term (AND within a term). An affinity without terms allows every node. Preferred terms are
 * not modelled.
 *
 * <pre>{@code
 * NodeAffinity a = NodeAffinity.of(NodeAffinity.Term.of(
 *     NodeAffinity.Expression.of("zone", NodeAffinity.Operator.In, "a", "b"),
 *     NodeAffinity.Expression.of("gpu-generation", NodeAffinity.Operator.Gt, "7")));
 * }</pre>
 *
 * @param terms the node selector terms, ORed
 */
public record NodeAffinity(List<Term> terms) implements java.io.Serializable {
    /** Allows every node. */
    public static final NodeAffinity NONE = new NodeAffinity(List.of());

    /** Validates. */
    public NodeAffinity {
        if (terms != null) {
            int i = 0;
            for (Term t : terms) {
                InvalidSpecException.requireNonNull("nodeAffinity.terms[" + i++ + "]", t);
            }
        }
        terms = List.copyOf(terms == null ? List.of() : terms);
    }

    /** @param terms the terms, ORed @return the affinity */
    public static NodeAffinity of(Term... terms) {
        return new NodeAffinity(List.of(terms));
    }

    /** @return true when there are no terms (every node allowed) */
    public boolean isEmpty() {
        return terms.isEmpty();
    }

    /**
     * @param labels a node's label by key, null when absent
     * @return true when the node matches at least one term, or there are no terms
     */
    public boolean matches(Function<String, String> labels) {
        if (terms.isEmpty()) {
            return true;
        }
        for (Term t : terms) {
            if (t.matches(labels)) {
                return true;
            }
        }
        return false;
    }

    /** @param node a node @return true when it matches */
    public boolean matches(Node node) {
        return matches(node::label);
    }

    /** The operators of Kubernetes' node selector requirements. */
    public enum Operator {
        /** The label is present with one of the values. */
        In,
        /** The label is absent or has none of the values. */
        NotIn,
        /** The label is present. */
        Exists,
        /** The label is absent. */
        DoesNotExist,
        /** The label is an integer greater than the single value. */
        Gt,
        /** The label is an integer less than the single value. */
        Lt;

        /**
         * @param field the field, for the error
         * @param name the operator's name
         * @return the operator
         * @throws InvalidSpecException when it is not one of the six
         */
        public static Operator parse(String field, String name) {
            for (Operator o : values()) {
                if (o.name().equals(name)) {
                    return o;
                }
            }
            InvalidSpecException.check(false, field, name, "%s: operator must be In, NotIn, Exists, DoesNotExist, Gt or Lt, was %s",
                    field, InvalidSpecException.quote(String.valueOf(name)));
            throw new AssertionError();
        }
    }

    /**
     * A node selector term: every expression must match.
     *
     * @param expressions the match expressions, ANDed (at least one)
     */
    public record Term(List<Expression> expressions) implements java.io.Serializable {
        /** Validates. */
        public Term {
            if (expressions != null) {
                int i = 0;
                for (Expression e : expressions) {
                    InvalidSpecException.requireNonNull("nodeAffinity.term.matchExpressions[" + i++ + "]", e);
                }
            }
            expressions = List.copyOf(expressions == null ? List.of() : expressions);
            // Kubernetes: a term without expressions matches no node; refuse it rather than silently match nothing
            InvalidSpecException.check(!expressions.isEmpty(), "nodeAffinity.term.matchExpressions", expressions,
                    "a node selector term needs at least one match expression");
        }

        /** @param expressions the expressions, ANDed @return the term */
        public static Term of(Expression... expressions) {
            return new Term(List.of(expressions));
        }

        /** @param labels a node's label by key @return true when every expression matches */
        public boolean matches(Function<String, String> labels) {
            for (Expression e : expressions) {
                if (!e.matches(labels.apply(e.key()))) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A node selector requirement.
     *
     * @param key the label key
     * @param operator the operator
     * @param values the values: one or more for In and NotIn, none for Exists and DoesNotExist, one integer for Gt and Lt
     */
    public record Expression(String key, Operator operator, List<String> values) implements java.io.Serializable {
        /** Validates. */
        public Expression {
            InvalidSpecException.check(key != null && !key.isBlank(), "nodeAffinity.matchExpressions.key", key,
                    "a node affinity expression needs a key");
            InvalidSpecException.requireNonNull("nodeAffinity.matchExpressions[" + key + "].operator", operator);
            if (values != null) {
                for (String v : values) {
                    InvalidSpecException.requireNonNull("nodeAffinity.matchExpressions[" + key + "].values", v);
                }
            }
            values = List.copyOf(values == null ? List.of() : values);
            String f = "nodeAffinity.matchExpressions[" + key + "].values";
            switch (operator) {
                case In, NotIn -> InvalidSpecException.check(!values.isEmpty(), f, values,
                        "node affinity %s %s: needs at least one value", key, operator);
                case Exists, DoesNotExist -> InvalidSpecException.check(values.isEmpty(), f, values,
                        "node affinity %s %s: takes no values, was given %s", key, operator, values);
                case Gt, Lt -> {
                    InvalidSpecException.check(values.size() == 1, f, values,
                            "node affinity %s %s: needs exactly one integer value, was given %s", key, operator, values);
                    InvalidSpecException.check(integer(values.get(0)) != null, f, values.get(0),
                            "node affinity %s %s: the value must be an integer, was %s", key, operator,
                            InvalidSpecException.quote(values.get(0)));
                }
                default -> throw new AssertionError(operator);
            }
        }

        /**
         * @param key the label key
         * @param operator the operator
         * @param values the values
         * @return the expression
         */
        public static Expression of(String key, Operator operator, String... values) {
            return new Expression(key, operator, List.of(values));
        }

        /** @param label the node's value for the key, or null when absent @return true when it satisfies this */
        public boolean matches(String label) {
            return switch (operator) {
                case In -> label != null && values.contains(label);
                case NotIn -> label == null || !values.contains(label);
                case Exists -> label != null;
                case DoesNotExist -> label == null;
                case Gt -> compare(label) > 0;
                case Lt -> compare(label) < 0;
            };
        }

        /** @return sign of label − value, or 0 (no match for Gt nor Lt) when the label is absent or not an integer */
        private int compare(String label) {
            Long l = label == null ? null : integer(label);
            if (l == null) {
                return 0;
            }
            return Long.compare(l, integer(values.get(0)));
        }

        private static Long integer(String s) {
            try {
                return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }
}
