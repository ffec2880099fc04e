package io.fairway.api.decision;

import io.fairway.api.InvalidSpecException;
import java.util.List;

/**
 * Where one member of a pod set runs: a node and, when it uses GPUs, exactly which ones.
 *
 * @param podSet the pod set name
 * @param index the member's index within the pod set (0-based)
 * @param node the node name
 * @param gpus the GPU indexes on that node (empty when the member needs no GPU)
 */
public record MemberPlacement(String podSet, int index, String node, List<Integer> gpus) implements java.io.Serializable {
    /** Validates. */
    public MemberPlacement {
        InvalidSpecException.requireName("placement.podSet", podSet);
        InvalidSpecException.requireName("placement.node", node);
        InvalidSpecException.check(index >= 0, "placement.index", index, "member index must be >= 0, was %d", index);
        gpus = List.copyOf(gpus == null ? List.of() : gpus);
    }
}
