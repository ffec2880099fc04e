package io.fairway.k8s.integration;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * What admission gives one pod set, for {@link Integration#admit}: the pod count it was admitted with, the node
 * labels and tolerations of its flavor, the scheduling gates its pods are created with, and the nodes its members
 * were placed on.
 *
 * @param name the pod set's name ({@link PodSetTemplate#name()})
 * @param count the admitted pod count (below {@link PodSetTemplate#count()} only for an elastic pod set)
 * @param nodeSelector node labels to add to the template's node selector (the flavor's), never null
 * @param tolerations tolerations to add to the template's (the flavor's), never null
 * @param schedulingGates scheduling gate names to add to the template (the adapter's topology gate), never null
 * @param nodeNames the node of each member, in member order ({@code nodeNames.get(i)} runs member {@code i}); the
 *     adapter binds each pod to its member's node when it ungates it, so the default {@link Integration#admit}
 *     does not write these — an integration whose pods cannot be gated may pin them itself
 */
public record PodSetAdmission(String name, int count, Map<String, String> nodeSelector, List<Toleration> tolerations,
                              List<String> schedulingGates, List<String> nodeNames) {
    /** Copies. */
    public PodSetAdmission {
        nodeSelector = Map.copyOf(nodeSelector == null ? Map.of() : nodeSelector);
        tolerations = List.copyOf(tolerations == null ? List.of() : tolerations);
        schedulingGates = List.copyOf(schedulingGates == null ? List.of() : schedulingGates);
        nodeNames = List.copyOf(nodeNames == null ? List.of() : nodeNames);
    }
}
