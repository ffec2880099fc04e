package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code RayClusterSpec}'s pod sets (https://ray-project.github.io/kuberay/reference/api/#rayclusterspec): the head
 * ({@code headGroupSpec.template}, one pod) and one per worker group ({@code workerGroupSpecs[i]}: {@code groupName},
 * {@code replicas} x {@code numOfHosts} pods of {@code template}; elastic down to {@code minReplicas} when
 * {@code numOfHosts} is 1). A worker group of 0 replicas has no pod set. With {@code enableInTreeAutoscaling}, the head
 * is counted with KubeRay's autoscaler sidecar, and the object must be declared elastic ({@value #ELASTIC_ANNOTATION}:
 * {@value #AUTOSCALER}): each worker group is then counted at {@code maxReplicas}, fixed, and never resized by Fairway.
 */
final class RayPodSets {
    /** The head's pod set. */
    static final String HEAD = "head";
    /** The annotation declaring how an object is elastic; with {@value #AUTOSCALER}, the Ray autoscaler owns replicas. */
    static final String ELASTIC_ANNOTATION = "fairway.io/elastic";
    /** The value of {@value #ELASTIC_ANNOTATION} that lets KubeRay's in-tree autoscaler own the worker groups' replicas. */
    static final String AUTOSCALER = "autoscaler";

    /**
     * The autoscaler container KubeRay adds to the head pod when in-tree autoscaling is on: 500m CPU and 512Mi
     * memory, or {@code autoscalerOptions.resources} (KubeRay's {@code BuildAutoscalerContainer} and
     * {@code mergeAutoscalerOverrides}, ray-operator/controllers/ray/common/pod.go).
     */
    static io.fabric8.kubernetes.api.model.Container autoscalerSidecar(JsonNode resources) {
        io.fabric8.kubernetes.api.model.ResourceRequirements rr = resources.isObject()
                ? Specs.MAPPER.convertValue(resources, io.fabric8.kubernetes.api.model.ResourceRequirements.class)
                : new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                        .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("500m"))
                        .addToRequests("memory", new io.fabric8.kubernetes.api.model.Quantity("512Mi"))
                        .addToLimits("cpu", new io.fabric8.kubernetes.api.model.Quantity("500m"))
                        .addToLimits("memory", new io.fabric8.kubernetes.api.model.Quantity("512Mi")).build();
        return new io.fabric8.kubernetes.api.model.ContainerBuilder().withName("autoscaler").withResources(rr).build();
    }

    private RayPodSets() {
    }

    /**
     * @param o the object
     * @param base the pointer of the RayClusterSpec ({@code /spec} for a RayCluster, {@code /spec/rayClusterSpec} for
     *     a RayJob)
     * @return its pod sets, head first
     */
    static List<PodSetTemplate> read(GenericKubernetesResource o, String base) {
        return read(o, base, true);
    }

    /**
     * @param o the object
     * @param base the RayClusterSpec's pointer
     * @param elastic whether worker groups may run below their replicas (false for a RayJob: KubeRay ignores changes to
     *     its rayClusterSpec once the cluster exists, so a resize could not be carried out)
     * @return its pod sets, head first
     */
    static List<PodSetTemplate> read(GenericKubernetesResource o, String base, boolean elastic) {
        ObjectNode json = Specs.toJson(o);
        String field = base.substring(1).replace('/', '.');
        InvalidSpecException.check(json.at(base).isObject(), field, null, "%s is required: Fairway queues the Ray cluster it describes", field);
        boolean autoscaling = json.at(base + "/enableInTreeAutoscaling").asBoolean(false);
        String declared = o.getMetadata() == null || o.getMetadata().getAnnotations() == null ? null : o.getMetadata().getAnnotations().get(ELASTIC_ANNOTATION);
        InvalidSpecException.check(!autoscaling || AUTOSCALER.equals(declared), field + ".enableInTreeAutoscaling", "true",
                "%s.enableInTreeAutoscaling is true: the Ray autoscaler then sets workerGroupSpecs[].replicas, which Fairway sets too. "
                        + "Declare it with the annotation %s: %s (Fairway then reserves each worker group's maxReplicas and leaves replicas "
                        + "to the autoscaler), or turn in-tree autoscaling off", field, ELASTIC_ANNOTATION, AUTOSCALER);
        List<PodSetTemplate> out = new ArrayList<>();
        String head = base + "/headGroupSpec/template";
        PodTemplateSpec headTemplate = Specs.templateOf(json.at(head), head);
        if (autoscaling) {
            headTemplate.getSpec().getContainers().add(autoscalerSidecar(json.at(base + "/autoscalerOptions/resources")));
        }
        out.add(PodSetTemplate.of(HEAD, 1, head, headTemplate));
        JsonNode groups = json.at(base + "/workerGroupSpecs");
        Set<String> names = new HashSet<>(Set.of(HEAD));
        for (int i = 0; i < groups.size(); i++) {
            String g = base + "/workerGroupSpecs/" + i;
            String gf = field + ".workerGroupSpecs[" + i + "]";
            JsonNode w = groups.get(i);
            String name = w.path("groupName").asText("");
            InvalidSpecException.check(!name.isEmpty(), gf + ".groupName", null, "%s.groupName is required", gf);
            InvalidSpecException.check(names.add(name), gf + ".groupName", name, "worker group name \"%s\" is used twice (or is \"head\")", name);
            int min = Specs.intOf(w.path("minReplicas"), gf + ".minReplicas", 0);
            int replicas = Specs.intOf(w.path("replicas"), gf + ".replicas", min);
            int hosts = Specs.intOf(w.path("numOfHosts"), gf + ".numOfHosts", 1);
            InvalidSpecException.check(replicas >= 0 && hosts >= 1, gf + ".replicas", replicas, "%s: replicas must be >= 0 and numOfHosts >= 1", gf);
            if (w.path("suspend").asBoolean(false) || replicas == 0) {
                continue; // a suspended or empty worker group runs no pods
            }
            if (autoscaling) {
                int max = Specs.intOf(w.path("maxReplicas"), gf + ".maxReplicas", Integer.MAX_VALUE);
                InvalidSpecException.check(max != Integer.MAX_VALUE && max >= 1, gf + ".maxReplicas", w.path("maxReplicas").toString(),
                        "%s.maxReplicas must be set (>= 1) for Fairway to reserve what the autoscaler may scale the group to", gf);
                out.add(PodSetTemplate.of(name, Math.multiplyExact(max, hosts), g + "/template", Specs.templateOf(w.path("template"), g + "/template")));
                continue; // the autoscaler owns replicas: the most is reserved, nothing is resized
            }
            int count = replicas * hosts;
            int minCount = hosts == 1 && elastic ? Math.max(1, Math.min(min, replicas)) : count;
            out.add(new PodSetTemplate(name, count, minCount, g + "/template", Specs.templateOf(w.path("template"), g + "/template")));
        }
        return out;
    }

    /**
     * Sets a worker group's replicas.
     *
     * @param o the object's JSON
     * @param base the RayClusterSpec's pointer
     * @param podSet the worker group's name
     * @param count the pod count (numOfHosts 1)
     */
    static void setReplicas(ObjectNode o, String base, String podSet, int count) {
        InvalidSpecException.check(!HEAD.equals(podSet), "podSet", podSet, "the Ray head is one pod; its count cannot change");
        JsonNode groups = o.at(base + "/workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            if (podSet.equals(groups.get(i).path("groupName").asText())) {
                Specs.set(o, base + "/workerGroupSpecs/" + i + "/replicas", count);
                return;
            }
        }
        throw new IllegalArgumentException("no worker group " + podSet);
    }
}
