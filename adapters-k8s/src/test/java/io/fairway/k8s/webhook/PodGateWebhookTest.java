package io.fairway.k8s.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fairway.k8s.podgroup.PodGroupController;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The webhook's answers to AdmissionReviews, as kube-apiserver sends them: queued pods gated, the queue label carried
 * into Deployments', StatefulSets' and LeaderWorkerSets' pod templates, and refusals — each naming the field — of
 * what would bypass Fairway or escalate (a node named, an admission forged, a gate removed by anyone but Fairway).
 */
class PodGateWebhookTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String FAIRWAY = "system:serviceaccount:fairway-system:fairway-controller";
    private final PodGateWebhook webhook = new PodGateWebhook(ns -> !ns.equals("kube-system"), List.of(FAIRWAY));

    static ObjectNode review(String group, String version, String resource, String op, String ns, String user, String object, String old) {
        try {
            ObjectNode r = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
            ObjectNode req = r.putObject("request").put("uid", "705ab4f5-6393-11e8-b7cc-42010a800002").put("operation", op).put("namespace", ns);
            req.putObject("resource").put("group", group).put("version", version).put("resource", resource);
            req.putObject("userInfo").put("username", user);
            req.set("object", JSON.readTree(object));
            if (old != null) {
                req.set("oldObject", JSON.readTree(old));
            }
            return r;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    JsonNode answer(ObjectNode review) {
        try {
            JsonNode out = JSON.readTree(webhook.review(review.toString().getBytes(StandardCharsets.UTF_8)));
            assertThat(out.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
            assertThat(out.at("/response/uid").asText()).as("the answer names the request").isEqualTo(review.at("/request/uid").asText());
            return out.path("response");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** @return the object as the API server stores it after applying the answer's patch */
    static JsonNode patched(JsonNode object, JsonNode response) throws java.io.IOException {
        assertThat(response.path("allowed").asBoolean()).isTrue();
        if (!response.has("patch")) {
            return object;
        }
        assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
        return JsonPatch.apply(JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText())), object);
    }

    static final String POD = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"team-a\",\"labels\":{%s}%s},"
            + "\"spec\":{%s\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}";

    static String pod(String labels, String annotations, String spec) {
        return String.format(POD, labels, annotations, spec);
    }

    @Test
    void aQueuedPodIsGatedAndAnUnqueuedOneOrOneOutsideTheManagedNamespacesIsLeftAlone() throws Exception {
        String queued = pod("\"kueue.x-k8s.io/queue-name\":\"user-queue\"", "", "");
        JsonNode r = answer(review("", "v1", "pods", "CREATE", "team-a", "alice", queued, null));
        JsonNode after = patched(JSON.readTree(queued), r);
        assertThat(after.at("/spec/schedulingGates")).extracting(g -> g.path("name").asText()).containsExactly(PodGroupController.GATE);
        assertThat(after.at("/spec/containers")).isEqualTo(JSON.readTree(queued).at("/spec/containers"));

        String otherGate = pod("\"fairway.io/queue-name\":\"q\"", "", "\"schedulingGates\":[{\"name\":\"example.com/wait\"}],");
        assertThat(patched(JSON.readTree(otherGate), answer(review("", "v1", "pods", "CREATE", "team-a", "alice", otherGate, null))).at("/spec/schedulingGates"))
                .extracting(g -> g.path("name").asText()).containsExactly("example.com/wait", PodGroupController.GATE);
        String kueueGated = pod("\"kueue.x-k8s.io/queue-name\":\"q\"", "", "\"schedulingGates\":[{\"name\":\"kueue.x-k8s.io/admission\"}],");
        assertThat(answer(review("", "v1", "pods", "CREATE", "team-a", "alice", kueueGated, null)).has("patch")).as("Kueue's gate is one Fairway lifts").isFalse();

        String plain = pod("\"app\":\"web\"", "", "");
        JsonNode untouched = answer(review("", "v1", "pods", "CREATE", "team-a", "alice", plain, null));
        assertThat(untouched.path("allowed").asBoolean()).isTrue();
        assertThat(untouched.has("patch")).isFalse();
        JsonNode system = answer(review("", "v1", "pods", "CREATE", "kube-system", "alice", queued, null));
        assertThat(system.path("allowed").asBoolean()).isTrue();
        assertThat(system.has("patch")).as("a namespace Fairway does not manage").isFalse();
    }

    @Test
    void whatWouldBypassOrForgeAdmissionIsRefusedNamingTheField() {
        JsonNode nodeName = answer(review("", "v1", "pods", "CREATE", "team-a", "alice",
                pod("\"fairway.io/queue-name\":\"q\"", "", "\"nodeName\":\"gpu-7\","), null));
        assertThat(nodeName.path("allowed").asBoolean()).isFalse();
        assertThat(nodeName.at("/status/message").asText()).contains("spec.nodeName").contains("gpu-7");

        JsonNode forged = answer(review("", "v1", "pods", "CREATE", "team-a", "alice",
                pod("\"fairway.io/queue-name\":\"q\"", ",\"annotations\":{\"fairway.io/pod-group-admission\":\"cq/a100/gpu-7\"}", ""), null));
        assertThat(forged.path("allowed").asBoolean()).isFalse();
        assertThat(forged.at("/status/message").asText()).contains("metadata.annotations[fairway.io/pod-group-admission]");

        JsonNode badQueue = answer(review("", "v1", "pods", "CREATE", "team-a", "alice", pod("\"fairway.io/queue-name\":\"Q_1\"", "", ""), null));
        assertThat(badQueue.path("allowed").asBoolean()).isFalse();
        assertThat(badQueue.at("/status/message").asText()).contains("metadata.labels[fairway.io/queue-name]").contains("Q_1");

        String gated = pod("\"fairway.io/queue-name\":\"q\"", "", "\"schedulingGates\":[{\"name\":\"fairway.io/admission\"}],");
        String ungated = pod("\"fairway.io/queue-name\":\"q\"", "", "\"schedulingGates\":[],");
        JsonNode byUser = answer(review("", "v1", "pods", "UPDATE", "team-a", "alice", ungated, gated));
        assertThat(byUser.path("allowed").asBoolean()).as("a user removing the gate").isFalse();
        assertThat(byUser.at("/status/message").asText()).contains("only Fairway removes the scheduling gate");
        assertThat(answer(review("", "v1", "pods", "UPDATE", "team-a", FAIRWAY, ungated, gated)).path("allowed").asBoolean())
                .as("Fairway's service account admitting").isTrue();
        String stamped = pod("\"fairway.io/queue-name\":\"q\"", ",\"annotations\":{\"fairway.io/pod-group-admission\":\"x\"}",
                "\"schedulingGates\":[{\"name\":\"fairway.io/admission\"}],");
        assertThat(answer(review("", "v1", "pods", "UPDATE", "team-a", "alice", stamped, gated)).path("allowed").asBoolean())
                .as("a user writing the admission annotation").isFalse();
    }

    @Test
    void deploymentsStatefulSetsAndLeaderWorkerSetsCarryTheQueueIntoTheirPods() throws Exception {
        String deploy = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"user-queue\"}},"
                + "\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}";
        JsonNode d = patched(JSON.readTree(deploy), answer(review("apps", "v1", "deployments", "CREATE", "team-a", "alice", deploy, null)));
        assertThat(d.at("/spec/template/metadata/labels/kueue.x-k8s.io~1queue-name").asText()).isEqualTo("user-queue");
        assertThat(d.at("/spec/template/metadata/labels/app").asText()).isEqualTo("web");

        String sts = "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"db\",\"labels\":{\"fairway.io/queue-name\":\"user-queue\"}},"
                + "\"spec\":{\"replicas\":3,\"serviceName\":\"db\",\"selector\":{\"matchLabels\":{\"app\":\"db\"}},\"template\":{"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}";
        JsonNode s = patched(JSON.readTree(sts), answer(review("apps", "v1", "statefulsets", "CREATE", "team-a", "alice", sts, null)));
        assertThat(s.at("/spec/template/metadata/labels")).isEqualTo(JSON.readTree("{\"fairway.io/queue-name\":\"user-queue\",\"fairway.io/pod-group-name\":\"db\"}"));
        assertThat(s.at("/spec/template/metadata/annotations")).isEqualTo(JSON.readTree("{\"fairway.io/pod-group-total-count\":\"3\","
                + "\"fairway.io/pod-group-serving\":\"true\",\"fairway.io/pod-group-fast-admission\":\"true\"}"));
        JsonNode again = answer(review("apps", "v1", "statefulsets", "UPDATE", "team-a", "alice", s.toString(), s.toString()));
        assertThat(again.has("patch")).as("an update of a StatefulSet already carrying it all: nothing to write").isFalse();
        String scaled = s.toString().replace("\"replicas\":3", "\"replicas\":5");
        JsonNode scale = answer(review("apps", "v1", "statefulsets", "UPDATE", "team-a", "alice", scaled, s.toString()));
        assertThat(scale.path("allowed").asBoolean()).isFalse();
        assertThat(scale.at("/status/message").asText()).contains("spec.replicas");
        String zero = s.toString().replace("\"replicas\":3", "\"replicas\":0");
        assertThat(answer(review("apps", "v1", "statefulsets", "UPDATE", "team-a", "alice", zero, s.toString())).path("allowed").asBoolean())
                .as("scaled to 0 (all pods released)").isTrue();

        String lws = "{\"apiVersion\":\"leaderworkerset.x-k8s.io/v1\",\"kind\":\"LeaderWorkerSet\",\"metadata\":{\"name\":\"vllm\",\"labels\":{"
                + "\"kueue.x-k8s.io/queue-name\":\"user-queue\"}},\"spec\":{\"replicas\":2,\"leaderWorkerTemplate\":{\"size\":3,"
                + "\"leaderTemplate\":{\"spec\":{\"containers\":[{\"name\":\"l\",\"image\":\"x\"}]}},"
                + "\"workerTemplate\":{\"metadata\":{\"labels\":{\"role\":\"w\"}},\"spec\":{\"containers\":[{\"name\":\"w\",\"image\":\"x\"}]}}}}}";
        JsonNode l = patched(JSON.readTree(lws), answer(review("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "CREATE", "team-a", "alice", lws, null)));
        assertThat(l.at("/spec/leaderWorkerTemplate/leaderTemplate/metadata/labels/kueue.x-k8s.io~1queue-name").asText()).isEqualTo("user-queue");
        assertThat(l.at("/spec/leaderWorkerTemplate/workerTemplate/metadata/labels")).isEqualTo(JSON.readTree(
                "{\"role\":\"w\",\"kueue.x-k8s.io/queue-name\":\"user-queue\"}"));
    }

    @Test
    void hostileReviewsAreAnsweredWithAnErrorAndNeverAPatch() {
        assertThatThrownBy(() -> webhook.review("not json".getBytes(StandardCharsets.UTF_8))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not JSON");
        assertThatThrownBy(() -> webhook.review("{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("AdmissionReview");
        assertThatThrownBy(() -> webhook.review("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{}}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("request.uid");
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        String deepReview = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"object\":" + deep + "}}";
        assertThatThrownBy(() -> webhook.review(deepReview.getBytes(StandardCharsets.UTF_8))).as("nesting is bounded: no stack overflow")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not JSON");
        // wrong shapes where objects are expected: refused, not a crash and not a patch
        String oddPod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"fairway.io/queue-name\":\"q\"}},\"spec\":{\"schedulingGates\":\"x\"}}";
        JsonNode odd = answer(review("", "v1", "pods", "CREATE", "team-a", "alice", oddPod, null));
        assertThat(odd.path("allowed").asBoolean()).isFalse();
        assertThat(odd.has("patch")).isFalse();
        String control = pod("\"fairway.io/queue-name\":\"q\\u202e\\n\"", "", "");
        JsonNode ctl = answer(review("", "v1", "pods", "CREATE", "team-a", "alice", control, null));
        assertThat(ctl.at("/status/message").asText()).as("control and invisible characters are not echoed").doesNotContain("\n").doesNotContain("\u202e");
    }
}
