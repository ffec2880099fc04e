package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A ClusterQueue, as in Kueue: a pool of quota (resource groups of flavors), an optional cohort it shares
 * quota with, how it orders its jobs, and when its jobs may preempt others.
 *
 * <pre>{@code
 * ClusterQueue cq = ClusterQueue.builder("team-a")
 *     .cohort("research")
 *     .resourceGroup(new ResourceGroup(List.of("cpu", "nvidia.com/gpu"), List.of(
 *         new FlavorQuotas("on-demand", List.of(ResourceQuota.of("cpu", 64_000), ResourceQuota.of("nvidia.com/gpu", 8))))))
 *     .build();
 * }</pre>
 *
 * @param name the ClusterQueue name
 * @param cohort the cohort it belongs to, or null
 * @param resourceGroups its quota
 * @param queueingStrategy how it orders and blocks (null: the policy decides)
 * @param preemption when its jobs may preempt others
 * @param flavorFungibility borrow before trying the next flavor, or not
 * @param fairSharingWeight its weight for fair sharing within the cohort (> 0)
 * @param priorityFactor its priority factor for fair share over time (HTCondor/Armada; > 0, larger = less share)
 * @param stopped true when it admits nothing new (a cordoned queue)
 * @param admissionChecks names of the admission checks a job must pass after its quota is reserved
 * @param namespaceSelector which namespaces may submit to it (Kueue's {@code namespaceSelector}), matched against the
 *     labels of a LocalQueue's namespace; null: every namespace (Kueue's absent selector means none: an adapter reading
 *     Kueue's objects gives {@link LabelSelector#NOTHING} for it)
 */
public record ClusterQueue(String name, String cohort, List<ResourceGroup> resourceGroups, QueueingStrategy queueingStrategy,
                           PreemptionPolicy preemption, FlavorFungibility flavorFungibility, double fairSharingWeight,
                           double priorityFactor, boolean stopped, List<String> admissionChecks, LabelSelector namespaceSelector)
        implements java.io.Serializable {
    /**
     * A ClusterQueue open to every namespace.
     *
     * @param name name
     * @param cohort cohort or null
     * @param resourceGroups quota
     * @param queueingStrategy strategy or null
     * @param preemption preemption policy
     * @param flavorFungibility fungibility
     * @param fairSharingWeight weight
     * @param priorityFactor priority factor
     * @param stopped stopped
     * @param admissionChecks admission checks
     */
    public ClusterQueue(String name, String cohort, List<ResourceGroup> resourceGroups, QueueingStrategy queueingStrategy,
                        PreemptionPolicy preemption, FlavorFungibility flavorFungibility, double fairSharingWeight,
                        double priorityFactor, boolean stopped, List<String> admissionChecks) {
        this(name, cohort, resourceGroups, queueingStrategy, preemption, flavorFungibility, fairSharingWeight, priorityFactor, stopped,
                admissionChecks, null);
    }

    /**
     * A ClusterQueue without admission checks.
     *
     * @param name name
     * @param cohort cohort or null
     * @param resourceGroups quota
     * @param queueingStrategy strategy or null
     * @param preemption preemption policy
     * @param flavorFungibility fungibility
     * @param fairSharingWeight weight
     * @param priorityFactor priority factor
     * @param stopped stopped
     */
    public ClusterQueue(String name, String cohort, List<ResourceGroup> resourceGroups, QueueingStrategy queueingStrategy,
                        PreemptionPolicy preemption, FlavorFungibility flavorFungibility, double fairSharingWeight,
                        double priorityFactor, boolean stopped) {
        this(name, cohort, resourceGroups, queueingStrategy, preemption, flavorFungibility, fairSharingWeight, priorityFactor, stopped, List.of(),
                null);
    }

    /**
     * @param namespaceLabels the labels of a LocalQueue's namespace
     * @return true when jobs of that namespace may be admitted through this queue
     */
    public boolean admitsNamespace(java.util.Map<String, String> namespaceLabels) {
        return namespaceSelector == null || namespaceSelector.matches(namespaceLabels);
    }

    /** Validates: a resource is covered by at most one group; borrowing limits need a cohort. */
    public ClusterQueue {
        InvalidSpecException.requireDnsSubdomain("clusterQueue.name", name);
        admissionChecks = List.copyOf(admissionChecks == null ? List.of() : admissionChecks);
        cohort = cohort == null || cohort.isBlank() ? null : cohort;
        resourceGroups = List.copyOf(resourceGroups == null ? List.of() : resourceGroups);
        preemption = preemption == null ? PreemptionPolicy.NEVER : preemption;
        flavorFungibility = flavorFungibility == null ? FlavorFungibility.BORROW_FIRST : flavorFungibility;
        InvalidSpecException.check(fairSharingWeight > 0 && Double.isFinite(fairSharingWeight), "clusterQueue[" + name + "].fairSharingWeight",
                fairSharingWeight, "ClusterQueue %s: fairSharingWeight must be > 0, was %s", name, fairSharingWeight);
        InvalidSpecException.check(priorityFactor > 0 && Double.isFinite(priorityFactor), "clusterQueue[" + name + "].priorityFactor",
                priorityFactor, "ClusterQueue %s: priorityFactor must be > 0, was %s", name, priorityFactor);
        Set<String> covered = new HashSet<>();
        for (ResourceGroup g : resourceGroups) {
            for (String r : g.coveredResources()) {
                InvalidSpecException.check(covered.add(r), "clusterQueue[" + name + "].resourceGroups", r,
                        "ClusterQueue %s: resource %s is covered by two resource groups", name, r);
            }
            if (cohort == null) {
                for (FlavorQuotas f : g.flavors()) {
                    for (ResourceQuota q : f.resources()) {
                        InvalidSpecException.check(q.borrowingLimit() == ResourceQuota.UNLIMITED,
                                "clusterQueue[" + name + "].borrowingLimit", q.borrowingLimit(),
                                "ClusterQueue %s: borrowingLimit %d on %s/%s, but the queue has no cohort to borrow from",
                                name, q.borrowingLimit(), f.flavor(), q.resource());
                        InvalidSpecException.check(q.lendingLimit() == ResourceQuota.UNLIMITED,
                                "clusterQueue[" + name + "].lendingLimit", q.lendingLimit(),
                                "ClusterQueue %s: lendingLimit %d on %s/%s, but the queue has no cohort to lend to",
                                name, q.lendingLimit(), f.flavor(), q.resource());
                    }
                }
            }
        }
    }

    /**
     * @param name the ClusterQueue name
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** @param stopped the new state @return a copy that admits nothing new (true) or again (false) */
    public ClusterQueue withStopped(boolean stopped) {
        return new ClusterQueue(name, cohort, resourceGroups, queueingStrategy, preemption, flavorFungibility, fairSharingWeight,
                priorityFactor, stopped, admissionChecks, namespaceSelector);
    }

    /** @return every flavor named in the resource groups */
    public Set<String> flavorNames() {
        Set<String> s = new HashSet<>();
        for (ResourceGroup g : resourceGroups) {
            for (FlavorQuotas f : g.flavors()) {
                s.add(f.flavor());
            }
        }
        return s;
    }

    /**
     * @param resource a resource
     * @return the group covering it, or null
     */
    public ResourceGroup groupFor(String resource) {
        for (ResourceGroup g : resourceGroups) {
            if (g.coveredResources().contains(resource)) {
                return g;
            }
        }
        return null;
    }

    /** Builds a {@link ClusterQueue}. */
    public static final class Builder {
        private final String name;
        private String cohort;
        private final List<ResourceGroup> groups = new ArrayList<>();
        private QueueingStrategy strategy;
        private PreemptionPolicy preemption = PreemptionPolicy.NEVER;
        private FlavorFungibility fungibility = FlavorFungibility.BORROW_FIRST;
        private double weight = 1.0;
        private double priorityFactor = 1.0;
        private boolean stopped;
        private final List<String> checks = new ArrayList<>();
        private LabelSelector namespaceSelector;

        private Builder(String name) {
            this.name = name;
        }

        /** @param cohort the cohort @return this */
        public Builder cohort(String cohort) {
            this.cohort = cohort;
            return this;
        }

        /** @param group a resource group @return this */
        public Builder resourceGroup(ResourceGroup group) {
            groups.add(group);
            return this;
        }

        /**
         * A one-flavor resource group with no limits: the common simple case.
         *
         * @param flavor the flavor name
         * @param nominal nominal quota per resource
         * @return this
         */
        public Builder quota(String flavor, Resources nominal) {
            List<ResourceQuota> qs = new ArrayList<>();
            nominal.asMap().forEach((r, v) -> qs.add(ResourceQuota.of(r, v)));
            groups.add(new ResourceGroup(new ArrayList<>(nominal.names()), List.of(new FlavorQuotas(flavor, qs))));
            return this;
        }

        /** @param strategy the queueing strategy @return this */
        public Builder queueingStrategy(QueueingStrategy strategy) {
            this.strategy = strategy;
            return this;
        }

        /** @param preemption the preemption policy @return this */
        public Builder preemption(PreemptionPolicy preemption) {
            this.preemption = preemption;
            return this;
        }

        /** @param fungibility flavor fungibility @return this */
        public Builder flavorFungibility(FlavorFungibility fungibility) {
            this.fungibility = fungibility;
            return this;
        }

        /** @param weight fair-sharing weight @return this */
        public Builder fairSharingWeight(double weight) {
            this.weight = weight;
            return this;
        }

        /** @param factor priority factor @return this */
        public Builder priorityFactor(double factor) {
            this.priorityFactor = factor;
            return this;
        }

        /** @param stopped admit nothing new @return this */
        public Builder stopped(boolean stopped) {
            this.stopped = stopped;
            return this;
        }

        /** @param check the name of an admission check jobs must pass @return this */
        public Builder admissionCheck(String check) {
            checks.add(check);
            return this;
        }

        /** @param selector which namespaces may submit (null: every one) @return this */
        public Builder namespaceSelector(LabelSelector selector) {
            this.namespaceSelector = selector;
            return this;
        }

        /** @return the ClusterQueue */
        public ClusterQueue build() {
            return new ClusterQueue(name, cohort, groups, strategy, preemption, fungibility, weight, priorityFactor, stopped, checks,
                    namespaceSelector);
        }
    }
}
