package io.fairway.k8s;

import org.junit.jupiter.api.AfterEach;

/**
 * The tests' API server ({@link MockCluster}, enforcing the real API server's rules) and the adapter under test, both
 * closed after each test.
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
        adapter = new FairwayAdapter(cluster.newClient(), b.queues(MockCluster.config(CedanaScenarioTest.QUEUES)).build(), null).start();
    }

    /** Starts the adapter, on a client of its own, with these queues (YAML) and the other options at their defaults. */
    protected void start(String queuesYaml) {
        adapter = new FairwayAdapter(cluster.newClient(), AdapterOptions.builder().queues(MockCluster.config(queuesYaml)).build(), null).start();
    }

    /** Stops the adapter (a controller that dies); {@link #start} makes a new one. */
    protected void stopAdapter() {
        if (adapter != null) {
            adapter.close();
            adapter = null;
        }
    }
}
