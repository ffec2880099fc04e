package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fairway.k8s.audit.RuleServer;
import io.fairway.config.QueuesConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The tests' API server ({@link RuleServer}: it refuses what a real kube-apiserver refuses) with helpers that play
 * the parts a real cluster's controllers would: create Nodes and Jobs, create a Job's pods and set its
 * {@code status.startTime} as the Job controller does, and move pods through their phases as the kubelet does (through
 * the status subresource).
 *
 * <p>The adapter's clients ({@link #newClient()}) are the server's faulty clients: a test may inject faults into their
 * requests, and {@link #close()} fails the test when the server refused any of their writes (unless the test
 * {@link #expectRefusals() expects} that).
 */
final class MockCluster implements AutoCloseable {
    final RuleServer rules = new RuleServer();
    final KubernetesMockServer server = rules.server();
    /** The test's own client (never faulty): it plays the user and the cluster's other controllers. */
    final KubernetesClient client = rules.newClient();
    private boolean refusalsExpected;

    /** @return another client of the same server for an adapter (a second replica, a restarted adapter) */
    KubernetesClient newClient() {
        return rules.faultyClient();
    }

    /** The test expects the server to refuse some of the adapter's writes (close does not fail on them). */
    void expectRefusals() {
        refusalsExpected = true;
    }

    @Override
    public void close() {
        List<String> refused = rules.clientRefusals();
        rules.close();
        if (!refusalsExpected && !refused.isEmpty()) {
            throw new AssertionError("the API server refused writes of the adapter that a real one refuses too:\n  " + String.join("\n  ", refused));
        }
    }

    static QueuesConfig config(String yaml) {
        return QueuesConfig.parse("test", yaml);
    }

    /** A node with CPUs, memory in GiB, GPUs (H100 SXM when > 0) and labels. */
    io.fabric8.kubernetes.api.model.Node node(String name, int cpu, int memGi, int gpus, Map<String, String> labels) {
        Map<String, Quantity> alloc = new LinkedHashMap<>();
        alloc.put("cpu", new Quantity(Integer.toString(cpu)));
        alloc.put("memory", new Quantity(memGi + "Gi"));
        alloc.put("pods", new Quantity("110"));
        Map<String, String> l = new LinkedHashMap<>(labels);
        l.put("kubernetes.io/hostname", name);
        if (gpus > 0) {
            alloc.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
            l.putIfAbsent(Keys.GPU_PRODUCT_LABEL, "NVIDIA-H100-80GB-HBM3");
            l.putIfAbsent(Keys.GPU_COUNT_LABEL, Integer.toString(gpus));
        }
        return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withLabels(l).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().withAllocatable(alloc).withCapacity(alloc)
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
    }

    /** A job builder: an Indexed Job of {@code parallelism} pods, each requesting {@code cpu} cores and {@code gpus} GPUs. */
    JobBuilder jobBuilder(String ns, String name, String queue, int parallelism, String cpu, int gpus, boolean suspend) {
        Map<String, Quantity> req = new LinkedHashMap<>();
        req.put("cpu", new Quantity(cpu));
        Map<String, Quantity> lim = new LinkedHashMap<>();
        if (gpus > 0) {
            lim.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        }
        JobBuilder b = new JobBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().withSuspend(suspend).withParallelism(parallelism).withCompletions(parallelism).withCompletionMode("Indexed")
                .withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("main").withImage("busybox").withNewResources().withRequests(req).withLimits(lim).endResources().endContainer()
                .endSpec().endTemplate().endSpec();
        if (queue != null) {
            b.editMetadata().addToLabels(Keys.QUEUE_LABEL, queue).endMetadata();
        }
        return b;
    }

    Job createJob(Job job) {
        return client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(job).create();
    }

    Job job(String ns, String name) {
        return client.batch().v1().jobs().inNamespace(ns).withName(name).get();
    }

    /**
     * Creates the Job's pods from its current template, as the Job controller does for an unsuspended Job, and sets
     * the Job's {@code status.startTime} (through the status subresource) when it has none.
     */
    List<Pod> createPods(String ns, String name) {
        Job j = job(ns, name);
        if (j.getStatus() == null || j.getStatus().getStartTime() == null) {
            client.batch().v1().jobs().inNamespace(ns).withName(name).editStatus(x -> new JobBuilder(x).editOrNewStatus()
                    .withStartTime(java.time.Instant.now().toString()).withActive(x.getSpec().getParallelism()).endStatus().build());
        }
        List<Pod> out = new ArrayList<>();
        int n = j.getSpec().getParallelism() == null ? 1 : j.getSpec().getParallelism();
        for (int i = 0; i < n; i++) {
            Pod p = new PodBuilder()
                    .withNewMetadata().withName(name + "-" + i + "-x").withNamespace(ns)
                    .addToLabels(Keys.JOB_NAME_LABEL, name).addToLabels(Keys.LEGACY_JOB_NAME_LABEL, name)
                    .addToAnnotations(Keys.COMPLETION_INDEX, Integer.toString(i))
                    .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(name).withUid(j.getMetadata().getUid())
                    .withController(true).endOwnerReference()
                    .endMetadata()
                    .withSpec(j.getSpec().getTemplate().getSpec())
                    .withStatus(new PodStatusBuilder().withPhase("Pending").build())
                    .build();
            out.add(client.pods().inNamespace(ns).resource(p).create());
        }
        return out;
    }

    List<Pod> pods(String ns, String jobName) {
        return client.pods().inNamespace(ns).withLabel(Keys.JOB_NAME_LABEL, jobName).list().getItems();
    }

    /**
     * Moves every pod of the Job to a phase (the kubelet's part, through the status subresource); Running pods are
     * bound to the node they selected.
     */
    void setPhase(String ns, String jobName, String phase) {
        for (Pod p : pods(ns, jobName)) {
            String node = p.getSpec().getNodeSelector() == null ? null : p.getSpec().getNodeSelector().get("kubernetes.io/hostname");
            if (node != null && p.getSpec().getNodeName() == null) {
                client.pods().inNamespace(ns).withName(p.getMetadata().getName()).edit(x -> new PodBuilder(x).editSpec().withNodeName(node).endSpec().build());
            }
            client.pods().inNamespace(ns).withName(p.getMetadata().getName()).editStatus(x -> new PodBuilder(x).editOrNewStatus().withPhase(phase).endStatus().build());
        }
    }

    List<Event> events(String ns, String jobName) {
        List<Event> out = new ArrayList<>();
        for (Event e : client.v1().events().inNamespace(ns).list().getItems()) {
            if (e.getInvolvedObject() != null && jobName.equals(e.getInvolvedObject().getName())) {
                out.add(e);
            }
        }
        return out;
    }

    /** Runs reconcile passes until the condition holds, failing after the deadline. */
    static void reconcileUntil(FairwayAdapter adapter, BooleanSupplier condition, String what) {
        until(() -> {
            adapter.reconcileOnce();
            return condition.getAsBoolean();
        }, what);
    }

    /** Polls until the condition holds, failing after 15 s ({@link Poll#until}). */
    static void until(BooleanSupplier condition, String what) {
        Poll.until(condition, what);
    }

    /** @return a kubeconfig file in {@code dir} pointing at this mock API server */
    java.nio.file.Path kubeconfig(java.nio.file.Path dir) throws java.io.IOException {
        return java.nio.file.Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: tester, user: {token: secret}}]
                contexts: [{name: mock, context: {cluster: mock, user: tester, namespace: default}}]
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl()));
    }

    static boolean suspended(Job j) {
        return Boolean.TRUE.equals(j.getSpec().getSuspend());
    }
}
