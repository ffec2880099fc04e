package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * A LocalQueue, as in Kueue: the namespaced queue users submit to, bound to one ClusterQueue. Only jobs of
 * its namespace may use it.
 *
 * @param namespace its namespace
 * @param name its name, unique in the namespace
 * @param clusterQueue the ClusterQueue it feeds
 * @param namespaceLabels the labels of its namespace, which a ClusterQueue's {@code namespaceSelector} is matched
 *     against (empty when unknown)
 */
public record LocalQueue(String namespace, String name, String clusterQueue, java.util.Map<String, String> namespaceLabels)
        implements java.io.Serializable {
    /**
     * A LocalQueue whose namespace has no labels.
     *
     * @param namespace its namespace
     * @param name its name
     * @param clusterQueue the ClusterQueue it feeds
     */
    public LocalQueue(String namespace, String name, String clusterQueue) {
        this(namespace, name, clusterQueue, java.util.Map.of());
    }

    /** Validates. */
    public LocalQueue {
        namespaceLabels = java.util.Map.copyOf(namespaceLabels == null ? java.util.Map.of() : namespaceLabels);
        InvalidSpecException.requireDnsLabel("localQueue.namespace", namespace);
        InvalidSpecException.requireDnsSubdomain("localQueue.name", name);
        InvalidSpecException.requireName("localQueue.clusterQueue", clusterQueue);
    }

    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }
}
