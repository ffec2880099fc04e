package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * A node taint, as in Kubernetes: only pods tolerating it may run on the node (effects NoSchedule and
 * NoExecute are both treated as "do not place here without a toleration").
 *
 * @param key the taint key
 * @param value the taint value (may be empty)
 * @param effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}
 */
public record Taint(String key, String value, String effect) implements java.io.Serializable {
    /** Validates. */
    public Taint {
        InvalidSpecException.requireName("taint.key", key);
        value = value == null ? "" : value;
        effect = effect == null || effect.isBlank() ? "NoSchedule" : effect;
        InvalidSpecException.check(effect.equals("NoSchedule") || effect.equals("PreferNoSchedule") || effect.equals("NoExecute"),
                "taint.effect", effect, "taint %s: effect must be NoSchedule, PreferNoSchedule or NoExecute, was %s", key, effect);
    }

    /** @return true when the taint keeps untolerating pods away (not merely a preference) */
    public boolean isHard() {
        return !effect.equals("PreferNoSchedule");
    }
}
