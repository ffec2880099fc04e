package io.fairway.k8s.audit;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/** The tests' API server ({@link RuleServer}) for tests outside {@code io.fairway.k8s} (which use its MockCluster). */
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

    /**
     * @return a started mock server in CRUD mode that enforces the API server's rules ({@link RuleServer}); destroy
     *     it after the test
     */
    public static KubernetesMockServer crud() {
        return new RuleServer().server();
    }
}
