package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Kubeflow job shape shared by the training operator's {@code kubeflow.org/v1} kinds and MPIJob
 * {@code v2beta1}: a map of replica specs ({@code Master}, {@code Worker}, {@code Chief}, {@code PS},
 * {@code Launcher} …), each with {@code replicas} (default 1) and a pod {@code template}; suspended through
 * {@code spec.runPolicy.suspend}; the PriorityClass in {@code spec.runPolicy.schedulingPolicy.priorityClass} (else
 * the first template's); ended by the {@code Succeeded} or {@code Failed} condition. One pod set per replica type,
 * named in lowercase, leaders ({@code master}, {@code chief}, {@code launcher}) first so they are placed first; all
 * replica types are one gang.
 */
public abstract class ReplicaSpecsIntegration implements Integration {
    /** The operators' pod label naming the job. */
    public static final String JOB_NAME_LABEL = "training.kubeflow.org/job-name";
    /** The operators' pod label giving the replica index. */
    public static final String REPLICA_INDEX_LABEL = "training.kubeflow.org/replica-index";
    /** The operators' pod label naming the operator (its controller). */
    public static final String OPERATOR_NAME_LABEL = "training.kubeflow.org/operator-name";
    private static final List<String> LEADERS = List.of("master", "chief", "launcher");

    private final KindRef kind;
    private final String replicaSpecsField;
    private final String operatorName;
    private final String roleLabel;

    /**
     * @param kind the kind
     * @param replicaSpecsField the field under {@code spec} holding the replica specs ({@code pytorchReplicaSpecs})
     * @param operatorName the value of {@value #OPERATOR_NAME_LABEL} on its pods (a pod with another value is not its)
     * @param roleLabel the pod label holding the replica type (any case)
     */
    protected ReplicaSpecsIntegration(KindRef kind, String replicaSpecsField, String operatorName, String roleLabel) {
        this.kind = kind;
        this.replicaSpecsField = replicaSpecsField;
        this.operatorName = operatorName;
        this.roleLabel = roleLabel;
    }

    @Override
    public final KindRef kind() {
        return kind;
    }

    @Override
    public final List<PodSetTemplate> podSets(GenericKubernetesResource job) {
        JsonNode specs = Specs.at(job, "/spec/" + replicaSpecsField);
        String field = "spec." + replicaSpecsField;
        InvalidSpecException.check(specs.isObject() && !specs.isEmpty(), field, null, "the %s has no %s", kind.kind(), field);
        List<String> types = new ArrayList<>();
        specs.fieldNames().forEachRemaining(types::add);
        types.sort(Comparator.comparing((String t) -> {
            int i = LEADERS.indexOf(t.toLowerCase(Locale.ROOT));
            return i < 0 ? LEADERS.size() : i;
        }).thenComparing(t -> t));
        List<PodSetTemplate> out = new ArrayList<>();
        for (String type : types) {
            JsonNode rs = specs.get(type);
            int replicas = Specs.intOf(rs.get("replicas"), field + "." + type + ".replicas", 1);
            InvalidSpecException.check(replicas > 0, field + "." + type + ".replicas", replicas, "%s.%s.replicas must be > 0, was %d", field, type, replicas);
            String pointer = "/spec/" + replicaSpecsField + "/" + type + "/template";
            out.add(PodSetTemplate.of(type.toLowerCase(Locale.ROOT), replicas, pointer, Specs.templateOf(rs.get("template"), pointer)));
        }
        return out;
    }

    /**
     * @param job an object of the kind
     * @param podSet a pod set's name (the replica type in lowercase)
     * @return the replica type's key as written ({@code Worker}), or null
     */
    protected final String replicaType(JsonNode job, String podSet) {
        JsonNode specs = job.at("/spec/" + replicaSpecsField);
        java.util.Iterator<String> it = specs.fieldNames();
        while (it.hasNext()) {
            String t = it.next();
            if (t.toLowerCase(Locale.ROOT).equals(podSet)) {
                return t;
            }
        }
        return null;
    }

    /** Sets the replica type's {@code replicas}. */
    @Override
    public void setCount(ObjectNode job, String podSet, int count) {
        String type = replicaType(job, podSet);
        InvalidSpecException.check(type != null, "podSet", podSet, "no replica type %s in spec.%s", podSet, replicaSpecsField);
        Specs.set(job, "/spec/" + replicaSpecsField + "/" + type + "/replicas", count);
    }

    /**
     * Any range of a worker-like replica type is written as its {@code replicas} (on a new object: the operators do
     * not rescale a running job, except a PyTorchJob with an {@code elasticPolicy}); a leader ({@code master},
     * {@code chief}, {@code launcher}) runs one pod and is refused.
     */
    @Override
    public String countChangeRefusal(GenericKubernetesResource job, String podSet, int min, int max) {
        if (replicaType(Specs.toJson(job), podSet) == null) {
            return "no replica type " + podSet + " in spec." + replicaSpecsField;
        }
        if (LEADERS.contains(podSet)) {
            return "replica type " + podSet + " is the job's leader and runs one pod; scale a worker replica type (spec.replicaSpec.podSet)";
        }
        return null;
    }

    @Override
    public final boolean isSuspended(GenericKubernetesResource job) {
        return Specs.boolAt(job, "/spec/runPolicy/suspend", false);
    }

    @Override
    public final void setSuspended(ObjectNode job, boolean suspended) {
        Specs.set(job, "/spec/runPolicy/suspend", suspended);
    }

    @Override
    public final Optional<PodRef> podOf(Pod pod) {
        Optional<String> name = Specs.label(pod, JOB_NAME_LABEL);
        Optional<String> role = Specs.label(pod, roleLabel);
        Optional<String> op = Specs.label(pod, OPERATOR_NAME_LABEL);
        if (name.isEmpty() || role.isEmpty() || op.isPresent() && !op.get().equals(operatorName)) {
            return Optional.empty();
        }
        return Optional.of(new PodRef(name.get(), role.get().toLowerCase(Locale.ROOT), Specs.intOrNull(Specs.label(pod, REPLICA_INDEX_LABEL).orElse(null))));
    }

    @Override
    public final WorkloadOutcome outcome(GenericKubernetesResource job, List<Pod> pods) {
        Optional<JsonNode> failed = Specs.trueCondition(job, "Failed");
        if (failed.isPresent()) {
            return WorkloadOutcome.failed(Specs.describe(failed.get(), "the " + kind.kind() + " failed"));
        }
        return Specs.trueCondition(job, "Succeeded").isPresent() ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }

    @Override
    public final String priorityClassName(GenericKubernetesResource job) {
        JsonNode pc = Specs.at(job, "/spec/runPolicy/schedulingPolicy/priorityClass");
        return pc.isTextual() && !pc.asText().isBlank() ? pc.asText() : Integration.super.priorityClassName(job);
    }
}
