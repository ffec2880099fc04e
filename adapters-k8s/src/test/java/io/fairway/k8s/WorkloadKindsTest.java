package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static io.fairway.k8s.MockCluster.suspended;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobState;
import io.fairway.k8s.integration.PodSetTemplate;
import io.fairway.k8s.integration.Specs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every kind Fairway ships an integration for, end to end on the mock API server, from its example manifest under
 * {@code deploy/examples/}: created suspended, admitted whole with every pod set placed (each pod set's template gets
 * the flavor and the topology gate, each pod is bound to its member's node), preempted by a higher-priority Job and
 * restored exactly (its spec again what the author wrote), resumed, and finished. Every field the adapter patched
 * on the object is one the kind's API reference documents (the allow-list below cites it).
 */
class WorkloadKindsTest extends AdapterTestBase {
    static final String KINDS = QueuesYaml.flavor("gpu").pool("gpu", "nvidia.com/gpu").preemptLowerPriority().quota("cpu", "64")
            .quota("memory", "1Ti").quota("nvidia.com/gpu", "8").localQueue("gpu", "team-a").yaml();
    /** Paths any kind's object may be patched at: Fairway's own annotations (metadata, documented for every object). */
    private static final String ANNOTATIONS = "/metadata/annotations/fairway\\.io~1[a-z-]+";
    /** PodSpec fields admission writes, or removes on preemption (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodSpec). */
    private static final String POD_FIELDS = "/spec/(nodeSelector(/.+)?|tolerations(/\\d+/(key|operator|value|effect))?|schedulingGates(/\\d+/name)?)";
    /** The documented fields written, per kind (each integration's Javadoc cites its API reference). */
    private static final Map<String, List<String>> ALLOWED = Map.of(
            // https://jobset.sigs.k8s.io/docs/reference/jobset.v1alpha2/
            "JobSet", List.of("/spec/suspend", "/spec/replicatedJobs/\\d+/template/spec/template" + POD_FIELDS),
            // https://github.com/kubeflow/training-operator/tree/release-1.9/pkg/apis/kubeflow.org/v1
            "Kubeflow", List.of("/spec/runPolicy/suspend", "/spec/(pytorch|tf|xgb|paddle|jax)ReplicaSpecs/[A-Za-z]+/template" + POD_FIELDS),
            // https://github.com/kubeflow/mpi-operator/blob/master/pkg/apis/kubeflow/v2beta1/types.go
            "MPIJob", List.of("/spec/runPolicy/suspend", "/spec/mpiReplicaSpecs/(Launcher|Worker)/template" + POD_FIELDS),
            // https://github.com/kubeflow/trainer/blob/v2.3.0/pkg/apis/trainer/v1alpha1/trainjob_types.go (RuntimePatch, manager-keyed)
            "TrainJob", List.of("/spec/suspend", "/spec/runtimePatches(/\\d+/(manager|trainingRuntimeSpec/template/spec/replicatedJobs/\\d+/"
                    + "(name|template/spec/template/spec/(nodeSelector/.+|tolerations/\\d+/(key|operator|value|effect)|schedulingGates/\\d+/name))))?"));

    private final List<String[]> patches = new java.util.concurrent.CopyOnWriteArrayList<>();

    @ParameterizedTest
    @ValueSource(strings = {"jobset", "pytorchjob", "tfjob", "xgboostjob", "paddlejob", "jaxjob", "mpijob", "trainjob"})
    void createdSuspendedAdmittedWholePreemptedRestoredExactlyResumedAndFinished(String example) throws java.io.IOException {
        for (int i = 1; i <= 4; i++) {
            cluster.node("n" + i, 64, 512, 8, Map.of("fairway.io/pool", "gpu"));
        }
        cluster.client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata().withName("urgent").endMetadata()
                .withValue(1000).build()).create();
        KindScenario s = new KindScenario(cluster, example);
        KubernetesClient audited = cluster.server.createClient(b -> b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor("patches",
                new Interceptor() {
                    @Override
                    public void before(BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
                        if ("PATCH".equals(request.method())) {
                            patches.add(new String[] {request.uri().getPath(), request.bodyString()});
                        }
                    }
                })));
        start(audited, AdapterOptions.builder().queues(MockCluster.config(KINDS)).integrations(List.of("batch/v1.Job", s.integration.name())));
        String integration = s.integration.name();
        reconcileUntil(adapter, () -> !s.suspended(), "the " + example + " is admitted");

        // admitted whole: every pod set in the one admission, each template placed on the flavor and gated
        Admit a = adapter.status(integration, s.ns(), s.name()).orElseThrow().admission();
        List<PodSetTemplate> sets = s.integration.podSets(s.now());
        assertThat(a.counts().keySet()).containsExactlyInAnyOrderElementsOf(sets.stream().map(PodSetTemplate::name).toList());
        assertThat(a.placement().members()).hasSize(sets.stream().mapToInt(PodSetTemplate::count).sum());
        if (!example.equals("trainjob")) {
            for (PodSetTemplate ps : sets) {
                PodTemplateSpec t = ps.template();
                assertThat(t.getSpec().getNodeSelector()).as(ps.name()).containsEntry("fairway.io/pool", "gpu");
                assertThat(t.getSpec().getSchedulingGates()).as(ps.name()).extracting(g -> g.getName()).contains(Keys.TOPOLOGY_GATE);
            }
        } else {
            JsonNode p = Specs.at(s.now(), "/spec/runtimePatches/0");
            assertThat(p.path("manager").asText()).isEqualTo(io.fairway.k8s.kinds.TrainJobIntegration.MANAGER);
            JsonNode rj = p.at("/trainingRuntimeSpec/template/spec/replicatedJobs/0");
            assertThat(rj.path("name").asText()).isEqualTo("node");
            JsonNode o = rj.at("/template/spec/template/spec");
            assertThat(o.path("nodeSelector").path("fairway.io/pool").asText()).isEqualTo("gpu");
            assertThat(o.path("schedulingGates").get(0).path("name").asText()).isEqualTo(Keys.TOPOLOGY_GATE);
        }
        // every pod of every pod set bound to its member's node
        s.createPods();
        reconcileUntil(adapter, () -> s.pods().stream().noneMatch(Kube::hasGate), "every pod is bound");
        Set<String> members = new HashSet<>();
        for (Pod p : s.pods()) {
            String podSet = s.integration.podOf(p).orElseThrow().podSet();
            String node = p.getSpec().getNodeSelector().get("kubernetes.io/hostname");
            assertThat(node).as(p.getMetadata().getName()).isNotNull();
            String member = p.getMetadata().getAnnotations().get(Keys.MEMBER_ANNOTATION);
            assertThat(members.add(podSet + "/" + member)).as("one pod per member").isTrue();
            assertThat(a.placement().members()).anyMatch(m -> m.podSet().equals(podSet) && Integer.toString(m.index()).equals(member)
                    && m.node().equals(node));
        }
        assertThat(members).hasSize(a.placement().members().size());

        // preempted by a higher-priority Job needing the quota, and restored exactly
        cluster.createJob(cluster.jobBuilder("team-a", "urgent", "gpu", 1, "60", 8, true).editSpec().editTemplate().editSpec()
                .withPriorityClassName("urgent").endSpec().endTemplate().endSpec().build());
        reconcileUntil(adapter, s::suspended, "the " + example + " is preempted");
        GenericKubernetesResource evicted = s.now();
        assertThat(Specs.at(evicted, "/spec")).as("the spec is what the author wrote").isEqualTo(Specs.at(s.created, "/spec"));
        assertThat(evicted.getMetadata().getAnnotations()).doesNotContainKeys(Keys.ADMISSION_ANNOTATION, Keys.ORIGINAL_TEMPLATE_ANNOTATION);
        assertThat(cluster.events(s.ns(), s.name())).extracting(Event::getReason).contains(Keys.REASON_ADMITTED, Keys.REASON_PREEMPTED);
        assertThat(adapter.status(integration, s.ns(), s.name()).orElseThrow().state()).isEqualTo(JobState.PENDING);
        s.deletePods();

        // resumed when the urgent Job is done, then finished
        reconcileUntil(adapter, () -> !suspended(cluster.job("team-a", "urgent")), "the urgent job runs");
        cluster.createPods("team-a", "urgent");
        reconcileUntil(adapter, () -> cluster.pods("team-a", "urgent").stream().noneMatch(Kube::hasGate), "the urgent job's pod is bound");
        cluster.setPhase("team-a", "urgent", "Succeeded");
        reconcileUntil(adapter, () -> !s.suspended(), "the " + example + " is resumed");
        s.finish();
        reconcileUntil(adapter, () -> adapter.status(integration, s.ns(), s.name()).orElseThrow().state() == JobState.SUCCEEDED, "it finishes");
        reconcileUntil(adapter, () -> Kube.annotation(s.now(), Keys.FINISHED_ANNOTATION) != null, "it is marked finished");
        assertThat(adapter.checkInvariants()).isEmpty();

        List<String> patched = patchedPaths("/" + s.integration.kind().plural() + "/");
        String family = s.integration.kind().group().equals("kubeflow.org") && !example.equals("mpijob") ? "Kubeflow" : s.integration.kind().kind();
        List<Pattern> allowed = new ArrayList<>();
        allowed.add(Pattern.compile(ANNOTATIONS));
        ALLOWED.get(family).forEach(p -> allowed.add(Pattern.compile(p)));
        assertThat(patched).as("fields written").isNotEmpty().allSatisfy(p -> assertThat(allowed).as(p).anyMatch(r -> r.matcher(p).matches()));
        assertThat(patched).as("it was suspended and resumed through the documented field")
                .anyMatch(p -> p.endsWith("/suspend"));
    }

    /** @return the leaf paths of every PATCH the adapter sent for objects under the path */
    private List<String> patchedPaths(String under) {
        List<String> out = new ArrayList<>();
        for (String[] r : patches) {
            if (!r[0].contains(under)) {
                continue;
            }
            JsonNode body = Json.read(r[1], JsonNode.class);
            if (body.isArray()) {
                for (JsonNode op : body) {
                    if (!op.path("op").asText().equals("test")) {
                        leaves(op.path("path").asText(), op.has("value") ? op.get("value") : null, out);
                    }
                }
            } else {
                leaves("", body, out);
            }
        }
        return out;
    }

    private static void leaves(String path, JsonNode v, List<String> out) {
        if (v != null && v.isObject() && !v.isEmpty()) {
            v.properties().forEach(e -> leaves(path + "/" + Kube.pointer(e.getKey()), e.getValue(), out));
        } else if (v != null && v.isArray() && !v.isEmpty()) {
            for (int i = 0; i < v.size(); i++) {
                leaves(path + "/" + i, v.get(i), out);
            }
        } else {
            out.add(path);
        }
    }
}
