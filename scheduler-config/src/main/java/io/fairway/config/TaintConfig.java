package io.fairway.config;

import io.fairway.api.model.Taint;

/**
 * A node taint: of a flavor's nodes, a node pool's nodes, or (in the simulator's cluster file) a node group's nodes.
 *
 * @param key the key
 * @param value the value
 * @param effect NoSchedule, PreferNoSchedule or NoExecute
 */
public record TaintConfig(String key, String value, String effect) {
    /** Validates (by building the taint). */
    public TaintConfig {
        new Taint(key, value, effect);
    }

    /** @return the api model */
    public Taint toModel() {
        return new Taint(key, value, effect);
    }
}
