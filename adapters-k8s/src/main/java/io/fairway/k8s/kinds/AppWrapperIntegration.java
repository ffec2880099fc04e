package io.fairway.k8s.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.KindRef;
import io.fairway.k8s.integration.PodRef;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.integration.WorkloadOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * AppWrapper ({@code workload.codeflare.dev/v1beta2}, project-codeflare/appwrapper): a bundle of Kubernetes objects
 * ({@code spec.components[*].template}) admitted as one gang. Each component lists its pod sets
 * ({@code spec.components[i].podSets[j]}: a {@code path} to a pod template inside the component's template, in the
 * AppWrapper's dotted syntax such as {@code template.spec.template} or {@code template.spec.replicatedJobs[0].template.spec.template},
 * and {@code replicas}, default 1); pod set {@code c<i>-<j>}. Suspended through {@code spec.suspend}: the AppWrapper
 * controller creates the wrapped objects when it is resumed and deletes them when it is suspended.
 *
 * <p>Admission is written where Kueue writes it and where the AppWrapper controller reads it: in
 * {@code spec.components[i].podSetInfos[j]} ({@code nodeSelector}, {@code tolerations}, {@code schedulingGates} and
 * {@code labels}), which the controller injects into each pod set's template when it creates the wrapped objects;
 * the wrapped templates themselves are left as written. The label {@value #POD_SET_LABEL} written that way tells
 * which pod set a pod belongs to; the controller labels every pod with {@value #APPWRAPPER_LABEL}. It ended when
 * {@code status.phase} is {@code Succeeded} or {@code Failed}.
 *
 * <p>API reference: https://project-codeflare.github.io/appwrapper/api/workload.codeflare.dev/v1beta2/ (fields written:
 * {@code spec.suspend}, {@code spec.components[*].podSetInfos}). Pod counts are fixed.
 */
public final class AppWrapperIntegration implements Integration {
    /** workload.codeflare.dev/v1beta2 AppWrapper. */
    public static final KindRef KIND = new KindRef("workload.codeflare.dev", "v1beta2", "AppWrapper", "appwrappers");
    /** The AppWrapper controller's label on the objects and pods it creates, naming the AppWrapper. */
    public static final String APPWRAPPER_LABEL = "workload.codeflare.dev/appwrapper";
    /** The label Fairway asks the AppWrapper controller (through podSetInfos) to put on each pod set's pods. */
    public static final String POD_SET_LABEL = "fairway.io/appwrapper-podset";
    private static final Pattern SEGMENT = Pattern.compile("([A-Za-z0-9_-]+)((?:\\[\\d{1,6}])*)");

    /** For {@link java.util.ServiceLoader}. */
    public AppWrapperIntegration() {
    }

    @Override
    public KindRef kind() {
        return KIND;
    }

    @Override
    public List<PodSetTemplate> podSets(GenericKubernetesResource aw) {
        JsonNode components = Specs.at(aw, "/spec/components");
        InvalidSpecException.check(components.isArray() && !components.isEmpty(), "spec.components", null, "the AppWrapper has no components");
        List<PodSetTemplate> out = new ArrayList<>();
        for (int i = 0; i < components.size(); i++) {
            JsonNode podSets = components.get(i).path("podSets");
            for (int j = 0; j < podSets.size(); j++) {
                String field = "spec.components[" + i + "].podSets[" + j + "]";
                String path = podSets.get(j).path("path").asText("");
                int replicas = Specs.intOf(podSets.get(j).get("replicas"), field + ".replicas", 1);
                InvalidSpecException.check(replicas > 0, field + ".replicas", Integer.toString(replicas), "%s.replicas must be > 0, was %d", field, replicas);
                String pointer = "/spec/components/" + i + "/" + pointer(field + ".path", path);
                JsonNode template = Specs.at(aw, pointer);
                InvalidSpecException.check(template.isObject(), field + ".path", path, "%s.path %s names no pod template in the component", field, path);
                out.add(PodSetTemplate.of("c" + i + "-" + j, replicas, pointer, Specs.templateOf(template, pointer)));
            }
        }
        InvalidSpecException.check(!out.isEmpty(), "spec.components[*].podSets", null, "the AppWrapper's components declare no podSets");
        return out;
    }

    /** @return the JSON Pointer (without the leading '/') of an AppWrapper pod set path, relative to its component */
    static String pointer(String field, String path) {
        InvalidSpecException.check(path != null && !path.isEmpty() && path.length() <= 512, field, path, "%s must be a path such as template.spec.template", field);
        List<String> out = new ArrayList<>();
        for (String seg : path.split("\\.", -1)) {
            Matcher m = SEGMENT.matcher(seg);
            InvalidSpecException.check(m.matches(), field, path, "%s: \"%s\" is not a field name with optional [index] suffixes", field, seg);
            out.add(m.group(1));
            Matcher idx = Pattern.compile("\\[(\\d+)]").matcher(m.group(2));
            while (idx.find()) {
                out.add(idx.group(1));
            }
        }
        InvalidSpecException.check(out.get(0).equals("template"), field, path, "%s must start with template (the wrapped object), was %s", field, path);
        return String.join("/", out);
    }

    /**
     * Writes each pod set's admission into {@code spec.components[i].podSetInfos[j]} (the AppWrapper controller injects
     * it into the wrapped object's template when it creates it), as Kueue does.
     */
    @Override
    public void admit(ObjectNode aw, List<PodSetTemplate> podSets, List<PodSetAdmission> admissions) {
        JsonNode components = aw.at("/spec/components");
        for (int i = 0; i < components.size(); i++) {
            int n = components.get(i).path("podSets").size();
            if (n == 0) {
                continue;
            }
            ArrayNode infos = ((ObjectNode) components.get(i)).putArray("podSetInfos");
            for (int j = 0; j < n; j++) {
                String name = "c" + i + "-" + j;
                PodSetAdmission a = admissions.stream().filter(x -> x.name().equals(name)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no admission for pod set " + name + " of the AppWrapper"));
                ObjectNode info = infos.addObject();
                info.putObject("labels").put(POD_SET_LABEL, name);
                if (!a.nodeSelector().isEmpty()) {
                    ObjectNode sel = info.putObject("nodeSelector");
                    new TreeMap<>(a.nodeSelector()).forEach(sel::put);
                }
                if (!a.tolerations().isEmpty()) {
                    ArrayNode tols = info.putArray("tolerations");
                    a.tolerations().forEach(t -> tols.add(Specs.MAPPER.valueToTree(t)));
                }
                if (!a.schedulingGates().isEmpty()) {
                    ArrayNode gates = info.putArray("schedulingGates");
                    a.schedulingGates().forEach(g -> gates.addObject().put("name", g));
                }
            }
        }
    }

    @Override
    public boolean isSuspended(GenericKubernetesResource aw) {
        return Specs.boolAt(aw, "/spec/suspend", false);
    }

    @Override
    public void setSuspended(ObjectNode aw, boolean suspended) {
        Specs.set(aw, "/spec/suspend", suspended);
    }

    @Override
    public Optional<PodRef> podOf(Pod pod) {
        Optional<String> aw = Specs.label(pod, APPWRAPPER_LABEL);
        Optional<String> ps = Specs.label(pod, POD_SET_LABEL);
        return aw.isEmpty() || ps.isEmpty() ? Optional.empty() : Optional.of(new PodRef(aw.get(), ps.get(), null));
    }

    @Override
    public WorkloadOutcome outcome(GenericKubernetesResource aw, List<Pod> pods) {
        String phase = Specs.at(aw, "/status/phase").asText("");
        if (phase.equals("Failed")) {
            return WorkloadOutcome.failed(Specs.trueCondition(aw, "Unhealthy").map(c -> Specs.describe(c, "the AppWrapper failed")).orElse("the AppWrapper failed"));
        }
        return phase.equals("Succeeded") ? WorkloadOutcome.SUCCEEDED : WorkloadOutcome.ACTIVE;
    }
}
