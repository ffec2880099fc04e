package io.fairway.k8s.podgroup;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.k8s.PodResources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain pod groups: pods that belong together without a controller object, queued as one gang. A pod joins a group
 * with the label {@value #GROUP_LABEL} (the group's name, unique in its namespace), the annotation
 * {@value #TOTAL_COUNT_ANNOTATION} (how many pods the group has), the label {@code fairway.io/queue-name} (its
 * LocalQueue), optionally {@value #ROLE_LABEL} (its pod set, default {@code main}: pods of one role request the same),
 * and is created with the scheduling gate {@value #GATE} in {@code spec.schedulingGates} so it waits. Kueue's keys —
 * {@code kueue.x-k8s.io/pod-group-name}, {@code kueue.x-k8s.io/pod-group-total-count}, {@code kueue.x-k8s.io/queue-name}
 * and its gate {@value #KUEUE_GATE} (pkg/controller/jobs/pod/constants/constants.go in kubernetes-sigs/kueue) — are read
 * too, so a manifest written for Kueue is queued, and admission removes either gate.
 *
 * <p>Three more kinds of group, as Kueue queues them (kubernetes-sigs/kueue pkg/controller/jobs/pod, statefulset and
 * leaderworkerset), their pods gated by Fairway's admission webhook ({@code io.fairway.k8s.webhook}):
 * <ul>
 *   <li>a <b>single pod</b> with a queue label and no group label, gated by Fairway's (or Kueue's) gate: a group of one
 *       (a Deployment's pods are each one);</li>
 *   <li>a <b>serving group</b> ({@value #SERVING_ANNOTATION}, a StatefulSet's pods): a pod replaced while the group
 *       runs — created gated under its old name or a new one — is ungated onto the member no live pod holds, and a
 *       failed pod does not fail the group; with {@value #FAST_ADMISSION_ANNOTATION} the group is queued from its first
 *       pod, its whole size reserved, and its later pods placed as they come;</li>
 *   <li>a <b>LeaderWorkerSet group</b> (labels {@value #LWS_NAME_LABEL} and {@value #LWS_GROUP_INDEX_LABEL}): a
 *       serving group queued from its first pod whose pod sets — a {@code leader} and {@code size - 1} {@code worker}s —
 *       are read from the LeaderWorkerSet.</li>
 * </ul>
 * A pod is ungated only when its requests equal its pod set's. A group whose pods are all gone after admission (their
 * owner deleted or scaled them in) ends, its quota released.
 *
 * <p>Pods are read from a pod informer's cache: the adapter's own (one watch for everything), or, for a controller
 * run alone, one this controller starts on first use; never listed on each pass.
 *
 * <p>Once all of a group's pods exist, the group is submitted; when the engine admits it, each pod gets the flavor's
 * node labels and tolerations and {@code kubernetes.io/hostname} of its member's node added (Kubernetes allows adding
 * node selector entries and tolerations to a gated pod, https://kubernetes.io/docs/concepts/scheduling-eviction/pod-scheduling-readiness/),
 * and then the gate is removed — all pods together. A preempted group's pods are deleted (a pod cannot be suspended);
 * whoever created them recreates them, gated, and the group queues again. The group finished when every pod
 * succeeded, failed when one failed.
 *
 * <p><b>Fields written on pods</b> (Pod API, https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/):
 * {@code spec.nodeSelector} (entries added), {@code spec.tolerations} (added), {@code spec.schedulingGates} (the
 * {@value #GATE} gate removed), and the annotation {@value #ADMITTED_ANNOTATION}. Like {@code UnifiedJobController}, it
 * runs the rounds of the engine it is given ({@link #reconcileOnce}).
 */
public final class PodGroupController {
    /** The label naming a pod's group. */
    public static final String GROUP_LABEL = "fairway.io/pod-group-name";
    /** The annotation giving the group's pod count. */
    public static final String TOTAL_COUNT_ANNOTATION = "fairway.io/pod-group-total-count";
    /** The label naming a pod's role (pod set) within its group. */
    public static final String ROLE_LABEL = "fairway.io/pod-group-role";
    /** The scheduling gate holding a group's pods until the group is admitted. */
    public static final String GATE = "fairway.io/admission";
    /** Kueue's scheduling gate for pods it queues, recognised as {@link #GATE} is. */
    public static final String KUEUE_GATE = "kueue.x-k8s.io/admission";
    private static final List<String> GATES = List.of(GATE, KUEUE_GATE);
    /** The annotation written on each pod at admission: {@code ClusterQueue/flavor/node}. */
    public static final String ADMITTED_ANNOTATION = "fairway.io/pod-group-admission";
    static final String KUEUE_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name";
    static final String KUEUE_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count";
    static final List<String> QUEUE_LABELS = List.of("fairway.io/queue-name", "kueue.x-k8s.io/queue-name");
    /**
     * The annotation marking a serving group (a StatefulSet's or a LeaderWorkerSet's pods): its pods are replaced
     * while it runs — a replacement, created gated, is ungated onto the place of the pod it replaces — and a failed
     * pod does not fail it.
     */
    public static final String SERVING_ANNOTATION = "fairway.io/pod-group-serving";
    static final String KUEUE_SERVING_ANNOTATION = "kueue.x-k8s.io/pod-group-serving";
    /**
     * The annotation asking that a group be queued as soon as its first pod exists, its whole size reserved, and the
     * later pods ungated as they come (a StatefulSet's pods, created one by one, each waiting for the one before).
     */
    public static final String FAST_ADMISSION_ANNOTATION = "fairway.io/pod-group-fast-admission";
    static final String KUEUE_FAST_ADMISSION_ANNOTATION = "kueue.x-k8s.io/pod-group-fast-admission";
    /** LeaderWorkerSet's pod label naming the LeaderWorkerSet. */
    public static final String LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name";
    /** LeaderWorkerSet's pod label giving the pod's group (leader and its workers). */
    public static final String LWS_GROUP_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/group-index";
    /** LeaderWorkerSet's pod label giving the pod's index in its group (0: the leader). */
    public static final String LWS_WORKER_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index";
    /** LeaderWorkerSet's pod annotation giving its group's size (leader included). */
    public static final String LWS_SIZE_ANNOTATION = "leaderworkerset.sigs.k8s.io/size";
    private static final io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext LWS = new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
            .withGroup("leaderworkerset.x-k8s.io").withVersion("v1").withKind("LeaderWorkerSet").withPlural("leaderworkersets").withNamespaced(true).build();
    private static final Logger LOG = LoggerFactory.getLogger(PodGroupController.class);

    private final KubernetesClient client;
    private final Scheduler scheduler;
    private final Map<String, ResourceFlavor> flavors = new TreeMap<>();
    private final String namespace;
    /** Group key (namespace/name) to the engine job of its current run. */
    private final Map<String, String> jobOf = new TreeMap<>();
    private final Map<String, Integer> runs = new TreeMap<>();
    /** Group key to how its pods belong to it (from the first pod seen). */
    private final Map<String, Member> members = new TreeMap<>();
    /** Group key to the admission of its current run, for pods that come (or come back) after it. */
    private final Map<String, Admit> admissions = new TreeMap<>();
    /** Group key to the member each of its pods (by name) was placed on in its current run. */
    private final Map<String, Map<String, MemberPlacement>> placed = new TreeMap<>();
    /** Pods (name and uid) this controller ungated: not ungated again while the cache catches up. */
    private final java.util.Set<String> ungated = new java.util.HashSet<>();
    /** Group key to the engine job of its latest run (kept after it ends). */
    private final Map<String, String> lastRun = new TreeMap<>();
    private final Map<String, String> invalid = new TreeMap<>();

    /**
     * @param client the API client
     * @param scheduler the engine
     * @param flavors the resource flavors (node labels and tolerations for admitted pods)
     * @param namespace the namespace to watch, or null for all
     */
    public PodGroupController(KubernetesClient client, Scheduler scheduler, Collection<ResourceFlavor> flavors, String namespace) {
        this(client, scheduler, flavors, namespace, null);
    }

    /**
     * @param client the API client
     * @param scheduler the engine
     * @param flavors the resource flavors (node labels and tolerations for admitted pods)
     * @param namespace the namespace to watch, or null for all
     * @param pods a started pod informer covering that namespace whose cache this controller reads (the adapter's),
     *     or null: the controller starts its own on first use and stops it on {@link #close()}
     */
    public PodGroupController(KubernetesClient client, Scheduler scheduler, Collection<ResourceFlavor> flavors, String namespace,
                              io.fabric8.kubernetes.client.informers.SharedIndexInformer<Pod> pods) {
        this.client = client;
        this.scheduler = scheduler;
        flavors.forEach(f -> this.flavors.put(f.name(), f));
        this.namespace = namespace;
        this.informer = pods;
    }

    private io.fabric8.kubernetes.client.informers.SharedIndexInformer<Pod> informer;
    private boolean ownInformer;

    /** Stops the informer this controller started itself (none when it was given one). */
    public void close() {
        if (ownInformer && informer != null) {
            informer.close();
        }
    }

    /** @return the pods in the watched namespace, from the informer's cache */
    List<Pod> cachedPods() {
        if (informer == null) {
            var ops = namespace == null ? client.pods().inAnyNamespace() : client.pods().inNamespace(namespace);
            informer = ops.inform();
            ownInformer = true;
        }
        List<Pod> out = new ArrayList<>();
        for (Pod p : informer.getStore().list()) {
            if (namespace == null || namespace.equals(p.getMetadata().getNamespace())) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * One pass: read the groups, submit complete ones, run a round and carry out its decisions, report what pods say.
     *
     * @return the round's result
     */
    public RoundResult reconcileOnce() {
        beforeRound();
        RoundResult r = scheduler.runRound();
        afterRound(r);
        return r;
    }

    /** Groups read by {@link #beforeRound()}, for {@link #afterRound}. */
    private Map<String, List<Pod>> roundGroups = Map.of();

    /**
     * The first half of {@link #reconcileOnce()}, for a controller that runs the engine's rounds itself (the
     * {@code FairwayAdapter}, whose Jobs share the engine's quota and nodes with the pod groups): reads the groups
     * and submits the complete ones.
     */
    public void beforeRound() {
        Map<String, List<Pod>> groups = groups();
        for (Map.Entry<String, List<Pod>> g : groups.entrySet()) {
            if (!jobOf.containsKey(g.getKey())) {
                submitWhenComplete(g.getKey(), g.getValue());
            }
        }
        roundGroups = groups;
    }

    /**
     * The second half of {@link #reconcileOnce()}: carries out the round's decisions about pod groups (others are
     * ignored) and reports what their pods say.
     *
     * @param round the round the engine just ran
     */
    public void afterRound(RoundResult round) {
        Map<String, List<Pod>> groups = roundGroups;
        java.util.Set<String> present = new java.util.HashSet<>();
        groups.values().forEach(l -> l.forEach(p -> present.add(podId(p))));
        ungated.retainAll(present);
        for (Decision d : round.decisions()) {
            String group = groupOf(d.jobId());
            if (group == null) {
                continue;
            }
            try {
                if (d instanceof Admit a) {
                    admit(group, groups.getOrDefault(group, List.of()), a);
                } else if (d instanceof Preempt p) {
                    preempt(group, groups.getOrDefault(group, List.of()), p.reason());
                }
            } catch (KubernetesClientException e) {
                LOG.warn("pod group {}: could not apply {}: {}", group, d, e.getMessage());
            }
        }
        feedback(groups());
    }

    /**
     * @param pod any pod
     * @return true when it belongs to a group this controller queues and the engine accounts for: a gated pod (it uses
     *     nothing yet), or a pod of a group whose run the engine holds. A pod that only claims to belong (labels or an
     *     admission annotation it was created with, a run from before a restart) is not: what it uses on its node is
     *     counted as another workload's
     */
    public boolean manages(Pod pod) {
        Member m = memberOf(pod);
        return m != null && (namespace == null || namespace.equals(pod.getMetadata().getNamespace())) && (gated(pod) || jobOf.containsKey(m.key()));
    }

    /**
     * How a pod belongs to a queued group.
     *
     * @param key the group's key: {@code namespace/group} for a labelled group, {@code namespace/pod:name} for a single
     *     plain pod, {@code namespace/lws:name-index} for a LeaderWorkerSet's group
     * @param role its pod set
     * @param total the group's size when its kind fixes it, else null (read from the pods' annotation)
     * @param serving whether it is a serving group ({@link #SERVING_ANNOTATION})
     * @param fast whether it is queued from its first pod ({@link #FAST_ADMISSION_ANNOTATION})
     * @param lws the LeaderWorkerSet's name, for its groups
     */
    record Member(String key, String role, Integer total, boolean serving, boolean fast, String lws) {
    }

    /**
     * @param p a pod
     * @return its group, or null when it is not one this controller queues: a pod labelled with a group name; a
     *     LeaderWorkerSet's pod with a queue label; or a single pod with a queue label, gated by Fairway's (or Kueue's)
     *     gate or admitted by Fairway
     */
    static Member memberOf(Pod p) {
        String ns = p.getMetadata().getNamespace();
        String g = label(p, GROUP_LABEL, KUEUE_GROUP_LABEL);
        if (g != null) {
            String role = label(p, ROLE_LABEL);
            return new Member(ns + "/" + g, role == null ? "main" : role, null, "true".equals(annotation(p, SERVING_ANNOTATION, KUEUE_SERVING_ANNOTATION)),
                    "true".equals(annotation(p, FAST_ADMISSION_ANNOTATION, KUEUE_FAST_ADMISSION_ANNOTATION)), null);
        }
        if (label(p, QUEUE_LABELS.toArray(String[]::new)) == null || !gated(p) && annotation(p, ADMITTED_ANNOTATION) == null) {
            return null;
        }
        String lws = label(p, LWS_NAME_LABEL);
        if (lws != null) {
            String index = label(p, LWS_GROUP_INDEX_LABEL);
            String worker = label(p, LWS_WORKER_INDEX_LABEL);
            if (index == null || worker == null) {
                return null; // LeaderWorkerSet's own webhook has not labelled it yet
            }
            return new Member(ns + "/lws:" + lws + "-" + index, "0".equals(worker) ? "leader" : "worker", null, true, true, lws);
        }
        return new Member(ns + "/pod:" + p.getMetadata().getName(), "main", 1, false, false, null);
    }

    /**
     * @param jobId an engine job id
     * @return true when it is a pod group's (this controller carries its decisions out)
     */
    public static boolean owns(String jobId) {
        return jobId.startsWith("podgroup:");
    }

    /**
     * @param namespace the group's namespace
     * @param name its name
     * @return the engine's status of its current run
     */
    public Optional<JobStatus> status(String namespace, String name) {
        String id = lastRun.get(namespace + "/" + name);
        return id == null ? Optional.empty() : scheduler.status(id);
    }

    private String groupOf(String jobId) {
        for (Map.Entry<String, String> e : jobOf.entrySet()) {
            if (e.getValue().equals(jobId)) {
                return e.getKey();
            }
        }
        return null;
    }

    private Map<String, List<Pod>> groups() {
        List<Pod> pods = cachedPods();
        Map<String, List<Pod>> out = new TreeMap<>();
        for (Pod p : pods) {
            Member m = memberOf(p);
            if (m != null && p.getMetadata().getDeletionTimestamp() == null) {
                out.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(p);
                members.putIfAbsent(m.key(), m);
            }
        }
        out.values().forEach(l -> l.sort(java.util.Comparator.comparing(p -> p.getMetadata().getName())));
        return out;
    }

    private static String label(Pod p, String... keys) {
        Map<String, String> l = p.getMetadata().getLabels();
        for (String k : keys) {
            if (l != null && l.get(k) != null) {
                return l.get(k);
            }
        }
        return null;
    }

    private static String annotation(Pod p, String... keys) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        for (String k : keys) {
            if (a != null && a.get(k) != null) {
                return a.get(k);
            }
        }
        return null;
    }

    private static boolean gated(Pod p) {
        return p.getSpec().getSchedulingGates() != null && p.getSpec().getSchedulingGates().stream().anyMatch(g -> GATES.contains(g.getName()));
    }

    private void submitWhenComplete(String key, List<Pod> pods) {
        if (pods.stream().noneMatch(PodGroupController::gated)) {
            return; // an admitted run of a group this controller no longer tracks (it restarted): left alone
        }
        try {
            JobSpec spec = spec(key, pods);
            if (spec == null) {
                return;
            }
            scheduler.submit(spec);
            jobOf.put(key, spec.id());
            lastRun.put(key, spec.id());
            invalid.remove(key);
            LOG.info("pod group {} is complete ({} pods); queued as {}", key, pods.size(), spec.id());
        } catch (InvalidSpecException e) {
            if (!e.getMessage().equals(invalid.put(key, e.getMessage()))) {
                LOG.warn("pod group {} cannot be queued: {}", key, e.getMessage());
            }
        } catch (KubernetesClientException e) {
            LOG.warn("pod group {}: cannot read what it needs to be queued: {}", key, e.getMessage());
        }
    }

    /** @return the group's job, or null while pods are missing */
    private JobSpec spec(String key, List<Pod> pods) {
        Pod first = pods.get(0);
        Member info = members.getOrDefault(key, memberOf(first));
        Map<String, PodSet> sets = new LinkedHashMap<>();
        int total;
        if (info.lws() != null) {
            sets.putAll(lwsRoles(first, info.lws()));
            total = sets.values().stream().mapToInt(PodSet::count).sum();
        } else {
            total = info.total() != null ? info.total() : totalOf(first, key);
        }
        if (pods.size() < total && !info.fast()) {
            return null;
        }
        InvalidSpecException.check(pods.size() <= total, TOTAL_COUNT_ANNOTATION, Integer.toString(total), "group %s has %d pods, more than its %s %d", key,
                pods.size(), TOTAL_COUNT_ANNOTATION, total);
        String queue = label(first, QUEUE_LABELS.toArray(String[]::new));
        InvalidSpecException.requireDnsLabel("metadata.labels[" + QUEUE_LABELS.get(0) + "]", queue);
        if (sets.isEmpty()) {
            Map<String, List<Pod>> roles = roles(pods);
            InvalidSpecException.check(!info.fast() || roles.size() == 1, "metadata.labels[" + ROLE_LABEL + "]", null,
                    "group %s is admitted from its first pod (%s), so its pods must all have one role", key, FAST_ADMISSION_ANNOTATION);
            roles.forEach((role, rp) -> {
                Resources r = PodResources.of(rp.get(0).getSpec());
                Map<String, String> sel = rp.get(0).getSpec().getNodeSelector() == null ? Map.of() : rp.get(0).getSpec().getNodeSelector();
                int count = info.fast() ? total : rp.size();
                sets.put(role, new PodSet(role, count, count, r, sel, List.of(), null));
            });
        }
        for (Pod p : pods) {
            PodSet ps = sets.get(memberOf(p).role());
            InvalidSpecException.check(ps != null, "pod " + p.getMetadata().getName(), null, "group %s has no role %s", key, memberOf(p).role());
            InvalidSpecException.check(PodResources.of(p.getSpec()).equals(ps.resources()), "pod " + p.getMetadata().getName(), null,
                    "pods of role %s of group %s must request the same resources", ps.name(), key);
        }
        int run = runs.merge(key, 1, Integer::sum);
        JobSpec.Builder b = JobSpec.builder("podgroup:" + key + "#" + run).namespace(first.getMetadata().getNamespace()).queue(queue)
                .jobSet(key.substring(key.indexOf('/') + 1)).priority(priority(first.getSpec().getPriorityClassName()))
                .submitTimeMillis(first.getMetadata().getCreationTimestamp() == null ? 0
                        : java.time.Instant.parse(first.getMetadata().getCreationTimestamp()).toEpochMilli());
        sets.values().forEach(b::podSet);
        return b.build();
    }

    private static int totalOf(Pod first, String key) {
        String totalText = annotation(first, TOTAL_COUNT_ANNOTATION, KUEUE_TOTAL_COUNT);
        InvalidSpecException.check(totalText != null, "metadata.annotations[" + TOTAL_COUNT_ANNOTATION + "]", null,
                "pod %s of group %s has no %s", first.getMetadata().getName(), key, TOTAL_COUNT_ANNOTATION);
        int total;
        try {
            total = Integer.parseInt(totalText.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSpecException(TOTAL_COUNT_ANNOTATION, totalText, TOTAL_COUNT_ANNOTATION + " must be an integer > 0, was " + totalText);
        }
        InvalidSpecException.check(total > 0, TOTAL_COUNT_ANNOTATION, totalText, "%s must be an integer > 0, was %s", TOTAL_COUNT_ANNOTATION, totalText);
        return total;
    }

    /**
     * A LeaderWorkerSet group's pod sets, read from the LeaderWorkerSet (as its controller builds the pods): the
     * leader (its {@code leaderTemplate}, or the {@code workerTemplate} when it has none) and {@code size - 1} workers.
     */
    private Map<String, PodSet> lwsRoles(Pod first, String lwsName) {
        var lws = client.genericKubernetesResources(LWS).inNamespace(first.getMetadata().getNamespace()).withName(lwsName).get();
        InvalidSpecException.check(lws != null, "metadata.labels[" + LWS_NAME_LABEL + "]", lwsName, "LeaderWorkerSet \"%s\" does not exist", lwsName);
        int size = io.fairway.k8s.integration.Specs.intAt(lws, "/spec/leaderWorkerTemplate/size", 1);
        InvalidSpecException.check(size >= 1, "spec.leaderWorkerTemplate.size", Integer.toString(size), "size must be >= 1, was %d", size);
        String workerPointer = "/spec/leaderWorkerTemplate/workerTemplate";
        String leaderPointer = io.fairway.k8s.integration.Specs.at(lws, "/spec/leaderWorkerTemplate/leaderTemplate").isObject()
                ? "/spec/leaderWorkerTemplate/leaderTemplate" : workerPointer;
        Map<String, PodSet> out = new LinkedHashMap<>();
        out.put("leader", podSetOf("leader", 1, io.fairway.k8s.integration.Specs.template(lws, leaderPointer)));
        if (size > 1) {
            out.put("worker", podSetOf("worker", size - 1, io.fairway.k8s.integration.Specs.template(lws, workerPointer)));
        }
        return out;
    }

    private static PodSet podSetOf(String name, int count, io.fabric8.kubernetes.api.model.PodTemplateSpec t) {
        Map<String, String> sel = t.getSpec().getNodeSelector() == null ? Map.of() : t.getSpec().getNodeSelector();
        return new PodSet(name, count, count, PodResources.of(t.getSpec()), sel, List.of(), null);
    }

    private static Map<String, List<Pod>> roles(List<Pod> pods) {
        Map<String, List<Pod>> roles = new LinkedHashMap<>();
        for (Pod p : pods) {
            Member m = memberOf(p);
            roles.computeIfAbsent(m == null ? "main" : m.role(), k -> new ArrayList<>()).add(p);
        }
        return roles;
    }

    private int priority(String className) {
        if (className == null || className.isBlank()) {
            return 0;
        }
        PriorityClass pc = client.scheduling().v1().priorityClasses().withName(className).get();
        InvalidSpecException.check(pc != null, "spec.priorityClassName", className, "PriorityClass \"%s\" does not exist", className);
        return pc.getValue() == null ? 0 : pc.getValue();
    }

    private void admit(String key, List<Pod> pods, Admit a) {
        Map<String, List<Pod>> roles = roles(pods);
        boolean fast = members.containsKey(key) && members.get(key).fast();
        if (!fast) {
            for (MemberPlacement m : a.placement().members()) {
                List<Pod> rp = roles.getOrDefault(m.podSet(), List.of());
                if (m.index() >= rp.size()) {
                    scheduler.reportEvicted(a.jobId(), "pod group " + key + " lost pods before admission");
                    return;
                }
            }
        }
        admissions.put(key, a);
        Map<String, MemberPlacement> onto = new TreeMap<>();
        placed.put(key, onto);
        for (MemberPlacement m : a.placement().members()) {
            List<Pod> rp = roles.getOrDefault(m.podSet(), List.of());
            if (m.index() < rp.size()) {
                Pod p = rp.get(m.index());
                onto.put(p.getMetadata().getName(), m);
                ungate(key, p, a, m);
            }
        }
        LOG.info("pod group {} admitted by {} on {}", key, a.clusterQueue(), a.placement().nodes());
    }

    private void ungate(String key, Pod p, Admit a, MemberPlacement m) {
        List<String> names = io.fairway.api.decision.Admit.flavorsOf(a.flavors(), m.podSet());
        ResourceFlavor f = names.size() <= 1 ? flavors.get(a.flavors().get(m.podSet()))
                : io.fairway.core.admission.FlavorUnion.of(flavors.get(names.get(0)), names.subList(1, names.size()).stream().map(flavors::get).toList());
        client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).edit(x -> ungate(x, f, m.node(),
                a.clusterQueue() + "/" + (f == null ? "" : f.name()) + "/" + m.node()));
        ungated.add(podId(p));
    }

    private static String podId(Pod p) {
        return p.getMetadata().getName() + "@" + p.getMetadata().getUid() + "@" + p.getMetadata().getCreationTimestamp();
    }

    /**
     * Places the gated pods of an admitted group that came after its admission — a StatefulSet's later pods, a
     * serving group's replacements — on its members that no live pod holds: a pod recreated under its old name goes
     * back to its old member. A pod whose requests differ from its role's, or for which no member is free, stays
     * gated.
     */
    private void ungateLate(String key, List<Pod> pods) {
        Admit a = admissions.get(key);
        if (a == null) {
            return;
        }
        Map<String, MemberPlacement> onto = placed.computeIfAbsent(key, k -> new TreeMap<>());
        java.util.Set<String> live = new java.util.HashSet<>();
        pods.forEach(p -> live.add(p.getMetadata().getName()));
        onto.keySet().retainAll(live);
        for (Pod p : pods) {
            if (!gated(p) || ungated.contains(podId(p))) {
                continue;
            }
            String role = memberOf(p).role();
            MemberPlacement m = onto.get(p.getMetadata().getName());
            if (m == null) {
                m = a.placement().members().stream().filter(x -> x.podSet().equals(role) && !onto.containsValue(x)).findFirst().orElse(null);
            }
            PodSet ps = scheduler.status(a.jobId()).map(s -> s.spec().podSets().stream().filter(x -> x.name().equals(role)).findFirst().orElse(null))
                    .orElse(null);
            if (m == null || ps == null || !PodResources.of(p.getSpec()).equals(ps.resources())) {
                String why = m == null ? "no member of role " + role + " is free" : "its requests differ from its role's";
                if (!why.equals(invalid.put(key + "|" + p.getMetadata().getName(), why))) {
                    LOG.warn("pod group {}: pod {} stays gated: {}", key, p.getMetadata().getName(), why);
                }
                continue;
            }
            onto.put(p.getMetadata().getName(), m);
            ungate(key, p, a, m);
            LOG.info("pod group {}: pod {} placed on {} (admitted run)", key, p.getMetadata().getName(), m.node());
        }
    }

    /** The admission edit of one gated pod: node selector and tolerations added, the gate removed. */
    static Pod ungate(Pod pod, ResourceFlavor flavor, String node, String admission) {
        Map<String, String> sel = new TreeMap<>(pod.getSpec().getNodeSelector() == null ? Map.of() : pod.getSpec().getNodeSelector());
        if (flavor != null) {
            sel.putAll(flavor.nodeLabels());
        }
        sel.put("kubernetes.io/hostname", node);
        List<Toleration> tols = new ArrayList<>(pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations());
        if (flavor != null) {
            for (io.fairway.api.model.Toleration t : flavor.tolerations()) {
                Toleration k = new Toleration(t.effect(), t.key(), t.operator(), null, t.value());
                if (!tols.contains(k)) {
                    tols.add(k);
                }
            }
        }
        List<PodSchedulingGate> gates = new ArrayList<>(pod.getSpec().getSchedulingGates() == null ? List.of() : pod.getSpec().getSchedulingGates());
        gates.removeIf(g -> GATES.contains(g.getName()));
        return new PodBuilder(pod).editMetadata().addToAnnotations(ADMITTED_ANNOTATION, admission).endMetadata()
                .editSpec().withNodeSelector(sel).withTolerations(tols).withSchedulingGates(gates).endSpec().build();
    }

    private void preempt(String key, List<Pod> pods, String why) {
        for (Pod p : pods) {
            client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).delete();
        }
        scheduler.cancel(jobOf.remove(key));
        forget(key);
        LOG.info("pod group {} preempted ({}); its {} pods deleted; it queues again when they are recreated", key, why, pods.size());
    }

    private void forget(String key) {
        admissions.remove(key);
        placed.remove(key);
        members.remove(key);
    }

    private void feedback(Map<String, List<Pod>> groups) {
        for (Map.Entry<String, String> e : new ArrayList<>(jobOf.entrySet())) {
            JobStatus s = scheduler.status(e.getValue()).orElse(null);
            List<Pod> pods = groups.getOrDefault(e.getKey(), List.of());
            if (s == null || !s.state().holdsResources()) {
                continue;
            }
            if (pods.isEmpty()) {
                if (admissions.containsKey(e.getKey())) {
                    // deleted by their owner (a Deployment scaled in, a StatefulSet deleted): the quota is freed
                    scheduler.reportFinished(e.getValue());
                    jobOf.remove(e.getKey());
                    forget(e.getKey());
                    LOG.info("pod group {}: its pods are gone; its run ended", e.getKey());
                }
                continue;
            }
            Member info = members.get(e.getKey());
            boolean serving = info != null && info.serving();
            ungateLate(e.getKey(), pods);
            if (pods.stream().anyMatch(PodGroupController::gated)) {
                continue;
            }
            int total = s.spec().podSets().stream().mapToInt(PodSet::count).sum();
            long succeeded = pods.stream().filter(p -> "Succeeded".equals(phase(p))).count();
            long running = pods.stream().filter(p -> "Running".equals(phase(p))).count();
            Optional<Pod> failed = pods.stream().filter(p -> "Failed".equals(phase(p))).findFirst();
            if (failed.isPresent() && !serving) {
                scheduler.reportFailed(e.getValue(), "pod " + failed.get().getMetadata().getName() + " failed");
                jobOf.remove(e.getKey());
                forget(e.getKey());
            } else if (succeeded == total && pods.size() == total) {
                scheduler.reportFinished(e.getValue());
                jobOf.remove(e.getKey());
                forget(e.getKey());
                LOG.info("pod group {} finished", e.getKey());
            } else if (s.state() == JobState.ADMITTED && running + succeeded == total) {
                scheduler.reportStarted(e.getValue());
            }
        }
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }
}
