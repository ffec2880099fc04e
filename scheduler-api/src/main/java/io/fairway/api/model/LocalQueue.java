package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * A LocalQueue, as in Kueue: the namespaced queue users submit to, bound to one ClusterQueue. Only jobs of
 * its namespace may use it.
 *
 * @param namespace its namespace
 * @param name its name, unique in the namespace
 * @param clusterQueue the ClusterQueue it feeds
 */
public record LocalQueue(String namespace, String name, String clusterQueue) implements java.io.Serializable {
    /** Validates. */
    public LocalQueue {
        InvalidSpecException.requireDnsLabel("localQueue.namespace", namespace);
        InvalidSpecException.requireDnsSubdomain("localQueue.name", name);
        InvalidSpecException.requireName("localQueue.clusterQueue", clusterQueue);
    }

    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }
}
