package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.Keys;
import io.fairway.k8s.Kube;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.List;
import java.util.Optional;

/**
 * {@code batch/v1} Job: one pod set named {@value #POD_SET} of as many pods as the Job runs at once —
 * {@code min(spec.parallelism, spec.completions)} (parallelism default 1; the Job controller never runs more pods than
 * completions remain) — sharing {@code spec.template}; elastic when the annotation {@value Keys#MIN_PARALLELISM_ANNOTATION} gives fewer, and then
 * resized through {@code spec.parallelism}. Suspended through {@code spec.suspend}. Its pods carry the Job
 * controller's {@code batch.kubernetes.io/job-name} label (or the older {@code job-name}) and, for an Indexed Job,
 * their completion index. It ended when its {@code Complete} or {@code Failed} condition is true, or when as many
 * pods succeeded as {@code spec.completions} (with no completions: one succeeded and none is left).
 *
 * <p>API reference: https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/ (fields written:
 * {@code spec.suspend}, {@code spec.parallelism}, {@code spec.template.spec.nodeSelector},
 * {@code spec.template.spec.tolerations}, {@code spec.template.spec.schedulingGates}; the template of a suspended Job
 * may change these since Kubernetes 1.27).
 */
public final class BatchJobIntegration implements Integration {
    /** The name of a Job's one pod set. */
    public static final String POD_SET = "main";
    /** batch/v1 Job. */
    public static final KindRef KIND = new KindRef("batch", "v1", "Job", "jobs");

    /** For {@link java.util.ServiceLoader}. */
    public BatchJobIntegration() {
    }

    @Override
    public KindRef kind() {
        return KIND;
    }

    /**
     * kube-apiserver lets a Job's template directives change only while the stored Job is suspended and has no
     * {@code status.startTime} ({@code validationOptionsForJob} in {@code pkg/registry/batch/job/strategy.go}).
     */
    @Override
    public boolean restoreAfterSuspend() {
        return true;
    }

    /** The Job controller sets {@code status.startTime} when the Job first runs and keeps it when it is suspended. */
    @Override
    public List<String> startedMarkers() {
        return List.of("/status/startTime");
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource job) {
        int parallelism = Specs.intAt(job, "/spec/parallelism", 1);
        InvalidSpecException.check(parallelism > 0, "spec.parallelism", parallelism, "parallelism must be > 0 for Fairway to admit the Job, was %d",
                parallelism);
        int completions = Specs.intAt(job, "/spec/completions", Integer.MAX_VALUE);
        InvalidSpecException.check(completions > 0, "spec.completions", completions, "completions must be > 0 for Fairway to admit the Job, was %d",
                completions);
        int count = Math.min(parallelism, completions);
        int min = count;
        String minText = Kube.annotation(job, Keys.MIN_PARALLELISM_ANNOTATION);
        if (minText != null) {
            Integer m = Specs.intOrNull(minText);
            InvalidSpecException.check(m != null, Keys.MIN_PARALLELISM_ANNOTATION, minText, "%s must be an integer, was \"%s\"",
                    Keys.MIN_PARALLELISM_ANNOTATION, minText);
            min = m;
            InvalidSpecException.check(min >= 1 && min <= count, Keys.MIN_PARALLELISM_ANNOTATION, minText,
                    "%s must be between 1 and the pods the Job runs at once (min of parallelism and completions) %d, was %s", Keys.MIN_PARALLELISM_ANNOTATION, count, minText);
        }
        InvalidSpecException.check(Specs.at(job, "/spec/template/spec").isObject(), "spec.template", null, "the Job has no pod template");
        return List.of(new PodSetTemplate(POD_SET, count, min, "/spec/template", Specs.template(job, "/spec/template")));
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource job) {
        return Specs.boolAt(job, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode job, boolean suspended) {
        Specs.set(job, "/spec/suspend", suspended);
    }

    @Override
    public boolean resizable() {
        return true;
    }

    @Override
    public void setCount(ObjectNode job, String podSet, int count) {
        Specs.set(job, "/spec/parallelism", count);
    }

    /** Parallelism is written in place; above {@code spec.completions} it would not add pods, so such a range is refused. */
    @Override
    public String countChangeRefusal(GenericKubernetesResource job, String podSet, int min, int max) {
        int completions = Specs.intAt(job, "/spec/completions", Integer.MAX_VALUE);
        return max <= completions ? null : "the Job runs at most spec.completions " + completions + " pods at once; maxReplicas " + max + " is above it";
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> job = Specs.label(pod, Keys.JOB_NAME_LABEL).or(() -> Specs.label(pod, Keys.LEGACY_JOB_NAME_LABEL));
        if (job.isEmpty()) {
            return Optional.empty();
        }
        String idx = Kube.annotation(pod, Keys.COMPLETION_INDEX);
        if (idx == null) {
            idx = Specs.label(pod, Keys.COMPLETION_INDEX).orElse(null);
        }
        return Optional.of(new PodRef(job.get(), POD_SET, Specs.intOrNull(idx)));
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource job, List<Pod> pods) {
        Optional<JsonNode> failed = Specs.trueCondition(job, "Failed");
        if (failed.isPresent()) {
            return WorkloadOutcome.failed(Specs.describe(failed.get(), "the Job failed"));
        }
        if (Specs.trueCondition(job, "Complete").isPresent()) {
            return WorkloadOutcome.SUCCEEDED;
        }
        long succeeded = pods.stream().filter(p -> p.getStatus() != null && "Succeeded".equals(p.getStatus().getPhase())).count();
        long live = pods.stream().filter(p -> !terminal(p)).count();
        JsonNode completions = Specs.at(job, "/spec/completions");
        boolean done = completions.isInt() ? succeeded >= completions.intValue() : succeeded > 0 && live == 0;
        return done ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }

    private static boolean terminal(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase) || p.getMetadata().getDeletionTimestamp() != null;
    }
}
