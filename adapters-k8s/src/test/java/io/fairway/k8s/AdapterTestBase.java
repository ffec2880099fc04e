package io.fairway.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;

/**
 * The tests' API server ({@link MockCluster}, enforcing the real API server's rules) and the adapter under test, both
 * closed after each test. The {@code start} methods make the adapter from its queues (YAML) and the few options a
 * test sets; a test that needs its own client (an audited one) passes it.
 */
abstract class AdapterTestBase {
    protected final MockCluster cluster = new MockCluster();
    protected FairwayAdapter adapter;

    @AfterEach
    void stopAdapterAndServer() {
        if (adapter != null) {
            adapter.close();
        }
        cluster.close();
    }

    /** Starts the adapter with these options and the queues of {@link CedanaScenarioTest#QUEUES}. */
    protected void start(AdapterOptions.Builder b) {
        start(CedanaScenarioTest.QUEUES, b);
    }

    /** Starts the adapter, on a client of its own, with these queues (YAML) and the other options at their defaults. */
    protected void start(String queuesYaml) {
        start(queuesYaml, AdapterOptions.builder());
    }

    /** Starts the adapter, on a client of its own, with these queues (YAML) and options. */
    protected void start(String queuesYaml, AdapterOptions.Builder b) {
        start(cluster.newClient(), b.queues(MockCluster.config(queuesYaml)));
    }

    /** Starts the adapter on this client with these options (their queues or configuration source included). */
    protected void start(KubernetesClient client, AdapterOptions.Builder b) {
        adapter = new FairwayAdapter(client, b.build(), null).start();
    }

    /** Stops the adapter (a controller that dies); {@link #start} makes a new one. */
    protected void stopAdapter() {
        if (adapter != null) {
            adapter.close();
            adapter = null;
        }
    }
}
