package io.fairway.api.decision;

import io.fairway.api.InvalidSpecException;

/**
 * Add nodes of an instance type to a node pool, for admitted jobs that fit no existing node.
 *
 * @param nodePool the node pool
 * @param instanceType the instance type
 * @param count how many nodes
 * @param reason which jobs they are for
 */
public record Provision(String nodePool, String instanceType, int count, String reason) implements Decision {
    /** Validates. */
    public Provision {
        InvalidSpecException.requireName("provision.nodePool", nodePool);
        InvalidSpecException.requireName("provision.instanceType", instanceType);
        InvalidSpecException.check(count > 0, "provision.count", count, "count must be > 0, was %d", count);
    }

    @Override
    public String jobId() {
        return null;
    }

    @Override
    public void applyTo(Handler handler) {
        handler.provision().accept(this);
    }
}
