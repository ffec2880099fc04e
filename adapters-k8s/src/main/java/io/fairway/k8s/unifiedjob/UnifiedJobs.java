package io.fairway.k8s.unifiedjob;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Toleration;
import io.fairway.k8s.PodResources;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reading a UnifiedJob: its spec, validated, and the underlying object its template describes. */
final class UnifiedJobs {
    /** The UnifiedJob resource. */
    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder().withGroup("fairway.io").withVersion("v1alpha1")
            .withKind("UnifiedJob").withPlural("unifiedjobs").withNamespaced(true).build();
    /** The label on the underlying object naming its UnifiedJob. */
    static final String OWNER_LABEL = "fairway.io/unified-job";

    private UnifiedJobs() {
    }

    /**
     * A UnifiedJob's spec as the controller reads it.
     *
     * @param jobType the integration's name
     * @param queue the LocalQueue
     * @param priorityClassName the PriorityClass, or null
     * @param min the fewest replicas
     * @param max the most replicas
     * @param target the targetReplicas written (null when absent)
     * @param podSet the scaled pod set's name
     * @param podSets the underlying object's pod sets as its integration reads them
     */
    record Spec(String jobType, String queue, String priorityClassName, int min, int max, Integer target, String podSet, List<PodSetTemplate> podSets) {
    }

    /**
     * @param uj a UnifiedJob
     * @param integrations the enabled integrations by name
     * @return its spec
     * @throws InvalidSpecException naming the field and value when it cannot be queued
     */
    static Spec read(GenericKubernetesResource uj, Map<String, Integration> integrations) {
        ObjectNode o = Specs.toJson(uj);
        JsonNode spec = o.path("spec");
        String type = spec.path("jobType").asText("");
        Integration in = integrations.get(type);
        InvalidSpecException.check(in != null, "spec.jobType", type, "spec.jobType \"%s\" is not an enabled integration; enabled: %s", type,
                String.join(", ", integrations.keySet()));
        String queue = spec.path("queueName").asText("");
        InvalidSpecException.requireDnsLabel("spec.queueName", queue);
        int min = Specs.intOf(spec.at("/replicaSpec/minReplicas"), "spec.replicaSpec.minReplicas", -1);
        int max = Specs.intOf(spec.at("/replicaSpec/maxReplicas"), "spec.replicaSpec.maxReplicas", -1);
        InvalidSpecException.check(min >= 1, "spec.replicaSpec.minReplicas", min, "spec.replicaSpec.minReplicas must be >= 1, was %d", min);
        InvalidSpecException.check(max >= min, "spec.replicaSpec.maxReplicas", max,
                "spec.replicaSpec.maxReplicas must be >= minReplicas %d, was %d", min, max);
        JsonNode t = spec.at("/replicaSpec/targetReplicas");
        Integer target = t.isIntegralNumber() ? t.intValue() : null;
        String pc = spec.path("priorityClassName").asText("");
        List<PodSetTemplate> podSets = in.podSets(underlying(uj, in));
        String podSet = spec.at("/replicaSpec/podSet").asText("");
        if (podSet.isEmpty()) {
            podSet = podSets.get(podSets.size() - 1).name();
        }
        String ps = podSet;
        InvalidSpecException.check(podSets.stream().anyMatch(p -> p.name().equals(ps)), "spec.replicaSpec.podSet", podSet,
                "spec.replicaSpec.podSet \"%s\" is not a pod set of the %s; its pod sets: %s", podSet, type,
                podSets.stream().map(PodSetTemplate::name).toList());
        return new Spec(type, queue, pc.isEmpty() ? null : pc, min, max, target, podSet, podSets);
    }

    /**
     * The underlying object: apiVersion and kind from the integration, name and namespace from the UnifiedJob, owned
     * by it (so deleting the UnifiedJob deletes it), labelled {@value #OWNER_LABEL}, with the template's labels,
     * annotations and spec,.
     *
     * @param uj the UnifiedJob
     * @param in its integration
     * @return the object
     */
    static GenericKubernetesResource underlying(GenericKubernetesResource uj, Integration in) {
        ObjectNode o = underlyingJson(uj, in);
        return Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
    }

    static ObjectNode underlyingJson(GenericKubernetesResource uj, Integration in) {
        ObjectNode src = Specs.toJson(uj);
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", in.kind().apiVersion());
        o.put("kind", in.kind().kind());
        ObjectNode meta = o.putObject("metadata");
        meta.put("name", uj.getMetadata().getName());
        meta.put("namespace", uj.getMetadata().getNamespace());
        JsonNode tm = src.at("/spec/template/metadata");
        ObjectNode labels = meta.putObject("labels");
        if (tm.path("labels").isObject()) {
            labels.setAll((ObjectNode) tm.get("labels"));
        }
        labels.put(OWNER_LABEL, uj.getMetadata().getName());
        if (tm.path("annotations").isObject()) {
            meta.set("annotations", tm.get("annotations").deepCopy());
        }
        if (uj.getMetadata().getUid() != null) {
            meta.putArray("ownerReferences").add(Specs.MAPPER.valueToTree(new OwnerReferenceBuilder().withApiVersion("fairway.io/v1alpha1")
                    .withKind("UnifiedJob").withName(uj.getMetadata().getName()).withUid(uj.getMetadata().getUid()).withController(true)
                    .withBlockOwnerDeletion(true).build()));
        }
        JsonNode spec = src.at("/spec/template/spec");
        o.set("spec", spec.isObject() ? spec.deepCopy() : Specs.MAPPER.createObjectNode());
        return o;
    }

    /** The annotation declaring that the workload checkpoints (seconds between checkpoints), as on a Job. */
    static final String CHECKPOINT_ANNOTATION = "fairway.io/checkpoint-interval-seconds";
    /** The annotation the workload writes its last checkpoint's progress in, 0..1. */
    static final String PROGRESS_ANNOTATION = "fairway.io/progress";

    /**
     * Refuses a UnifiedJob whose replica range its kind cannot honour: the integration must be able to write every
     * count from min to max ({@link Integration#countChangeRefusal}); and when it can only do so on a new object (not in
     * place), the UnifiedJob must declare that its workload checkpoints ({@value #CHECKPOINT_ANNOTATION}), since a
     * resize then restarts its pods, which resume from their last checkpoint.
     *
     * @param uj the UnifiedJob
     * @param s its spec as read
     * @param in its integration
     * @throws InvalidSpecException naming the field and saying why
     */
    static void checkElasticity(GenericKubernetesResource uj, Spec s, Integration in) {
        PodSetTemplate scaled = s.podSets().stream().filter(p -> p.name().equals(s.podSet())).findFirst().orElseThrow();
        if (s.min() == s.max() && s.max() == scaled.count()) {
            return; // never written: the template's count is the only one
        }
        GenericKubernetesResource underlying = underlying(uj, in);
        String refusal = in.countChangeRefusal(underlying, s.podSet(), s.min(), s.max());
        InvalidSpecException.check(refusal == null, "spec.replicaSpec", s.min() + ".." + s.max(), "%s cannot run pod set %s at %d..%d pods: %s",
                s.jobType(), s.podSet(), s.min(), s.max(), refusal);
        if (s.min() < s.max() && !in.resizableInPlace(underlying)) {
            String cp = uj.getMetadata().getAnnotations() == null ? null : uj.getMetadata().getAnnotations().get(CHECKPOINT_ANNOTATION);
            InvalidSpecException.check(cp != null && Specs.intOrNull(cp) != null && Specs.intOrNull(cp) > 0, "metadata.annotations[" + CHECKPOINT_ANNOTATION + "]", cp,
                    "%s cannot change its pod count in place: Fairway resizes it by recreating it at the new count, which restarts its pods. "
                            + "Declare that the workload checkpoints (annotation %s: <seconds>, and write its progress in %s) so it resumes, "
                            + "or set minReplicas = maxReplicas", s.jobType(), CHECKPOINT_ANNOTATION, PROGRESS_ANNOTATION);
        }
    }

    /**
     * @param uj a UnifiedJob
     * @return the progress its workload last wrote in {@value #PROGRESS_ANNOTATION}, clamped to 0..1 (0 when absent or malformed)
     */
    static double progress(GenericKubernetesResource uj) {
        String v = uj == null || uj.getMetadata().getAnnotations() == null ? null : uj.getMetadata().getAnnotations().get(PROGRESS_ANNOTATION);
        if (v == null) {
            return 0;
        }
        try {
            double d = Double.parseDouble(v.trim());
            return Double.isFinite(d) ? Math.max(0, Math.min(1, d)) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * @param s the spec
     * @return the engine's pod sets: the scaled one elastic between min and max, the others as their kind says
     */
    static List<PodSet> engineSets(Spec s) {
        List<PodSet> out = new ArrayList<>();
        for (PodSetTemplate p : s.podSets()) {
            Map<String, Long> counted = new LinkedHashMap<>();
            PodResources.of(p.template().getSpec()).asMap().forEach((r, v) -> {
                if (v > 0) {
                    counted.put(r, v);
                }
            });
            InvalidSpecException.check(!counted.isEmpty(), "spec.template (pod set " + p.name() + ")", null,
                    "pod set %s requests no resources; set requests so Fairway can admit it under quota", p.name());
            List<Toleration> tols = new ArrayList<>();
            if (p.template().getSpec().getTolerations() != null) {
                p.template().getSpec().getTolerations().forEach(t -> tols.add(new Toleration(t.getKey(), t.getOperator(), t.getValue(), t.getEffect())));
            }
            Map<String, String> sel = p.template().getSpec().getNodeSelector() == null ? Map.of() : p.template().getSpec().getNodeSelector();
            boolean scaled = p.name().equals(s.podSet());
            out.add(new PodSet(p.name(), scaled ? s.max() : p.count(), scaled ? s.min() : p.minCount(), Resources.of(counted), sel, tols, null));
        }
        return out;
    }
}
