package io.fairway.k8s.integration;

import io.fairway.api.InvalidSpecException;

/**
 * A Kubernetes kind an {@link Integration} queues: its API group, version, kind and resource (plural) name.
 *
 * <pre>{@code
 * KindRef job = new KindRef("batch", "v1", "Job", "jobs");
 * job.apiVersion();   // "batch/v1"
 * job.name();         // "batch/v1.Job" — the name an integration is enabled by
 * }</pre>
 *
 * @param group the API group ({@code ""} for the core group)
 * @param version the API version within the group
 * @param kind the kind
 * @param plural the resource name in URLs and RBAC rules ({@code jobs}, {@code jobsets})
 */
public record KindRef(String group, String version, String kind, String plural) {
    /** Validates. */
    public KindRef {
        group = group == null ? "" : group;
        InvalidSpecException.requireName("kind.version", version);
        InvalidSpecException.requireName("kind.kind", kind);
        InvalidSpecException.requireName("kind.plural", plural);
    }

    /** @return {@code group/version}, or {@code version} for the core group */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** @return {@code apiVersion.kind}, e.g. {@code batch/v1.Job} or {@code jobset.x-k8s.io/v1alpha2.JobSet} */
    public String name() {
        return apiVersion() + "." + kind;
    }
}
