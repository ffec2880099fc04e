package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries the engine's {@code Provision} and {@code Deprovision} decisions out with Karpenter {@code NodeClaim}s
 * ({@code karpenter.sh/v1}): a Provision of {@code count} nodes of an instance type becomes {@code count} NodeClaims
 * pinned to that instance type and capacity type, named after the pool and the jobs they are for, so the same
 * decision made again (by a restarted adapter, or by the next round) finds them and creates nothing more; a
 * Deprovision deletes the node's NodeClaim, and Karpenter drains and removes the node.
 *
 * <pre>
 * apiVersion: karpenter.sh/v1
 * kind: NodeClaim
 * metadata:
 *   name: gpu-1f0c9a2b7e-0                       # pool - hash of (pool, instance type, jobs) - index
 *   labels: {karpenter.sh/nodepool: gpu, app.kubernetes.io/managed-by: fairway, fairway.io/provisioned-for: 1f0c9a2b7e,
 *            fairway.io/job-namespace: default, fairway.io/job-name: train, ...pool labels}
 *   annotations: {fairway.io/provisioned-for: "default/train", fairway.io/reason: "for job default/train (request 0)"}
 * spec:
 *   nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
 *   requirements:
 *     - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}
 *     - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
 *   resources: {requests: {cpu: "96", memory: 1Ti, nvidia.com/gpu: "8"}}   # the gang's share per node
 *   taints: [...pool taints]
 * </pre>
 *
 * <p>The Node Karpenter creates for a claim is recognised by its {@value #NODECLAIM_LABEL} label, by the claim's
 * {@code status.nodeName}, or by a matching {@code providerID}; the claim's labels fill in what the Node does not
 * carry yet, so the engine sees a node of the pool and instance type it asked for.
 */
final class NodeClaims {
    private static final Logger LOG = LoggerFactory.getLogger(NodeClaims.class);

    /** The NodeClaim resource. */
    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("karpenter.sh").withVersion("v1").withKind("NodeClaim").withPlural("nodeclaims").withNamespaced(false).build();
    /** Node label Karpenter puts on a claim's Node. */
    static final String NODECLAIM_LABEL = "karpenter.sh/nodeclaim";
    /** Label: who manages the claim. */
    static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    /** Label and annotation: the jobs a claim was made for (label: their hash; annotation: their ids). */
    static final String PROVISIONED_FOR = "fairway.io/provisioned-for";
    /** Label on a claim made for one Job: its namespace. */
    static final String JOB_NAMESPACE_LABEL = "fairway.io/job-namespace";
    /** Label on a claim made for one Job: its name. */
    static final String JOB_NAME_LABEL = "fairway.io/job-name";
    /** Annotation: the engine's reason for the claim. */
    static final String REASON_ANNOTATION = "fairway.io/reason";
    /** The value of {@link #MANAGED_BY_LABEL} on the claims Fairway makes. */
    static final String MANAGED_BY = "fairway";

    // The claim state the adapter keeps between passes; read and written on the reconcile thread, under its lock.
    /** Fairway's NodeClaims as last listed, by name. */
    Map<String, GenericKubernetesResource> cache = new TreeMap<>();
    /** Which claim each registered node came from: node name to claim name (rebuilt on every node sync). */
    final Map<String, String> claimOfNode = new HashMap<>();
    /** Nodes whose NodeClaim was deleted, while they are still there: nothing new is placed on them. */
    final Set<String> deprovisioning = new HashSet<>();

    private final KubernetesClient client;
    private final AdapterOptions.NodeClassRef nodeClassRef;

    NodeClaims(KubernetesClient client, AdapterOptions.NodeClassRef nodeClassRef) {
        this.client = client;
        this.nodeClassRef = nodeClassRef;
    }

    /** @return the NodeClaims Fairway made, by name */
    Map<String, GenericKubernetesResource> list() {
        Map<String, GenericKubernetesResource> out = new TreeMap<>();
        for (GenericKubernetesResource r : client.genericKubernetesResources(CONTEXT).withLabel(MANAGED_BY_LABEL, MANAGED_BY).list().getItems()) {
            out.put(r.getMetadata().getName(), r);
        }
        return out;
    }

    /**
     * Makes sure {@code count} claims exist for the jobs, creating only those missing: claims for the same pool,
     * instance type and jobs whose node has not registered yet count as made.
     *
     * @param pool the node pool
     * @param type its instance type
     * @param count nodes wanted
     * @param jobs the jobs they are for (their specs give the claims' resource requests)
     * @param reason the engine's reason
     * @param existing the claims that exist (updated with those created)
     * @param registered names of the claims whose node has registered
     * @return the names of the claims created
     */
    List<String> provision(NodePool pool, InstanceType type, int count, Collection<JobSpec> jobs, String reason,
                           Map<String, GenericKubernetesResource> existing, Set<String> registered) {
        List<String> ids = jobs.stream().map(JobSpec::id).sorted().toList();
        String key = key(pool.name(), type.name(), ids);
        int waiting = 0;
        Set<String> taken = new HashSet<>();
        for (GenericKubernetesResource r : existing.values()) {
            String n = r.getMetadata().getName();
            taken.add(n);
            if (key.equals(label(r, PROVISIONED_FOR)) && r.getMetadata().getDeletionTimestamp() == null && !registered.contains(n)) {
                waiting++;
            }
        }
        List<String> created = new ArrayList<>();
        if (waiting >= count) {
            LOG.debug("{} x {} from pool {} for {}: NodeClaims already made", count, type.name(), pool.name(), ids);
            return created;
        }
        Map<String, Object> requests = requests(type, count, jobs);
        int index = 0;
        for (int i = waiting; i < count; i++) {
            String name;
            do {
                name = prefix(pool.name()) + "-" + key + "-" + index++;
            } while (taken.contains(name));
            GenericKubernetesResource claim = claim(name, pool, type, key, jobs, reason, requests);
            try {
                existing.put(name, client.genericKubernetesResources(CONTEXT).resource(claim).create());
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                // made meanwhile (another replica, a retried pass): it counts
                GenericKubernetesResource cur = client.genericKubernetesResources(CONTEXT).withName(name).get();
                if (cur != null) {
                    existing.put(name, cur);
                }
            }
            taken.add(name);
            created.add(name);
            LOG.info("NodeClaim {} created: {} ({}) from pool {} for {}", name, type.name(), capacityType(type), pool.name(), ids);
        }
        return created;
    }

    /**
     * Deletes the NodeClaim of a node.
     *
     * @param node the node's name
     * @param claim the claim's name
     * @return true when it was deleted (false: already gone)
     */
    boolean delete(String node, String claim) {
        boolean gone = !client.genericKubernetesResources(CONTEXT).withName(claim).delete().isEmpty();
        if (gone) {
            LOG.info("NodeClaim {} of node {} deleted", claim, node);
        }
        return gone;
    }

    /**
     * @param node a Node
     * @param claims the claims
     * @return the claim the node was made for, or null
     */
    static GenericKubernetesResource claimOf(io.fabric8.kubernetes.api.model.Node node, Map<String, GenericKubernetesResource> claims) {
        Map<String, String> labels = node.getMetadata().getLabels();
        String byLabel = labels == null ? null : labels.get(NODECLAIM_LABEL);
        if (byLabel != null && claims.containsKey(byLabel)) {
            return claims.get(byLabel);
        }
        String name = node.getMetadata().getName();
        String providerId = node.getSpec() == null ? null : node.getSpec().getProviderID();
        for (GenericKubernetesResource c : claims.values()) {
            Map<String, Object> status = map(c.getAdditionalProperties().get("status"));
            if (name.equals(status.get("nodeName")) || providerId != null && providerId.equals(status.get("providerID"))) {
                return c;
            }
        }
        return null;
    }

    /** @return the claim's labels (Karpenter copies them to its Node) */
    static Map<String, String> labels(GenericKubernetesResource claim) {
        return claim.getMetadata().getLabels() == null ? Map.of() : claim.getMetadata().getLabels();
    }

    private GenericKubernetesResource claim(String name, NodePool pool, InstanceType type, String key, Collection<JobSpec> jobs, String reason,
                                            Map<String, Object> requests) {
        List<String> ids = jobs.stream().map(JobSpec::id).sorted().toList();
        Map<String, String> labels = new TreeMap<>(pool.labels());
        labels.put(NodePool.POOL_LABEL, pool.name());
        labels.put(NodePool.INSTANCE_TYPE_LABEL, type.name());
        labels.put(NodePool.CAPACITY_TYPE_LABEL, capacityType(type));
        labels.put(MANAGED_BY_LABEL, MANAGED_BY);
        labels.put(PROVISIONED_FOR, key);
        if (!"none".equals(type.gpuShape())) {
            labels.putIfAbsent(Keys.GPU_SHAPE_LABEL, type.gpuShape());
        }
        if (jobs.size() == 1) {
            // for kubectl get nodeclaims -l fairway.io/job-name=...: the Job's namespace and name, when they are valid label values
            JobSpec j = jobs.iterator().next();
            String jobName = j.id().startsWith(j.namespace() + "/") ? j.id().substring(j.namespace().length() + 1) : j.id();
            int at = jobName.indexOf('@');
            jobName = at >= 0 ? jobName.substring(0, at) : jobName;
            if (labelValue(j.namespace()) && labelValue(jobName)) {
                labels.put(JOB_NAMESPACE_LABEL, j.namespace());
                labels.put(JOB_NAME_LABEL, jobName);
            }
        }
        Map<String, String> annotations = new TreeMap<>();
        annotations.put(PROVISIONED_FOR, String.join(",", ids));
        if (reason != null) {
            annotations.put(REASON_ANNOTATION, reason);
        }
        List<Map<String, Object>> requirements = new ArrayList<>();
        requirements.add(requirement(NodePool.INSTANCE_TYPE_LABEL, type.name()));
        requirements.add(requirement(NodePool.CAPACITY_TYPE_LABEL, capacityType(type)));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("nodeClassRef", Map.of("group", nodeClassRef.group(), "kind", nodeClassRef.kind(), "name", nodeClassRef.name()));
        spec.put("requirements", requirements);
        spec.put("resources", Map.of("requests", requests));
        if (!pool.taints().isEmpty()) {
            List<Map<String, Object>> taints = new ArrayList<>();
            for (Taint t : pool.taints()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("key", t.key());
                if (t.value() != null && !t.value().isEmpty()) {
                    m.put("value", t.value());
                }
                m.put("effect", t.effect());
                taints.add(m);
            }
            spec.put("taints", taints);
        }
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion("karpenter.sh/v1");
        r.setKind("NodeClaim");
        r.setMetadata(new ObjectMetaBuilder().withName(name).withLabels(labels).withAnnotations(annotations).build());
        r.setAdditionalProperty("spec", spec);
        return r;
    }

    private static Map<String, Object> requirement(String key, String value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", key);
        m.put("operator", "In");
        m.put("values", List.of(value));
        return m;
    }

    /** What one node must offer: the jobs' whole request shared over the nodes (rounded up), at most the instance. */
    static Map<String, Object> requests(InstanceType type, int count, Collection<JobSpec> jobs) {
        Map<String, Long> total = new TreeMap<>();
        for (JobSpec j : jobs) {
            for (PodSet ps : j.podSets()) {
                ps.resources().asMap().forEach((k, v) -> total.merge(k, v * ps.count(), Long::sum));
            }
        }
        Resources cap = type.totalCapacity();
        if (total.isEmpty()) {
            total.putAll(cap.asMap());
        }
        Map<String, Object> out = new TreeMap<>();
        for (Map.Entry<String, Long> e : total.entrySet()) {
            long share = (e.getValue() + count - 1) / count;
            long max = cap.get(e.getKey());
            out.put(e.getKey(), Quantities.format(e.getKey(), max > 0 ? Math.min(share, max) : share));
        }
        return out;
    }

    static String capacityType(InstanceType type) {
        return type.capacityType() == CapacityType.SPOT ? "spot" : "on-demand";
    }

    /** A hash of what the claims are for: 10 hex digits, a valid label value. */
    static String key(String pool, String type, List<String> jobIds) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update((pool + '\n' + type + '\n' + String.join("\n", new TreeSet<>(jobIds))).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest()).substring(0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    /** The pool's name as the start of a DNS name. */
    private static String prefix(String pool) {
        String p = pool.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("^-+", "");
        if (p.length() > 40) {
            p = p.substring(0, 40);
        }
        p = p.replaceAll("-+$", "");
        return p.isEmpty() ? "fairway" : p;
    }

    private static boolean labelValue(String v) {
        return v != null && v.length() <= 63 && v.matches("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?") && !v.isEmpty();
    }

    private static String label(GenericKubernetesResource r, String key) {
        return r.getMetadata().getLabels() == null ? null : r.getMetadata().getLabels().get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : new HashMap<>();
    }
}
