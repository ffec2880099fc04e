package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Turns a batch/v1 Job into the engine's {@link JobSpec}: one pod set named {@value #POD_SET} whose member count is
 * the Job's parallelism (the gang), with per-member resources from the pod template's requests (GPUs from
 * {@code nvidia.com/gpu} limits or requests), the template's node selector and tolerations, and a topology request
 * from its annotations. The priority comes from the PriorityClass the template names (0 without one); the label
 * {@value Keys#PRIORITY_LABEL} may only <em>lower</em> it — a Job author cannot raise their own priority above what
 * the cluster administrator's PriorityClass grants, so one tenant cannot preempt others in a shared ClusterQueue
 * or cohort by labelling a Job.
 *
 * <p>For an admitted Job the fields admission changed are read as they were before it (from
 * {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION}), so a rebuilt engine sees the Job as it was submitted.
 */
public final class JobTranslator {
    /** The name of a Job's one pod set. */
    public static final String POD_SET = "main";
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    private final List<String> queueLabels;
    private final List<String> excludedResourcePrefixes;
    private final Function<String, Integer> priorityClasses;

    /**
     * @param queueLabels the labels naming the LocalQueue, first found wins
     * @param excludedResourcePrefixes resources whose name starts with one of these are not counted
     * @param priorityClasses a PriorityClass name to its value, or null when there is no such class
     */
    public JobTranslator(List<String> queueLabels, List<String> excludedResourcePrefixes, Function<String, Integer> priorityClasses) {
        this.queueLabels = List.copyOf(queueLabels);
        this.excludedResourcePrefixes = List.copyOf(excludedResourcePrefixes);
        this.priorityClasses = priorityClasses;
    }

    /**
     * @param job a Job
     * @return the value of its queue label, or null when it has none (the Job is not Fairway's)
     */
    public String queueLabel(Job job) {
        for (String l : queueLabels) {
            String v = Kube.label(job, l);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /**
     * @param job a Job carrying a queue label
     * @param id the job id to use
     * @return the job spec
     * @throws InvalidSpecException with a message for the Job's owner when the Job cannot be queued as it is
     */
    public JobSpec toSpec(Job job, String id) {
        String queue = queueLabel(job);
        InvalidSpecException.check(queue != null && !queue.isBlank() && queue.length() <= 63 && DNS_LABEL.matcher(queue).matches(),
                "metadata.labels[" + Keys.QUEUE_LABEL + "]", queue,
                "the queue label \"%s\" is not a valid LocalQueue name (lowercase letters, digits and '-', at most 63)", queue);
        PodTemplateSpec template = job.getSpec() == null ? null : job.getSpec().getTemplate();
        InvalidSpecException.check(template != null && template.getSpec() != null, "spec.template", null, "the Job has no pod template");
        PodSpec pod = template.getSpec();
        OriginalTemplate original = null;
        String orig = Kube.annotation(job, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        if (orig != null && Kube.annotation(job, Keys.ADMISSION_ANNOTATION) != null) {
            try {
                original = OriginalTemplate.parse(orig);
            } catch (IllegalArgumentException e) {
                original = null;
            }
        }
        Integer par = original != null ? original.parallelism() : job.getSpec().getParallelism();
        int count = par == null ? 1 : par;
        InvalidSpecException.check(count > 0, "spec.parallelism", count, "parallelism must be > 0 for Fairway to admit the Job, was %d", count);
        int min = count;
        String minText = Kube.annotation(job, Keys.MIN_PARALLELISM_ANNOTATION);
        if (minText != null) {
            min = parseInt(Keys.MIN_PARALLELISM_ANNOTATION, minText);
            InvalidSpecException.check(min >= 1 && min <= count, Keys.MIN_PARALLELISM_ANNOTATION, minText,
                    "%s must be between 1 and the parallelism %d, was %s", Keys.MIN_PARALLELISM_ANNOTATION, count, minText);
        }
        Resources all = PodResources.of(pod);
        Map<String, Long> counted = new LinkedHashMap<>();
        all.asMap().forEach((r, v) -> {
            if (excludedResourcePrefixes.stream().noneMatch(r::startsWith) && v > 0) {
                counted.put(r, v);
            }
        });
        InvalidSpecException.check(!counted.isEmpty(), "spec.template.spec.containers[].resources", null,
                "the pod template requests no resources; set requests (cpu, memory, nvidia.com/gpu) so Fairway can admit it under quota");
        Map<String, String> selector = original != null ? original.nodeSelector() : pod.getNodeSelector();
        List<io.fabric8.kubernetes.api.model.Toleration> tols = original != null ? original.tolerations() : pod.getTolerations();
        List<Toleration> tolerations = new ArrayList<>();
        if (tols != null) {
            for (io.fabric8.kubernetes.api.model.Toleration t : tols) {
                tolerations.add(new Toleration(t.getKey(), t.getOperator(), t.getValue(), t.getEffect()));
            }
        }
        Map<String, String> cleanSelector = new LinkedHashMap<>();
        if (selector != null) {
            selector.forEach((k, v) -> {
                if (v != null) {
                    cleanSelector.put(k, v);
                }
            });
        }
        PodSet ps = new PodSet(POD_SET, count, min, Resources.of(counted), cleanSelector, tolerations, topology(template));
        JobSpec.Builder b = JobSpec.builder(id)
                .namespace(job.getMetadata().getNamespace())
                .queue(queue)
                .jobSet(job.getMetadata().getName())
                .owner(ownerOf(job))
                .priority(priority(job, pod))
                .submitTimeMillis(Kube.creationMillis(job))
                .podSet(ps)
                .checkpointing(NodeLoss.checkpointingOf(job));
        String model = annotationOf(job, template, Keys.MODEL_ANNOTATION);
        if (model != null) {
            b.sensitivity(PlacementSensitivity.forModel(model));
        }
        String est = annotationOf(job, template, Keys.ESTIMATED_SECONDS_ANNOTATION);
        if (est != null) {
            try {
                b.estimatedSeconds(Double.parseDouble(est));
            } catch (NumberFormatException e) {
                throw new InvalidSpecException(Keys.ESTIMATED_SECONDS_ANNOTATION, est, Keys.ESTIMATED_SECONDS_ANNOTATION + " must be a number, was " + est);
            }
        }
        return b.build();
    }

    private static String ownerOf(Job job) {
        String u = Kube.annotation(job, "fairway.io/owner");
        return u == null ? "" : u;
    }

    /**
     * @return the PriorityClass value (0 without one), lowered by the label {@value Keys#PRIORITY_LABEL} when the
     *     label is lower; a label above it is ignored
     */
    static int priority(Job job, PodSpec pod, Function<String, Integer> priorityClasses) {
        int granted = 0;
        String pc = pod.getPriorityClassName();
        if (pc != null && !pc.isBlank()) {
            Integer v = priorityClasses.apply(pc);
            InvalidSpecException.check(v != null, "spec.template.spec.priorityClassName", pc, "PriorityClass %s does not exist", pc);
            granted = v;
        }
        String p = Kube.label(job, Keys.PRIORITY_LABEL);
        if (p != null) {
            return Math.min(granted, parseInt(Keys.PRIORITY_LABEL, p));
        }
        return granted;
    }

    private int priority(Job job, PodSpec pod) {
        return priority(job, pod, priorityClasses);
    }

    /**
     * @param job a Job
     * @param template its pod template
     * @return the topology request of its pod set
     */
    static TopologyRequest topology(PodTemplateSpec template) {
        String required = firstAnnotation(template, Keys.REQUIRED_TOPOLOGY_ANNOTATION, Keys.KUEUE_REQUIRED_TOPOLOGY_ANNOTATION);
        String preferred = firstAnnotation(template, Keys.PREFERRED_TOPOLOGY_ANNOTATION, Keys.KUEUE_PREFERRED_TOPOLOGY_ANNOTATION);
        String nvlink = firstAnnotation(template, Keys.NVLINK_DOMAIN_ANNOTATION);
        if ("true".equalsIgnoreCase(nvlink)) {
            return TopologyRequest.nvlinkDomain();
        }
        if (required != null && !required.isBlank()) {
            return TopologyRequest.required(required);
        }
        if (preferred != null && !preferred.isBlank()) {
            return TopologyRequest.preferred(preferred);
        }
        return TopologyRequest.NONE;
    }

    private static String firstAnnotation(PodTemplateSpec t, String... keys) {
        if (t.getMetadata() == null || t.getMetadata().getAnnotations() == null) {
            return null;
        }
        for (String k : keys) {
            String v = t.getMetadata().getAnnotations().get(k);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private static String annotationOf(Job job, PodTemplateSpec t, String key) {
        String v = Kube.annotation(job, key);
        return v != null ? v : firstAnnotation(t, key);
    }

    private static int parseInt(String field, String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSpecException(field, text, field + " must be an integer, was \"" + text + "\"");
        }
    }
}
