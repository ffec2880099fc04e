package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A resource group, as in Kueue: resources that are assigned one flavor together, and the flavors to try in
 * order.
 *
 * @param coveredResources the resources this group covers
 * @param flavors the flavors in the order they are tried; each gives a quota for every covered resource
 */
public record ResourceGroup(List<String> coveredResources, List<FlavorQuotas> flavors) implements java.io.Serializable {
    /** Validates: every flavor quotes exactly the covered resources. */
    public ResourceGroup {
        coveredResources = List.copyOf(coveredResources);
        flavors = List.copyOf(flavors);
        InvalidSpecException.check(!coveredResources.isEmpty(), "coveredResources", coveredResources, "a resource group must cover at least one resource");
        InvalidSpecException.check(!flavors.isEmpty(), "flavors", flavors, "a resource group must list at least one flavor");
        Set<String> covered = new HashSet<>(coveredResources);
        Set<String> flavorNames = new HashSet<>();
        for (FlavorQuotas f : flavors) {
            InvalidSpecException.check(flavorNames.add(f.flavor()), "flavors", f.flavor(), "flavor %s listed twice in one resource group", f.flavor());
            for (ResourceQuota q : f.resources()) {
                InvalidSpecException.check(covered.contains(q.resource()), "flavors[" + f.flavor() + "].resources", q.resource(),
                        "flavor %s: resource %s is not in coveredResources %s", f.flavor(), q.resource(), coveredResources);
            }
            for (String r : coveredResources) {
                InvalidSpecException.check(f.quota(r) != null, "flavors[" + f.flavor() + "].resources", r,
                        "flavor %s: no quota for covered resource %s", f.flavor(), r);
            }
        }
    }
}
