package io.fairway.k8s.integration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * How Fairway queues one Kubernetes kind: in the spirit of Kueue's {@code GenericJob} (its {@code jobframework}),
 * an integration reads an object of its kind as pod sets, says whether it is suspended, and edits it to suspend,
 * resume, admit (per pod set: node selector, tolerations, scheduling gates, pod count) and resize it. It reads
 * whether the object ended, and which object, pod set and member each pod runs for.
 *
 * <p><b>Reading and editing.</b> Objects are read as fabric8 {@link GenericKubernetesResource}s (a kind fabric8 has a
 * typed model for, such as {@code batch/v1} Job, is converted). Edits are made on a copy of the object's JSON
 * ({@link ObjectNode}, as the API server returns it); the adapter turns the difference into a JSON patch of exactly the
 * changed paths, guarded by the object's {@code resourceVersion}, so an integration never talks to the API server.
 * Only {@link #setSuspended}, {@link #admit} and {@link #setCount} edit; every other method reads.
 *
 * <p><b>Restoring.</b> Before an admission's edit is written, the adapter records the previous value of every path
 * it changes (or that the path was absent) in the annotation {@code fairway.io/original-template}; preemption
 * writes them back and suspends the object, so the object's spec is again exactly what its author wrote. An
 * integration has nothing to restore itself; while an object is admitted, {@link #podSets} is called on the restored
 * view, so the engine sees the object as it was submitted.
 *
 * <p><b>Discovery.</b> Integrations are found with {@link java.util.ServiceLoader}: list the implementing class (public,
 * with a public no-argument constructor) in {@code META-INF/services/io.fairway.k8s.integration.Integration}. The
 * adapter queues a kind only when its {@link #name()} is enabled in the configuration ({@code integrations:} in the
 * queues YAML, or {@code AdapterOptions.Builder#integrations}); the default enables {@code batch/v1.Job} only. See
 * {@link Integrations}.
 *
 * <pre>{@code
 * public final class SleeperIntegration implements Integration {
 *     public KindRef kind() { return new KindRef("example.com", "v1", "Sleeper", "sleepers"); }
 *     public List<PodSetTemplate> podSets(GenericKubernetesResource o) {
 *         return List.of(PodSetTemplate.of("main", Specs.intAt(o, "/spec/replicas", 1), "/spec/template", Specs.template(o, "/spec/template")));
 *     }
 *     public boolean isSuspended(GenericKubernetesResource o) { return Specs.boolAt(o, "/spec/suspend", false); }
 *     public void setSuspended(ObjectNode o, boolean s) { Specs.set(o, "/spec/suspend", s); }
 *     public Optional<PodRef> podOf(Pod p) { return Specs.label(p, "example.com/sleeper").map(n -> new PodRef(n, "main", null)); }
 *     public WorkloadOutcome outcome(GenericKubernetesResource o, List<Pod> pods) { return Specs.podsOutcome(pods, podSets(o)); }
 * }
 * }</pre>
 *
 * <p>Implementations are stateless and thread-safe; every method may be called for any object of the kind. An
 * integration that must read other objects (a runtime, the served CRD) is given read access once through
 * {@link #connect}.
 */
public interface Integration {
    /** @return the kind this integration queues */
    KindRef kind();

    /** @return the name it is enabled by in the configuration: {@link KindRef#name()} ({@code batch/v1.Job}) by default */
    default String name() {
        return kind().name();
    }

    /**
     * The object's pod sets, as its author wrote them. Each multi-pod-set object is admitted as one gang: all its
     * pod sets or none.
     *
     * @param object an object of the kind
     * @return its pod sets (at least one, names unique)
     * @throws io.fairway.api.InvalidSpecException naming the field and value when the object cannot be queued as it is
     */
    List<PodSetTemplate> podSets(GenericKubernetesResource object);

    /**
     * @param object an object of the kind
     * @return true when it is suspended (its pods are not, or no longer, to run)
     */
    boolean isSuspended(GenericKubernetesResource object);

    /**
     * Suspends or resumes the object: writes only the kind's documented suspend field ({@code spec.suspend},
     * {@code spec.runPolicy.suspend} …).
     *
     * @param object the object's JSON, edited in place
     * @param suspended true to suspend, false to resume
     */
    void setSuspended(ObjectNode object, boolean suspended);

    /**
     * Admits the object (the adapter resumes it with {@link #setSuspended} afterwards, in the same write): for each
     * pod set, merges {@link PodSetAdmission#nodeSelector()} into the template's node selector, adds the
     * tolerations and scheduling gates not yet there, and sets the pod count with {@link #setCount} when it differs
     * from what the author wrote. Override only when a kind keeps these elsewhere.
     *
     * @param object the object's JSON, edited in place
     * @param podSets the object's pod sets, as {@link #podSets} read them
     * @param admissions one per pod set
     */
    default void admit(ObjectNode object, List<PodSetTemplate> podSets, List<PodSetAdmission> admissions) {
        for (PodSetAdmission a : admissions) {
            PodSetTemplate ps = podSets.stream().filter(p -> p.name().equals(a.name())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no pod set " + a.name() + " in " + kind().name()));
            Specs.injectIntoTemplate(object, ps.templatePointer(), a);
            if (a.count() != ps.count()) {
                setCount(object, ps.name(), a.count());
            }
        }
    }

    /**
     * Whether the API server lets the scheduling directives of the kind's pod templates (node selector, tolerations,
     * scheduling gates, template labels and annotations) change only while the <em>stored</em> object is suspended
     * and has not started, as kube-apiserver does for a batch/v1 Job. Then an eviction is written in steps, as Kueue
     * does: suspend; clear the {@link #startedMarkers} through the status subresource; restore the templates. And an
     * admission of a suspended object that still carries a started marker clears it first. A kind whose webhook also
     * waits for the pods to be gone (a TrainJob) answers true too and says so in {@link #editsHeld}. Otherwise (the
     * default) the templates are restored in the write that suspends.
     *
     * @return true when the templates may change only after the suspension is stored
     */
    default boolean restoreAfterSuspend() {
        return false;
    }

    /**
     * @return status fields (JSON pointers) whose presence makes the API server hold the stored object's pod templates
     *     fixed even while it is suspended ({@code /status/startTime} of a batch/v1 Job); cleared through the status
     *     subresource once the object is suspended. Empty by default.
     */
    default List<String> startedMarkers() {
        return List.of();
    }

    /**
     * Whether the API server holds admission's edits of this object fixed for now, although it is suspended: a kind
     * whose operator's webhook also waits for the object's pods to be gone (a TrainJob, while its JobSet has active
     * pods). The adapter then leaves a suspended object as it is, with its admission recorded: an eviction is
     * finished (the edits restored, the admission forgotten) in a later pass, once this answers empty; an admission
     * of it is refused until then and retried by a later round. Asked only of a suspended object of a kind with
     * {@link #restoreAfterSuspend()}.
     *
     * @param object the suspended object, as stored
     * @return why its edits cannot be written yet, or empty when they can (the default)
     */
    default Optional<String> editsHeld(GenericKubernetesResource object) {
        return Optional.empty();
    }

    /**
     * @param object the object about to be admitted, as stored (suspended)
     * @return true when the API server lets admission's edits change only while the object <em>stays</em>
     *     suspended (a TrainJob on Trainer v2.0: {@code podSpecOverrides}): the edits are then written first and the
     *     object resumed in a second write. False by default: edits and resume go in one write.
     */
    default boolean resumeAfterEdits(GenericKubernetesResource object) {
        return false;
    }

    /**
     * @return true when an admitted object's pod count may change in place ({@link #setCount} on a running object):
     *     elastic kinds such as a batch/v1 Job's parallelism
     */
    default boolean resizable() {
        return false;
    }

    /**
     * Sets a pod set's pod count: at admission when an elastic pod set is admitted below its most, and on a resize.
     *
     * @param object the object's JSON, edited in place
     * @param podSet the pod set's name
     * @param count the new pod count
     * @throws UnsupportedOperationException when the kind's pod counts are fixed (the default)
     */
    default void setCount(ObjectNode object, String podSet, int count) {
        throw new UnsupportedOperationException(kind().name() + " cannot change the pod count of pod set " + podSet);
    }

    /**
     * @param pod any pod in a namespace the adapter watches
     * @return the object, pod set and member the pod runs for, when it is one of this kind's pods
     */
    Optional<PodRef> podOf(Pod pod);

    /**
     * The names its pods' {@link PodRef#ownerName()} carry: the object's own name by default; a kind whose operator
     * names the pods' owner otherwise lists those names too (a RayJob: the RayCluster named in
     * {@code status.rayClusterName}).
     *
     * @param object an object of the kind
     * @return the owner names its pods carry (never empty)
     */
    default java.util.Set<String> podOwners(GenericKubernetesResource object) {
        return java.util.Set.of(object.getMetadata().getName());
    }

    /**
     * Gives the integration read access to the API server (called once by the adapter and the UnifiedJob controller,
     * before any other call). The default ignores it.
     *
     * @param lookup reads objects; {@link ApiLookup#NONE} without an API server
     */
    default void connect(ApiLookup lookup) {
    }

    /**
     * @param object an object of the kind
     * @return true when this object's pod count may change in place; by default {@link #resizable()} (a PyTorchJob
     *     with an {@code elasticPolicy} answers per object)
     */
    default boolean resizableInPlace(GenericKubernetesResource object) {
        return resizable();
    }

    /**
     * Whether {@link #setCount} can give the pod set every count from {@code min} to {@code max} — in place when
     * {@link #resizableInPlace}, otherwise on a new object created at that count. A UnifiedJob whose range this
     * refuses is not queued; its condition carries the reason.
     *
     * @param object an object of the kind
     * @param podSet the pod set that scales
     * @param min the fewest pods
     * @param max the most pods
     * @return null when every count in range can be written, else why not (naming the field)
     */
    default String countChangeRefusal(GenericKubernetesResource object, String podSet, int min, int max) {
        return kind().name() + " cannot change the pod count of pod set " + podSet + "; set minReplicas = maxReplicas = its count";
    }

    /**
     * Something about how an admitted object runs that its owner should see as a Warning Event, though it has not
     * ended: an operator too old to honour what admission wrote, for instance. The adapter emits each distinct
     * warning once per object.
     *
     * @param object an admitted object of the kind
     * @param pods its pods, oldest first
     * @return the warning, or empty (the default)
     */
    default Optional<String> warning(GenericKubernetesResource object, List<Pod> pods) {
        return Optional.empty();
    }

    /**
     * Whether the object ended, read from its status (conditions) and, where the kind says little, its pods.
     *
     * @param object an admitted object of the kind
     * @param pods its pods ({@link #podOf} names it), oldest first
     * @return active, succeeded or failed (with the kind's message)
     */
    WorkloadOutcome outcome(GenericKubernetesResource object, List<Pod> pods);

    /**
     * @param object an object of the kind
     * @return the PriorityClass it names, or null: by default the first pod set template's
     *     {@code spec.priorityClassName}
     */
    default String priorityClassName(GenericKubernetesResource object) {
        for (PodSetTemplate p : podSets(object)) {
            String pc = p.template().getSpec().getPriorityClassName();
            if (pc != null && !pc.isBlank()) {
                return pc;
            }
        }
        return null;
    }
}
