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
 * {@code replicas} (default 1) × {@code min(parallelism, completions)} of the Job template (parallelism default 1) pods —
 * what its Jobs run at once — sharing the Job template's pod template; all replicated jobs are one gang. Suspended through {@code spec.suspend} (the JobSet
 * controller suspends and resumes its Jobs). Its pods carry the labels {@code jobset.sigs.k8s.io/jobset-name} and
 * {@code jobset.sigs.k8s.io/replicatedjob-name}; pods of one replicated job are interchangeable, each bound to the
 * lowest free member. It ended when its {@code Completed} or {@code Failed} condition is true.
 *
 * <p>API reference: https://jobset.sigs.k8s.io/docs/reference/jobset.v1alpha2/ (fields written: {@code spec.suspend},
 * and in {@code spec.replicatedJobs[*].template.spec.template.spec}: {@code nodeSelector}, {@code tolerations},
 * {@code schedulingGates}). Pod counts are fixed while it runs (a JobSet's {@code replicatedJobs} are immutable): a
 * UnifiedJob of JobSets scales a replicated job by its {@code replicas}, on a new JobSet created at the new count.
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
            int completions = Specs.intOf(rj.path("template").path("spec").get("completions"), field + ".template.spec.completions", Integer.MAX_VALUE);
            InvalidSpecException.check(replicas > 0 && parallelism > 0 && completions > 0, field, replicas + "x" + parallelism,
                    "%s: replicas, parallelism and completions must be > 0, were %d, %d and %s", field, replicas, parallelism,
                    completions == Integer.MAX_VALUE ? "unset" : Integer.toString(completions));
            String pointer = "/spec/replicatedJobs/" + i + "/template/spec/template";
            out.add(PodSetTemplate.of(name, Math.multiplyExact(replicas, Math.min(parallelism, completions)), pointer,
                    Specs.templateOf(rj.path("template").path("spec").path("template"), pointer)));
        }
        return out;
    }

    /** Sets the replicated job's {@code replicas} to {@code count} / its pods per replica (checked by {@link #countChangeRefusal}). */
    @Override
    public void setCount(ObjectNode js, String podSet, int count) {
        JsonNode rjs = js.at("/spec/replicatedJobs");
        for (int i = 0; i < rjs.size(); i++) {
            if (podSet.equals(rjs.get(i).path("name").asText())) {
                int per = perReplica(rjs.get(i));
                InvalidSpecException.check(count % per == 0, "podSet[" + podSet + "].count", count,
                        "replicated job %s runs %d pods per replica; %d pods is not a whole number of replicas", podSet, per, count);
                Specs.set(js, "/spec/replicatedJobs/" + i + "/replicas", count / per);
                return;
            }
        }
        throw new InvalidSpecException("podSet", podSet, "no replicated job " + podSet + " in the JobSet");
    }

    /** A range is written as replicas of the replicated job: min and max must be whole replicas. */
    @Override
    public String countChangeRefusal(GenericKubernetesResource js, String podSet, int min, int max) {
        JsonNode rjs = Specs.at(js, "/spec/replicatedJobs");
        for (JsonNode rj : rjs) {
            if (podSet.equals(rj.path("name").asText())) {
                int per = perReplica(rj);
                if (per > 1 && (min % per != 0 || max % per != 0)) {
                    return "replicated job " + podSet + " runs " + per + " pods per replica (min(parallelism, completions)); minReplicas and "
                            + "maxReplicas count pods and must be multiples of " + per + ", were " + min + " and " + max;
                }
                return null;
            }
        }
        return "no replicated job " + podSet + " in the JobSet";
    }

    private static int perReplica(JsonNode rj) {
        JsonNode spec = rj.path("template").path("spec");
        int p = spec.path("parallelism").isInt() ? spec.get("parallelism").intValue() : 1;
        int c = spec.path("completions").isInt() ? spec.get("completions").intValue() : Integer.MAX_VALUE;
        return Math.max(1, Math.min(p, c));
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
