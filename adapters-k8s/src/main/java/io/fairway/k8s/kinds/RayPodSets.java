package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
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
 * {@code numOfHosts} is 1). A worker group of 0 replicas has no pod set.
 */
final class RayPodSets {
    /** The head's pod set. */
    static final String HEAD = "head";

    private RayPodSets() {
    }

    /**
     * @param o the object
     * @param base the pointer of the RayClusterSpec ({@code /spec} for a RayCluster, {@code /spec/rayClusterSpec} for
     *     a RayJob)
     * @return its pod sets, head first
     */
    static List<PodSetTemplate> read(GenericKubernetesResource o, String base) {
        ObjectNode json = Specs.toJson(o);
        String field = base.substring(1).replace('/', '.');
        InvalidSpecException.check(json.at(base).isObject(), field, null, "%s is required: Fairway queues the Ray cluster it describes", field);
        List<PodSetTemplate> out = new ArrayList<>();
        String head = base + "/headGroupSpec/template";
        out.add(PodSetTemplate.of(HEAD, 1, head, Specs.templateOf(json.at(head), head)));
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
            int count = replicas * hosts;
            int minCount = hosts == 1 ? Math.max(1, Math.min(min, replicas)) : count;
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
