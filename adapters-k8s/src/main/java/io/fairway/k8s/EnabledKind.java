package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;

/** An enabled integration with what the adapter needs to reach its objects: the resource context and the informer. */
final class EnabledKind {
    final Integration integration;
    final ResourceDefinitionContext context;
    SharedIndexInformer<GenericKubernetesResource> informer;

    EnabledKind(Integration integration) {
        this.integration = integration;
        KindRef k = integration.kind();
        this.context = new ResourceDefinitionContext.Builder().withGroup(k.group()).withVersion(k.version()).withKind(k.kind())
                .withPlural(k.plural()).withNamespaced(true).build();
    }

    String name() {
        return integration.name();
    }

    /** @return the Kubernetes kind of its objects, e.g. {@code Job} or {@code RayCluster} */
    String kindName() {
        return integration.kind().kind();
    }

    /** @return the pod index key of one of this kind's objects */
    String podKey(String namespace, String name) {
        return name() + "|" + namespace + "/" + name;
    }
}
