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
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * JobSet ({@code jobset.x-k8s.io/v1alpha2}): one pod set per entry of {@code spec.replicatedJobs}, named after it, of
 * {@code replicas} (default 1) × the Job template's {@code spec.parallelism} (default 1) pods sharing the Job
 * template's pod template; all replicated jobs are one gang. Suspended through {@code spec.suspend} (the JobSet
 * controller suspends and resumes its Jobs). Its pods carry the labels {@code jobset.sigs.k8s.io/jobset-name} and
 * {@code jobset.sigs.k8s.io/replicatedjob-name}; pods of one replicated job are interchangeable, each bound to the
 * lowest free member. It ended when its {@code Completed} or {@code Failed} condition is true.
 *
 * <p>API reference: https://jobset.sigs.k8s.io/docs/reference/jobset.v1alpha2/ (fields written: {@code spec.suspend},
 * and in {@code spec.replicatedJobs[*].template.spec.template.spec}: {@code nodeSelector}, {@code tolerations},
 * {@code schedulingGates}). Pod counts are fixed: JobSet has no elastic pod sets here.
 */
public final class JobSetIntegration implements Integration {
    /** jobset.x-k8s.io/v1alpha2 JobSet. */
    public static final KindRef KIND = new KindRef("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets");
    /** The JobSet controller's pod label naming the JobSet. */
    public static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
    /** The JobSet controller's pod label naming the replicated job. */
    public static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";

    /** For {@link java.util.ServiceLoader}. */
    public JobSetIntegration() {
    }

    @Override
    public KindRef kind() {
        return KIND;
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource js) {
        JsonNode rjs = Specs.at(js, "/spec/replicatedJobs");
        InvalidSpecException.check(rjs.isArray() && !rjs.isEmpty(), "spec.replicatedJobs", null, "the JobSet has no replicatedJobs");
        List<PodSetTemplate> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < rjs.size(); i++) {
            JsonNode rj = rjs.get(i);
            String field = "spec.replicatedJobs[" + i + "]";
            String name = rj.path("name").asText("");
            InvalidSpecException.check(!name.isEmpty() && names.add(name), field + ".name", name, "%s.name must be set and unique, was \"%s\"", field, name);
            int replicas = Specs.intOf(rj.get("replicas"), field + ".replicas", 1);
            int parallelism = Specs.intOf(rj.path("template").path("spec").get("parallelism"), field + ".template.spec.parallelism", 1);
            InvalidSpecException.check(replicas > 0 && parallelism > 0, field, replicas + "x" + parallelism,
                    "%s: replicas and parallelism must be > 0, were %d and %d", field, replicas, parallelism);
            String pointer = "/spec/replicatedJobs/" + i + "/template/spec/template";
            out.add(PodSetTemplate.of(name, Math.multiplyExact(replicas, parallelism), pointer,
                    Specs.templateOf(rj.path("template").path("spec").path("template"), pointer)));
        }
        return out;
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource js) {
        return Specs.boolAt(js, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode js, boolean suspended) {
        Specs.set(js, "/spec/suspend", suspended);
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> js = Specs.label(pod, JOBSET_NAME_LABEL);
        Optional<String> rj = Specs.label(pod, REPLICATED_JOB_LABEL);
        return js.isEmpty() || rj.isEmpty() ? Optional.empty() : Optional.of(new PodRef(js.get(), rj.get(), null));
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource js, List<Pod> pods) {
        Optional<JsonNode> failed = Specs.trueCondition(js, "Failed");
        if (failed.isPresent()) {
            return WorkloadOutcome.failed(Specs.describe(failed.get(), "the JobSet failed"));
        }
        return Specs.trueCondition(js, "Completed").isPresent() ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }
}
