package io.fairway.core.admission;

import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Taint;
import io.fairway.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flavors of one pod set whose resources come from several resource groups (cpu and memory from one, GPUs from
 * another), as one flavor for placement: a node must carry every flavor's labels, and the pod set gets every
 * flavor's tolerations. When two flavors ask for different values of one label, no node can match.
 */
public final class FlavorUnion {
    /** A label value no node carries: two flavors of one pod set asked for different values of the label. */
    static final String CONFLICT = "\u0000conflicting-flavors";

    private FlavorUnion() {
    }

    /**
     * @param first the pod set's first flavor
     * @param others the flavors of its other resource groups (nulls, for flavors not defined, are skipped)
     * @return one flavor with every label, taint and toleration of all of them
     */
    public static ResourceFlavor of(ResourceFlavor first, List<ResourceFlavor> others) {
        if (first == null) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>(first.nodeLabels());
        List<Taint> taints = new ArrayList<>(first.nodeTaints());
        List<Toleration> tolerations = new ArrayList<>(first.tolerations());
        StringBuilder name = new StringBuilder(first.name());
        for (ResourceFlavor f : others) {
            if (f == null || f.name().equals(first.name())) {
                continue;
            }
            name.append('.').append(f.name());
            for (Map.Entry<String, String> e : f.nodeLabels().entrySet()) {
                String had = labels.putIfAbsent(e.getKey(), e.getValue());
                if (had != null && !had.equals(e.getValue())) {
                    labels.put(e.getKey(), CONFLICT);
                }
            }
            for (Taint t : f.nodeTaints()) {
                if (!taints.contains(t)) {
                    taints.add(t);
                }
            }
            for (Toleration t : f.tolerations()) {
                if (!tolerations.contains(t)) {
                    tolerations.add(t);
                }
            }
        }
        String n = name.length() <= 253 ? name.toString() : first.name();
        return new ResourceFlavor(n, labels, taints, tolerations);
    }
}
