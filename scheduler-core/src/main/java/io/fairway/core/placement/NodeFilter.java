package io.fairway.core.placement;

import io.fairway.api.job.PodSet;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodeAffinity;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which nodes a pod set may use: its node selector, its required node affinity, its flavor's labels, and
 * tolerations for the taints.
 */
final class NodeFilter {
    private final Map<String, String> selector;
    private final NodeAffinity affinity;
    private final Map<String, String> flavorLabels;
    private final List<Toleration> tolerations;

    NodeFilter(PodSet ps, ResourceFlavor flavor) {
        this.selector = ps.nodeSelector();
        this.affinity = ps.affinity();
        this.flavorLabels = flavor == null ? Map.of() : flavor.nodeLabels();
        if (flavor == null || flavor.tolerations().isEmpty()) {
            this.tolerations = ps.tolerations();
        } else {
            List<Toleration> t = new ArrayList<>(ps.tolerations());
            t.addAll(flavor.tolerations());
            this.tolerations = t;
        }
    }

    boolean matches(Node n) {
        for (Map.Entry<String, String> e : selector.entrySet()) {
            if (!e.getValue().equals(n.label(e.getKey()))) {
                return false;
            }
        }
        for (Map.Entry<String, String> e : flavorLabels.entrySet()) {
            if (!e.getValue().equals(n.label(e.getKey()))) {
                return false;
            }
        }
        if (!affinity.matches(n)) {
            return false;
        }
        return n.taints().isEmpty() || Toleration.toleratesAll(tolerations, n.taints());
    }
}
