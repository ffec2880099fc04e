package io.fairway.k8s.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The update rules of kube-apiserver (and of the JobSet webhook) that a queueing controller runs into, as the tests'
 * API server checks them. Written from the upstream sources: {@code pkg/apis/batch/validation/validation.go}
 * ({@code ValidateJobSpecUpdate}, {@code validatePodTemplateUpdate}, {@code validateCompletions},
 * {@code ValidateJobStatusUpdate}) and {@code pkg/registry/batch/job/strategy.go} ({@code validationOptionsForJob}:
 * the scheduling directives of a Job's pod template may change only while the <em>stored</em> Job is suspended and
 * has no {@code status.startTime}); and jobset's {@code jobset_webhook.go} {@code ValidateUpdate} (a JobSet's
 * replicated jobs are immutable, except their pod templates' labels, annotations, node selector, tolerations and
 * scheduling gates while the stored or the new JobSet is suspended).
 */
public final class ApiRules {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ApiRules() {
    }

    /** @return what a real API server refuses in a batch/v1 Job as created (empty: accepted) */
    public static List<String> jobCreate(JsonNode job) {
        List<String> errs = new ArrayList<>();
        jobSpec(job.path("spec"), errs);
        return errs;
    }

    private static void jobSpec(JsonNode spec, List<String> errs) {
        String restart = spec.at("/template/spec/restartPolicy").asText("");
        if (!restart.equals("Never") && !restart.equals("OnFailure")) {
            errs.add("spec.template.spec.restartPolicy: Unsupported value: \"" + restart + "\": supported values: \"OnFailure\", \"Never\"");
        }
        for (String f : List.of("parallelism", "completions")) {
            if (spec.path(f).isNumber() && spec.path(f).asLong() < 0) {
                errs.add("spec." + f + ": Invalid value: must be greater than or equal to 0");
            }
        }
        if ("Indexed".equals(spec.path("completionMode").asText()) && !spec.path("completions").isNumber()) {
            errs.add("spec.completions: Required value: when completion mode is Indexed");
        }
    }

    /**
     * @param old the Job as stored
     * @param now the Job as the update would leave it (status as stored)
     * @return what a real API server refuses in this update of the Job's main resource (empty: accepted)
     */
    public static List<String> jobUpdate(JsonNode old, JsonNode now) {
        List<String> errs = new ArrayList<>();
        JsonNode o = old.path("spec");
        JsonNode n = now.path("spec");
        jobSpec(n, errs);
        for (String f : List.of("selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy")) {
            if (!Objects.equals(o.get(f), n.get(f))) {
                errs.add("spec." + f + ": Invalid value: field is immutable");
            }
        }
        if (!Objects.equals(o.get("completions"), n.get("completions"))) {
            boolean indexed = "Indexed".equals(n.path("completionMode").asText());
            if (!indexed) {
                errs.add("spec.completions: Invalid value: field is immutable");
            } else if (!n.path("completions").isNumber()) {
                errs.add("spec.completions: Required value");
            } else if (!n.path("parallelism").isNumber() || n.path("completions").asLong() != n.path("parallelism").asLong()) {
                errs.add("spec.completions: Invalid value: can only be modified in tandem with spec.parallelism");
            }
        }
        boolean suspended = o.path("suspend").asBoolean(false);
        boolean started = !old.at("/status/startTime").isMissingNode() && !old.at("/status/startTime").isNull();
        JsonNode ot = o.path("template").deepCopy();
        JsonNode nt = n.path("template");
        if (suspended && !started && ot.isObject()) {
            ObjectNode mutable = (ObjectNode) ot;
            copy(nt, mutable, "metadata", "labels");
            copy(nt, mutable, "metadata", "annotations");
            copy(nt, mutable, "spec", "nodeSelector");
            copy(nt, mutable, "spec", "tolerations");
            copy(nt, mutable, "spec", "schedulingGates");
            JsonNode oldAff = ot.at("/spec/affinity");
            JsonNode newAff = nt.at("/spec/affinity");
            ObjectNode spec = mutable.with("spec");
            if (isAbsent(newAff) && !isAbsent(oldAff)) {
                ObjectNode rest = ((ObjectNode) oldAff).deepCopy();
                rest.remove("nodeAffinity");
                if (rest.isEmpty()) {
                    spec.remove("affinity");
                } else {
                    spec.set("affinity", rest);
                }
            } else if (!isAbsent(newAff) && isAbsent(oldAff)) {
                ObjectNode only = F.objectNode();
                if (newAff.has("nodeAffinity")) {
                    only.set("nodeAffinity", newAff.get("nodeAffinity"));
                }
                spec.set("affinity", only);
            } else if (!isAbsent(newAff)) {
                ObjectNode aff = ((ObjectNode) oldAff).deepCopy();
                if (newAff.has("nodeAffinity")) {
                    aff.set("nodeAffinity", newAff.get("nodeAffinity"));
                } else {
                    aff.remove("nodeAffinity");
                }
                spec.set("affinity", aff);
            }
        }
        if (!Json.semanticallyEqual(ot, nt)) {
            errs.add("spec.template: Invalid value: field is immutable"
                    + (suspended ? started ? " (the Job has started: status.startTime is set)" : "" : " (the stored Job is not suspended)")
                    + "; changed: " + Json.differences(ot, nt));
        }
        return errs;
    }

    /**
     * @param old the Job as stored
     * @param now the Job as the status update would leave it (spec as stored)
     * @return what a real API server (1.32 and later, {@code JobManagedBy} on) refuses in this status update
     */
    public static List<String> jobStatusUpdate(JsonNode old, JsonNode now) {
        List<String> errs = new ArrayList<>();
        JsonNode os = old.at("/status/startTime");
        JsonNode ns = now.at("/status/startTime");
        if (!isAbsent(os) && !Objects.equals(os, isAbsent(ns) ? null : ns) && !now.at("/spec/suspend").asBoolean(false)) {
            errs.add("status.startTime: Required value: startTime cannot be removed for unsuspended job");
        }
        JsonNode oc = old.at("/status/completionTime");
        JsonNode nc = now.at("/status/completionTime");
        if (!isAbsent(oc) && !isAbsent(nc) && !oc.equals(nc)) {
            errs.add("status.completionTime: Invalid value: completionTime cannot be mutated");
        }
        return errs;
    }

    /**
     * @return what jobset's validating webhook refuses in this update (its replicated jobs are immutable but for the
     *     pod templates' scheduling directives while the stored or the new JobSet is suspended)
     */
    public static List<String> jobSetUpdate(JsonNode old, JsonNode now) {
        List<String> errs = new ArrayList<>();
        JsonNode o = old.at("/spec/replicatedJobs");
        JsonNode n = now.at("/spec/replicatedJobs");
        if (!o.isArray() || !n.isArray()) {
            return errs;
        }
        boolean mutable = old.at("/spec/suspend").asBoolean(false) || now.at("/spec/suspend").asBoolean(false);
        JsonNode munged = n.deepCopy();
        if (mutable) {
            for (int i = 0; i < munged.size() && i < o.size(); i++) {
                JsonNode ot = o.get(i).at("/template/spec/template");
                ObjectNode nt = (ObjectNode) ((ObjectNode) munged.get(i)).with("template").with("spec").with("template");
                copy(ot, nt, "metadata", "labels");
                copy(ot, nt, "metadata", "annotations");
                copy(ot, nt, "spec", "nodeSelector");
                copy(ot, nt, "spec", "tolerations");
                copy(ot, nt, "spec", "schedulingGates");
            }
        }
        if (!Json.semanticallyEqual(o, munged)) {
            errs.add("spec.replicatedJobs: Invalid value: field is immutable; changed: " + Json.differences(o, munged));
        }
        return errs;
    }

    /**
     * @param jobSet the JobSet of the TrainJob's name and namespace as stored, or null when there is none
     * @return what Kubeflow Trainer's TrainJob validating webhook refuses in this update (kubeflow/trainer,
     *     pkg/runtime/framework/plugins/jobset/jobset.go): {@code spec.runtimePatches} (v2.2+,
     *     {@code checkRuntimePatchesImmutability}) may change only when the stored or the new TrainJob is suspended;
     *     {@code spec.podSpecOverrides} (v2.0, {@code checkPodSpecOverridesImmutability}) only when the new one is;
     *     and either only while no replicated job of the JobSet has active pods
     *     ({@code status.replicatedJobsStatus[].active > 0} refuses; no JobSet allows)
     */
    public static List<String> trainJobUpdate(JsonNode old, JsonNode now, JsonNode jobSet) {
        List<String> errs = new ArrayList<>();
        boolean oldSuspended = old.at("/spec/suspend").asBoolean(false);
        boolean newSuspended = now.at("/spec/suspend").asBoolean(false);
        for (String field : List.of("runtimePatches", "podSpecOverrides")) {
            JsonNode o = old.at("/spec/" + field);
            JsonNode n = now.at("/spec/" + field);
            boolean changed = !Json.semanticallyEqual(isAbsent(o) || o.isEmpty() ? F.arrayNode() : o, isAbsent(n) || n.isEmpty() ? F.arrayNode() : n);
            if (!changed) {
                continue;
            }
            boolean v20 = field.equals("podSpecOverrides");
            if (v20 ? !newSuspended : !oldSuspended && !newSuspended) {
                errs.add("spec." + field + ": Forbidden: " + (v20 ? "PodSpecOverrides can only be modified when the TrainJob is suspended"
                        : "RuntimePatches can only be modified when the TrainJob is suspended before or after the update"));
                continue;
            }
            if (jobSet != null) {
                for (JsonNode rj : jobSet.at("/status/replicatedJobsStatus")) {
                    if (rj.path("active").asInt(0) > 0) {
                        errs.add("spec." + field + ": Forbidden: " + (v20 ? "PodSpecOverrides" : "RuntimePatches")
                                + " cannot be modified when the JobSet's ReplicatedJob " + rj.path("name").asText() + " is still active");
                    }
                }
            }
        }
        return errs;
    }

    private static boolean isAbsent(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull();
    }

    /** Sets {@code to.section.field} to {@code from.section.field} (removing it when absent there). */
    private static void copy(JsonNode from, ObjectNode to, String section, String field) {
        JsonNode v = from.path(section).path(field);
        if (isAbsent(v)) {
            if (to.path(section).isObject()) {
                ((ObjectNode) to.get(section)).remove(field);
                if (to.get(section).isEmpty()) {
                    to.remove(section);
                }
            }
        } else {
            to.with(section).set(field, v.deepCopy());
        }
    }

    /**
     * kube-apiserver's rules for a new pod ({@code validatePodCreate}): a pod with scheduling gates may not name its
     * node ({@code spec.nodeName}), since a bound pod skips the scheduler and its gates.
     *
     * @param pod the pod
     * @return the problems, empty when valid
     */
    public static List<String> podCreate(JsonNode pod) {
        List<String> errs = new ArrayList<>();
        if (pod.at("/spec/schedulingGates").size() > 0 && !pod.at("/spec/nodeName").asText("").isEmpty()) {
            errs.add("spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared");
        }
        return errs;
    }

    /**
     * kube-apiserver's rules for a pod update ({@code ValidatePodUpdate}, {@code validatePodSchedulingGates}, and the
     * pod-scheduling-readiness rules for gated pods): the spec is immutable except container images,
     * {@code activeDeadlineSeconds}, tolerations (added to only), scheduling gates (removed only), and — while the
     * stored pod is gated — node selector entries added (none changed or removed); {@code spec.nodeName} is set once,
     * on an ungated pod (the scheduler's binding, which the tests write as an update).
     *
     * @param old the stored pod
     * @param now the pod after the update
     * @return the problems, empty when valid
     */
    public static List<String> podUpdate(JsonNode old, JsonNode now) {
        List<String> errs = new ArrayList<>();
        JsonNode o = old.path("spec");
        JsonNode n = now.path("spec");
        java.util.Set<String> free = java.util.Set.of("tolerations", "schedulingGates", "nodeSelector", "activeDeadlineSeconds", "containers", "initContainers");
        java.util.Set<String> fields = new java.util.TreeSet<>();
        o.fieldNames().forEachRemaining(fields::add);
        n.fieldNames().forEachRemaining(fields::add);
        for (String f : fields) {
            boolean binding = f.equals("nodeName") && o.path(f).asText("").isEmpty() && n.path("schedulingGates").isEmpty();
            if (!free.contains(f) && !binding && !o.path(f).equals(n.path(f))) {
                errs.add("spec." + f + ": Forbidden: pod updates may not change fields other than spec.containers[*].image, spec.activeDeadlineSeconds, "
                        + "spec.tolerations (only additions), spec.schedulingGates (only removals) and, while gated, spec.nodeSelector (only additions)");
            }
        }
        List<JsonNode> oldGates = new ArrayList<>();
        o.path("schedulingGates").forEach(oldGates::add);
        for (JsonNode g : n.path("schedulingGates")) {
            if (!oldGates.contains(g)) {
                errs.add("spec.schedulingGates: Forbidden: only deletion is allowed, but found new scheduling gate '" + g.path("name").asText() + "'");
            }
        }
        List<JsonNode> newTols = new ArrayList<>();
        n.path("tolerations").forEach(newTols::add);
        for (JsonNode t : o.path("tolerations")) {
            if (!newTols.contains(t)) {
                errs.add("spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds");
            }
        }
        if (!o.path("nodeSelector").equals(n.path("nodeSelector"))) {
            if (oldGates.isEmpty()) {
                errs.add("spec.nodeSelector: Forbidden: only additions to spec.nodeSelector are allowed while the pod is gated, and it is not");
            } else {
                o.path("nodeSelector").fields().forEachRemaining(e -> {
                    if (!e.getValue().equals(n.path("nodeSelector").path(e.getKey()))) {
                        errs.add("spec.nodeSelector: Invalid value: only additions to spec.nodeSelector are allowed (" + e.getKey() + " changed or removed)");
                    }
                });
            }
        }
        for (String c : List.of("containers", "initContainers")) {
            if (o.path(c).size() != n.path(c).size()) {
                errs.add("spec." + c + ": Forbidden: containers may not be added or removed");
                continue;
            }
            for (int i = 0; i < o.path(c).size(); i++) {
                com.fasterxml.jackson.databind.node.ObjectNode a = ((com.fasterxml.jackson.databind.node.ObjectNode) o.path(c).get(i)).deepCopy();
                com.fasterxml.jackson.databind.node.ObjectNode b = ((com.fasterxml.jackson.databind.node.ObjectNode) n.path(c).get(i)).deepCopy();
                a.remove("image");
                b.remove("image");
                if (!a.equals(b)) {
                    errs.add("spec." + c + "[" + i + "]: Forbidden: only the image of a container may change");
                }
            }
        }
        return errs;
    }

    /** JSON helpers: RFC 7386 merge patch, and comparison that treats null members as absent. */
    static final class Json {
        private Json() {
        }

        /** @return the target with the merge patch applied as RFC 7386 says (a null member removes the field) */
        static JsonNode mergePatch(JsonNode target, JsonNode patch) {
            if (!patch.isObject()) {
                return patch.deepCopy();
            }
            ObjectNode out = target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : F.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isNull()) {
                    out.remove(e.getKey());
                } else {
                    out.set(e.getKey(), mergePatch(out.get(e.getKey()), e.getValue()));
                }
            }
            return out;
        }

        /** @return a copy without null members and without empty objects or lists (as the API server's decoding drops them) */
        static JsonNode normalized(JsonNode n) {
            if (n == null || n.isNull() || n.isMissingNode()) {
                return null;
            }
            if (n.isObject()) {
                ObjectNode out = F.objectNode();
                n.fields().forEachRemaining(e -> {
                    JsonNode v = normalized(e.getValue());
                    if (v != null) {
                        out.set(e.getKey(), v);
                    }
                });
                return out.isEmpty() ? null : out;
            }
            if (n.isArray()) {
                com.fasterxml.jackson.databind.node.ArrayNode out = F.arrayNode();
                n.forEach(x -> {
                    JsonNode v = normalized(x);
                    out.add(v == null ? F.objectNode() : v);
                });
                return out.isEmpty() ? null : out;
            }
            return n;
        }

        static boolean semanticallyEqual(JsonNode a, JsonNode b) {
            return Objects.equals(normalized(a), normalized(b));
        }

        /** @return the paths where the two differ, for messages */
        static List<String> differences(JsonNode a, JsonNode b) {
            List<String> out = new ArrayList<>();
            diff("", normalized(a), normalized(b), out);
            return out;
        }

        private static void diff(String path, JsonNode a, JsonNode b, List<String> out) {
            if (Objects.equals(a, b)) {
                return;
            }
            if (a != null && b != null && a.isObject() && b.isObject()) {
                java.util.Set<String> keys = new java.util.TreeSet<>();
                a.fieldNames().forEachRemaining(keys::add);
                b.fieldNames().forEachRemaining(keys::add);
                for (String k : keys) {
                    diff(path + "." + k, a.get(k), b.get(k), out);
                }
                return;
            }
            out.add(path.isEmpty() ? "." : path.substring(1));
        }
    }
}
