package io.fairway.api.model;

/**
 * What to do when a pod set does not fit a flavor's nominal quota, before trying the next flavor (Kueue's
 * {@code flavorFungibility}).
 */
public enum FlavorFungibility {
    /** Borrow from the cohort in this flavor before trying the next flavor (Kueue's default). */
    BORROW_FIRST,
    /** Try the next flavor before borrowing. */
    TRY_NEXT_FLAVOR
}
