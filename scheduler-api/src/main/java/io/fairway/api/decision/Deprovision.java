package io.fairway.api.decision;

import io.fairway.api.InvalidSpecException;

/**
 * Remove a node (empty, or emptied by migration).
 *
 * @param node the node
 * @param reason why
 */
public record Deprovision(String node, String reason) implements Decision {
    /** Validates. */
    public Deprovision {
        InvalidSpecException.requireName("deprovision.node", node);
    }

    @Override
    public String jobId() {
        return null;
    }

    @Override
    public void applyTo(Handler handler) {
        handler.deprovision().accept(this);
    }
}
