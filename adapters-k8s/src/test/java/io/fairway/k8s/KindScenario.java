package io.fairway.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.Integrations;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plays the parts of the operators of the kinds Fairway queues on the mock API server: reads an example manifest,
 * creates it, creates its pods as its operator would (with the operator's labels), and sets its finished condition.
 */
final class KindScenario {
    /** Every integration Fairway ships (not the SPI example of the test sources). */
    static final List<String> ALL = Integrations.available().keySet().stream().filter(n -> !n.startsWith("example.com/")).toList();

    final MockCluster cluster;
    final Integration integration;
    final EnabledKind kind;
    final GenericKubernetesResource created;

    KindScenario(MockCluster cluster, String example) throws IOException {
        this(cluster, example, null, null);
    }

    /** @param namespace where to create it instead of the example's, or null @param queue its LocalQueue instead, or null */
    KindScenario(MockCluster cluster, String example, String namespace, String queue) throws IOException {
        this.cluster = cluster;
        GenericKubernetesResource o = read(example);
        if (namespace != null) {
            o.getMetadata().setNamespace(namespace);
        }
        if (queue != null) {
            o.getMetadata().getLabels().put(Keys.QUEUE_LABEL, queue);
        }
        this.integration = Integrations.available().get(o.getApiVersion() + "." + o.getKind());
        this.kind = new EnabledKind(integration);
        this.created = cluster.client.genericKubernetesResources(kind.context).inNamespace(o.getMetadata().getNamespace()).resource(o).create();
    }

    static GenericKubernetesResource read(String example) throws IOException {
        JsonNode n = new YAMLMapper().readTree(Files.readString(Path.of("..", "deploy", "examples", example + ".yaml")));
        return Specs.MAPPER.convertValue(n, GenericKubernetesResource.class);
    }

    String ns() {
        return created.getMetadata().getNamespace();
    }

    String name() {
        return created.getMetadata().getName();
    }

    GenericKubernetesResource now() {
        return cluster.client.genericKubernetesResources(kind.context).inNamespace(ns()).withName(name()).get();
    }

    boolean suspended() {
        return integration.isSuspended(now());
    }

    /** Creates the pods of every pod set from the admitted object, as the kind's operator does. */
    List<Pod> createPods() {
        GenericKubernetesResource o = now();
        List<Pod> out = new ArrayList<>();
        for (PodSetTemplate ps : integration.podSets(o)) {
            PodSpec spec = ps.template().getSpec();
            if (integration.name().startsWith("trainer.")) {
                spec = trainerPodSpec(o, ps.name(), spec);
            }
            for (int i = 0; i < ps.count(); i++) {
                Map<String, String> labels = labels(ps.name(), i);
                Pod p = new PodBuilder().withNewMetadata().withName(name() + "-" + ps.name() + "-" + i).withNamespace(ns()).withLabels(labels)
                        .addToAnnotations(Keys.COMPLETION_INDEX, Integer.toString(i)).endMetadata()
                        .withSpec(spec).withStatus(new PodStatusBuilder().withPhase("Pending").build()).build();
                out.add(cluster.client.pods().inNamespace(ns()).resource(p).create());
            }
        }
        return out;
    }

    /** The trainer applies the TrainJob's runtime patches (or, on v2.0, podSpecOverrides) for the job to its pods. */
    private static PodSpec trainerPodSpec(GenericKubernetesResource o, String job, PodSpec base) {
        ObjectNode spec = Specs.MAPPER.valueToTree(base);
        List<JsonNode> patches = new ArrayList<>();
        Specs.at(o, "/spec/podSpecOverrides").forEach(patches::add);
        for (JsonNode rp : Specs.at(o, "/spec/runtimePatches")) {
            for (JsonNode rj : rp.at("/trainingRuntimeSpec/template/spec/replicatedJobs")) {
                if (job.equals(rj.path("name").asText())) {
                    patches.add(rj.at("/template/spec/template/spec"));
                }
            }
        }
        for (JsonNode ov : patches) {
            for (String f : List.of("nodeSelector", "tolerations", "schedulingGates")) {
                if (ov.has(f)) {
                    spec.set(f, ov.get(f));
                }
            }
        }
        return Specs.MAPPER.convertValue(spec, PodSpec.class);
    }

    private Map<String, String> labels(String podSet, int i) {
        Map<String, String> l = new LinkedHashMap<>();
        String k = integration.kind().kind();
        switch (k) {
            case "JobSet", "TrainJob" -> {
                l.put("jobset.sigs.k8s.io/jobset-name", name());
                l.put("jobset.sigs.k8s.io/replicatedjob-name", podSet);
                l.put("jobset.sigs.k8s.io/job-index", "0");
                l.put(Keys.JOB_NAME_LABEL, name() + "-" + podSet + "-0");
            }
            case "MPIJob" -> {
                l.put("training.kubeflow.org/job-name", name());
                l.put("training.kubeflow.org/job-role", podSet);
                l.put("training.kubeflow.org/replica-index", Integer.toString(i));
                l.put("training.kubeflow.org/operator-name", "mpi-operator");
            }
            default -> {
                l.put("training.kubeflow.org/job-name", name());
                l.put("training.kubeflow.org/replica-type", podSet);
                l.put("training.kubeflow.org/replica-index", Integer.toString(i));
                l.put("training.kubeflow.org/operator-name", k.toLowerCase(java.util.Locale.ROOT) + "-controller");
            }
        }
        return l;
    }

    List<Pod> pods() {
        List<Pod> out = new ArrayList<>();
        for (Pod p : cluster.client.pods().inNamespace(ns()).list().getItems()) {
            if (integration.podOf(p).map(r -> r.ownerName().equals(name())).orElse(false)) {
                out.add(p);
            }
        }
        return out;
    }

    void deletePods() {
        pods().forEach(p -> cluster.client.pods().inNamespace(ns()).withName(p.getMetadata().getName()).delete());
    }

    /** Sets the kind's success condition, as its operator does when the training ends (through the status subresource). */
    void finish() {
        String type = switch (integration.kind().kind()) {
            case "JobSet" -> "Completed";
            case "TrainJob" -> "Complete";
            default -> "Succeeded";
        };
        String patch = "{\"status\":{\"conditions\":[{\"type\":\"" + type + "\",\"status\":\"True\",\"reason\":\"Done\","
                + "\"message\":\"done\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}";
        cluster.client.genericKubernetesResources(kind.context).inNamespace(ns()).withName(name()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
}
