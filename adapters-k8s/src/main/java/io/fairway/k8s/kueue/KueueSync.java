package io.fairway.k8s.kueue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.config.QueuesConfig;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kueue's objects on the API server, for the Kubernetes adapter: it watches ResourceFlavors, ClusterQueues,
 * LocalQueues, Cohorts, Topologies, WorkloadPriorityClasses (at one served version) and Namespaces (for
 * {@code namespaceSelector}), maps them to the queue model ({@link KueueQueues}), reports what Fairway does not act on
 * (an Event on the object, and a condition {@value #UNSUPPORTED_CONDITION} in the status of the ClusterQueues and
 * LocalQueues concerned), and writes ClusterQueue and LocalQueue status as Kueue writes it — workload counts, flavor
 * reservation and usage, the {@code Active} condition — through the status subresource, only when it changed.
 */
public final class KueueSync implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KueueSync.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
    /** The condition Fairway adds to a ClusterQueue or LocalQueue that has fields it does not act on. */
    public static final String UNSUPPORTED_CONDITION = "fairway.io/Unsupported";
    /** The reason of the Events about fields Fairway does not act on. */
    public static final String REASON_UNSUPPORTED = "UnsupportedField";

    /** Records an Event about an object. */
    @FunctionalInterface
    public interface Events {
        /**
         * @param about the object
         * @param type Normal or Warning
         * @param reason the reason
         * @param message the message
         */
        void event(HasMetadata about, String type, String reason, String message);
    }

    /** JSON equality where numbers compare by value (the server's 1 may read back as an int where a long was written). */
    private static final java.util.Comparator<JsonNode> SAME_VALUE = (a, b) -> a.equals(b)
            || a.isNumber() && b.isNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0 ? 0 : 1;

    private final KubernetesClient client;
    private final String version;
    private final Map<KueueApi.Resource, SharedIndexInformer<GenericKubernetesResource>> informers = new EnumMap<>(KueueApi.Resource.class);
    private SharedIndexInformer<Namespace> namespaces;
    private final Set<String> reported = new HashSet<>();

    /**
     * @param client the client
     * @param version the Kueue API version to read and write ({@value KueueApi#V1BETA2} or {@value KueueApi#V1BETA1})
     */
    public KueueSync(KubernetesClient client, String version) {
        this.client = client;
        this.version = KueueApi.checkVersion(version);
    }

    /**
     * Creates the informers (not started).
     *
     * @param resyncMillis the informers' resync period
     * @param onChange told of every change
     * @return the informers, to start and wait for
     */
    public List<SharedIndexInformer<?>> informers(long resyncMillis, ResourceEventHandler<Object> onChange) {
        List<SharedIndexInformer<?>> out = new ArrayList<>();
        for (KueueApi.Resource r : KueueApi.Resource.values()) {
            var ops = client.genericKubernetesResources(r.context(version));
            SharedIndexInformer<GenericKubernetesResource> i = r.namespaced() ? ops.inAnyNamespace().runnableInformer(resyncMillis)
                    : ops.runnableInformer(resyncMillis);
            i.addEventHandler(onChange);
            informers.put(r, i);
            out.add(i);
        }
        namespaces = client.namespaces().runnableInformer(resyncMillis);
        namespaces.addEventHandler(onChange);
        out.add(namespaces);
        return out;
    }

    /** @return the Kueue API version read and written */
    public String version() {
        return version;
    }

    /**
     * @param base the policy, node pools and integrations (and the topology levels when no flavor names a Topology)
     * @return the objects now in the informers' caches, mapped
     */
    public KueueQueues.Mapped read(QueuesConfig base) {
        Map<String, Map<String, String>> nsLabels = new HashMap<>();
        for (Namespace n : namespaces.getStore().list()) {
            nsLabels.put(n.getMetadata().getName(), n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels());
        }
        return KueueQueues.map(new KueueQueues.Objects(json(KueueApi.Resource.RESOURCE_FLAVOR), json(KueueApi.Resource.CLUSTER_QUEUE),
                json(KueueApi.Resource.LOCAL_QUEUE), json(KueueApi.Resource.COHORT), json(KueueApi.Resource.TOPOLOGY),
                json(KueueApi.Resource.WORKLOAD_PRIORITY_CLASS), nsLabels), base);
    }

    private List<JsonNode> json(KueueApi.Resource r) {
        List<JsonNode> out = new ArrayList<>();
        for (GenericKubernetesResource o : informers.get(r).getStore().list()) {
            ObjectNode n = MAPPER.valueToTree(o);
            n.put("kind", r.kind()); // a list's items may come without their kind
            out.add(n);
        }
        return out;
    }

    /**
     * Records a Warning Event {@value #REASON_UNSUPPORTED} on each object with a field Fairway does not act on, once
     * per object version and field.
     *
     * @param mapped what {@link #read} gave
     * @param events where Events go
     */
    public void reportFindings(KueueQueues.Mapped mapped, Events events) {
        for (KueueQueues.Finding f : mapped.findings()) {
            GenericKubernetesResource o = object(f.kind(), f.namespace(), f.name());
            if (o == null) {
                continue;
            }
            String key = f.kind() + "/" + f.namespace() + "/" + f.name() + "|" + o.getMetadata().getUid() + "|" + o.getMetadata().getGeneration() + "|"
                    + f.message();
            if (reported.add(key)) {
                LOG.warn("{} {}: {}", f.kind(), f.namespace() == null ? f.name() : f.namespace() + "/" + f.name(), f.message());
                events.event(o, "Warning", REASON_UNSUPPORTED, f.message());
            }
        }
    }

    private GenericKubernetesResource object(String kind, String namespace, String name) {
        for (KueueApi.Resource r : KueueApi.Resource.values()) {
            if (r.kind().equals(kind)) {
                return informers.get(r).getStore().getByKey(namespace == null ? name : namespace + "/" + name);
            }
        }
        return null;
    }

    /**
     * Writes the status of every ClusterQueue and LocalQueue whose status differs from what the engine holds.
     *
     * @param mapped what {@link #read} gave (the model in force)
     * @param config the configuration the engine runs (null: none yet; counts are then zero)
     * @param jobs every job the engine knows
     * @param now the time conditions changed
     * @return how many objects were written
     */
    public int writeStatus(KueueQueues.Mapped mapped, QueuesConfig config, List<JobStatus> jobs, Instant now) {
        StatusModel m = new StatusModel(config, jobs);
        Map<String, List<String>> unsupported = new HashMap<>();
        Map<String, Set<String>> flavorFindings = new HashMap<>();
        for (KueueQueues.Finding f : mapped.findings()) {
            String key = f.kind() + "/" + (f.namespace() == null ? "" : f.namespace() + "/") + f.name();
            unsupported.computeIfAbsent(key, k -> new ArrayList<>()).add(f.message());
            if (f.kind().equals("ResourceFlavor")) {
                flavorFindings.computeIfAbsent(f.name(), k -> new java.util.TreeSet<>()).add(f.message());
            }
        }
        int written = 0;
        Map<String, Boolean> cqActive = new HashMap<>();
        for (GenericKubernetesResource cq : informers.get(KueueApi.Resource.CLUSTER_QUEUE).getStore().list()) {
            String name = cq.getMetadata().getName();
            String[] inactive = mapped.inactive().get(name);
            ClusterQueue model = m.clusterQueues.get(name);
            cqActive.put(name, inactive == null && model != null);
            List<String> notes = new ArrayList<>(unsupported.getOrDefault("ClusterQueue/" + name, List.of()));
            if (model != null) {
                for (String f : model.flavorNames()) {
                    for (String msg : flavorFindings.getOrDefault(f, Set.of())) {
                        notes.add("ResourceFlavor " + f + " " + msg);
                    }
                }
            }
            ObjectNode status = F.objectNode();
            status.put("pendingWorkloads", m.pending.getOrDefault(name, 0));
            status.put("reservingWorkloads", m.reserving.getOrDefault(name, 0));
            status.put("admittedWorkloads", m.admitted.getOrDefault(name, 0));
            status.set("flavorsReservation", m.flavorUsage(model, name, false, true));
            status.set("flavorsUsage", m.flavorUsage(model, name, true, true));
            ArrayNode conditions = status.putArray("conditions");
            if (inactive == null && model != null) {
                conditions.add(condition("Active", "True", "Ready", "Can admit new workloads", cq));
            } else if (inactive != null) {
                conditions.add(condition("Active", "False", inactive[0], inactive[1], cq));
            } else {
                conditions.add(condition("Active", "False", "Unknown", "Can't admit new workloads: not loaded", cq));
            }
            if (!notes.isEmpty()) {
                conditions.add(condition(UNSUPPORTED_CONDITION, "True", REASON_UNSUPPORTED, String.join("; ", notes), cq));
            }
            written += write(KueueApi.Resource.CLUSTER_QUEUE, cq, status, now);
        }
        for (GenericKubernetesResource lq : informers.get(KueueApi.Resource.LOCAL_QUEUE).getStore().list()) {
            String ns = lq.getMetadata().getNamespace();
            String key = ns + "/" + lq.getMetadata().getName();
            Object spec = lq.getAdditionalProperties().get("spec");
            String cq = spec instanceof Map<?, ?> s && s.get("clusterQueue") != null ? s.get("clusterQueue").toString() : "";
            ClusterQueue model = m.clusterQueues.get(cq);
            ObjectNode status = F.objectNode();
            status.put("pendingWorkloads", m.pending.getOrDefault(key, 0));
            status.put("reservingWorkloads", m.reserving.getOrDefault(key, 0));
            status.put("admittedWorkloads", m.admitted.getOrDefault(key, 0));
            status.set("flavorsReservation", m.flavorUsage(model, key, false, false));
            status.set(version.equals(KueueApi.V1BETA1) ? "flavorUsage" : "flavorsUsage", m.flavorUsage(model, key, true, false));
            ArrayNode conditions = status.putArray("conditions");
            String[] notLoaded = mapped.localQueuesNotLoaded().get(key);
            if (notLoaded != null) {
                conditions.add(condition("Active", "False", notLoaded[0], notLoaded[1], lq));
            } else if (!cqActive.containsKey(cq)) {
                conditions.add(condition("Active", "False", "ClusterQueueDoesNotExist", "Can't submit new workloads to clusterQueue", lq));
            } else if (!cqActive.get(cq)) {
                conditions.add(condition("Active", "False", "ClusterQueueIsInactive", "Can't submit new workloads to clusterQueue", lq));
            } else {
                conditions.add(condition("Active", "True", "Ready", "Can submit new workloads to localQueue", lq));
            }
            List<String> notes = unsupported.getOrDefault("LocalQueue/" + key, List.of());
            if (!notes.isEmpty()) {
                conditions.add(condition(UNSUPPORTED_CONDITION, "True", REASON_UNSUPPORTED, String.join("; ", notes), lq));
            }
            written += write(KueueApi.Resource.LOCAL_QUEUE, lq, status, now);
        }
        return written;
    }

    private static ObjectNode condition(String type, String status, String reason, String message, HasMetadata o) {
        ObjectNode c = F.objectNode().put("type", type).put("status", status).put("reason", reason)
                .put("message", message.length() > 32768 ? message.substring(0, 32765) + "..." : message);
        if (o.getMetadata().getGeneration() != null) {
            c.put("observedGeneration", o.getMetadata().getGeneration());
        }
        return c;
    }

    /** Writes the status when it differs from the stored one (conditions keep their transition time unless their status changed). */
    private int write(KueueApi.Resource r, GenericKubernetesResource o, ObjectNode status, Instant now) {
        JsonNode stored = MAPPER.valueToTree(o.getAdditionalProperties().getOrDefault("status", Map.of()));
        Map<String, JsonNode> oldConditions = new LinkedHashMap<>();
        stored.path("conditions").forEach(c -> oldConditions.put(c.path("type").asText(), c));
        String ts = now.truncatedTo(ChronoUnit.SECONDS).toString();
        for (JsonNode c : status.get("conditions")) {
            JsonNode old = oldConditions.get(c.path("type").asText());
            ((ObjectNode) c).put("lastTransitionTime", old != null && old.path("status").equals(c.path("status")) && old.hasNonNull("lastTransitionTime")
                    ? old.path("lastTransitionTime").asText() : ts);
        }
        boolean same = true;
        for (var it = status.fields(); it.hasNext();) {
            var e = it.next();
            JsonNode was = stored.get(e.getKey());
            same &= was != null && e.getValue().equals(SAME_VALUE, was);
        }
        if (same) {
            return 0;
        }
        ObjectNode patch = F.objectNode();
        patch.set("status", status);
        var ops = client.genericKubernetesResources(r.context(version));
        try {
            (r.namespaced() ? ops.inNamespace(o.getMetadata().getNamespace()) : ops).withName(o.getMetadata().getName()).subresource("status")
                    .patch(MERGE, patch.toString());
            return 1;
        } catch (KubernetesClientException e) {
            LOG.warn("could not write the status of {} {}: {}", r.kind(), o.getMetadata().getName(), e.getMessage());
            return 0;
        }
    }

    /** Stops the informers. */
    @Override
    public void close() {
        informers.values().forEach(SharedIndexInformer::close);
        if (namespaces != null) {
            namespaces.close();
        }
    }

    /** The counts and usage of every ClusterQueue and LocalQueue, from the engine's jobs. */
    private static final class StatusModel {
        final Map<String, ClusterQueue> clusterQueues = new HashMap<>();
        final Map<String, Integer> pending = new HashMap<>();
        final Map<String, Integer> reserving = new HashMap<>();
        final Map<String, Integer> admitted = new HashMap<>();
        /** Usage by queue key (ClusterQueue name or LocalQueue namespace/name), flavor, resource; [reserved, admitted]. */
        final Map<String, Map<String, Map<String, long[]>>> usage = new HashMap<>();

        StatusModel(QueuesConfig config, List<JobStatus> jobs) {
            Map<String, String> lqToCq = new HashMap<>();
            if (config != null) {
                config.clusterQueueModels().forEach(q -> clusterQueues.put(q.name(), q));
                for (LocalQueue l : config.localQueueModels()) {
                    lqToCq.put(l.key(), l.clusterQueue());
                }
            }
            for (JobStatus j : jobs) {
                String lq = j.spec().namespace() + "/" + j.spec().queue();
                if (j.state() == JobState.PENDING) {
                    String cq = lqToCq.get(lq);
                    if (cq != null) {
                        pending.merge(cq, 1, Integer::sum);
                        pending.merge(lq, 1, Integer::sum);
                    }
                    continue;
                }
                if (!j.state().holdsResources() || j.admission() == null) {
                    continue;
                }
                String cq = j.admission().clusterQueue();
                boolean isAdmitted = j.state() != JobState.QUOTA_RESERVED;
                for (String key : List.of(cq, lq)) {
                    reserving.merge(key, 1, Integer::sum);
                    if (isAdmitted) {
                        admitted.merge(key, 1, Integer::sum);
                    }
                }
                Map<String, String> flavors = j.admission().flavors();
                for (PodSet ps : j.spec().podSets()) {
                    Integer count = j.admission().counts().get(ps.name());
                    if (flavors.get(ps.name()) == null) {
                        continue;
                    }
                    var total = ps.total(count == null ? ps.count() : count).asMap();
                    for (String key : List.of(cq, lq)) {
                        Map<String, Map<String, long[]>> byFlavor = usage.computeIfAbsent(key, k -> new HashMap<>());
                        total.forEach((res, amount) -> {
                            // each resource on the flavor its resource group was admitted with
                            String flavor = io.fairway.api.decision.Admit.flavorOf(flavors, ps.name(), res);
                            long[] u = byFlavor.computeIfAbsent(flavor, k -> new HashMap<>()).computeIfAbsent(res, k -> new long[2]);
                            u[0] += amount;
                            if (isAdmitted) {
                                u[1] += amount;
                            }
                        });
                    }
                }
            }
        }

        /**
         * Kueue's {@code flavorsReservation} / {@code flavorsUsage}: every flavor and covered resource of the
         * ClusterQueue in its order, with the total (and, for a ClusterQueue, what is borrowed above nominal).
         */
        ArrayNode flavorUsage(ClusterQueue model, String key, boolean admittedOnly, boolean withBorrowed) {
            ArrayNode out = F.arrayNode();
            if (model == null) {
                return out;
            }
            Map<String, Map<String, long[]>> u = usage.getOrDefault(key, Map.of());
            for (ResourceGroup g : model.resourceGroups()) {
                for (FlavorQuotas fq : g.flavors()) {
                    ObjectNode f = out.addObject().put("name", fq.flavor());
                    ArrayNode rs = f.putArray("resources");
                    for (ResourceQuota q : fq.resources()) {
                        long[] used = u.getOrDefault(fq.flavor(), Map.of()).getOrDefault(q.resource(), new long[2]);
                        long total = admittedOnly ? used[1] : used[0];
                        ObjectNode r = rs.addObject().put("name", q.resource()).put("total", Quantities.format(q.resource(), total));
                        if (withBorrowed) {
                            r.put("borrowed", Quantities.format(q.resource(), Math.max(0, total - q.nominal())));
                        }
                    }
                }
            }
            return out;
        }
    }
}
