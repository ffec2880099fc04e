package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.ApiLookup;
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
 * Kubeflow Trainer v2's TrainJob ({@code trainer.kubeflow.org/v1alpha1}). Its pods are those of the JobSet the
 * trainer builds from the runtime the TrainJob names ({@code spec.runtimeRef}: a ClusterTrainingRuntime by default, or
 * a TrainingRuntime in its namespace), so its pod sets are read from that runtime, as the trainer resolves it: one
 * pod set per replicated job of the runtime's {@code spec.template.spec.replicatedJobs}, named after it, of
 * {@code parallelism} pods (default 1) — for the trainer's job (label
 * {@code trainer.kubeflow.org/trainjob-ancestor-step: trainer}) {@code spec.mlPolicy.numNodes}, and
 * {@code spec.trainer.numNodes} when the TrainJob sets it — with the replicated job's pod template, the
 * {@code node} container's resources merged with {@code spec.trainer.resourcesPerNode}
 * (pkg/runtime/core/trainingruntime.go, {@code newRuntimeInfo}). When the runtime cannot be read (no lookup, not
 * found, forbidden), the TrainJob alone is read: one pod set {@value #POD_SET} of {@code spec.trainer.numNodes} pods
 * requesting {@code spec.trainer.resourcesPerNode}, both then required. Suspended through {@code spec.suspend}.
 *
 * <p><b>Which Trainer API.</b> Every Trainer v2 release serves {@code v1alpha1}, but the field an admission writes
 * changed: {@code spec.podSpecOverrides} (v2.0), renamed {@code spec.podTemplateOverrides} (v2.1), replaced by
 * {@code spec.runtimePatches} (v2.2 and later). Discovery names the group and version only, so the served API is read
 * from the installed CRD's schema ({@code trainjobs.trainer.kubeflow.org}, through {@link #connect}):
 * <ul>
 *   <li>{@code runtimePatches} (v2.2+, the current API): admission adds one entry with
 *       {@code manager: }{@value #MANAGER} — as Kueue adds its own with {@code kueue.x-k8s.io/manager} — whose
 *       {@code trainingRuntimeSpec.template.spec.replicatedJobs[]} carry each pod set's {@code nodeSelector},
 *       {@code tolerations} and {@code schedulingGates}; it is written with the resume, and removed on preemption;</li>
 *   <li>{@code podSpecOverrides} (v2.0): one entry per pod set, {@code targetJobs[].name} and the same three fields;</li>
 *   <li>{@code podTemplateOverrides} only (v2.1): not supported — the TrainJob is refused with an Event saying so;</li>
 *   <li>CRD unreadable (no {@code get} on customresourcedefinitions): the current API is assumed.</li>
 * </ul>
 * The trainer's webhook lets {@code runtimePatches} change only while the stored or the updated TrainJob is
 * suspended, and {@code podSpecOverrides} (v2.0) only while the updated one is; either only while no replicated job
 * of the TrainJob's JobSet (same name and namespace) counts active pods in {@code status.replicatedJobsStatus}
 * (kubeflow/trainer, pkg/runtime/framework/plugins/jobset/jobset.go: {@code checkRuntimePatchesImmutability} in
 * v2.3.0, {@code checkPodSpecOverridesImmutability} in v2.0.0). So an eviction suspends first
 * ({@link #restoreAfterSuspend()}) and removes Fairway's entry only once the JobSet's pods are gone
 * ({@link #editsHeld}), in a later pass; on v2.0 an admission writes its overrides before it resumes
 * ({@link #resumeAfterEdits}).
 *
 * <p>API reference: https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/apis/trainer/v1alpha1/trainjob_types.go
 * ({@code RuntimePatch}, {@code Trainer}); v2.0: .../v2.0.0/... ({@code PodSpecOverride}). Pods are found by the JobSet
 * labels ({@code jobset.sigs.k8s.io/jobset-name} = the TrainJob's name, {@code jobset.sigs.k8s.io/replicatedjob-name}).
 */
public final class TrainJobIntegration implements Integration {
    /** trainer.kubeflow.org/v1alpha1 TrainJob. */
    public static final KindRef KIND = new KindRef("trainer.kubeflow.org", "v1alpha1", "TrainJob", "trainjobs");
    /** The name of the trainer's pod set, and of the runtime's trainer Job. */
    public static final String POD_SET = "node";
    /** The {@code runtimePatches[].manager} of Fairway's entry. */
    public static final String MANAGER = "fairway.io/scheduler";
    /** ClusterTrainingRuntime. */
    static final KindRef CLUSTER_RUNTIME = new KindRef("trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes");
    /** TrainingRuntime. */
    static final KindRef RUNTIME = new KindRef("trainer.kubeflow.org", "v1alpha1", "TrainingRuntime", "trainingruntimes");
    static final String ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";

    /** The Trainer API the installed CRD serves. */
    public enum Api {
        /** v2.2 and later: {@code spec.runtimePatches}. */
        RUNTIME_PATCHES,
        /** v2.1: {@code spec.podTemplateOverrides} (not supported). */
        POD_TEMPLATE_OVERRIDES,
        /** v2.0: {@code spec.podSpecOverrides}. */
        POD_SPEC_OVERRIDES
    }

    private volatile ApiLookup lookup = ApiLookup.NONE;

    /** For {@link java.util.ServiceLoader}. */
    public TrainJobIntegration() {
    }

    @Override
    public KindRef kind() {
        return KIND;
    }

    @Override
    public void connect(ApiLookup lookup) {
        this.lookup = lookup;
    }

    /** @return the API the installed CRD serves; {@link Api#RUNTIME_PATCHES} when the CRD cannot be read */
    public Api api() {
        GenericKubernetesResource crd = lookup.crdOf(KIND);
        if (crd == null) {
            return Api.RUNTIME_PATCHES;
        }
        InvalidSpecException.check(CrdSchema.serves(crd, KIND.version()), "apiVersion", KIND.apiVersion(),
                "the installed TrainJob CRD does not serve %s; Fairway supports Kubeflow Trainer v2.0 and v2.2 or later", KIND.apiVersion());
        if (CrdSchema.has(crd, KIND.version(), "spec", "runtimePatches") == Boolean.TRUE) {
            return Api.RUNTIME_PATCHES;
        }
        if (CrdSchema.has(crd, KIND.version(), "spec", "podSpecOverrides") == Boolean.TRUE) {
            return Api.POD_SPEC_OVERRIDES;
        }
        if (CrdSchema.has(crd, KIND.version(), "spec", "podTemplateOverrides") == Boolean.TRUE) {
            return Api.POD_TEMPLATE_OVERRIDES;
        }
        return Api.RUNTIME_PATCHES;
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource tj) {
        Api api = api();
        InvalidSpecException.check(api != Api.POD_TEMPLATE_OVERRIDES, "spec.podTemplateOverrides", null,
                "the installed Kubeflow Trainer serves v2.1's spec.podTemplateOverrides, which Fairway does not write; "
                        + "Fairway supports Trainer v2.0 (spec.podSpecOverrides) and v2.2 or later (spec.runtimePatches): upgrade the trainer");
        GenericKubernetesResource runtime = runtime(tj);
        return runtime == null ? fromTrainJob(tj) : fromRuntime(tj, runtime);
    }

    private GenericKubernetesResource runtime(GenericKubernetesResource tj) {
        String name = Specs.at(tj, "/spec/runtimeRef/name").asText("");
        if (name.isEmpty()) {
            return null;
        }
        String kind = Specs.at(tj, "/spec/runtimeRef/kind").asText("ClusterTrainingRuntime");
        return "TrainingRuntime".equals(kind) ? lookup.get(RUNTIME, tj.getMetadata().getNamespace(), name) : lookup.get(CLUSTER_RUNTIME, null, name);
    }

    /** The pod sets of the JobSet the trainer builds from the runtime. */
    private static List<PodSetTemplate> fromRuntime(GenericKubernetesResource tj, GenericKubernetesResource runtime) {
        ObjectNode rt = Specs.toJson(runtime);
        JsonNode rjs = rt.at("/spec/template/spec/replicatedJobs");
        String rtName = runtime.getKind() + " " + runtime.getMetadata().getName();
        InvalidSpecException.check(rjs.isArray() && !rjs.isEmpty(), "spec.runtimeRef.name", runtime.getMetadata().getName(),
                "%s has no spec.template.spec.replicatedJobs", rtName);
        JsonNode numNodes = Specs.at(tj, "/spec/trainer/numNodes");
        JsonNode perNode = Specs.at(tj, "/spec/trainer/resourcesPerNode");
        int policyNodes = Specs.intOf(rt.at("/spec/mlPolicy/numNodes"), "spec.mlPolicy.numNodes", 1);
        List<PodSetTemplate> out = new ArrayList<>();
        for (int i = 0; i < rjs.size(); i++) {
            JsonNode rj = rjs.get(i);
            String name = rj.path("name").asText("");
            String field = rtName + " spec.template.spec.replicatedJobs[" + i + "]";
            InvalidSpecException.check(!name.isEmpty(), field + ".name", null, "%s has no name", field);
            int count = Specs.intOf(rj.at("/template/spec/parallelism"), field + ".template.spec.parallelism", 1);
            boolean trainer = "trainer".equals(rj.at("/template/metadata/labels").path(ANCESTOR_LABEL).asText(""));
            if (trainer) {
                count = numNodes.isInt() ? numNodes.intValue() : policyNodes;
            }
            InvalidSpecException.check(count > 0, field, count, "%s runs %d pods; it must run at least one", field, count);
            String pointer = "/spec/template/spec/replicatedJobs/" + i + "/template/spec/template";
            PodTemplateSpec t = Specs.templateOf(rj.at("/template/spec/template"), pointer);
            if ((trainer || POD_SET.equals(name)) && perNode.isObject()) {
                ResourceRequirements rr = Specs.MAPPER.convertValue(perNode, ResourceRequirements.class);
                for (Container c : t.getSpec().getContainers()) {
                    if (POD_SET.equals(c.getName())) {
                        c.setResources(merge(c.getResources(), rr));
                    }
                }
            }
            out.add(PodSetTemplate.of(name, count, "/spec/runtimeRef", t));
        }
        return out;
    }

    private static ResourceRequirements merge(ResourceRequirements base, ResourceRequirements over) {
        Map<String, Quantity> req = new LinkedHashMap<>(base == null || base.getRequests() == null ? Map.of() : base.getRequests());
        Map<String, Quantity> lim = new LinkedHashMap<>(base == null || base.getLimits() == null ? Map.of() : base.getLimits());
        if (over.getRequests() != null) {
            req.putAll(over.getRequests());
        }
        if (over.getLimits() != null) {
            lim.putAll(over.getLimits());
        }
        ResourceRequirements r = new ResourceRequirements();
        r.setRequests(req);
        r.setLimits(lim);
        return r;
    }

    /** Without the runtime: {@code spec.trainer.numNodes} pods of {@code spec.trainer.resourcesPerNode}. */
    private static List<PodSetTemplate> fromTrainJob(GenericKubernetesResource tj) {
        JsonNode n = Specs.at(tj, "/spec/trainer/numNodes");
        InvalidSpecException.check(n.isInt(), "spec.trainer.numNodes", n.isMissingNode() ? null : n.toString(),
                "spec.trainer.numNodes must be set for Fairway to queue the TrainJob when its runtime %s cannot be read",
                Specs.at(tj, "/spec/runtimeRef/name").asText("(none)"));
        int nodes = n.intValue();
        InvalidSpecException.check(nodes > 0, "spec.trainer.numNodes", nodes, "spec.trainer.numNodes must be > 0, was %d", nodes);
        JsonNode res = Specs.at(tj, "/spec/trainer/resourcesPerNode");
        InvalidSpecException.check(res.isObject() && (res.has("requests") || res.has("limits")), "spec.trainer.resourcesPerNode", null,
                "spec.trainer.resourcesPerNode must give requests or limits for Fairway to queue the TrainJob when its runtime cannot be read");
        ResourceRequirements rr = Specs.MAPPER.convertValue(res, ResourceRequirements.class);
        PodTemplateSpec template = new PodTemplateSpecBuilder().withNewSpec().addNewContainer().withName(POD_SET).withResources(rr).endContainer()
                .endSpec().build();
        return List.of(PodSetTemplate.of(POD_SET, nodes, "/spec/trainer", template));
    }

    /** Suspends before it restores: the webhook refuses override changes of a running TrainJob. */
    @Override
    public boolean restoreAfterSuspend() {
        return true;
    }

    /**
     * @return while the TrainJob's JobSet (read through the lookup) counts active pods in a replicated job, which one;
     *     empty when none does or there is no JobSet to read
     */
    @Override
    public Optional<String> editsHeld(GenericKubernetesResource tj) {
        GenericKubernetesResource js = lookup.current(JobSetIntegration.KIND, tj.getMetadata().getNamespace(), tj.getMetadata().getName());
        if (js == null) {
            return Optional.empty();
        }
        for (JsonNode rj : Specs.at(js, "/status/replicatedJobsStatus")) {
            int active = rj.path("active").asInt(0);
            if (active > 0) {
                return Optional.of("its JobSet's replicated job " + rj.path("name").asText() + " still has " + active + " active pods");
            }
        }
        return Optional.empty();
    }

    /** On v2.0 the webhook takes {@code podSpecOverrides} changes only on a TrainJob that stays suspended. */
    @Override
    public boolean resumeAfterEdits(GenericKubernetesResource tj) {
        return api() == Api.POD_SPEC_OVERRIDES;
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource tj) {
        return Specs.boolAt(tj, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode tj, boolean suspended) {
        Specs.set(tj, "/spec/suspend", suspended);
    }

    /** Writes the admission into Fairway's {@code runtimePatches} entry (v2.2+) or {@code podSpecOverrides} (v2.0). */
    @Override
    public void admit(ObjectNode tj, List<PodSetTemplate> podSets, List<PodSetAdmission> admissions) {
        ObjectNode spec = tj.has("spec") ? (ObjectNode) tj.get("spec") : tj.putObject("spec");
        if (api() == Api.POD_SPEC_OVERRIDES) {
            ArrayNode overrides = spec.path("podSpecOverrides").isArray() ? (ArrayNode) spec.get("podSpecOverrides") : spec.putArray("podSpecOverrides");
            for (PodSetAdmission a : admissions) {
                ObjectNode o = overrides.addObject();
                o.putArray("targetJobs").addObject().put("name", a.name());
                podSpecFields(o, a);
            }
            return;
        }
        ArrayNode patches = spec.path("runtimePatches").isArray() ? (ArrayNode) spec.get("runtimePatches") : spec.putArray("runtimePatches");
        for (int i = patches.size() - 1; i >= 0; i--) {
            if (MANAGER.equals(patches.get(i).path("manager").asText())) {
                patches.remove(i);
            }
        }
        ObjectNode mine = patches.addObject();
        mine.put("manager", MANAGER);
        ArrayNode rjs = mine.putObject("trainingRuntimeSpec").putObject("template").putObject("spec").putArray("replicatedJobs");
        for (PodSetAdmission a : admissions) {
            ObjectNode rj = rjs.addObject();
            rj.put("name", a.name());
            ObjectNode podSpec = rj.putObject("template").putObject("spec").putObject("template").putObject("spec");
            podSpecFields(podSpec, a);
        }
    }

    private static void podSpecFields(ObjectNode o, PodSetAdmission a) {
        if (!a.nodeSelector().isEmpty()) {
            ObjectNode sel = o.putObject("nodeSelector");
            new TreeMap<>(a.nodeSelector()).forEach(sel::put);
        }
        if (!a.tolerations().isEmpty()) {
            o.set("tolerations", Specs.MAPPER.valueToTree(a.tolerations()));
        }
        if (!a.schedulingGates().isEmpty()) {
            ArrayNode gates = o.putArray("schedulingGates");
            a.schedulingGates().forEach(g -> gates.addObject().put("name", g));
        }
    }

    /** {@code spec.trainer.numNodes} is written on a new TrainJob (the trainer builds its JobSet once). */
    @Override
    public void setCount(ObjectNode tj, String podSet, int count) {
        InvalidSpecException.check(POD_SET.equals(podSet), "podSet", podSet, "only the trainer's pod set %s scales; was %s", POD_SET, podSet);
        Specs.set(tj, "/spec/trainer/numNodes", count);
    }

    @Override
    public String countChangeRefusal(GenericKubernetesResource tj, String podSet, int min, int max) {
        return POD_SET.equals(podSet) ? null : "only the trainer's pod set " + POD_SET + " scales (spec.trainer.numNodes); was " + podSet;
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> js = Specs.label(pod, JobSetIntegration.JOBSET_NAME_LABEL);
        Optional<String> rj = Specs.label(pod, JobSetIntegration.REPLICATED_JOB_LABEL);
        if (js.isEmpty() || rj.isEmpty()) {
            return Optional.empty();
        }
        String idx = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get("batch.kubernetes.io/job-completion-index");
        return Optional.of(new PodRef(js.get(), rj.get(), Specs.intOrNull(idx)));
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource tj, List<Pod> pods) {
        Optional<JsonNode> failed = Specs.trueCondition(tj, "Failed");
        if (failed.isPresent()) {
            return WorkloadOutcome.failed(Specs.describe(failed.get(), "the TrainJob failed"));
        }
        return Specs.trueCondition(tj, "Complete").isPresent() ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }
}
