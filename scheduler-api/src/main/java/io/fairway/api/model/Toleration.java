package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.List;

/**
 * A toleration, as in Kubernetes: {@code Exists} matches any value of the key (an empty key with
 * {@code Exists} tolerates everything), {@code Equal} the given value.
 *
 * @param key the taint key
 * @param operator {@code Exists} or {@code Equal}
 * @param value the value for {@code Equal}
 * @param effect the effect it tolerates, or empty for all
 */
public record Toleration(String key, String operator, String value, String effect) implements java.io.Serializable {
    /** Validates. */
    public Toleration {
        key = key == null ? "" : key;
        operator = operator == null || operator.isBlank() ? "Equal" : operator;
        value = value == null ? "" : value;
        effect = effect == null ? "" : effect;
        InvalidSpecException.check(operator.equals("Equal") || operator.equals("Exists"), "toleration.operator", operator,
                "toleration %s: operator must be Equal or Exists, was %s", key, operator);
    }

    /**
     * @param taint a taint
     * @return true when this toleration tolerates it
     */
    public boolean tolerates(Taint taint) {
        if (!effect.isEmpty() && !effect.equals(taint.effect())) {
            return false;
        }
        if (key.isEmpty()) {
            return operator.equals("Exists");
        }
        if (!key.equals(taint.key())) {
            return false;
        }
        return operator.equals("Exists") || value.equals(taint.value());
    }

    /**
     * @param tolerations tolerations
     * @param taints taints
     * @return true when every hard taint is tolerated by one of the tolerations
     */
    public static boolean toleratesAll(List<Toleration> tolerations, List<Taint> taints) {
        for (Taint t : taints) {
            if (!t.isHard()) {
                continue;
            }
            boolean ok = false;
            for (Toleration tol : tolerations) {
                if (tol.tolerates(t)) {
                    ok = true;
                    break;
                }
            }
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
