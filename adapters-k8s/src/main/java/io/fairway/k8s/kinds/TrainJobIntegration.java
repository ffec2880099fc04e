package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Kubeflow Trainer v2's TrainJob ({@code trainer.kubeflow.org/v1alpha1}): one pod set {@value #POD_SET} — the
 * runtime's trainer Job, which the TrainJob's JobSet names {@code node} — of {@code spec.trainer.numNodes} pods, each
 * requesting {@code spec.trainer.resourcesPerNode}. Suspended through {@code spec.suspend}. Admission appends one
 * entry to {@code spec.podSpecOverrides} targeting the {@code node} job, with the flavor's {@code nodeSelector} and
 * {@code tolerations} and the topology gate in {@code schedulingGates}; preemption removes it again.
 *
 * <p>What is not modelled: the pod sets come from the TrainJob alone, not from its (Cluster)TrainingRuntime, so
 * {@code spec.trainer.numNodes} and {@code spec.trainer.resourcesPerNode} must be set (a TrainJob without them is
 * refused, naming the field); the runtime's other replicated jobs (dataset and model initializers, an MPI launcher)
 * are neither counted nor gated, and resources the runtime adds to the trainer container are not counted. The
 * TrainJob's pods belong to the JobSet the trainer creates with the TrainJob's name, so they are found by the JobSet
 * labels ({@code jobset.sigs.k8s.io/jobset-name}, {@code jobset.sigs.k8s.io/replicatedjob-name: node}).
 *
 * <p>Written against the {@code v1alpha1} TrainJob of Trainer 2.0, whose {@code spec.podSpecOverrides} entries carry
 * {@code nodeSelector}, {@code tolerations} and {@code schedulingGates} directly; later releases renamed the field
 * ({@code spec.podTemplateOverrides}) and then replaced it, which this integration does not write.
 *
 * <p>API reference: https://github.com/kubeflow/trainer/blob/v2.0.0/pkg/apis/trainer/v1alpha1/trainjob_types.go ({@code suspend},
 * {@code trainer.numNodes}, {@code trainer.resourcesPerNode}, {@code podSpecOverrides[].targetJobs[].name},
 * {@code .nodeSelector}, {@code .tolerations}, {@code .schedulingGates}); fields written: {@code spec.suspend},
 * {@code spec.podSpecOverrides}.
 */
public final class TrainJobIntegration implements Integration {
    /** trainer.kubeflow.org/v1alpha1 TrainJob. */
    public static final KindRef KIND = new KindRef("trainer.kubeflow.org", "v1alpha1", "TrainJob", "trainjobs");
    /** The name of the trainer's pod set, and of the runtime's trainer Job. */
    public static final String POD_SET = "node";

    /** For {@link java.util.ServiceLoader}. */
    public TrainJobIntegration() {
    }

    @Override
    public KindRef kind() {
        return KIND;
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource tj) {
        JsonNode n = Specs.at(tj, "/spec/trainer/numNodes");
        InvalidSpecException.check(n.isInt(), "spec.trainer.numNodes", n.isMissingNode() ? null : n.toString(),
                "spec.trainer.numNodes must be set for Fairway to queue the TrainJob (the runtime's default is not read)");
        int nodes = n.intValue();
        InvalidSpecException.check(nodes > 0, "spec.trainer.numNodes", nodes, "spec.trainer.numNodes must be > 0, was %d", nodes);
        JsonNode res = Specs.at(tj, "/spec/trainer/resourcesPerNode");
        InvalidSpecException.check(res.isObject() && (res.has("requests") || res.has("limits")), "spec.trainer.resourcesPerNode", null,
                "spec.trainer.resourcesPerNode must give requests or limits for Fairway to queue the TrainJob (the runtime's are not read)");
        ResourceRequirements rr = Specs.MAPPER.convertValue(res, ResourceRequirements.class);
        PodTemplateSpec template = new PodTemplateSpecBuilder().withNewSpec().addNewContainer().withName(POD_SET).withResources(rr).endContainer()
                .endSpec().build();
        return List.of(PodSetTemplate.of(POD_SET, nodes, "/spec/trainer", template));
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource tj) {
        return Specs.boolAt(tj, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode tj, boolean suspended) {
        Specs.set(tj, "/spec/suspend", suspended);
    }

    /** Appends one {@code podSpecOverrides} entry for the {@code node} job with the admission's fields. */
    @Override
    public void admit(ObjectNode tj, List<PodSetTemplate> podSets, List<PodSetAdmission> admissions) {
        for (PodSetAdmission a : admissions) {
            ObjectNode spec = tj.has("spec") ? (ObjectNode) tj.get("spec") : tj.putObject("spec");
            ArrayNode overrides = spec.path("podSpecOverrides").isArray() ? (ArrayNode) spec.get("podSpecOverrides") : spec.putArray("podSpecOverrides");
            ObjectNode o = overrides.addObject();
            o.putArray("targetJobs").addObject().put("name", POD_SET);
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
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> js = Specs.label(pod, JobSetIntegration.JOBSET_NAME_LABEL);
        Optional<String> rj = Specs.label(pod, JobSetIntegration.REPLICATED_JOB_LABEL);
        if (js.isEmpty() || rj.isEmpty() || !POD_SET.equals(rj.get())) {
            return Optional.empty();
        }
        String idx = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get("batch.kubernetes.io/job-completion-index");
        return Optional.of(new PodRef(js.get(), POD_SET, Specs.intOrNull(idx)));
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
