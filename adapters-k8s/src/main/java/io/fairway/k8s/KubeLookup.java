package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.k8s.integration.ApiLookup;
import io.fairway.k8s.integration.KindRef;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ApiLookup} the adapter and the UnifiedJob controller give their integrations: a GET through the client,
 * each answer (found or not) kept for a short while, so an integration that reads a runtime or a CRD on every pass
 * costs one request per object per {@link #TTL_MILLIS}, not one per pass. Errors (forbidden, unreachable) read as
 * "not found" and are logged once per object.
 */
public final class KubeLookup implements ApiLookup {
    /** How long an answer is kept, in milliseconds. */
    public static final long TTL_MILLIS = 30_000;
    private static final Logger LOG = LoggerFactory.getLogger(KubeLookup.class);

    private record Entry(GenericKubernetesResource object, long readAtNanos) {
    }

    private final KubernetesClient client;
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();
    private final Map<String, Boolean> warned = new ConcurrentHashMap<>();

    /** @param client the API client */
    public KubeLookup(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public GenericKubernetesResource get(KindRef kind, String namespace, String name) {
        String key = kind.name() + "|" + namespace + "/" + name;
        Entry e = cache.get(key);
        long now = System.nanoTime();
        if (e != null && now - e.readAtNanos() < TTL_MILLIS * 1_000_000L) {
            return e.object();
        }
        return read(kind, namespace, name, key, now);
    }

    /** Reads the object from the API server, not from the cache (the answer is kept for {@link #get}). */
    @Override
    public GenericKubernetesResource current(KindRef kind, String namespace, String name) {
        return read(kind, namespace, name, kind.name() + "|" + namespace + "/" + name, System.nanoTime());
    }

    private GenericKubernetesResource read(KindRef kind, String namespace, String name, String key, long now) {
        GenericKubernetesResource o = null;
        try {
            ResourceDefinitionContext ctx = new ResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(kind.version())
                    .withKind(kind.kind()).withPlural(kind.plural()).withNamespaced(namespace != null).build();
            var ops = client.genericKubernetesResources(ctx);
            o = namespace == null ? ops.withName(name).get() : ops.inNamespace(namespace).withName(name).get();
        } catch (KubernetesClientException ex) {
            if (warned.putIfAbsent(key, Boolean.TRUE) == null) {
                LOG.warn("cannot read {} {}{}: {}", kind.kind(), namespace == null ? "" : namespace + "/", name, ex.getMessage());
            }
        }
        cache.put(key, new Entry(o, now));
        return o;
    }
}
