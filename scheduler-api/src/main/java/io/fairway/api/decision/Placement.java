package io.fairway.api.decision;

import io.fairway.api.job.Locality;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where every member of a gang runs, with the placement's quality.
 *
 * @param members one entry per member
 * @param locality the slowest kind of link the gang crosses
 * @param throughputFactor the job's expected speed relative to ideal placement (1.0 = no slowdown), from its
 *     placement sensitivity
 */
public record Placement(List<MemberPlacement> members, Locality locality, double throughputFactor) implements java.io.Serializable {
    /** Copies. */
    public Placement {
        members = List.copyOf(members);
        locality = locality == null ? Locality.NVLINK_DOMAIN : locality;
    }

    /** @return the distinct nodes used, in member order (unmodifiable) */
    public Set<String> nodes() {
        return nodesOf(members);
    }

    /**
     * @param members member placements
     * @return the distinct nodes they use, in member order (unmodifiable); no set is built for a gang on one node,
     *     the common case on the admission path
     */
    public static Set<String> nodesOf(List<MemberPlacement> members) {
        if (members.isEmpty()) {
            return Set.of();
        }
        String first = members.get(0).node();
        int i = 1;
        while (i < members.size() && members.get(i).node().equals(first)) {
            i++;
        }
        if (i == members.size()) {
            return Set.of(first);
        }
        Set<String> s = new LinkedHashSet<>();
        for (MemberPlacement m : members) {
            s.add(m.node());
        }
        return java.util.Collections.unmodifiableSet(s);
    }

    /**
     * @param podSet a pod set name
     * @return how many members of it are placed
     */
    public int count(String podSet) {
        int n = 0;
        for (MemberPlacement m : members) {
            if (m.podSet().equals(podSet)) {
                n++;
            }
        }
        return n;
    }

    /** @return the number of GPUs used */
    public int gpuCount() {
        int n = 0;
        for (MemberPlacement m : members) {
            n += m.gpus().size();
        }
        return n;
    }
}
