package io.fairway.k8s.multicluster;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fairway.k8s.Keys;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One cluster's fabric8 mock API server in CRUD mode that can go away ({@link #stop()}) and come back with the same
 * objects ({@link #restart()}), and a client that fails at once (no retries) while it is away.
 */
final class MockApi implements AutoCloseable {
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final io.fabric8.mockwebserver.http.Dispatcher dispatcher;
    private KubernetesMockServer server;
    private final int port;
    private final String host;
    final KubernetesClient client;
    private boolean up;

    MockApi() {
        this(new KubernetesCrudDispatcher());
    }

    /** @param dispatcher the CRUD dispatcher (a test may count what it is asked), or another that answers the API */
    MockApi(io.fabric8.mockwebserver.http.Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
        server = newServer();
        server.init();
        up = true;
        port = server.getPort();
        host = server.getHostName();
        Config base;
        try (KubernetesClient c = server.createClient()) {
            base = c.getConfiguration();
        }
        client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(base).withRequestRetryBackoffLimit(0)
                .withConnectionTimeout(1_000).withRequestTimeout(3_000).build()).build();
    }

    private KubernetesMockServer newServer() {
        return new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
    }

    /** The API server goes away (its objects are kept for {@link #restart()}). */
    void stop() {
        server.destroy();
        up = false;
    }

    /** The API server comes back on the same address with the objects it had. */
    void restart() throws Exception {
        server = newServer();
        server.init(InetAddress.getByName(host), port);
        up = true;
    }

    /** @return the API server's URL (plain HTTP on loopback) */
    String url() {
        return client.getMasterUrl().toString();
    }

    boolean up() {
        return up;
    }

    @Override
    public void close() {
        client.close();
        if (up) {
            server.destroy();
        }
    }

    /** A Ready node with {@code gpus} H100s, 96 CPUs and 1 TiB. */
    void node(String name, int gpus) {
        Map<String, Quantity> alloc = new LinkedHashMap<>();
        alloc.put("cpu", new Quantity("96"));
        alloc.put("memory", new Quantity("1024Gi"));
        alloc.put("pods", new Quantity("110"));
        alloc.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("kubernetes.io/hostname", name);
        labels.put(Keys.GPU_PRODUCT_LABEL, "NVIDIA-H100-80GB-HBM3");
        labels.put(Keys.GPU_COUNT_LABEL, Integer.toString(gpus));
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().withAllocatable(alloc).withCapacity(alloc)
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
    }

    /** A user's Job: one pod of {@code gpus} GPUs and 8 CPUs, labelled with the queue. */
    Job submit(String ns, String name, String queue, int gpus, boolean suspend) {
        Job j = new JobBuilder().withNewMetadata().withName(name).withNamespace(ns).addToLabels(Keys.QUEUE_LABEL, queue).endMetadata()
                .withNewSpec().withSuspend(suspend).withParallelism(1).withCompletions(1)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("main").withImage("busybox").withNewResources()
                .addToRequests("cpu", new Quantity("8")).addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                .endResources().endContainer().endSpec().endTemplate().endSpec().build();
        return client.batch().v1().jobs().inNamespace(ns).resource(j).create();
    }

    Job job(String ns, String name) {
        return client.batch().v1().jobs().inNamespace(ns).withName(name).get();
    }

    List<Job> jobs() {
        return client.batch().v1().jobs().inAnyNamespace().list().getItems();
    }

    /** The Job controller's part: the copy's pod runs. */
    void running(String ns, String name) {
        client.batch().v1().jobs().inNamespace(ns).withName(name)
                .edit(j -> new JobBuilder(j).withStatus(new JobStatusBuilder().withActive(1).build()).build());
    }

    /** The Job controller's part: the copy completed. */
    void complete(String ns, String name) {
        client.batch().v1().jobs().inNamespace(ns).withName(name)
                .edit(j -> new JobBuilder(j).withStatus(new JobStatusBuilder().withActive(0).withSucceeded(1)
                        .withConditions(new JobConditionBuilder().withType("Complete").withStatus("True").build()).build()).build());
    }
}
