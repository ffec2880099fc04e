package io.fairway.api.job;

import io.fairway.api.InvalidSpecException;

/**
 * Where the members of a pod set must (or should) be, relative to each other.
 *
 * <pre>{@code
 * TopologyRequest.required("fairway.io/rack");     // all members in one rack, or not at all
 * TopologyRequest.preferred("fairway.io/rack");    // one rack if possible
 * TopologyRequest.nvlinkDomain();                  // all members' GPUs in one NVLink domain
 * }</pre>
 *
 * @param level the topology level (a node label key, or {@code kubernetes.io/hostname}), or null for none
 * @param required true: the constraint must hold; false: it is a preference
 * @param sameNvlinkDomain true: all GPUs of the pod set in one NVLink domain (implies one node)
 * @param spread true: spread members across nodes instead of packing them (a preference)
 */
public record TopologyRequest(String level, boolean required, boolean sameNvlinkDomain, boolean spread) implements java.io.Serializable {
    /** No constraint: pack, fewest nodes. */
    public static final TopologyRequest NONE = new TopologyRequest(null, false, false, false);

    /** Validates. */
    public TopologyRequest {
        level = level == null || level.isBlank() ? null : level;
        InvalidSpecException.check(!(required && level == null && !sameNvlinkDomain), "topology.required", required,
                "topology: required needs a level or sameNvlinkDomain");
        InvalidSpecException.check(!(spread && (required || sameNvlinkDomain)), "topology.spread", spread,
                "topology: spread cannot be combined with a required level or an NVLink domain");
    }

    /** @param level a topology level @return a required constraint */
    public static TopologyRequest required(String level) {
        return new TopologyRequest(level, true, false, false);
    }

    /** @param level a topology level @return a preferred constraint */
    public static TopologyRequest preferred(String level) {
        return new TopologyRequest(level, false, false, false);
    }

    /** @return all GPUs in one NVLink domain, required */
    public static TopologyRequest nvlinkDomain() {
        return new TopologyRequest(null, true, true, false);
    }

    /** @return spread members across nodes */
    public static TopologyRequest spreadAcrossNodes() {
        return new TopologyRequest(null, false, false, true);
    }
}
