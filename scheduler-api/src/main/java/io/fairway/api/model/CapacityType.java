package io.fairway.api.model;

/** How an instance is bought, as in Karpenter's {@code karpenter.sh/capacity-type}. */
public enum CapacityType {
    /** Interruptible, cheaper capacity; interrupted with a short notice. */
    SPOT,
    /** Regular capacity. */
    ON_DEMAND
}
