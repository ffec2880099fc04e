package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * Quota for one resource of one flavor, as in Kueue.
 *
 * @param resource the resource name
 * @param nominal the nominal quota, in base units
 * @param borrowingLimit how much above nominal may be borrowed from the cohort ({@link #UNLIMITED} when unset)
 * @param lendingLimit how much of the unused nominal quota the cohort may lend to others ({@link #UNLIMITED}
 *     when unset, meaning all of it)
 */
public record ResourceQuota(String resource, long nominal, long borrowingLimit, long lendingLimit) implements java.io.Serializable {
    /** No limit. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** Validates. */
    public ResourceQuota {
        InvalidSpecException.requireName("quota.resource", resource);
        InvalidSpecException.check(nominal >= 0, "nominalQuota", nominal, "resource %s: nominalQuota must be >= 0, was %d", resource, nominal);
        InvalidSpecException.check(borrowingLimit >= 0, "borrowingLimit", borrowingLimit,
                "resource %s: borrowingLimit must be >= 0, was %d", resource, borrowingLimit);
        InvalidSpecException.check(lendingLimit >= 0, "lendingLimit", lendingLimit,
                "resource %s: lendingLimit must be >= 0, was %d", resource, lendingLimit);
        InvalidSpecException.check(nominal <= Resources.MAX_QUANTITY, "nominalQuota", nominal,
                "resource %s: nominalQuota %d is too large (at most %d)", resource, nominal, Resources.MAX_QUANTITY);
        InvalidSpecException.check(borrowingLimit == UNLIMITED || borrowingLimit <= Resources.MAX_QUANTITY, "borrowingLimit", borrowingLimit,
                "resource %s: borrowingLimit %d is too large (at most %d, or unlimited)", resource, borrowingLimit, Resources.MAX_QUANTITY);
        InvalidSpecException.check(lendingLimit == UNLIMITED || lendingLimit <= nominal, "lendingLimit", lendingLimit,
                "resource %s: lendingLimit %d > nominalQuota %d", resource, lendingLimit, nominal);
    }

    /**
     * @param resource resource name
     * @param nominal nominal quota in base units
     * @return a quota with no borrowing or lending limit
     */
    public static ResourceQuota of(String resource, long nominal) {
        return new ResourceQuota(resource, nominal, UNLIMITED, UNLIMITED);
    }

    /** @return the part of nominal quota that others may never borrow */
    public long guaranteed() {
        return lendingLimit == UNLIMITED ? 0 : nominal - lendingLimit;
    }
}
