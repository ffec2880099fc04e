package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.List;

/**
 * A cohort, as in Kueue's hierarchical cohorts: ClusterQueues (and cohorts) that lend each other unused
 * quota. A cohort may belong to a parent cohort and may hold quota of its own.
 *
 * @param name the cohort name
 * @param parent the parent cohort, or null for a root
 * @param resourceGroups quota the cohort itself holds (often empty)
 * @param fairSharingWeight its weight for fair sharing within its parent
 */
public record Cohort(String name, String parent, List<ResourceGroup> resourceGroups, double fairSharingWeight) implements java.io.Serializable {
    /** Validates. */
    public Cohort {
        InvalidSpecException.requireDnsSubdomain("cohort.name", name);
        parent = parent == null || parent.isBlank() ? null : parent;
        InvalidSpecException.check(!name.equals(parent), "cohort[" + name + "].parent", parent, "cohort %s cannot be its own parent", name);
        resourceGroups = List.copyOf(resourceGroups == null ? List.of() : resourceGroups);
        InvalidSpecException.check(fairSharingWeight > 0 && Double.isFinite(fairSharingWeight), "cohort[" + name + "].fairSharingWeight",
                fairSharingWeight, "cohort %s: fairSharingWeight must be > 0, was %s", name, fairSharingWeight);
    }

    /**
     * @param name the cohort name
     * @param parent the parent, or null
     * @return a cohort without quota of its own
     */
    public static Cohort of(String name, String parent) {
        return new Cohort(name, parent, List.of(), 1.0);
    }
}
