package io.fairway.k8s;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
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
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.BatchJobIntegration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Turns a queued object into the engine's {@link JobSpec}: one engine pod set per pod set its {@link Integration}
 * reads (a batch/v1 Job has one, named {@value #POD_SET}; a JobSet one per replicated job …), all admitted as one
 * gang, each with per-member resources from its pod template's requests (GPUs from {@code nvidia.com/gpu} limits or
 * requests), the template's node selector and tolerations, and a topology request from the template's annotations
 * (or, for every pod set, the object's). The priority comes from the PriorityClass the object names (0 without one);
 * the label {@value Keys#PRIORITY_LABEL} may only <em>lower</em> it — an author cannot raise their own priority above
 * what the cluster administrator's PriorityClass grants, so one tenant cannot preempt others in a shared ClusterQueue
 * or cohort by labelling a job.
 *
 * <p>For an admitted object the fields admission changed are read as they were before it (from
 * {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION}, when Fairway's seal on it verifies, and only its allow-listed paths),
 * so a rebuilt engine sees the object as it was submitted.
 */
public final class JobTranslator {
    /** The name of a batch/v1 Job's one pod set. */
    public static final String POD_SET = BatchJobIntegration.POD_SET;
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Integration BATCH = new BatchJobIntegration();

    private final List<String> queueLabels;
    private final List<String> excludedResourcePrefixes;
    private final Function<String, Integer> priorityClasses;
    /** Which objects carry an admission record Fairway wrote (none until the adapter sets its seal). */
    private volatile java.util.function.Predicate<HasMetadata> trusted = o -> false;
    /** Kueue's WorkloadPriorityClasses by name, when the queues come from Kueue's objects (null: the label is not read). */
    private volatile Function<String, Integer> workloadPriorityClasses;

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

    /** @param trusted which objects carry an admission record Fairway wrote (its seal verifies) */
    void trust(java.util.function.Predicate<HasMetadata> trusted) {
        this.trusted = trusted;
    }

    /**
     * @param classes Kueue's WorkloadPriorityClass values by name: the label {@code kueue.x-k8s.io/priority-class}
     *     then names the object's priority, as in Kueue (it wins over the pod template's PriorityClass); null: the
     *     label is not read
     */
    void workloadPriorityClasses(Function<String, Integer> classes) {
        this.workloadPriorityClasses = classes;
    }

    /**
     * @param object a queued object of any kind
     * @return the value of its queue label, or null when it has none (the object is not Fairway's)
     */
    public String queueLabel(HasMetadata object) {
        for (String l : queueLabels) {
            String v = Kube.label(object, l);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /**
     * @param job a batch/v1 Job carrying a queue label
     * @param id the job id to use
     * @return the job spec
     * @throws InvalidSpecException with a message for the Job's owner when the Job cannot be queued as it is
     */
    public JobSpec toSpec(Job job, String id) {
        return toSpec(BATCH, Specs.MAPPER.convertValue(job, GenericKubernetesResource.class), id);
    }

    /**
     * @param integration the object's kind
     * @param object an object whose fields admission changed
     * @return the object as it was before admission (the object itself when it carries no admission, or one whose
     *     record Fairway did not seal); only allow-listed paths are restored ({@link AdmissionPaths})
     */
    GenericKubernetesResource asSubmitted(Integration integration, GenericKubernetesResource object) {
        String orig = Kube.annotation(object, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        if (orig == null || Kube.annotation(object, Keys.ADMISSION_ANNOTATION) == null || !trusted.test(object)) {
            return object; // a record Fairway did not write (a tenant can write annotations) is never applied
        }
        try {
            ObjectNode json = Specs.toJson(object);
            OriginalTemplate.parse(orig).only(AdmissionPaths.of(integration, object)).restoreInto(json);
            return Specs.MAPPER.convertValue(json, GenericKubernetesResource.class);
        } catch (IllegalArgumentException e) {
            return object;
        }
    }

    /**
     * @param integration the object's kind
     * @param object an object of that kind carrying a queue label
     * @param id the job id to use
     * @return the job spec: one engine pod set per pod set the integration reads
     * @throws InvalidSpecException with a message for the object's owner when it cannot be queued as it is
     */
    public JobSpec toSpec(Integration integration, GenericKubernetesResource object, String id) {
        String queue = queueLabel(object);
        InvalidSpecException.check(queue != null && !queue.isBlank() && queue.length() <= 63 && DNS_LABEL.matcher(queue).matches(),
                "metadata.labels[" + Keys.QUEUE_LABEL + "]", queue,
                "the queue label \"%s\" is not a valid LocalQueue name (lowercase letters, digits and '-', at most 63)", queue);
        GenericKubernetesResource view = asSubmitted(integration, object);
        List<PodSetTemplate> sets = integration.podSets(view);
        InvalidSpecException.check(!sets.isEmpty(), "spec", null, "%s %s has no pod sets", integration.kind().kind(), Kube.key(object));
        TopologyRequest whole = topology(view.getMetadata().getAnnotations());
        JobSpec.Builder b = JobSpec.builder(id)
                .namespace(object.getMetadata().getNamespace())
                .queue(queue)
                .jobSet(object.getMetadata().getName())
                .owner(ownerOf(object))
                .priority(priority(object, integration.priorityClassName(view), sets.get(0).templatePointer()))
                .submitTimeMillis(Kube.creationMillis(object))
                .checkpointing(NodeLoss.checkpointingOf(object));
        for (PodSetTemplate ps : sets) {
            b.podSet(podSet(ps, whole));
        }
        String model = annotationOf(object, sets, Keys.MODEL_ANNOTATION);
        if (model != null) {
            b.sensitivity(PlacementSensitivity.forModel(model));
        }
        String est = annotationOf(object, sets, Keys.ESTIMATED_SECONDS_ANNOTATION);
        if (est != null) {
            try {
                b.estimatedSeconds(Double.parseDouble(est));
            } catch (NumberFormatException e) {
                throw new InvalidSpecException(Keys.ESTIMATED_SECONDS_ANNOTATION, est, Keys.ESTIMATED_SECONDS_ANNOTATION + " must be a number, was " + est);
            }
        }
        return b.build();
    }

    private PodSet podSet(PodSetTemplate ps, TopologyRequest whole) {
        PodSpec pod = ps.template().getSpec();
        Resources all = PodResources.of(pod);
        Map<String, Long> counted = new LinkedHashMap<>();
        all.asMap().forEach((r, v) -> {
            if (excludedResourcePrefixes.stream().noneMatch(r::startsWith) && v > 0) {
                counted.put(r, v);
            }
        });
        String field = ps.templatePointer().substring(1).replace('/', '.') + ".spec.containers[].resources";
        InvalidSpecException.check(!counted.isEmpty(), field, null,
                "the pod template %srequests no resources; set requests (cpu, memory, nvidia.com/gpu) so Fairway can admit it under quota",
                BatchJobIntegration.POD_SET.equals(ps.name()) ? "" : "of pod set " + ps.name() + " ");
        List<Toleration> tolerations = new ArrayList<>();
        if (pod.getTolerations() != null) {
            for (io.fabric8.kubernetes.api.model.Toleration t : pod.getTolerations()) {
                tolerations.add(new Toleration(t.getKey(), t.getOperator(), t.getValue(), t.getEffect()));
            }
        }
        Map<String, String> selector = new LinkedHashMap<>();
        if (pod.getNodeSelector() != null) {
            pod.getNodeSelector().forEach((k, v) -> {
                if (v != null) {
                    selector.put(k, v);
                }
            });
        }
        TopologyRequest t = topology(ps.template());
        return new PodSet(ps.name(), ps.count(), ps.minCount(), Resources.of(counted), selector, tolerations, t == TopologyRequest.NONE ? whole : t);
    }

    private static String ownerOf(HasMetadata o) {
        String u = Kube.annotation(o, "fairway.io/owner");
        return u == null ? "" : u;
    }

    /**
     * @return the PriorityClass value (0 without one), lowered by the label {@value Keys#PRIORITY_LABEL} when the
     *     label is lower; a label above it is ignored
     */
    private int priority(HasMetadata object, String priorityClass, String templatePointer) {
        int granted = 0;
        Function<String, Integer> wpc = workloadPriorityClasses;
        String wpcName = wpc == null ? null : Kube.label(object, io.fairway.k8s.kueue.KueueApi.PRIORITY_CLASS_LABEL);
        if (wpcName != null) {
            Integer v = wpc.apply(wpcName);
            InvalidSpecException.check(v != null, "metadata.labels." + io.fairway.k8s.kueue.KueueApi.PRIORITY_CLASS_LABEL, wpcName,
                    "WorkloadPriorityClass %s does not exist", wpcName);
            granted = v;
        } else if (priorityClass != null && !priorityClass.isBlank()) {
            Integer v = priorityClasses.apply(priorityClass);
            InvalidSpecException.check(v != null, templatePointer.substring(1).replace('/', '.') + ".spec.priorityClassName", priorityClass,
                    "PriorityClass %s does not exist", priorityClass);
            granted = v;
        }
        String p = Kube.label(object, Keys.PRIORITY_LABEL);
        if (p != null) {
            return Math.min(granted, parseInt(Keys.PRIORITY_LABEL, p));
        }
        return granted;
    }

    /**
     * @param template a pod template
     * @return the topology request of its pod set
     */
    static TopologyRequest topology(PodTemplateSpec template) {
        return topology(template.getMetadata() == null ? null : template.getMetadata().getAnnotations());
    }

    private static TopologyRequest topology(Map<String, String> annotations) {
        String required = first(annotations, Keys.REQUIRED_TOPOLOGY_ANNOTATION, Keys.KUEUE_REQUIRED_TOPOLOGY_ANNOTATION);
        String preferred = first(annotations, Keys.PREFERRED_TOPOLOGY_ANNOTATION, Keys.KUEUE_PREFERRED_TOPOLOGY_ANNOTATION);
        String nvlink = first(annotations, Keys.NVLINK_DOMAIN_ANNOTATION);
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

    private static String first(Map<String, String> annotations, String... keys) {
        if (annotations == null) {
            return null;
        }
        for (String k : keys) {
            String v = annotations.get(k);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private static String annotationOf(HasMetadata o, List<PodSetTemplate> sets, String key) {
        String v = Kube.annotation(o, key);
        for (int i = 0; v == null && i < sets.size(); i++) {
            PodTemplateSpec t = sets.get(i).template();
            v = first(t.getMetadata() == null ? null : t.getMetadata().getAnnotations(), key);
        }
        return v;
    }

    private static int parseInt(String field, String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSpecException(field, text, field + " must be an integer, was \"" + text + "\"");
        }
    }
}
