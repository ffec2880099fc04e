package io.fairway.k8s;

import static io.fairway.k8s.MockCluster.reconcileUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fairway.api.job.JobState;
import io.fairway.k8s.integration.Specs;
import io.fairway.k8s.kinds.RayClusterIntegration;
import io.fairway.k8s.kinds.RayJobIntegration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * RayJob and RayCluster ({@code ray.io/v1}) end to end on the mock API server: created suspended, admitted whole with
 * every pod set (head and workers) placed, pods ungated and bound, started, preempted (a spot notice on their node) and
 * restored exactly, resumed on a new node, finished. The fields Fairway writes are checked against an allow-list taken
 * from the KubeRay API reference (https://ray-project.github.io/kuberay/reference/api/): {@code spec.suspend}, the
 * pod templates' {@code nodeSelector}, {@code tolerations} and {@code schedulingGates}, and worker {@code replicas}.
 */
class RayIntegrationTest extends AdapterTestBase {
    private static final List<String> RAY = List.of("batch/v1.Job", "ray.io/v1.RayJob", "ray.io/v1.RayCluster");
    private static final Pattern TEMPLATE_FIELDS = Pattern.compile("(headGroupSpec|workerGroupSpecs/\\d+)/template/spec/(nodeSelector|tolerations|schedulingGates)(/.*)?");

    private static ResourceDefinitionContext ctx(io.fairway.k8s.integration.KindRef k) {
        return new ResourceDefinitionContext.Builder().withGroup(k.group()).withVersion(k.version()).withKind(k.kind()).withPlural(k.plural())
                .withNamespaced(true).build();
    }

    private static ObjectNode template(String cpu) {
        ObjectNode t = Specs.MAPPER.createObjectNode();
        ObjectNode c = t.putObject("spec").putArray("containers").addObject();
        c.put("name", "ray").put("image", "rayproject/ray:2.41.0");
        c.putObject("resources").putObject("requests").put("cpu", cpu);
        return t;
    }

    /** A RayClusterSpec: a 4-core head and one worker group of {@code replicas} 16-core workers (fewest {@code min}). */
    private static ObjectNode clusterSpec(int replicas, int min) {
        ObjectNode s = Specs.MAPPER.createObjectNode();
        s.put("rayVersion", "2.41.0");
        s.putObject("headGroupSpec").set("template", template("4"));
        ObjectNode w = s.putArray("workerGroupSpecs").addObject();
        w.put("groupName", "workers").put("replicas", replicas).put("minReplicas", min).put("maxReplicas", replicas);
        w.putObject("rayStartParams");
        w.set("template", template("16"));
        return s;
    }

    private GenericKubernetesResource create(io.fairway.k8s.integration.KindRef kind, String name, ObjectNode spec) {
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.put("apiVersion", kind.apiVersion());
        o.put("kind", kind.kind());
        o.putObject("metadata").put("name", name).put("namespace", "default").putObject("labels").put(Keys.QUEUE_LABEL, "user-queue");
        o.set("spec", spec);
        return cluster.client.genericKubernetesResources(ctx(kind)).inNamespace("default").resource(Specs.MAPPER.convertValue(o, GenericKubernetesResource.class))
                .create();
    }

    private ObjectNode get(io.fairway.k8s.integration.KindRef kind, String name) {
        GenericKubernetesResource r = cluster.client.genericKubernetesResources(ctx(kind)).inNamespace("default").withName(name).get();
        return r == null ? null : Specs.toJson(r);
    }

    private boolean suspended(io.fairway.k8s.integration.KindRef kind, String name) {
        return get(kind, name).at("/spec/suspend").asBoolean(false);
    }

    private AdmissionRecord admission(io.fairway.k8s.integration.KindRef kind, String name) {
        JsonNode a = get(kind, name).at("/metadata/annotations/" + Keys.ADMISSION_ANNOTATION.replace("/", "~1"));
        return a.isMissingNode() ? null : AdmissionRecord.parse(a.asText());
    }

    /**
     * Creates the object (suspended), starts the adapter with the Ray integrations and waits until it is admitted
     * whole: one head and {@code workers} workers.
     *
     * @return the object as its author wrote it, before Fairway changed anything
     */
    private ObjectNode admittedWhole(io.fairway.k8s.integration.KindRef kind, String name, ObjectNode spec, int workers) {
        create(kind, name, spec);
        ObjectNode submitted = get(kind, name);
        start(AdapterOptions.builder().integrations(RAY));
        reconcileUntil(adapter, () -> !suspended(kind, name), "the " + kind.kind() + " is admitted");
        assertThat(admission(kind, name).counts()).containsEntry("head", 1).containsEntry("workers", workers);
        return submitted;
    }

    /** KubeRay's part: the cluster's pods from the current templates (gates included), labelled as KubeRay labels them. */
    private List<Pod> createPods(ObjectNode obj, String base, String cluster) {
        List<Pod> out = new ArrayList<>();
        out.add(pod(cluster + "-head", cluster, "head", "headgroup", obj.at(base + "/headGroupSpec/template")));
        JsonNode w = obj.at(base + "/workerGroupSpecs/0");
        for (int i = 0; i < w.path("replicas").asInt(); i++) {
            out.add(pod(cluster + "-workers-" + i, cluster, "worker", "workers", w.path("template")));
        }
        return out;
    }

    private Pod pod(String name, String rayCluster, String type, String group, JsonNode template) {
        PodTemplateSpec t = Specs.MAPPER.convertValue(template, PodTemplateSpec.class);
        return this.cluster.client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
                .addToLabels("ray.io/cluster", rayCluster).addToLabels("ray.io/node-type", type).addToLabels("ray.io/group", group).endMetadata()
                .withSpec(t.getSpec()).withNewStatus().withPhase("Pending").endStatus().build()).create();
    }

    /** KubeRay and the kubelet: the gang's pods are created gated, Fairway ungates and binds every one, they run, Fairway sees it start. */
    private void runGang(ObjectNode admitted, String base, String rayCluster, String job) {
        createPods(admitted, base, rayCluster);
        reconcileUntil(adapter, () -> podsOf(rayCluster).stream().allMatch(p -> p.getSpec().getSchedulingGates() == null
                || p.getSpec().getSchedulingGates().isEmpty()), "every pod of the gang is ungated and bound");
        setPhase(rayCluster, "Running");
        reconcileUntil(adapter, () -> adapter.status("default", job).orElseThrow().state() == JobState.RUNNING, job + " runs");
    }

    private void setClusterName(String rayJob, String rayCluster) {
        cluster.client.genericKubernetesResources(ctx(RayJobIntegration.KIND)).inNamespace("default").withName(rayJob).editStatus(r -> {
            ObjectNode o = Specs.toJson(r);
            o.putObject("status").put("rayClusterName", rayCluster);
            return Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
        });
    }

    private List<Pod> podsOf(String rayCluster) {
        return cluster.client.pods().inNamespace("default").withLabel("ray.io/cluster", rayCluster).list().getItems();
    }

    private void setPhase(String rayCluster, String phase) {
        for (Pod p : podsOf(rayCluster)) {
            cluster.client.pods().inNamespace("default").withName(p.getMetadata().getName())
                    .editStatus(x -> new PodBuilder(x).editStatus().withPhase(phase).endStatus().build());
        }
    }

    /** @return the JSON Pointers (leaves) under {@code /spec} and {@code /metadata/annotations} where two objects differ */
    static List<String> changed(JsonNode before, JsonNode after) {
        TreeSet<String> out = new TreeSet<>();
        diff(before.path("spec"), after.path("spec"), "/spec", out);
        diff(before.at("/metadata/annotations"), after.at("/metadata/annotations"), "/metadata/annotations", out);
        return new ArrayList<>(out);
    }

    private static void diff(JsonNode a, JsonNode b, String path, TreeSet<String> out) {
        if (a.equals(b)) {
            return;
        }
        if (a.isObject() && b.isObject() || a.isObject() && b.isMissingNode() || a.isMissingNode() && b.isObject()) {
            TreeSet<String> keys = new TreeSet<>();
            a.fieldNames().forEachRemaining(keys::add);
            b.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                diff(a.path(k), b.path(k), path + "/" + k.replace("~", "~0").replace("/", "~1"), out);
            }
            return;
        }
        if (a.isArray() && b.isArray()) {
            for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
                diff(a.path(i), b.path(i), path + "/" + i, out);
            }
            return;
        }
        out.add(path);
    }

    /** Only the documented fields Fairway may write (KubeRay API reference), and its own annotations. */
    private static void assertAllowed(List<String> paths, String base) {
        for (String p : paths) {
            boolean ok = p.equals("/spec/suspend")
                    || p.startsWith(base + "/") && TEMPLATE_FIELDS.matcher(p.substring(base.length() + 1)).matches()
                    || p.matches(Pattern.quote(base) + "/workerGroupSpecs/\\d+/replicas")
                    || p.startsWith("/metadata/annotations/fairway.io~1");
            assertThat(ok).as("Fairway wrote %s, which is not on the allow-list", p).isTrue();
        }
    }

    private void taint(String node) {
        cluster.client.nodes().withName(node).edit(n -> new NodeBuilder(n).editSpec().addNewTaint().withKey(NodeTermination.AWS_NTH_SPOT_TAINT)
                .withEffect("NoSchedule").endTaint().endSpec().build());
    }

    @Test
    void aRayJobIsAdmittedWholePreemptedRestoredExactlyResumedAndFinished() {
        cluster.node("big", 48, 192, 0, Map.of());
        cluster.node("small", 8, 32, 0, Map.of());
        ObjectNode spec = Specs.MAPPER.createObjectNode();
        // HTTPMode: no submitter pod (this queue covers cpu only; the default submitter requests memory too)
        spec.put("entrypoint", "python /home/ray/train.py").put("suspend", true).put("shutdownAfterJobFinishes", true).put("submissionMode", "HTTPMode");
        spec.set("rayClusterSpec", clusterSpec(2, 2));
        ObjectNode submitted = admittedWhole(RayJobIntegration.KIND, "train", spec, 2);
        AdmissionRecord a = admission(RayJobIntegration.KIND, "train");
        assertThat(a.members()).extracting(AdmissionRecord.Member::podSet).containsExactlyInAnyOrder("head", "workers", "workers");
        assertThat(a.members()).extracting(AdmissionRecord.Member::node).containsOnly("big");
        ObjectNode admitted = get(RayJobIntegration.KIND, "train");
        List<String> written = changed(submitted, admitted);
        assertAllowed(written, "/spec/rayClusterSpec");
        assertThat(written).contains("/spec/suspend", "/spec/rayClusterSpec/headGroupSpec/template/spec/schedulingGates",
                "/spec/rayClusterSpec/workerGroupSpecs/0/template/spec/schedulingGates");

        setClusterName("train", "train-x7k2p"); // KubeRay names the cluster it makes in status.rayClusterName
        runGang(admitted, "/spec/rayClusterSpec", "train-x7k2p", "train");

        taint("big");
        reconcileUntil(adapter, () -> suspended(RayJobIntegration.KIND, "train"), "the RayJob is preempted");
        ObjectNode restored = get(RayJobIntegration.KIND, "train");
        assertThat(restored.path("spec")).as("the spec is again exactly what its author wrote").isEqualTo(submitted.path("spec"));
        assertThat(admission(RayJobIntegration.KIND, "train")).isNull();
        assertThat(adapter.status("default", "train").orElseThrow().state()).isEqualTo(JobState.PENDING);
        cluster.client.pods().inNamespace("default").withLabel("ray.io/cluster", "train-x7k2p").delete(); // KubeRay deletes the cluster

        cluster.node("replacement", 48, 192, 0, Map.of());
        reconcileUntil(adapter, () -> !suspended(RayJobIntegration.KIND, "train"), "the RayJob resumes on the new node");
        assertThat(admission(RayJobIntegration.KIND, "train").members()).extracting(AdmissionRecord.Member::node).doesNotContain("big")
                .contains("replacement");
        assertAllowed(changed(submitted, get(RayJobIntegration.KIND, "train")), "/spec/rayClusterSpec");

        cluster.client.genericKubernetesResources(ctx(RayJobIntegration.KIND)).inNamespace("default").withName("train").editStatus(r -> {
            ObjectNode o = Specs.toJson(r);
            o.putObject("status").put("jobDeploymentStatus", "Complete").put("jobStatus", "SUCCEEDED");
            return Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
        });
        reconcileUntil(adapter, () -> adapter.status("default", "train").orElseThrow().state() == JobState.SUCCEEDED, "the RayJob finished");
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void aRayClusterIsAdmittedWholeResizedInPlaceRestoredExactlyAndEndsWhenDeleted() {
        cluster.node("a", 48, 192, 0, Map.of());
        cluster.node("b", 48, 192, 0, Map.of());
        ObjectNode spec = clusterSpec(3, 2);
        spec.put("suspend", true);
        ObjectNode submitted = admittedWhole(RayClusterIntegration.KIND, "serve", spec, 3);
        AdmissionRecord a = admission(RayClusterIntegration.KIND, "serve");
        assertThat(a.members()).extracting(AdmissionRecord.Member::podSet).containsExactlyInAnyOrder("head", "workers", "workers", "workers");
        ObjectNode admitted = get(RayClusterIntegration.KIND, "serve");
        assertThat(admitted.at("/spec/workerGroupSpecs/0/minReplicas").asInt()).as("not Fairway's to change").isEqualTo(2);
        assertAllowed(changed(submitted, admitted), "/spec");

        runGang(admitted, "/spec", "serve", "serve");

        // a resize (an elastic policy's decision) is written as the worker group's replicas, in place
        ObjectNode edited = get(RayClusterIntegration.KIND, "serve");
        new RayClusterIntegration().setCount(edited, "workers", 2);
        assertThat(changed(admitted, edited)).containsExactly("/spec/workerGroupSpecs/0/replicas");
        assertThat(new RayClusterIntegration().resizable()).isTrue();

        // both nodes get a termination notice (with one left, the elastic workers would be re-admitted at what fits there)
        taint("a");
        taint("b");
        reconcileUntil(adapter, () -> suspended(RayClusterIntegration.KIND, "serve"), "the RayCluster is preempted");
        assertThat(get(RayClusterIntegration.KIND, "serve").path("spec")).as("restored exactly").isEqualTo(submitted.path("spec"));

        cluster.client.genericKubernetesResources(ctx(RayClusterIntegration.KIND)).inNamespace("default").withName("serve").delete();
        reconcileUntil(adapter, () -> adapter.status("default", "serve").map(s -> s.state().isTerminal()).orElse(true), "deleting it ends it");
        assertThat(adapter.checkInvariants()).isEmpty();
    }

    @Test
    void theRayRbacGrantsExactlyTheVerbsUsedOnRayObjects() throws java.io.IOException {
        cluster.node("a", 48, 192, 0, Map.of());
        ObjectNode job = Specs.MAPPER.createObjectNode();
        job.put("entrypoint", "python train.py").put("suspend", true).put("submissionMode", "HTTPMode");
        job.set("rayClusterSpec", clusterSpec(1, 1));
        create(RayJobIntegration.KIND, "train", job);
        ObjectNode rc = clusterSpec(1, 1);
        rc.put("suspend", true);
        create(RayClusterIntegration.KIND, "serve", rc);
        io.fairway.k8s.audit.RbacAudit audit = new io.fairway.k8s.audit.RbacAudit();
        adapter = new FairwayAdapter(audit.client(cluster.server), AdapterOptions.builder().integrations(RAY)
                .queues(MockCluster.config(CedanaScenarioTest.QUEUES)).build(), null).start();
        reconcileUntil(adapter, () -> !suspended(RayJobIntegration.KIND, "train") && !suspended(RayClusterIntegration.KIND, "serve"), "both admitted");
        taint("a");
        reconcileUntil(adapter, () -> suspended(RayJobIntegration.KIND, "train") && suspended(RayClusterIntegration.KIND, "serve"), "both evicted");
        java.util.Set<String> ray = new java.util.TreeSet<>();
        audit.used.stream().filter(u -> u.startsWith("ray.io/")).forEach(ray::add);
        java.util.Set<String> granted = new java.util.TreeSet<>();
        java.util.Set<String> namespaced = new java.util.TreeSet<>();
        for (String k : List.of("rayjob", "raycluster")) {
            granted.addAll(io.fairway.k8s.audit.RbacAudit.granted(java.nio.file.Path.of("..", "deploy", "integrations", k + ".yaml")));
            namespaced.addAll(io.fairway.k8s.audit.RbacAudit.granted(java.nio.file.Path.of("..", "deploy", "namespaced", "integrations", k + ".yaml")));
        }
        assertThat(ray).as("deploy/integrations/rayjob.yaml and raycluster.yaml grant exactly the verbs used on ray.io objects").isEqualTo(granted);
        assertThat(namespaced).as("the namespaced install's Roles grant the same").isEqualTo(ray);
    }

    @Test
    void theExampleManifestsAreReadAsOneGangOfHeadAndWorkers() throws java.io.IOException {
        com.fasterxml.jackson.databind.ObjectMapper yaml = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
        for (String f : List.of("rayjob.yaml", "raycluster.yaml")) {
            GenericKubernetesResource o = yaml.readValue(java.nio.file.Path.of("..", "deploy", "examples", f).toFile(), GenericKubernetesResource.class);
            io.fairway.k8s.integration.Integration in = "RayJob".equals(o.getKind()) ? new RayJobIntegration() : new RayClusterIntegration();
            assertThat(in.isSuspended(o)).as(f + " is created suspended").isTrue();
            assertThat(in.podSets(o)).extracting(io.fairway.k8s.integration.PodSetTemplate::name).as(f)
                    .containsExactlyElementsOf("RayJob".equals(o.getKind()) ? List.of("head", "workers", "submitter") : List.of("head", "workers"));
            assertThat(o.getMetadata().getLabels()).containsKey(Keys.QUEUE_LABEL);
        }
    }

    @Test
    void aRayClusterMadeByARayJobIsNotQueuedOnItsOwn() {
        ObjectNode spec = clusterSpec(1, 1);
        ObjectNode o = Specs.MAPPER.createObjectNode();
        o.putObject("metadata").put("name", "train-x7k2p").putObject("labels").put("ray.io/originated-from-crd", "RayJob");
        o.set("spec", spec);
        GenericKubernetesResource r = Specs.MAPPER.convertValue(o, GenericKubernetesResource.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RayClusterIntegration().podSets(r))
                .hasMessageContaining("ray.io/originated-from-crd").hasMessageContaining("RayJob");
    }
}
