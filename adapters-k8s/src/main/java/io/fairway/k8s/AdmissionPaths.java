package io.fairway.k8s;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The allow-list of what an admission may have changed in an object, and so of what a restore may write back: for
 * each pod set, its template's scheduling directives (node selector, tolerations, scheduling gates, affinity,
 * template labels and annotations) and its pod count field; and whatever else the kind's integration writes when it
 * admits (found by letting it admit a copy). A recorded path outside the list is never restored, even from a sealed
 * record.
 */
final class AdmissionPaths {
    private static final List<String> DIRECTIVES = List.of("/spec/nodeSelector", "/spec/tolerations", "/spec/schedulingGates", "/spec/affinity",
            "/metadata/labels", "/metadata/annotations");

    private AdmissionPaths() {
    }

    /**
     * @param integration the object's kind
     * @param object the object (as submitted or as it is)
     * @return whether a JSON Pointer is one an admission of it may change
     */
    static Predicate<String> of(Integration integration, GenericKubernetesResource object) {
        List<String> roots = new ArrayList<>();
        List<PodSetTemplate> sets;
        try {
            sets = integration.podSets(object);
        } catch (RuntimeException e) {
            return p -> false;
        }
        ObjectNode json = Specs.toJson(object);
        for (PodSetTemplate ps : sets) {
            DIRECTIVES.forEach(d -> roots.add(ps.templatePointer() + d));
            ObjectNode resized = json.deepCopy();
            try {
                integration.setCount(resized, ps.name(), ps.count() + 1);
                roots.addAll(JsonDiff.changes(json, resized).keySet());
            } catch (RuntimeException fixedCount) {
                // a kind whose counts are fixed has no count path
            }
        }
        // what else the kind writes at admission (a kind that keeps its overrides outside the templates)
        ObjectNode admitted = json.deepCopy();
        List<PodSetAdmission> probes = new ArrayList<>();
        for (PodSetTemplate ps : sets) {
            probes.add(new PodSetAdmission(ps.name(), ps.count(), Map.of("fairway.io/probe", "x"),
                    List.of(new Toleration("NoSchedule", "fairway.io/probe", "Exists", null, null)), List.of(Keys.TOPOLOGY_GATE), List.of()));
        }
        try {
            integration.admit(admitted, sets, probes);
            for (String p : JsonDiff.changes(json, admitted).keySet()) {
                if (sets.stream().noneMatch(ps -> p.startsWith(ps.templatePointer() + "/"))) {
                    roots.add(firstSegments(p, 2));
                }
            }
        } catch (RuntimeException e) {
            // nothing more
        }
        return p -> roots.stream().anyMatch(r -> p.equals(r) || p.startsWith(r + "/"));
    }

    private static String firstSegments(String pointer, int n) {
        String[] segs = pointer.split("/", -1);
        return segs.length <= n + 1 ? pointer : String.join("/", java.util.Arrays.copyOf(segs, n + 1));
    }
}
