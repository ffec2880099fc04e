package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobState;
import io.fairway.config.QueuesConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Node pools on Kubernetes: the engine's Provision decisions become Karpenter NodeClaims on the mock API server, the
 * Node Karpenter makes for a claim takes the gang, an idle node's claim is deleted after the consolidation delay, a
 * job not admitted under quota claims nothing, and a restarted adapter finds its claims instead of making more.
 * The test plays Karpenter's part: it creates the Node of a claim and removes it when the claim is deleted.
 */
class NodeClaimTest extends AdapterTestBase {
    static final String QUEUES = CedanaScenarioTest.QUEUES + """
            nodePools:
              - name: cpu-pool
                provisioningDelaySeconds: 60
                consolidationDelaySeconds: 300
                labels: {team: ml}
                instanceTypes:
                  - {name: c-small, cpu: "16", memory: 64Gi, pricePerHour: 0.5}
                  - {name: c-large, cpu: "48", memory: 192Gi, pricePerHour: 2.0}
                  - {name: c-xlarge, cpu: "96", memory: 384Gi, pricePerHour: 4.0}
                  - {name: c-large-spot, cpu: "48", memory: 192Gi, pricePerHour: 2.5, capacityType: spot}
            """;

    private final AtomicLong now = new AtomicLong(System.currentTimeMillis());

    /** Starts the adapter (again, after a restart) on the test's clock, making claims of the EC2NodeClass {@code gpu-nodes}. */
    private void start() {
        start(QUEUES, AdapterOptions.builder().nodeClassRef(new AdapterOptions.NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", "gpu-nodes"))
                .clock(now::get));
    }

    private List<GenericKubernetesResource> claims() {
        return cluster.client.genericKubernetesResources(NodeClaims.CONTEXT).list().getItems();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource claim) {
        return (Map<String, Object>) claim.getAdditionalProperties().get("spec");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> requirements(GenericKubernetesResource claim) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) spec(claim).get("requirements")) {
            assertThat(r.get("operator")).isEqualTo("In");
            out.put((String) r.get("key"), (List<String>) r.get("values"));
        }
        return out;
    }

    /** Karpenter's part: the Node of a claim registers, with the claim's labels and {@code cpu} cores. */
    private void registerNodeOf(GenericKubernetesResource claim, int cpu) {
        Map<String, String> labels = new LinkedHashMap<>(claim.getMetadata().getLabels());
        labels.put(NodeClaims.NODECLAIM_LABEL, claim.getMetadata().getName());
        cluster.node(claim.getMetadata().getName(), cpu, 4 * cpu, 0, labels);
    }

    @Test
    void aGangThatFitsNoNodeGetsANodeClaimRunsOnItsNodeAndTheIdleNodeGoesAfterTheConsolidationDelay() {
        cluster.node("node-a", 16, 64, 0, Map.of());
        cluster.createJob(cluster.jobBuilder("default", "train", "user-queue", 2, "24", 0, true).build());
        start();

        reconcileUntil(adapter, () -> claims().size() == 1, "a NodeClaim is made for the gang");
        GenericKubernetesResource claim = claims().get(0);
        // the cheapest instance type that holds the whole 2 x 24-core gang: one c-large (48 cores, $2/h)
        assertThat(requirements(claim)).containsEntry("node.kubernetes.io/instance-type", List.of("c-large"))
                .containsEntry("karpenter.sh/capacity-type", List.of("on-demand"));
        assertThat(claim.getApiVersion()).isEqualTo("karpenter.sh/v1");
        assertThat(claim.getKind()).isEqualTo("NodeClaim");
        assertThat(claim.getMetadata().getLabels()).containsEntry("karpenter.sh/nodepool", "cpu-pool").containsEntry("team", "ml")
                .containsEntry(NodeClaims.PROVISIONED_FOR, NodeClaims.key("cpu-pool", "c-large", List.of("default/train")))
                .containsEntry(NodeClaims.JOB_NAMESPACE_LABEL, "default").containsEntry(NodeClaims.JOB_NAME_LABEL, "train");
        assertThat(claim.getMetadata().getAnnotations()).containsEntry(NodeClaims.PROVISIONED_FOR, "default/train");
        assertThat(spec(claim).get("nodeClassRef")).isEqualTo(Map.of("group", "karpenter.k8s.aws", "kind", "EC2NodeClass", "name", "gpu-nodes"));
        assertThat(spec(claim).get("resources")).isEqualTo(Map.of("requests", Map.of("cpu", "48")));
        assertThat(claim.getMetadata().getName()).startsWith("cpu-pool-");
        // quota is held while the node comes up; the Job stays suspended and says why
        assertThat(suspended(cluster.job("default", "train"))).isTrue();
        assertThat(adapter.status("default", "train").orElseThrow().pendingReason().code().name()).isEqualTo("WAITING_FOR_NODES");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(claims()).hasSize(1); // the request is in flight: no second claim

        registerNodeOf(claim, 48);
        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "train")), "the gang is admitted on the new node");
        AdmissionRecord rec = AdmissionRecord.parse(cluster.job("default", "train").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION));
        assertThat(rec.placement().nodes()).containsExactly(claim.getMetadata().getName());

        cluster.createPods("default", "train");
        reconcileUntil(adapter, () -> cluster.pods("default", "train").stream().noneMatch(Kube::hasGate), "the pods are bound");
        cluster.setPhase("default", "train", "Running");
        reconcileUntil(adapter, () -> adapter.status("default", "train").orElseThrow().state() == JobState.RUNNING, "the gang runs");
        cluster.setPhase("default", "train", "Succeeded");
        reconcileUntil(adapter, () -> adapter.status("default", "train").orElseThrow().state() == JobState.SUCCEEDED, "the gang finished");

        // idle, but not yet for the consolidation delay: the claim stays
        now.addAndGet(299_000);
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(claims()).hasSize(1);
        now.addAndGet(2_000);
        reconcileUntil(adapter, () -> claims().isEmpty(), "the idle node's NodeClaim is deleted after the consolidation delay");
        cluster.client.nodes().withName(claim.getMetadata().getName()).delete(); // Karpenter removes the node
        reconcileUntil(adapter, () -> adapter.checkInvariants().isEmpty() && cluster.client.nodes().list().getItems().size() == 1,
                "the node is gone");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(claims()).isEmpty(); // nothing is waiting: nothing new is claimed
    }

    @Test
    void aPoolsConsolidationPolicyIsReadAndAnUnknownOneRefused() {
        QueuesConfig under = QueuesConfig.parse("cm", QUEUES.replace("consolidationDelaySeconds: 300",
                "consolidationDelaySeconds: 300\n    consolidation: WhenUnderutilized"));
        assertThat(under.nodePools().get(0).toModel(null).consolidation()).isEqualTo(io.fairway.api.model.NodePool.Consolidation.WHEN_UNDERUTILIZED);
        assertThat(QueuesConfig.parse("cm", QUEUES).nodePools().get(0).toModel(null).consolidation())
                .isEqualTo(io.fairway.api.model.NodePool.Consolidation.WHEN_EMPTY);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> QueuesConfig.parse("cm", QUEUES.replace("consolidationDelaySeconds: 300",
                        "consolidationDelaySeconds: 300\n    consolidation: Sometimes")))
                .hasMessageContaining("consolidation").hasMessageContaining("Sometimes");
    }

    @Test
    void aJobNotAdmittedUnderQuotaClaimsNoNode() {
        cluster.node("node-a", 16, 64, 0, Map.of());
        cluster.createJob(cluster.jobBuilder("default", "first", "user-queue", 2, "24", 0, true).build());
        cluster.createJob(cluster.jobBuilder("default", "second", "user-queue", 1, "32", 0, true).build());
        start();

        reconcileUntil(adapter, () -> claims().size() == 1 && adapter.status("default", "second").map(s -> s.pendingReason() != null
                && s.pendingReason().code().name().equals("QUOTA")).orElse(false), "the first claims a node, the second waits for quota");
        for (int i = 0; i < 5; i++) {
            adapter.reconcileOnce();
        }
        // 48 of the 64 cores are held for the first; the second (32 cores) does not fit the quota, so it claims nothing
        assertThat(claims()).hasSize(1);
        assertThat(claims().get(0).getMetadata().getAnnotations()).containsEntry(NodeClaims.PROVISIONED_FOR, "default/first");
        assertThat(suspended(cluster.job("default", "second"))).isTrue();
        assertThat(adapter.status("default", "second").orElseThrow().pendingReason().code().name()).isEqualTo("QUOTA");
    }

    @Test
    void aRestartedAdapterFindsItsNodeClaimsAndTheNodeMatchedByTheClaimsStatusTakesTheGang() {
        cluster.node("node-a", 16, 64, 0, Map.of());
        cluster.createJob(cluster.jobBuilder("default", "train", "user-queue", 2, "24", 0, true).build());
        start();
        reconcileUntil(adapter, () -> claims().size() == 1, "a NodeClaim is made");
        String name = claims().get(0).getMetadata().getName();
        adapter.close();

        start();
        for (int i = 0; i < 5; i++) {
            adapter.reconcileOnce();
        }
        assertThat(claims()).extracting(c -> c.getMetadata().getName()).containsExactly(name);
        assertThat(adapter.status("default", "train").orElseThrow().pendingReason().code().name()).isEqualTo("WAITING_FOR_NODES");

        // Karpenter launches the instance and reports it in the claim's status; the Node carries no Karpenter labels yet
        GenericKubernetesResource claim = claims().get(0);
        claim.setAdditionalProperty("status", Map.of("nodeName", "ip-10-0-0-7", "providerID", "aws:///eu-west-1a/i-0abc"));
        cluster.client.genericKubernetesResources(NodeClaims.CONTEXT).resource(claim).update();
        Map<String, Quantity> alloc = Map.of("cpu", new Quantity("48"), "memory", new Quantity("192Gi"), "pods", new Quantity("110"));
        cluster.client.nodes().resource(new NodeBuilder().withNewMetadata().withName("ip-10-0-0-7")
                .addToLabels("kubernetes.io/hostname", "ip-10-0-0-7").endMetadata()
                .withNewSpec().withProviderID("aws:///eu-west-1a/i-0abc").endSpec()
                .withNewStatus().withAllocatable(alloc).withCapacity(alloc).endStatus().build()).create();

        reconcileUntil(adapter, () -> !suspended(cluster.job("default", "train")), "the gang is admitted on the claimed node");
        AdmissionRecord rec = AdmissionRecord.parse(cluster.job("default", "train").getMetadata().getAnnotations().get(Keys.ADMISSION_ANNOTATION));
        assertThat(rec.placement().nodes()).containsExactly("ip-10-0-0-7");
        for (int i = 0; i < 3; i++) {
            adapter.reconcileOnce();
        }
        assertThat(claims()).hasSize(1);
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aNodePoolThatCannotBeReadIsRefusedNamingTheFieldAndValue() {
        String badType = QUEUES.replace("capacityType: spot", "capacityType: reserved");
        assertThatThrownBy(() -> MockCluster.config(badType)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("capacityType").hasMessageContaining("reserved");
        String badDelay = QUEUES.replace("consolidationDelaySeconds: 300", "consolidationDelaySeconds: -5");
        assertThatThrownBy(() -> MockCluster.config(badDelay)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("consolidationDelaySeconds").hasMessageContaining("-5");
        String twice = QUEUES.replace("name: c-xlarge", "name: c-large");
        assertThatThrownBy(() -> MockCluster.config(twice)).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("c-large").hasMessageContaining("twice");
    }
}
