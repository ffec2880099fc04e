package io.fairway.k8s.unifiedjob;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UnifiedJob controller: queues each {@code fairway.io/v1alpha1} {@code UnifiedJob} in the engine as an elastic
 * job (its scaled pod set between {@code spec.replicaSpec.minReplicas} and {@code maxReplicas}, every other pod set of
 * the underlying kind as its integration reads it), and carries the engine's decisions out through the jobType's
 * {@link Integration}:
 * <ul>
 *   <li>{@link Admit}: creates the underlying object from {@code spec.template} with the admitted pod counts and each
 *       pod set's flavor (node selector, tolerations), writes {@code spec.replicaSpec.targetReplicas};</li>
 *   <li>{@link Resize} (Themis's and the FIFO family's elastic decisions): sets the scaled pod set's count on the
 *       underlying object in place when the kind is {@link Integration#resizable() resizable}, else recreates it at the
 *       new count; writes {@code targetReplicas};</li>
 *   <li>{@link Preempt}: deletes the underlying object and requeues the UnifiedJob ({@code targetReplicas: 0}).</li>
 * </ul>
 * A value of {@code targetReplicas} written by anyone else is overwritten. The status carries the state, the
 * conditions (Queued, Admitted, Running, Resized, Preempted, Finished), the placement (nodes per pod set), and the
 * pending reason; {@code kubectl get unifiedjobs} prints them (see {@code deploy/crds/fairway.io_unifiedjobs.yaml}).
 *
 * <pre>{@code
 * Scheduler engine = Scheduler.builder().policy("themis")...build();      // no actuator: this controller applies
 * UnifiedJobController c = new UnifiedJobController(client, engine,
 *     UnifiedJobController.integrations(List.of("ray.io/v1.RayCluster", "flux-framework.org/v1alpha2.MiniCluster")), flavors, null);
 * c.reconcileOnce();   // sync UnifiedJobs, run a round, apply its decisions, read the underlying objects
 * }</pre>
 *
 * <p>The engine it is given must not also be driven by another actuator for these jobs: {@link #reconcileOnce} runs
 * the round and applies its decisions itself. Pods are placed by the flavor's node selector; the members' nodes the
 * engine chose are reported in {@code status.placement} but not pinned. Not thread-safe: call from one thread.
 */
public final class UnifiedJobController {
    private static final Logger LOG = LoggerFactory.getLogger(UnifiedJobController.class);

    private final KubernetesClient client;
    private final Scheduler scheduler;
    private final Map<String, Integration> integrations = new TreeMap<>();
    private final Map<String, ResourceFlavor> flavors = new TreeMap<>();
    private final String namespace;
    private final Map<String, UnifiedJobState> byUid = new LinkedHashMap<>();
    private final Map<String, UnifiedJobState> byId = new LinkedHashMap<>();
    private final Map<String, String> invalid = new TreeMap<>();
    /** The engine's restoring policy wrapper, through which a running UnifiedJob is re-admitted where it runs; or null. */
    private final io.fairway.k8s.RestoringPolicy restorer;
    /** Every UnifiedJob as the controller wrote it (tests validate them against the CRD's schema). */
    Consumer<GenericKubernetesResource> onWrite = o -> { };

    /**
     * @param client the API client
     * @param scheduler the engine (its LocalQueues named by {@code spec.queueName})
     * @param integrations the enabled integrations ({@code spec.jobType} names one)
     * @param flavors the resource flavors (their node labels and tolerations go on the admitted pod sets)
     * @param namespace the namespace to watch, or null for all
     */
    public UnifiedJobController(KubernetesClient client, Scheduler scheduler, Collection<Integration> integrations, Collection<ResourceFlavor> flavors,
                                String namespace) {
        this.client = client;
        this.scheduler = scheduler;
        io.fairway.k8s.KubeLookup lookup = new io.fairway.k8s.KubeLookup(client);
        integrations.forEach(i -> {
            i.connect(lookup);
            this.integrations.put(i.name(), i);
        });
        this.restorer = scheduler.policy() instanceof io.fairway.k8s.RestoringPolicy rp ? rp : null;
        flavors.forEach(f -> this.flavors.put(f.name(), f));
        this.namespace = namespace;
    }

    /** @return the names of every jobType a UnifiedJob may name (the integrations found, and MiniCluster) */
    public static java.util.Set<String> jobTypes() {
        Map<String, Integration> known = new TreeMap<>(io.fairway.k8s.integration.Integrations.available());
        known.putIfAbsent(new io.fairway.k8s.kinds.MiniClusterIntegration().name(), null);
        return java.util.Collections.unmodifiableSet(known.keySet());
    }

    /**
     * The integrations a UnifiedJob may name: those found by {@link java.util.ServiceLoader}
     * ({@link io.fairway.k8s.integration.Integrations#available()}) and the kinds only a UnifiedJob can queue because
     * they cannot be suspended ({@link io.fairway.k8s.kinds.MiniClusterIntegration}).
     *
     * @param names the jobTypes to enable, by integration name
     * @return them, in that order
     * @throws InvalidSpecException naming the value and listing the known names when one is unknown
     */
    public static List<Integration> integrations(List<String> names) {
        Map<String, Integration> known = new TreeMap<>(io.fairway.k8s.integration.Integrations.available());
        Integration mc = new io.fairway.k8s.kinds.MiniClusterIntegration();
        known.putIfAbsent(mc.name(), mc);
        List<Integration> out = new ArrayList<>();
        for (String n : names) {
            Integration i = known.get(n);
            if (i == null) {
                throw new InvalidSpecException("jobTypes", n, "unknown jobType \"" + n + "\"; known: " + String.join(", ", known.keySet()));
            }
            out.add(i);
        }
        return out;
    }

    /** @return the UnifiedJob resource (group {@code fairway.io}, version {@code v1alpha1}, plural {@code unifiedjobs}) */
    public static ResourceDefinitionContext resource() {
        return UnifiedJobs.CONTEXT;
    }

    /**
     * One pass: sync the UnifiedJobs into the engine, run a round and carry out its decisions, read the underlying
     * objects (started, finished, failed), and write every changed status.
     *
     * @return the round's result
     */
    public RoundResult reconcileOnce() {
        beforeRound();
        RoundResult r = scheduler.runRound();
        afterRound(r);
        return r;
    }

    /**
     * The first half of {@link #reconcileOnce()}, for a controller that runs the engine's rounds itself (the
     * {@code FairwayAdapter}, whose Jobs share the engine's quota and nodes with the UnifiedJobs): syncs the
     * UnifiedJobs into the engine.
     */
    public void beforeRound() {
        sync();
    }

    /**
     * The second half of {@link #reconcileOnce()}: carries out the round's decisions about UnifiedJobs (others are
     * ignored), reads the underlying objects and writes every changed status.
     *
     * @param round the round the engine just ran
     */
    public void afterRound(RoundResult round) {
        apply(round.decisions());
        for (UnifiedJobState s : byId.values()) {
            if (s.adopting != null) {
                // the engine could not re-admit it where it runs (a node gone, quota changed): it is queued afresh
                LOG.warn("UnifiedJob {}: its admission on {} could not be restored; queueing it afresh", s.key(), s.adopting.placement().nodes());
                restorer.unpin(s.id);
                s.adopting = null;
                deleteUnderlying(s);
                s.state = "Queued";
                s.placement = null;
                s.counts = Map.of();
                s.admission = null;
                s.target = 0;
                s.condition("Admitted", false, "Requeued", "its admission could not be restored after a restart");
                s.condition("Running", false, "Requeued", "its admission could not be restored after a restart");
                s.condition("Queued", true, "Requeued", "its admission could not be restored after a restart");
            }
        }
        feedback();
        byId.values().forEach(this::publish);
    }

    /**
     * @param namespace a namespace
     * @param objectName the name of an object of a jobType kind (the underlying object is named as its UnifiedJob)
     * @return true when it is the underlying object of a UnifiedJob this controller queued (its pods are counted
     *     through the UnifiedJob, not as another workload's)
     */
    public boolean manages(String namespace, String objectName) {
        return byId.containsKey(idOf(namespace, objectName)); // called per pod per pass: a lookup, not a scan
    }

    /**
     * @param jobId an engine job id
     * @return true when it is a UnifiedJob's (this controller carries its decisions out)
     */
    public static boolean owns(String jobId) {
        return jobId.startsWith("unifiedjob:");
    }

    /**
     * @param namespace the UnifiedJob's namespace
     * @param name its name
     * @return the engine's status of it
     */
    public Optional<JobStatus> status(String namespace, String name) {
        return scheduler.status(idOf(namespace, name));
    }

    static String idOf(String namespace, String name) {
        return "unifiedjob:" + namespace + "/" + name;
    }

    private List<GenericKubernetesResource> list() {
        var op = client.genericKubernetesResources(UnifiedJobs.CONTEXT);
        return (namespace == null ? op.inAnyNamespace().list() : op.inNamespace(namespace).list()).getItems();
    }

    private void sync() {
        Set<String> seen = new HashSet<>();
        for (GenericKubernetesResource uj : list()) {
            String uid = uj.getMetadata().getUid();
            seen.add(uid);
            UnifiedJobState s = byUid.get(uid);
            if (s == null) {
                submit(uj);
            } else if (!s.ended) {
                UnifiedJobs.Spec now = readQuietly(uj);
                if (now != null && !java.util.Objects.equals(now.target(), s.target)) {
                    LOG.info("UnifiedJob {}: targetReplicas {} is Fairway's to set; writing back {}", s.key(), now.target(), s.target);
                    writeTarget(s);
                }
            }
        }
        for (UnifiedJobState s : new ArrayList<>(byUid.values())) {
            if (!seen.contains(s.uid)) {
                LOG.info("UnifiedJob {} was deleted; cancelling it", s.key());
                byUid.remove(s.uid);
                byId.remove(s.id);
                scheduler.cancel(s.id);
                deleteUnderlying(s);
            }
        }
        invalid.keySet().retainAll(seen);
    }

    private UnifiedJobs.Spec readQuietly(GenericKubernetesResource uj) {
        try {
            return UnifiedJobs.read(uj, integrations);
        } catch (InvalidSpecException e) {
            return null;
        }
    }

    private void submit(GenericKubernetesResource uj) {
        String uid = uj.getMetadata().getUid();
        String ns = uj.getMetadata().getNamespace();
        String name = uj.getMetadata().getName();
        UnifiedJobState s = new UnifiedJobState(uid, ns, name, idOf(ns, name));
        try {
            s.spec = UnifiedJobs.read(uj, integrations);
            s.integration = integrations.get(s.spec.jobType());
            UnifiedJobs.checkElasticity(uj, s.spec, s.integration);
            JobSpec.Builder b = JobSpec.builder(s.id).namespace(ns).queue(s.spec.queue()).jobSet(name)
                    .priority(priority(s.spec.priorityClassName())).submitTimeMillis(creationMillis(uj));
            UnifiedJobs.engineSets(s.spec).forEach(b::podSet);
            scheduler.submit(b.build());
        } catch (InvalidSpecException e) {
            String msg = "InvalidJob: " + e.getMessage();
            if (!msg.equals(invalid.put(uid, msg))) {
                LOG.info("UnifiedJob {}/{} cannot be queued: {}", ns, name, e.getMessage());
                s.pendingReason = msg;
                s.spec = null;
                publish(s);
            }
            return;
        }
        invalid.remove(uid);
        byUid.put(uid, s);
        byId.put(s.id, s);
        s.condition("Queued", true, "Queued", "waiting in LocalQueue " + s.spec.queue());
        if (s.spec.target() != null && s.spec.target() != 0) {
            writeTarget(s); // a user's value: targetReplicas is Fairway's to set
        }
        GenericKubernetesResource existing = get(s);
        if (existing != null) {
            io.fairway.k8s.AdmissionRecord rec = adoptable(uj, existing);
            if (rec != null && restorer != null) {
                adopt(s, uj, rec);
            } else {
                LOG.info("UnifiedJob {}: its {} exists from an earlier admission {}; deleting it so it is admitted afresh", s.key(), s.spec.jobType(),
                        restorer == null ? "and the engine cannot restore admissions (no RestoringPolicy)" : "that was not recorded");
                deleteUnderlying(s);
            }
        }
    }

    /**
     * @return the admission recorded in the UnifiedJob's status when the existing underlying object is the one this
     *     UnifiedJob's admission created (controlled by it) and the UnifiedJob is admitted or running; else null
     */
    private static io.fairway.k8s.AdmissionRecord adoptable(GenericKubernetesResource uj, GenericKubernetesResource existing) {
        String state = Specs.toJson(uj).at("/status/state").asText("");
        String recorded = Specs.toJson(uj).at("/status/admission").asText("");
        boolean controlled = existing.getMetadata().getOwnerReferences() != null && existing.getMetadata().getOwnerReferences().stream()
                .anyMatch(r -> Boolean.TRUE.equals(r.getController()) && uj.getMetadata().getUid().equals(r.getUid()));
        if (!controlled || recorded.isEmpty() || !("Admitted".equals(state) || "Running".equals(state))) {
            return null;
        }
        try {
            return io.fairway.k8s.AdmissionRecord.parse(recorded);
        } catch (IllegalArgumentException e) {
            LOG.warn("UnifiedJob {}/{}: unreadable status.admission ({})", uj.getMetadata().getNamespace(), uj.getMetadata().getName(), e.getMessage());
            return null;
        }
    }

    /** A running UnifiedJob found after a restart: re-admitted where it runs, its object and pods left alone. */
    private void adopt(UnifiedJobState s, GenericKubernetesResource uj, io.fairway.k8s.AdmissionRecord rec) {
        com.fasterxml.jackson.databind.JsonNode st = Specs.toJson(uj).path("status");
        restorer.pin(s.id, rec.placement());
        s.adopting = rec;
        s.state = st.path("state").asText("Admitted");
        s.target = rec.counts().getOrDefault(s.spec.podSet(), s.spec.max());
        s.clusterQueue = rec.clusterQueue();
        s.flavors = rec.flavors();
        s.counts = rec.counts();
        s.placement = rec.placement();
        s.admission = rec.toJson();
        s.underlyingExists = true;
        s.pendingReason = "";
        s.restoreConditions(st.path("conditions"));
        LOG.info("UnifiedJob {} runs ({} {} on {}); re-admitting it there", s.key(), s.spec.jobType(), s.name, rec.placement().nodes());
    }

    private int priority(String className) {
        if (className == null) {
            return 0;
        }
        PriorityClass pc = client.scheduling().v1().priorityClasses().withName(className).get();
        InvalidSpecException.check(pc != null, "spec.priorityClassName", className, "PriorityClass \"%s\" does not exist", className);
        return pc.getValue() == null ? 0 : pc.getValue();
    }

    private static long creationMillis(GenericKubernetesResource o) {
        String ts = o.getMetadata().getCreationTimestamp();
        return ts == null ? 0 : java.time.Instant.parse(ts).toEpochMilli();
    }

    /**
     * Carries out the decisions about UnifiedJobs (others are ignored).
     *
     * @param decisions a round's decisions
     */
    public void apply(List<Decision> decisions) {
        for (Decision d : decisions) {
            UnifiedJobState s = byId.get(d.jobId());
            if (s == null) {
                continue;
            }
            try {
                if (d instanceof Admit a && s.adopting != null) {
                    restored(s, a);
                } else if (d instanceof Admit a) {
                    admit(s, a);
                } else if (d instanceof Resize r) {
                    resize(s, r);
                } else if (d instanceof Preempt p) {
                    preempt(s, p.reason());
                }
            } catch (KubernetesClientException | IllegalArgumentException | UnsupportedOperationException e) {
                LOG.warn("UnifiedJob {}: could not apply {}: {}", s.key(), d, e.getMessage());
                if (d instanceof Admit) {
                    scheduler.reportEvicted(s.id, "could not create the " + s.spec.jobType() + ": " + e.getMessage());
                    s.pendingReason = "could not create the " + s.spec.jobType() + ": " + e.getMessage();
                }
            }
        }
    }

    /** The round's admission of an adopted UnifiedJob: where it runs (restored), or elsewhere (its object is replaced). */
    private void restored(UnifiedJobState s, Admit a) {
        io.fairway.k8s.AdmissionRecord rec = s.adopting;
        s.adopting = null;
        restorer.unpin(s.id);
        if (a.placement().members().equals(rec.placement().members())) {
            LOG.info("UnifiedJob {}: admission restored on {}", s.key(), a.placement().nodes());
            return;
        }
        LOG.info("UnifiedJob {}: re-admitted elsewhere than it ran; replacing its {}", s.key(), s.spec.jobType());
        deleteUnderlying(s);
        admit(s, a);
    }

    private void admit(UnifiedJobState s, Admit a) {
        GenericKubernetesResource uj = client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace(s.namespace).withName(s.name).get();
        if (uj == null || !s.uid.equals(uj.getMetadata().getUid())) {
            return;
        }
        ObjectNode obj = UnifiedJobs.underlyingJson(uj, s.integration);
        List<PodSetTemplate> podSets = s.integration.podSets(Specs.MAPPER.convertValue(obj, GenericKubernetesResource.class));
        s.integration.admit(obj, podSets, admissions(podSets, a.counts(), a.flavors(), a.placement())); // sets the scaled pod set's count where it differs
        int target = a.counts().getOrDefault(s.spec.podSet(), s.spec.max());
        unsuspend(s, obj);
        create(s, obj);
        s.target = target;
        s.state = "Admitted";
        s.pendingReason = "";
        s.clusterQueue = a.clusterQueue();
        s.flavors = a.flavors();
        s.counts = a.counts();
        s.placement = a.placement();
        s.admission = io.fairway.k8s.AdmissionRecord.of(a).toJson();
        s.underlyingExists = true;
        s.condition("Queued", false, "Admitted", "admitted by ClusterQueue " + a.clusterQueue());
        s.condition("Admitted", true, "Admitted", "admitted by ClusterQueue " + a.clusterQueue() + " with " + target + " replicas on "
                + String.join(", ", a.placement().nodes()));
        s.condition("Preempted", false, "Admitted", "admitted again");
        writeTarget(s);
        LOG.info("UnifiedJob {} admitted with {} replicas: {} created", s.key(), target, s.spec.jobType());
    }

    private List<PodSetAdmission> admissions(List<PodSetTemplate> podSets, Map<String, Integer> counts, Map<String, String> flavorOf,
                                             io.fairway.api.decision.Placement placement) {
        List<PodSetAdmission> admissions = new ArrayList<>();
        for (PodSetTemplate p : podSets) {
            ResourceFlavor f = flavors.get(flavorOf.get(p.name()));
            List<io.fabric8.kubernetes.api.model.Toleration> tols = new ArrayList<>();
            if (f != null) {
                f.tolerations().forEach(t -> tols.add(new io.fabric8.kubernetes.api.model.Toleration(t.effect().isEmpty() ? null : t.effect(),
                        t.key().isEmpty() ? null : t.key(), t.operator(), null, t.value().isEmpty() ? null : t.value())));
            }
            int count = counts.getOrDefault(p.name(), p.count());
            admissions.add(new PodSetAdmission(p.name(), count, f == null ? Map.of() : f.nodeLabels(), tols, List.of(), nodesOf(placement, p.name())));
        }
        return admissions;
    }

    private static List<String> nodesOf(io.fairway.api.decision.Placement p, String podSet) {
        List<String> out = new ArrayList<>();
        p.members().stream().filter(m -> m.podSet().equals(podSet)).sorted(java.util.Comparator.comparingInt(m -> m.index())).forEach(m -> out.add(m.node()));
        return out;
    }

    private static void unsuspend(UnifiedJobState s, ObjectNode obj) {
        try {
            s.integration.setSuspended(obj, false);
        } catch (UnsupportedOperationException e) {
            // a kind without a suspend field (MiniCluster): it is created only when admitted
        }
    }

    private void create(UnifiedJobState s, ObjectNode obj) {
        GenericKubernetesResource res = Specs.MAPPER.convertValue(obj, GenericKubernetesResource.class);
        client.genericKubernetesResources(contextOf(s.integration)).inNamespace(s.namespace).resource(res).create();
    }

    private void resize(UnifiedJobState s, Resize r) {
        if (!r.podSet().equals(s.spec.podSet())) {
            LOG.warn("UnifiedJob {}: resize of pod set {} ignored; only {} scales", s.key(), r.podSet(), s.spec.podSet());
            return;
        }
        int from = s.target;
        GenericKubernetesResource cur = get(s);
        String how;
        if (cur != null && s.integration.resizableInPlace(cur)) {
            ObjectNode obj = Specs.toJson(cur);
            s.integration.setCount(obj, r.podSet(), r.targetCount());
            client.genericKubernetesResources(contextOf(s.integration)).inNamespace(s.namespace)
                    .resource(Specs.MAPPER.convertValue(obj, GenericKubernetesResource.class)).update();
            how = "in place";
        } else {
            GenericKubernetesResource uj = client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace(s.namespace).withName(s.name).get();
            ObjectNode obj = UnifiedJobs.underlyingJson(uj, s.integration);
            List<PodSetTemplate> podSets = s.integration.podSets(Specs.MAPPER.convertValue(obj, GenericKubernetesResource.class));
            Map<String, Integer> next = new TreeMap<>(s.counts);
            next.put(r.podSet(), r.targetCount());
            s.integration.admit(obj, podSets, admissions(podSets, next, s.flavors, r.placement()));
            deleteUnderlying(s);
            unsuspend(s, obj);
            create(s, obj);
            s.underlyingExists = true;
            double progress = UnifiedJobs.progress(uj);
            if (progress > 0) {
                scheduler.reportProgress(s.id, progress);
            }
            how = "by recreating the " + s.spec.jobType() + " (its workload resumes from its last checkpoint, progress "
                    + Math.round(progress * 100) + "%)";
        }
        s.target = r.targetCount();
        Map<String, Integer> counts = new TreeMap<>(s.counts);
        counts.put(r.podSet(), r.targetCount());
        s.counts = counts;
        s.placement = r.placement();
        s.admission = io.fairway.k8s.AdmissionRecord.of(s.clusterQueue, s.flavors, counts, r.placement()).toJson();
        s.condition("Resized", true, "Resized", "targetReplicas " + from + " -> " + r.targetCount() + " " + how);
        writeTarget(s);
        LOG.info("UnifiedJob {} resized from {} to {}", s.key(), from, r.targetCount());
    }

    private void preempt(UnifiedJobState s, String why) {
        deleteUnderlying(s);
        s.admission = null;
        s.target = 0;
        s.state = "Queued";
        s.placement = null;
        s.counts = Map.of();
        s.pendingReason = "preempted: " + why;
        s.condition("Preempted", true, "Preempted", why);
        s.condition("Admitted", false, "Preempted", why);
        s.condition("Running", false, "Preempted", why);
        s.condition("Queued", true, "Requeued", "requeued after preemption");
        writeTarget(s);
        LOG.info("UnifiedJob {} preempted: {}", s.key(), why);
    }

    private void feedback() {
        List<Pod> pods = null;
        for (UnifiedJobState s : byId.values()) {
            JobStatus st = scheduler.status(s.id).orElse(null);
            if (s.ended || st == null) {
                continue;
            }
            if (st.state() == JobState.PENDING) {
                if (st.pendingReason() != null) {
                    s.pendingReason = st.pendingReason().code() + ": " + st.pendingReason().message();
                }
                continue;
            }
            if (!st.state().holdsResources() || !s.underlyingExists) {
                continue;
            }
            GenericKubernetesResource obj = get(s);
            if (obj == null) {
                continue;
            }
            if (pods == null) {
                pods = namespace == null ? client.pods().inAnyNamespace().list().getItems() : client.pods().inNamespace(namespace).list().getItems();
            }
            List<Pod> mine = new ArrayList<>();
            Set<String> owners = s.integration.podOwners(obj);
            for (Pod p : pods) {
                Optional<PodRef> ref = s.integration.podOf(p);
                if (s.namespace.equals(p.getMetadata().getNamespace()) && ref.isPresent() && owners.contains(ref.get().ownerName())) {
                    mine.add(p);
                }
            }
            WorkloadOutcome o = s.integration.outcome(obj, mine);
            if (o.phase() == WorkloadOutcome.Phase.SUCCEEDED) {
                end(s, true, "Succeeded", "the " + s.spec.jobType() + " succeeded");
            } else if (o.phase() == WorkloadOutcome.Phase.FAILED) {
                end(s, false, "Failed", o.message());
            } else if (st.state() == JobState.ADMITTED) {
                long running = mine.stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
                int members = s.counts.values().stream().mapToInt(Integer::intValue).sum();
                if (running >= members && scheduler.reportStarted(s.id)) {
                    s.state = "Running";
                    s.condition("Running", true, "Running", running + " pods running");
                }
            }
        }
    }

    private void end(UnifiedJobState s, boolean success, String reason, String message) {
        s.ended = true;
        if (success) {
            scheduler.reportFinished(s.id);
        } else {
            scheduler.reportFailed(s.id, message);
        }
        s.state = success ? "Finished" : "Failed";
        s.condition("Running", false, reason, message);
        s.condition("Finished", true, reason, message);
        LOG.info("UnifiedJob {} {}", s.key(), success ? "finished" : "failed: " + message);
    }

    private GenericKubernetesResource get(UnifiedJobState s) {
        return client.genericKubernetesResources(contextOf(s.integration)).inNamespace(s.namespace).withName(s.name).get();
    }

    private void deleteUnderlying(UnifiedJobState s) {
        if (s.integration != null) {
            client.genericKubernetesResources(contextOf(s.integration)).inNamespace(s.namespace).withName(s.name).delete();
        }
        s.underlyingExists = false;
    }

    static ResourceDefinitionContext contextOf(Integration in) {
        return new ResourceDefinitionContext.Builder().withGroup(in.kind().group()).withVersion(in.kind().version()).withKind(in.kind().kind())
                .withPlural(in.kind().plural()).withNamespaced(true).build();
    }

    /** Writes spec.replicaSpec.targetReplicas (Fairway's decision) when it differs. */
    private void writeTarget(UnifiedJobState s) {
        GenericKubernetesResource written = client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace(s.namespace).withName(s.name).edit(uj -> {
            ObjectNode o = Specs.toJson(uj);
            Specs.set(o, "/spec/replicaSpec/targetReplicas", s.target);
            return Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
        });
        onWrite.accept(written);
    }

    /** Writes the status when it changed. */
    private void publish(UnifiedJobState s) {
        GenericKubernetesResource cur = client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace(s.namespace).withName(s.name).get();
        if (cur == null || !s.uid.equals(cur.getMetadata().getUid())) {
            return;
        }
        ObjectNode want = s.status();
        ObjectNode o = Specs.toJson(cur);
        if (want.equals(o.path("status"))) {
            return;
        }
        o.set("status", want);
        try {
            GenericKubernetesResource written = client.genericKubernetesResources(UnifiedJobs.CONTEXT).inNamespace(s.namespace)
                    .resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class)).updateStatus();
            onWrite.accept(written);
        } catch (KubernetesClientException e) {
            LOG.warn("UnifiedJob {}: cannot write its status: {}", s.key(), e.getMessage());
        }
    }
}
