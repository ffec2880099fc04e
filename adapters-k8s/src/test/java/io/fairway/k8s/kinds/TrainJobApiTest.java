package io.fairway.k8s.kinds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fairway.api.InvalidSpecException;
import io.fairway.k8s.PodResources;
import io.fairway.k8s.integration.ApiLookup;
import io.fairway.k8s.integration.PodSetAdmission;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * TrainJob against Kubeflow Trainer's real CRDs (v2.0.0 and v2.3.0, from {@code ../shared/k8s-crds/trainer}): the
 * served API is read from the installed CRD, admission writes Fairway's own {@code runtimePatches} entry (v2.2+) or
 * {@code podSpecOverrides} (v2.0) and the written TrainJob validates against that CRD's schema, v2.1's
 * {@code podTemplateOverrides} is refused with a message saying so, and the pods are counted from the runtime the
 * TrainJob names, as the trainer resolves it.
 */
class TrainJobApiTest {
    private static final String V20 = "trainer/v2.0.0/trainer.kubeflow.org_trainjobs.yaml";
    private static final String V23 = "trainer/v2.3.0/trainer.kubeflow.org_trainjobs.yaml";
    private static final String RUNTIMES = "trainer/v2.3.0/trainer.kubeflow.org_clustertrainingruntimes.yaml";

    /** A torch runtime as the trainer ships them: a dataset initializer and the trainer's "node" job. */
    private static JsonNode runtime() {
        try {
            return Specs.MAPPER.readTree("""
                    {"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime","metadata":{"name":"torch-distributed"},
                     "spec":{"mlPolicy":{"numNodes":1,"torch":{}},
                      "template":{"spec":{"replicatedJobs":[
                        {"name":"dataset-initializer","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"dataset-initializer"}},
                          "spec":{"template":{"spec":{"containers":[{"name":"dataset-initializer","image":"init",
                            "resources":{"requests":{"cpu":"2","memory":"4Gi"}}}]}}}}},
                        {"name":"node","dependsOn":[{"name":"dataset-initializer","status":"Complete"}],
                          "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
                          "spec":{"template":{"spec":{"containers":[{"name":"node","image":"pytorch",
                            "resources":{"requests":{"cpu":"4","memory":"16Gi"}}}]}}}}}]}}}}
                    """);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static GenericKubernetesResource trainJob() {
        try {
            return Specs.MAPPER.readValue("""
                    {"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"ddp","namespace":"team-a"},
                     "spec":{"suspend":true,"runtimeRef":{"name":"torch-distributed"},
                      "trainer":{"numNodes":3,"resourcesPerNode":{"limits":{"nvidia.com/gpu":"2"}}}}}
                    """, GenericKubernetesResource.class);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static TrainJobIntegration on(JsonNode crd, JsonNode runtime) {
        TrainJobIntegration in = new TrainJobIntegration();
        in.connect((k, ns, n) -> ApiLookup.CRD.equals(k) ? SharedCrds.resource(crd)
                : TrainJobIntegration.CLUSTER_RUNTIME.equals(k) && runtime != null && n.equals(runtime.at("/metadata/name").asText())
                        ? SharedCrds.resource(runtime) : null);
        return in;
    }

    private static List<PodSetAdmission> admissions(List<PodSetTemplate> sets) {
        List<PodSetAdmission> out = new ArrayList<>();
        for (PodSetTemplate ps : sets) {
            out.add(new PodSetAdmission(ps.name(), ps.count(), Map.of("pool", "gpu"), List.of(new Toleration("NoSchedule", "nvidia.com/gpu", "Exists", null, null)),
                    List.of("fairway.io/topology"), List.of()));
        }
        return out;
    }

    @Test
    void podsAreCountedFromTheRuntimeTheTrainJobNamesAsTheTrainerResolvesIt() {
        assertThat(SharedCrds.errors(SharedCrds.crd(RUNTIMES), "v1alpha1", runtime())).as("the test's runtime is a valid ClusterTrainingRuntime").isEmpty();
        List<PodSetTemplate> sets = on(SharedCrds.crd(V23), runtime()).podSets(trainJob());
        assertThat(sets).extracting(PodSetTemplate::name).containsExactly("dataset-initializer", "node");
        PodSetTemplate node = sets.get(1);
        assertThat(node.count()).as("spec.trainer.numNodes over the runtime's mlPolicy.numNodes").isEqualTo(3);
        var r = PodResources.of(node.template().getSpec());
        assertThat(r.get("cpu")).as("the runtime's container requests stay").isEqualTo(4000);
        assertThat(r.gpus()).as("merged with spec.trainer.resourcesPerNode").isEqualTo(2);
        assertThat(PodResources.of(sets.get(0).template().getSpec()).get("cpu")).as("the initializer is counted too").isEqualTo(2000);
    }

    @Test
    void onTheCurrentApiAdmissionWritesFairwaysOwnRuntimePatchAndTheTrainJobIsValidAgainstTrainer230() {
        JsonNode crd = SharedCrds.crd(V23);
        TrainJobIntegration in = on(crd, runtime());
        assertThat(in.api()).isEqualTo(TrainJobIntegration.Api.RUNTIME_PATCHES);
        GenericKubernetesResource tj = trainJob();
        ObjectNode o = Specs.toJson(tj);
        // Kueue's own entry, as its webhook adds it, stays untouched beside Fairway's
        o.with("spec").putArray("runtimePatches").addObject().put("manager", "kueue.x-k8s.io/manager");
        in.admit(o, in.podSets(tj), admissions(in.podSets(tj)));
        in.setSuspended(o, false);
        JsonNode patches = o.at("/spec/runtimePatches");
        assertThat(patches).hasSize(2);
        assertThat(patches.get(0).path("manager").asText()).isEqualTo("kueue.x-k8s.io/manager");
        JsonNode mine = patches.get(1);
        assertThat(mine.path("manager").asText()).isEqualTo(TrainJobIntegration.MANAGER);
        JsonNode node = mine.at("/trainingRuntimeSpec/template/spec/replicatedJobs/1");
        assertThat(node.path("name").asText()).isEqualTo("node");
        assertThat(node.at("/template/spec/template/spec/nodeSelector/pool").asText()).isEqualTo("gpu");
        assertThat(node.at("/template/spec/template/spec/schedulingGates/0/name").asText()).isEqualTo("fairway.io/topology");
        assertThat(SharedCrds.errors(crd, "v1alpha1", o)).as("what Fairway writes, against Trainer v2.3.0's CRD").isEmpty();
        // admitted again (after a preemption left its entry behind): one entry of Fairway's, not two
        in.admit(o, in.podSets(tj), admissions(in.podSets(tj)));
        assertThat(o.at("/spec/runtimePatches")).hasSize(2);
    }

    @Test
    void onTrainer20AdmissionWritesPodSpecOverridesValidAgainstItsCrd() {
        JsonNode crd = SharedCrds.crd(V20);
        TrainJobIntegration in = on(crd, null);
        assertThat(in.api()).isEqualTo(TrainJobIntegration.Api.POD_SPEC_OVERRIDES);
        GenericKubernetesResource tj = Specs.MAPPER.convertValue(Specs.toJson(trainJob()).set("spec",
                Specs.toJson(trainJob()).with("spec").<ObjectNode>set("trainer", Specs.MAPPER.createObjectNode().put("numNodes", 2)
                        .set("resourcesPerNode", Specs.MAPPER.createObjectNode().set("limits", Specs.MAPPER.createObjectNode().put("nvidia.com/gpu", "2"))))),
                GenericKubernetesResource.class);
        List<PodSetTemplate> sets = in.podSets(tj);
        assertThat(sets).as("no runtime readable: spec.trainer alone").singleElement().satisfies(ps -> assertThat(ps.count()).isEqualTo(2));
        ObjectNode o = Specs.toJson(tj);
        in.admit(o, sets, admissions(sets));
        assertThat(o.at("/spec/podSpecOverrides/0/targetJobs/0/name").asText()).isEqualTo("node");
        assertThat(o.has("runtimePatches")).isFalse();
        assertThat(SharedCrds.errors(crd, "v1alpha1", o)).as("against Trainer v2.0.0's CRD").isEmpty();
    }

    @Test
    void trainer21sPodTemplateOverridesIsRefusedWithAMessageSayingWhichVersionsAreSupported() {
        // v2.1's CRD: v2.0's with podSpecOverrides renamed podTemplateOverrides
        JsonNode v20 = SharedCrds.crd(V20);
        JsonNode v21 = SharedCrds.without(v20, "v1alpha1", "/properties/spec", "podSpecOverrides");
        for (JsonNode v : v21.at("/spec/versions")) {
            ((ObjectNode) v.at("/schema/openAPIV3Schema/properties/spec/properties")).putObject("podTemplateOverrides").put("type", "array");
        }
        TrainJobIntegration in = on(v21, runtime());
        assertThat(in.api()).isEqualTo(TrainJobIntegration.Api.POD_TEMPLATE_OVERRIDES);
        assertThatThrownBy(() -> in.podSets(trainJob())).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("v2.1").hasMessageContaining("v2.2 or later");
    }
}
