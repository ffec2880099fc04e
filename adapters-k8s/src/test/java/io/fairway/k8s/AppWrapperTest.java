package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.api.job.JobState;
import io.fairway.k8s.audit.CrdSchemas;
import io.fairway.k8s.audit.RbacAudit;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.AppWrapperIntegration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An AppWrapper (deploy/examples/appwrapper.yaml) end to end on the tests' API server, which checks every write
 * against the AppWrapper CRD (project-codeflare/appwrapper v1.2.1): admitted whole, its flavor and gate written into
 * {@code spec.components[*].podSetInfos} where the AppWrapper controller reads them, its pods (created by the test as
 * that controller does, with podSetInfos applied) bound to their members' nodes; preempted by a higher-priority Job and
 * restored exactly; resumed; finished when {@code status.phase} is Succeeded. The RBAC in
 * deploy/integrations/appwrapper.yaml grants exactly the verbs used on AppWrappers.
 */
class AppWrapperTest extends AdapterTestBase {
    private final RbacAudit audit = new RbacAudit();

    @Test
    void anAppWrapperIsAdmittedThroughPodSetInfosPreemptedRestoredExactlyResumedAndFinished() throws Exception {
        CrdSchemas.requireShared();
        for (int i = 1; i <= 2; i++) {
            cluster.node("n" + i, 64, 512, 8, Map.of("fairway.io/pool", "gpu"));
        }
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        KindScenario s = new KindScenario(cluster, "appwrapper");
        assertThat(s.integration).isInstanceOf(AppWrapperIntegration.class);
        KubernetesClient audited = cluster.server.createClient(b -> b.editOrNewConfig().addToCustomHeaders("X-Fairway-Faulty", "1").endConfig()
                .withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("rbac-audit", new io.fabric8.kubernetes.client.http.Interceptor() {
                    @Override
                    public void before(io.fabric8.kubernetes.client.http.BasicBuilder builder, io.fabric8.kubernetes.client.http.HttpRequest request,
                                       io.fabric8.kubernetes.client.http.Interceptor.RequestTags tags) {
                        audit.record(request);
                    }
                })));
        start(audited, AdapterOptions.builder().queues(MockCluster.config(WorkloadKindsTest.KINDS)).integrations(List.of("batch/v1.Job", s.integration.name())));
        reconcileUntil(adapter, () -> !s.suspended(), "the AppWrapper is admitted");
        JsonNode info = Specs.at(s.now(), "/spec/components/0/podSetInfos/0");
        assertThat(info.path("nodeSelector").path("fairway.io/pool").asText()).isEqualTo("gpu");
        assertThat(info.path("tolerations").get(0).path("key").asText()).isEqualTo("nvidia.com/gpu");
        assertThat(info.path("schedulingGates").get(0).path("name").asText()).isEqualTo(Keys.TOPOLOGY_GATE);
        assertThat(Specs.at(s.now(), "/spec/components/0/template")).as("the wrapped Job is left as written").isEqualTo(Specs.at(s.created,
                "/spec/components/0/template"));

        // the AppWrapper controller's part: the wrapped Job's pods, with podSetInfos applied and its label
        List<Pod> pods = new ArrayList<>();
        PodSpec spec = Specs.template(s.now(), "/spec/components/0/template/spec/template").getSpec();
        ObjectNode withInfo = Specs.MAPPER.valueToTree(spec);
        withInfo.set("nodeSelector", info.path("nodeSelector"));
        withInfo.set("tolerations", info.path("tolerations"));
        withInfo.set("schedulingGates", info.path("schedulingGates"));
        PodSpec podSpec = Specs.MAPPER.convertValue(withInfo, PodSpec.class);
        for (int i = 0; i < 2; i++) {
            Map<String, String> labels = new java.util.TreeMap<>(Map.of(AppWrapperIntegration.APPWRAPPER_LABEL, s.name()));
            info.path("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
            pods.add(cluster.client.pods().inNamespace(s.ns()).resource(new PodBuilder().withNewMetadata().withName("wrapped-job-" + i)
                    .withNamespace(s.ns()).withLabels(labels).endMetadata().withSpec(podSpec).withNewStatus().withPhase("Pending").endStatus().build()).create());
        }
        reconcileUntil(adapter, () -> s.pods().size() == 2 && s.pods().stream().noneMatch(Kube::hasGate), "its pods are bound");
        assertThat(s.pods()).allSatisfy(p -> assertThat(p.getSpec().getNodeSelector()).containsKey("kubernetes.io/hostname"));

        cluster.createJob(cluster.jobBuilder("team-a", "urgent", "gpu", 1, "62", 8, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, s::suspended, "the AppWrapper is preempted");
        assertThat(Specs.at(s.now(), "/spec")).as("restored exactly: podSetInfos cleared").isEqualTo(Specs.at(s.created, "/spec"));
        assertThat(adapter.status(s.integration.name(), s.ns(), s.name()).orElseThrow().state()).isEqualTo(JobState.PENDING);
        s.deletePods(); // the AppWrapper controller deletes the wrapped Job

        reconcileUntil(adapter, () -> !MockCluster.suspended(cluster.job("team-a", "urgent")), "the urgent job runs");
        cluster.createPods("team-a", "urgent");
        reconcileUntil(adapter, () -> cluster.pods("team-a", "urgent").stream().noneMatch(Kube::hasGate), "the urgent job's pod is bound");
        cluster.setPhase("team-a", "urgent", "Succeeded");
        reconcileUntil(adapter, () -> !s.suspended(), "the AppWrapper is resumed");
        cluster.client.genericKubernetesResources(s.kind.context).inNamespace(s.ns()).withName(s.name()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Succeeded\"}}");
        reconcileUntil(adapter, () -> adapter.status(s.integration.name(), s.ns(), s.name()).orElseThrow().state() == JobState.SUCCEEDED, "it finishes");

        java.util.Set<String> used = new java.util.TreeSet<>(audit.used);
        used.removeIf(r -> !r.startsWith("workload.codeflare.dev/"));
        assertThat(used).as("deploy/integrations/appwrapper.yaml grants exactly the verbs used on AppWrappers")
                .isEqualTo(RbacAudit.granted(Path.of("..", "deploy", "integrations", "appwrapper.yaml")));
        assertThat(RbacAudit.granted(Path.of("..", "deploy", "namespaced", "integrations", "appwrapper.yaml"))).isEqualTo(used);
    }

    @Test
    void podSetPathsAreReadInTheAppWrapperSyntaxAndABadOneIsRefusedNamingTheField() {
        assertThat(AppWrapperIntegration.class).isNotNull();
        GenericKubernetesResource aw = Specs.MAPPER.convertValue(Map.of("apiVersion", "workload.codeflare.dev/v1beta2", "kind", "AppWrapper",
                "metadata", Map.of("name", "a"), "spec", Map.of("components", List.of(Map.of("podSets", List.of(Map.of("path",
                        "template.spec.replicatedJobs[1].template.spec.template", "replicas", 3)), "template", Map.of("apiVersion", "jobset.x-k8s.io/v1alpha2",
                        "kind", "JobSet", "spec", Map.of("replicatedJobs", List.of(Map.of("name", "x"), Map.of("name", "y", "template", Map.of("spec",
                                Map.of("template", Map.of("spec", Map.of("containers", List.of(Map.of("name", "c")))))))))))))), GenericKubernetesResource.class);
        var sets = new AppWrapperIntegration().podSets(aw);
        assertThat(sets).singleElement().satisfies(ps -> {
            assertThat(ps.templatePointer()).isEqualTo("/spec/components/0/template/spec/replicatedJobs/1/template/spec/template");
            assertThat(ps.count()).isEqualTo(3);
        });
        GenericKubernetesResource bad = Specs.MAPPER.convertValue(Map.of("apiVersion", "workload.codeflare.dev/v1beta2", "kind", "AppWrapper",
                "metadata", Map.of("name", "a"), "spec", Map.of("components", List.of(Map.of("podSets", List.of(Map.of("path", "spec/../../x")),
                        "template", Map.of())))), GenericKubernetesResource.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AppWrapperIntegration().podSets(bad))
                .isInstanceOf(io.fairway.api.InvalidSpecException.class).hasMessageContaining("spec.components[0].podSets[0].path");
    }
}
