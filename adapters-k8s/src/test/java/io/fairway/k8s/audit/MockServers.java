package io.fairway.k8s.audit;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;

/** A started fabric8 mock API server in CRUD mode, for tests outside {@code io.fairway.k8s} (which use its MockCluster). */
public final class MockServers {
    /** Kept so the level holds: the mock server logs every request at INFO through java.util.logging. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private MockServers() {
    }

    /**
     * @param client a client of the server
     * @param name a PriorityClass to create
     * @param value its value
     */
    public static void priorityClass(io.fabric8.kubernetes.client.KubernetesClient client, String name, int value) {
        client.scheduling().v1().priorityClasses().resource(new io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder()
                .withNewMetadata().withName(name).endMetadata().withValue(value).build()).create();
    }

    /** @return a started CRUD mock server (destroy it after the test) */
    public static KubernetesMockServer crud() {
        KubernetesMockServer s = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        s.init();
        return s;
    }
}
