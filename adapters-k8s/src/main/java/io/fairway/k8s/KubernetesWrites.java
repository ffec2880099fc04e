package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.visibility.OperatorWrites;
import java.io.IOException;
import java.util.Map;

/**
 * The visibility API's write verbs on the Kubernetes objects (the controller's {@code --ui-write}), so that the next
 * reconcile follows them instead of undoing them: {@code cancel} deletes the job's object (in the background: its
 * pods go with it), {@code priority} sets its {@value Keys#PRIORITY_LABEL} label (which can only lower a job below
 * what its PriorityClass grants), {@code stop-queue} and {@code resume-queue} set the ClusterQueue's
 * {@code stopPolicy} ({@code Hold} / {@code None}) in the configuration ConfigMap, written with its resourceVersion
 * (a concurrent edit makes the write fail, not lost). Only jobs this controller tracks can be written; the token,
 * the audit and the RBAC of {@code deploy/ui-writes-rbac.yaml} stand before every write.
 */
final class KubernetesWrites implements OperatorWrites {
    private static final YAMLMapper YAML = new YAMLMapper();

    private final AdapterState state;

    KubernetesWrites(AdapterState state) {
        this.state = state;
    }

    private TrackedObject tracked(String jobId) {
        TrackedObject t;
        synchronized (state.lock) {
            t = state.tracked.byId(jobId);
        }
        if (t == null) {
            throw new IllegalArgumentException("no job '" + jobId + "' among the objects this controller tracks");
        }
        return t;
    }

    private static IllegalStateException failed(String what, TrackedObject t, KubernetesClientException e) {
        return new IllegalStateException("cannot " + what + " " + t.kind.kindName() + " " + t.namespace + "/" + t.name
                + ": the API server answered " + e.getCode() + " " + e.getMessage(), e);
    }

    @Override
    public boolean cancel(String jobId) {
        TrackedObject t = tracked(jobId);
        if (t.ended) {
            return false;
        }
        try {
            return !state.client.genericKubernetesResources(t.kind.context).inNamespace(t.namespace).withName(t.name)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete().isEmpty();
        } catch (KubernetesClientException e) {
            throw failed("delete", t, e);
        }
    }

    @Override
    public boolean setPriority(String jobId, int priority) {
        TrackedObject t = tracked(jobId);
        try {
            GenericKubernetesResource now = state.client.genericKubernetesResources(t.kind.context).inNamespace(t.namespace).withName(t.name).get();
            if (now == null) {
                throw new IllegalArgumentException("the " + t.kind.kindName() + " " + t.namespace + "/" + t.name + " is gone");
            }
            String value = String.valueOf(priority);
            Map<String, String> labels = now.getMetadata().getLabels();
            if (labels != null && value.equals(labels.get(Keys.PRIORITY_LABEL))) {
                return false;
            }
            String patch = "{\"metadata\":{\"labels\":{\"" + Keys.PRIORITY_LABEL + "\":\"" + value + "\"}}}";
            state.client.genericKubernetesResources(t.kind.context).inNamespace(t.namespace).withName(t.name)
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            return true;
        } catch (KubernetesClientException e) {
            throw failed("label", t, e);
        }
    }

    @Override
    public boolean stopClusterQueue(String clusterQueue, boolean stop) {
        AdapterOptions o = state.options;
        if (o.configMapName() == null) {
            throw new IllegalStateException("the queue configuration is not a ConfigMap this controller may edit (it is "
                    + (o.configFile() != null ? "the file " + o.configFile() : "given in code") + "): set stopPolicy of ClusterQueue "
                    + clusterQueue + " there");
        }
        try {
            ConfigMap cm = state.client.configMaps().inNamespace(o.configMapNamespace()).withName(o.configMapName()).get();
            String yaml = cm == null || cm.getData() == null ? null : cm.getData().get(o.configMapKey());
            if (yaml == null) {
                throw new IllegalStateException("the ConfigMap " + o.configMapNamespace() + "/" + o.configMapName() + " has no key " + o.configMapKey());
            }
            JsonNode root = YAML.readTree(yaml);
            ObjectNode queue = null;
            for (JsonNode q : root.path("clusterQueues")) {
                if (q.isObject() && clusterQueue.equals(q.path("name").asText(null))) {
                    queue = (ObjectNode) q;
                }
            }
            if (queue == null) {
                throw new IllegalArgumentException("no ClusterQueue '" + clusterQueue + "' in the ConfigMap " + o.configMapNamespace() + "/" + o.configMapName());
            }
            String was = queue.path("stopPolicy").asText("None");
            String next = stop ? (was.equals("None") ? "Hold" : was) : "None";
            if (next.equals(was)) {
                return false;
            }
            if (stop) {
                queue.put("stopPolicy", next);
            } else {
                queue.remove("stopPolicy");
            }
            cm.getData().put(o.configMapKey(), YAML.writeValueAsString(root));
            state.client.configMaps().inNamespace(o.configMapNamespace()).resource(cm).update(); // with its resourceVersion
            return true;
        } catch (IOException e) {
            throw new IllegalStateException("the ConfigMap's " + o.configMapKey() + " is not YAML: " + e.getMessage(), e);
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("cannot write the ConfigMap " + o.configMapNamespace() + "/" + o.configMapName() + ": the API server answered "
                    + e.getCode() + " " + e.getMessage(), e);
        }
    }
}
