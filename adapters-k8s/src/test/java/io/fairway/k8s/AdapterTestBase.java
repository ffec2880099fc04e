package io.fairway.k8s;

import org.junit.jupiter.api.AfterEach;

/** A mock API server and the adapter under test, closed after each test; {@link #start} runs the adapter on the Cedana queues. */
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

    /** Starts the adapter with these options and the queues of {@link CedanaScenarioTest#QUEUES} (unless the builder sets its own). */
    protected void start(AdapterOptions.Builder b) {
        adapter = new FairwayAdapter(cluster.newClient(), b.queues(MockCluster.config(CedanaScenarioTest.QUEUES)).build(), null).start();
    }
}
