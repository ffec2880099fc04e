package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The quotas of one flavor within a resource group.
 *
 * @param flavor the ResourceFlavor name
 * @param resources one quota per covered resource
 */
public record FlavorQuotas(String flavor, List<ResourceQuota> resources) implements java.io.Serializable {
    /** Validates: each resource at most once. */
    public FlavorQuotas {
        InvalidSpecException.requireName("flavor", flavor);
        resources = List.copyOf(resources);
        Set<String> seen = new HashSet<>();
        for (ResourceQuota q : resources) {
            InvalidSpecException.check(seen.add(q.resource()), "flavors[" + flavor + "].resources", q.resource(),
                    "flavor %s: resource %s listed twice", flavor, q.resource());
        }
    }

    /**
     * @param resource a resource name
     * @return its quota in this flavor, or null
     */
    public ResourceQuota quota(String resource) {
        for (ResourceQuota q : resources) {
            if (q.resource().equals(resource)) {
                return q;
            }
        }
        return null;
    }
}
