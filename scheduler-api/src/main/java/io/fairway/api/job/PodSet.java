package io.fairway.api.job;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.NodeAffinity;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * A pod set, as in Kueue: {@code count} identical members, each needing {@code resources}. An elastic pod
 * set runs with any size from {@code minCount} to {@code count}.
 *
 * <pre>{@code
 * PodSet workers = PodSet.of("workers", 4, Resources.builder().cpu(8).gpus(2).build());
 * PodSet elastic = workers.withMinCount(2);
 * }</pre>
 *
 * @param name the pod set name, unique within its job
 * @param count the member count (the maximum, for elastic pod sets)
 * @param minCount the fewest members it can run with ({@code == count} when not elastic)
 * @param resources what each member needs
 * @param nodeSelector labels a node must carry
 * @param tolerations tolerations of each member
 * @param topology where members must or should be relative to each other
 * @param affinity the required node affinity of each member ({@link NodeAffinity#NONE} when none), ANDed with the node selector
 */
public record PodSet(String name, int count, int minCount, Resources resources, Map<String, String> nodeSelector,
                     List<Toleration> tolerations, TopologyRequest topology, NodeAffinity affinity) implements java.io.Serializable {
    /** Validates: counts positive, minCount ≤ count, every quantity positive. */
    public PodSet {
        InvalidSpecException.requireName("podSet.name", name);
        if (count <= 0 || minCount <= 0 || minCount > count || !positive(resources)) { // messages built only on failure
            String f = "podSets[" + name + "]";
            InvalidSpecException.check(count > 0, f + ".count", count, "pod set \"%s\": count must be > 0, was %d", name, count);
            InvalidSpecException.check(minCount > 0, f + ".minCount", minCount, "pod set \"%s\": minCount must be > 0, was %d", name, minCount);
            InvalidSpecException.check(minCount <= count, f + ".minCount", minCount, "pod set \"%s\": minCount %d > count %d", name, minCount,
                    count);
            InvalidSpecException.check(resources != null && resources.size() > 0, f + ".resources", resources,
                    "pod set \"%s\": resources must name at least one resource", name);
            for (int i = 0; i < resources.size(); i++) {
                InvalidSpecException.check(resources.amount(i) > 0, f + ".resources." + resources.name(i), resources.amount(i),
                        "pod set \"%s\": %s must be > 0, was %d", name, resources.name(i), resources.amount(i));
            }
        }
        for (int i = 0; i < resources.size(); i++) { // the gang's total must be a quantity too: sums cannot overflow
            if (resources.amount(i) > Resources.MAX_QUANTITY / count) {
                InvalidSpecException.check(false, "podSets[" + name + "].resources." + resources.name(i), resources.amount(i),
                        "pod set \"%s\": %d members × %s %d = %s is more than the largest quantity %d", name, count, resources.name(i),
                        resources.amount(i), java.math.BigInteger.valueOf(resources.amount(i)).multiply(java.math.BigInteger.valueOf(count)),
                        Resources.MAX_QUANTITY);
            }
        }
        nodeSelector = Map.copyOf(nodeSelector == null ? Map.of() : nodeSelector);
        tolerations = List.copyOf(tolerations == null ? List.of() : tolerations);
        topology = topology == null ? TopologyRequest.NONE : topology;
        affinity = affinity == null ? NodeAffinity.NONE : affinity;
        if (topology.sameNvlinkDomain() && resources.gpus() <= 0) {
            InvalidSpecException.check(false, "podSets[" + name + "].topology", "sameNvlinkDomain",
                    "pod set \"%s\": an NVLink domain constraint needs GPUs", name);
        }
    }

    /**
     * A pod set without a node affinity.
     *
     * @param name the pod set name
     * @param count the member count
     * @param minCount the fewest members
     * @param resources per member
     * @param nodeSelector labels a node must carry
     * @param tolerations tolerations of each member
     * @param topology the topology request
     */
    public PodSet(String name, int count, int minCount, Resources resources, Map<String, String> nodeSelector,
                  List<Toleration> tolerations, TopologyRequest topology) {
        this(name, count, minCount, resources, nodeSelector, tolerations, topology, NodeAffinity.NONE);
    }

    /** @return true when the resources name at least one resource and every quantity is positive */
    private static boolean positive(Resources resources) {
        if (resources == null || resources.size() == 0) {
            return false;
        }
        for (int i = 0; i < resources.size(); i++) {
            if (resources.amount(i) <= 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param name the pod set name
     * @param count the member count
     * @param resources per member
     * @return a non-elastic pod set without selectors or constraints
     */
    public static PodSet of(String name, int count, Resources resources) {
        return new PodSet(name, count, count, resources, Map.of(), List.of(), TopologyRequest.NONE);
    }

    /** @param min the fewest members @return an elastic copy */
    public PodSet withMinCount(int min) {
        return new PodSet(name, count, min, resources, nodeSelector, tolerations, topology, affinity);
    }

    /** @param request the topology request @return a copy with it */
    public PodSet withTopology(TopologyRequest request) {
        return new PodSet(name, count, minCount, resources, nodeSelector, tolerations, request, affinity);
    }

    /** @param selector node selector @return a copy with it */
    public PodSet withNodeSelector(Map<String, String> selector) {
        return new PodSet(name, count, minCount, resources, selector, tolerations, topology, affinity);
    }

    /** @param tolerations tolerations @return a copy with them */
    public PodSet withTolerations(List<Toleration> tolerations) {
        return new PodSet(name, count, minCount, resources, nodeSelector, tolerations, topology, affinity);
    }

    /** @param affinity the required node affinity @return a copy with it */
    public PodSet withAffinity(NodeAffinity affinity) {
        return new PodSet(name, count, minCount, resources, nodeSelector, tolerations, topology, affinity);
    }

    /** @return true when minCount &lt; count */
    public boolean isElastic() {
        return minCount < count;
    }

    /**
     * @param members a member count
     * @return the resources of that many members
     */
    public Resources total(int members) {
        return resources.times(members);
    }
}
