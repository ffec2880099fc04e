package io.fairway.k8s.integration;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fairway.api.InvalidSpecException;
import java.util.Objects;

/**
 * One pod set of a queued object as its author wrote it: a name, how many pods, and the pod template they share.
 * The adapter turns it into the engine's {@link io.fairway.api.job.PodSet} (resources from the template's requests,
 * node selector, tolerations, topology annotations) and, at admission, edits the template found at
 * {@link #templatePointer()} (node selector, tolerations, scheduling gate).
 *
 * @param name the pod set's name, unique within the object, stable across reads (e.g. {@code main}, {@code launcher},
 *     {@code worker}, a JobSet's replicated job name)
 * @param count how many pods it runs (the most, for an elastic pod set)
 * @param minCount the fewest pods it can run with ({@code == count} unless the kind is elastic)
 * @param templatePointer the JSON Pointer (RFC 6901) of its pod template inside the object, e.g.
 *     {@code /spec/template} or {@code /spec/replicatedJobs/0/template/spec/template}
 * @param template the pod template (a copy: editing it changes nothing)
 */
public record PodSetTemplate(String name, int count, int minCount, String templatePointer, PodTemplateSpec template) {
    /** Validates. */
    public PodSetTemplate {
        InvalidSpecException.requireName("podSet.name", name);
        InvalidSpecException.check(count > 0, "podSet[" + name + "].count", count, "pod set %s: the pod count must be > 0, was %d", name, count);
        InvalidSpecException.check(minCount >= 1 && minCount <= count, "podSet[" + name + "].minCount", minCount,
                "pod set %s: the fewest pods must be between 1 and %d, was %d", name, count, minCount);
        InvalidSpecException.check(templatePointer != null && templatePointer.startsWith("/"), "podSet[" + name + "].templatePointer",
                templatePointer, "pod set %s: the template pointer must be a JSON Pointer starting with '/', was %s", name, templatePointer);
        Objects.requireNonNull(template, "template");
        InvalidSpecException.check(template.getSpec() != null, templatePointer + "/spec", null, "pod set %s has no pod spec", name);
    }

    /**
     * @param name the pod set's name
     * @param count its pod count (not elastic)
     * @param templatePointer where its template is
     * @param template the template
     * @return a fixed-size pod set
     */
    public static PodSetTemplate of(String name, int count, String templatePointer, PodTemplateSpec template) {
        return new PodSetTemplate(name, count, count, templatePointer, template);
    }
}
