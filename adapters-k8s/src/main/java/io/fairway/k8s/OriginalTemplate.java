package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;

/**
 * The fields of a Job that admission changes, as they were before: kept in the annotation
 * {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION} so eviction restores the Job exactly.
 *
 * @param nodeSelector the pod template's node selector (null when unset)
 * @param tolerations the pod template's tolerations (null when unset)
 * @param schedulingGates the pod template's scheduling gates (null when unset)
 * @param parallelism the Job's parallelism (null when unset)
 */
public record OriginalTemplate(Map<String, String> nodeSelector, List<Toleration> tolerations, List<PodSchedulingGate> schedulingGates,
                               Integer parallelism) {
    /**
     * @param job a Job not yet admitted
     * @return its admission-sensitive fields
     */
    public static OriginalTemplate of(Job job) {
        PodSpec spec = job.getSpec().getTemplate().getSpec();
        return new OriginalTemplate(emptyToNull(spec.getNodeSelector()), emptyToNull(spec.getTolerations()),
                emptyToNull(spec.getSchedulingGates()), job.getSpec().getParallelism());
    }

    private static <K, V> Map<K, V> emptyToNull(Map<K, V> m) {
        if (m == null) {
            return null;
        }
        Map<K, V> clean = new java.util.LinkedHashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                clean.put(k, v);
            }
        });
        return clean.isEmpty() ? null : clean;
    }

    private static <T> List<T> emptyToNull(List<T> l) {
        return l == null || l.isEmpty() ? null : l;
    }

    /** @return the JSON for the annotation */
    public String toJson() {
        return Json.write(this);
    }

    /**
     * @param json the annotation's value
     * @return the fields
     */
    public static OriginalTemplate parse(String json) {
        return Json.read(json, OriginalTemplate.class);
    }
}
