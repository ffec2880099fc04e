package io.fairway.k8s.kinds;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Flux Operator's {@code MiniCluster} ({@code flux-framework.org/v1alpha2}): one pod set of {@code spec.size}
 * pods (the Flux brokers of one HPC cluster), resizable in place up to {@code spec.maxSize}.
 *
 * <p>API reference: https://github.com/flux-framework/flux-operator/blob/main/api/v1alpha2/minicluster_types.go
 * (and the CRD in {@code examples/dist/flux-operator.yaml}); docs: https://flux-framework.org/flux-operator/.
 *
 * <p><b>What the kind supports.</b> {@code MiniClusterSpec} has no suspend field and no pod template: its pods are
 * described by {@code spec.containers[]} (image, {@code resources.requests} / {@code resources.limits}) and
 * {@code spec.pod} ({@code nodeSelector}, {@code tolerations} — on flux-operator main since August 2025, in no release
 * tag yet —, labels, annotations, service account, scheduler name) — no scheduling gates. So Fairway cannot hold a
 * MiniCluster that exists: it queues one through a {@code UnifiedJob}
 * ({@code jobType: flux-framework.org/v1alpha2.MiniCluster}), whose controller creates the MiniCluster when it is
 * admitted and deletes it when it is preempted ({@link #setSuspended} refuses). Kueue has no MiniCluster
 * integration either; with Kueue, a MiniCluster is queued through the Indexed Job the operator creates
 * ({@code spec.jobLabels}).
 *
 * <p><b>Fields read:</b> {@code spec.size} (default 1), {@code spec.maxSize}, {@code spec.containers[].name},
 * {@code .image}, {@code .resources.requests}, {@code .resources.limits}, {@code spec.pod.nodeSelector}.
 * <b>Fields written</b> (the allow-list): {@code spec.size} (admission below the most, resize),
 * {@code spec.pod.nodeSelector} (the flavor's node labels) and {@code spec.pod.tolerations} (the flavor's
 * tolerations: {@code key}, {@code operator}, {@code value}, {@code effect}). Whether the installed CRD has
 * {@code spec.pod.tolerations} is read from its schema ({@link #connect}); with an older operator, whose CRD lacks it
 * (the API server would prune the field silently), a flavor with tolerations cannot admit a MiniCluster and the
 * admission fails naming the field.
 *
 * <p><b>Sizes.</b> The operator records the most a MiniCluster may grow to when it creates it,
 * {@code status.maximumSize} = max({@code spec.size}, {@code spec.maxSize}), and reverts any larger {@code spec.size}
 * to it ({@code disallowScale}, controllers/flux/scale.go). So a resize never writes more than
 * {@code status.maximumSize} (or, before the operator wrote it, {@code spec.maxSize}), and a UnifiedJob whose
 * {@code maxReplicas} is above the template's {@code spec.maxSize} (or its {@code spec.size} when it has none) is refused.
 * Pods are found by the Job controller's label {@code batch.kubernetes.io/job-name} (the operator's Indexed Job is
 * named after the MiniCluster) and their completion index.
 */
public final class MiniClusterIntegration implements Integration {
    /** The kind. */
    public static final KindRef KIND = new KindRef("flux-framework.org", "v1alpha2", "MiniCluster", "miniclusters");
    /** The pod set's name. */
    public static final String POD_SET = "flux";
    /** Where the pod settings live (the pointer admission edits). */
    static final String POD = "/spec/pod";
    private static final String JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
    private static final String INDEX_LABEL = "batch.kubernetes.io/job-completion-index";

    /** Public for {@link java.util.ServiceLoader}. */
    public MiniClusterIntegration() {
    }

    @Override
    public KindRef kind() {
        return KIND;
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource object) {
        ObjectNode o = Specs.toJson(object);
        int size = Specs.intOf(o.at("/spec/size"), "spec.size", 1);
        InvalidSpecException.check(size > 0, "spec.size", size, "spec.size must be > 0, was %d", size);
        JsonNode containers = o.at("/spec/containers");
        InvalidSpecException.check(containers.isArray() && !containers.isEmpty(), "spec.containers", null, "a MiniCluster needs spec.containers");
        PodTemplateSpecBuilder b = new PodTemplateSpecBuilder().withNewSpec().endSpec();
        for (int i = 0; i < containers.size(); i++) {
            JsonNode c = containers.get(i);
            ContainerBuilder cb = new ContainerBuilder().withName(c.path("name").asText("container-" + i)).withImage(c.path("image").asText(null))
                    .withNewResources().withRequests(quantities(c.at("/resources/requests"), "spec.containers[" + i + "].resources.requests"))
                    .withLimits(quantities(c.at("/resources/limits"), "spec.containers[" + i + "].resources.limits")).endResources();
            b.editSpec().addToContainers(cb.build()).endSpec();
        }
        JsonNode sel = o.at(POD + "/nodeSelector");
        if (sel.isObject()) {
            Map<String, String> m = new TreeMap<>();
            sel.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
            b.editSpec().withNodeSelector(m).endSpec();
        }
        PodTemplateSpec t = b.build();
        return List.of(PodSetTemplate.of(POD_SET, size, POD, t));
    }

    private static Map<String, Quantity> quantities(JsonNode n, String field) {
        Map<String, Quantity> m = new LinkedHashMap<>();
        if (n.isObject()) {
            n.fields().forEachRemaining(e -> {
                String v = e.getValue().asText();
                InvalidSpecException.check(!v.isBlank(), field + "." + e.getKey(), v, "%s.%s must be a quantity, was \"%s\"", field, e.getKey(), v);
                m.put(e.getKey(), new Quantity(v));
            });
        }
        return m;
    }

    /** @return false: a MiniCluster has no suspend field (one that exists runs) */
    @Override
    public boolean isSuspended(GenericKubernetesResource object) {
        return false;
    }

    /**
     * @throws UnsupportedOperationException always: {@code MiniClusterSpec} has no suspend field; queue a MiniCluster
     *     through a UnifiedJob, which creates it at admission and deletes it at preemption
     */
    @Override
    public void setSuspended(ObjectNode object, boolean suspended) {
        throw new UnsupportedOperationException("flux-framework.org/v1alpha2 MiniCluster has no suspend field; queue it through a UnifiedJob");
    }

    @Override
    public void admit(ObjectNode object, List<PodSetTemplate> podSets, List<PodSetAdmission> admissions) {
        for (PodSetAdmission a : admissions) {
            if (!POD_SET.equals(a.name())) {
                throw new IllegalArgumentException("no pod set " + a.name() + " in a MiniCluster");
            }
            if (!a.tolerations().isEmpty()) {
                InvalidSpecException.check(servesTolerations(), "spec.pod.tolerations", a.tolerations().toString(),
                        "the installed MiniCluster CRD has no spec.pod.tolerations (a flux-operator older than the August 2025 main); "
                                + "a flavor with tolerations cannot admit a MiniCluster until the operator is upgraded");
                JsonNode pod = object.at(JsonPointer.compile(POD));
                List<Map<String, String>> tols = new ArrayList<>();
                if (pod.path("tolerations").isArray()) {
                    pod.get("tolerations").forEach(t -> tols.add(fluxToleration(t.path("key").asText(""), t.path("operator").asText(""),
                            t.path("value").asText(""), t.path("effect").asText(""))));
                }
                for (io.fabric8.kubernetes.api.model.Toleration t : a.tolerations()) {
                    Map<String, String> m = fluxToleration(t.getKey(), t.getOperator(), t.getValue(), t.getEffect());
                    if (!tols.contains(m)) {
                        tols.add(m);
                    }
                }
                Specs.set(object, POD + "/tolerations", tols);
            }
            if (!a.nodeSelector().isEmpty()) {
                JsonNode pod = object.at(JsonPointer.compile(POD));
                ObjectNode sel = pod.path("nodeSelector").isObject() ? (ObjectNode) pod.get("nodeSelector") : null;
                Map<String, String> merged = new TreeMap<>();
                if (sel != null) {
                    sel.fields().forEachRemaining(e -> merged.put(e.getKey(), e.getValue().asText()));
                }
                merged.putAll(a.nodeSelector());
                Specs.set(object, POD + "/nodeSelector", merged);
            }
            if (a.count() != podSets.get(0).count()) {
                setCount(object, POD_SET, a.count());
            }
        }
    }

    /** @return true: the Flux Operator scales a MiniCluster by {@code spec.size}, up to {@code spec.maxSize} */
    @Override
    public boolean resizable() {
        return true;
    }

    @Override
    public void setCount(ObjectNode object, String podSet, int count) {
        InvalidSpecException.check(POD_SET.equals(podSet), "podSet", podSet, "a MiniCluster has one pod set, %s; was %s", POD_SET, podSet);
        int recorded = Specs.intOf(object.at("/status/maximumSize"), "status.maximumSize", 0);
        int max = recorded > 0 ? recorded : Specs.intOf(object.at("/spec/maxSize"), "spec.maxSize", 0);
        InvalidSpecException.check(max == 0 || count <= max, "spec.size", count, "spec.size %d is above %s %d: the Flux Operator would revert it",
                count, recorded > 0 ? "status.maximumSize" : "spec.maxSize", max);
        Specs.set(object, "/spec/size", count);
    }

    /** Sizes up to {@code spec.maxSize} (or {@code spec.size} without one): what the operator lets the MiniCluster grow to. */
    @Override
    public String countChangeRefusal(GenericKubernetesResource object, String podSet, int min, int max) {
        int size = Specs.intAt(object, "/spec/size", 1);
        int maxSize = Specs.intAt(object, "/spec/maxSize", 0);
        int most = Math.max(size, maxSize);
        return max <= most ? null : "maxReplicas " + max + " is above the template's " + (maxSize > 0 ? "spec.maxSize " : "spec.size (no spec.maxSize) ") + most
                + ": the Flux Operator never grows a MiniCluster above max(spec.size, spec.maxSize) of its creation (status.maximumSize); set spec.maxSize";
    }

    private static Map<String, String> fluxToleration(String key, String operator, String value, String effect) {
        Map<String, String> m = new TreeMap<>();
        if (key != null && !key.isEmpty()) {
            m.put("key", key);
        }
        if (operator != null && !operator.isEmpty()) {
            m.put("operator", operator);
        }
        if (value != null && !value.isEmpty()) {
            m.put("value", value);
        }
        if (effect != null && !effect.isEmpty()) {
            m.put("effect", effect);
        }
        return m;
    }

    private volatile io.fairway.k8s.integration.ApiLookup lookup = io.fairway.k8s.integration.ApiLookup.NONE;

    @Override
    public void connect(io.fairway.k8s.integration.ApiLookup lookup) {
        this.lookup = lookup;
    }

    /** @return false only when the installed CRD can be read and its served v1alpha2 schema has no spec.pod.tolerations */
    boolean servesTolerations() {
        GenericKubernetesResource crd = lookup.crdOf(KIND);
        return crd == null || CrdSchema.has(crd, KIND.version(), "spec", "pod", "tolerations") != Boolean.FALSE;
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        return Specs.label(pod, JOB_NAME_LABEL).map(n -> new PodRef(n, POD_SET, Specs.intOrNull(Specs.label(pod, INDEX_LABEL).orElse(null))));
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource object, List<Pod> pods) {
        return Specs.podsOutcome(new ArrayList<>(pods), podSets(object));
    }
}
