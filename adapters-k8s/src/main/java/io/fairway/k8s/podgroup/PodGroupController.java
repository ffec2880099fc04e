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
    private static final Logger LOG = LoggerFactory.getLogger(PodGroupController.class);

    private final KubernetesClient client;
    private final Scheduler scheduler;
    private final Map<String, ResourceFlavor> flavors = new TreeMap<>();
    private final String namespace;
    /** Group key (namespace/name) to the engine job of its current run. */
    private final Map<String, String> jobOf = new TreeMap<>();
    private final Map<String, Integer> runs = new TreeMap<>();
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
     * @return true when it belongs to a pod group (labelled with a group name), which this controller queues
     */
    public boolean manages(Pod pod) {
        return label(pod, GROUP_LABEL, KUEUE_GROUP_LABEL) != null && (namespace == null || namespace.equals(pod.getMetadata().getNamespace()));
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
            String g = label(p, GROUP_LABEL, KUEUE_GROUP_LABEL);
            if (g != null && p.getMetadata().getDeletionTimestamp() == null) {
                out.computeIfAbsent(p.getMetadata().getNamespace() + "/" + g, k -> new ArrayList<>()).add(p);
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
        }
    }

    /** @return the group's job, or null while pods are missing */
    private JobSpec spec(String key, List<Pod> pods) {
        Pod first = pods.get(0);
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
        if (pods.size() < total) {
            return null;
        }
        InvalidSpecException.check(pods.size() == total, TOTAL_COUNT_ANNOTATION, totalText, "group %s has %d pods, more than its %s %d", key,
                pods.size(), TOTAL_COUNT_ANNOTATION, total);
        String queue = label(first, QUEUE_LABELS.toArray(String[]::new));
        InvalidSpecException.requireDnsLabel("metadata.labels[" + QUEUE_LABELS.get(0) + "]", queue);
        Map<String, List<Pod>> roles = roles(pods);
        int run = runs.merge(key, 1, Integer::sum);
        JobSpec.Builder b = JobSpec.builder("podgroup:" + key + "#" + run).namespace(first.getMetadata().getNamespace()).queue(queue)
                .jobSet(key.substring(key.indexOf('/') + 1)).priority(priority(first.getSpec().getPriorityClassName()))
                .submitTimeMillis(first.getMetadata().getCreationTimestamp() == null ? 0
                        : java.time.Instant.parse(first.getMetadata().getCreationTimestamp()).toEpochMilli());
        roles.forEach((role, rp) -> {
            Resources r = PodResources.of(rp.get(0).getSpec());
            for (Pod p : rp) {
                InvalidSpecException.check(PodResources.of(p.getSpec()).equals(r), "pod " + p.getMetadata().getName(), null,
                        "pods of role %s of group %s must request the same resources", role, key);
            }
            Map<String, String> sel = rp.get(0).getSpec().getNodeSelector() == null ? Map.of() : rp.get(0).getSpec().getNodeSelector();
            b.podSet(new PodSet(role, rp.size(), rp.size(), r, sel, List.of(), null));
        });
        return b.build();
    }

    private static Map<String, List<Pod>> roles(List<Pod> pods) {
        Map<String, List<Pod>> roles = new LinkedHashMap<>();
        for (Pod p : pods) {
            String role = label(p, ROLE_LABEL);
            roles.computeIfAbsent(role == null ? "main" : role, k -> new ArrayList<>()).add(p);
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
        for (MemberPlacement m : a.placement().members()) {
            List<Pod> rp = roles.getOrDefault(m.podSet(), List.of());
            if (m.index() >= rp.size()) {
                scheduler.reportEvicted(a.jobId(), "pod group " + key + " lost pods before admission");
                return;
            }
        }
        for (MemberPlacement m : a.placement().members()) {
            Pod p = roles.get(m.podSet()).get(m.index());
            List<String> names = io.fairway.api.decision.Admit.flavorsOf(a.flavors(), m.podSet());
            ResourceFlavor f = names.size() <= 1 ? flavors.get(a.flavors().get(m.podSet()))
                    : io.fairway.core.admission.FlavorUnion.of(flavors.get(names.get(0)), names.subList(1, names.size()).stream().map(flavors::get).toList());
            client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).edit(x -> ungate(x, f, m.node(),
                    a.clusterQueue() + "/" + (f == null ? "" : f.name()) + "/" + m.node()));
        }
        LOG.info("pod group {} admitted by {} on {}", key, a.clusterQueue(), a.placement().nodes());
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
        List<PodSchedulingGate> gates = new ArrayList<>(pod.getSpec().getSchedulingGates());
        gates.removeIf(g -> GATES.contains(g.getName()));
        return new PodBuilder(pod).editMetadata().addToAnnotations(ADMITTED_ANNOTATION, admission).endMetadata()
                .editSpec().withNodeSelector(sel).withTolerations(tols).withSchedulingGates(gates).endSpec().build();
    }

    private void preempt(String key, List<Pod> pods, String why) {
        for (Pod p : pods) {
            client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).delete();
        }
        scheduler.cancel(jobOf.remove(key));
        LOG.info("pod group {} preempted ({}); its {} pods deleted; it queues again when they are recreated", key, why, pods.size());
    }

    private void feedback(Map<String, List<Pod>> groups) {
        for (Map.Entry<String, String> e : new ArrayList<>(jobOf.entrySet())) {
            JobStatus s = scheduler.status(e.getValue()).orElse(null);
            List<Pod> pods = groups.getOrDefault(e.getKey(), List.of());
            if (s == null || !s.state().holdsResources() || pods.isEmpty() || pods.stream().anyMatch(PodGroupController::gated)) {
                continue;
            }
            long succeeded = pods.stream().filter(p -> "Succeeded".equals(phase(p))).count();
            long running = pods.stream().filter(p -> "Running".equals(phase(p))).count();
            Optional<Pod> failed = pods.stream().filter(p -> "Failed".equals(phase(p))).findFirst();
            if (failed.isPresent()) {
                scheduler.reportFailed(e.getValue(), "pod " + failed.get().getMetadata().getName() + " failed");
                jobOf.remove(e.getKey());
            } else if (succeeded == pods.size()) {
                scheduler.reportFinished(e.getValue());
                jobOf.remove(e.getKey());
                LOG.info("pod group {} finished", e.getKey());
            } else if (s.state() == JobState.ADMITTED && running + succeeded == pods.size()) {
                scheduler.reportStarted(e.getValue());
            }
        }
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }
}
