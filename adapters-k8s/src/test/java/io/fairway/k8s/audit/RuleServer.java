package io.fairway.k8s.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' API server: fabric8's mock server in CRUD mode behind a dispatcher that refuses what a real
 * kube-apiserver refuses, and that injects the faults a real one has.
 *
 * <ul>
 *   <li>batch/v1 Jobs: the pod template is immutable except its scheduling directives (node selector, tolerations,
 *       scheduling gates, node affinity, template labels and annotations), and those only while the stored Job is
 *       suspended and has no {@code status.startTime}; selector, completion mode and the other fields named
 *       immutable upstream stay as created; completions change only in tandem with parallelism on an Indexed Job;
 *       {@code status.startTime} may be cleared only while the stored Job is suspended ({@link ApiRules}).</li>
 *   <li>Status only through the status subresource, for Jobs, pods and every CRD kind whose CRD declares it: a write
 *       of the main resource keeps the stored status; a write of {@code /status} keeps everything else; a create
 *       drops the status of Jobs and of such CRD kinds.</li>
 *   <li>Optimistic concurrency: a write naming a resourceVersion other than the stored one gets 409; a JSON patch
 *       whose {@code test} operation fails gets 422 (the plain mock server never answers it).</li>
 *   <li>JSON merge patches follow RFC 7386 (a null removes the field; the plain mock server keeps it).</li>
 *   <li>A list of a built-in kind leaves apiVersion and kind unset on its items, as a real API server does.</li>
 *   <li>Every object of a CRD kind whose upstream CRD is available ({@link CrdSchemas}) is checked against the
 *       CRD's schema on every create and update; a field the schema does not declare (one a real API server would
 *       silently prune) is refused with 422, as are wrong types and missing required fields. The JobSet webhook's
 *       rule on replicated jobs is applied too, and the Kubeflow Trainer webhook's rule on a TrainJob's
 *       {@code spec.runtimePatches} (v2.0: {@code spec.podSpecOverrides}): they change only while the TrainJob is
 *       suspended (v2.2+: before or after the update; v2.0: after it) and its JobSet (the stored JobSet of the
 *       TrainJob's name, as the webhook reads it) has no replicated job with active pods ({@link ApiRules}).</li>
 *   <li>Faults ({@link Faults}), for requests of the clients made with {@link #faultyClient()} only: 500s, 409s,
 *       timeouts (504) that did or did not apply the write, slow answers, and watches dropped (the client's
 *       informers then re-list).</li>
 * </ul>
 *
 * <p>Every refusal is kept ({@link #refusals()}), so a test can check the adapter wrote nothing a real server refuses.
 */
public final class RuleServer implements AutoCloseable {
    /** Kept so the level holds: the mock server logs every request at INFO through java.util.logging. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The header that marks the requests faults may hit. */
    static final String FAULTY_HEADER = "X-Fairway-Faulty";
    private static final Set<String> BUILT_IN_GROUPS = Set.of("", "batch", "apps", "coordination.k8s.io", "scheduling.k8s.io",
            "events.k8s.io", "policy", "rbac.authorization.k8s.io", "apiextensions.k8s.io", "node.k8s.io", "storage.k8s.io",
            "networking.k8s.io", "autoscaling", "discovery.k8s.io");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** A fault for one request. */
    public enum Fault {
        /** Answered normally. */
        NONE,
        /** 500 Internal Server Error; nothing written. */
        ERROR_500,
        /** 409 Conflict, as for a stale resourceVersion; nothing written. */
        CONFLICT,
        /** 504 Timeout; nothing written. */
        TIMEOUT_NOT_APPLIED,
        /** 504 Timeout after the write was applied (the client cannot tell). */
        TIMEOUT_APPLIED,
        /** Answered normally, slowly. */
        SLOW,
        /** Answered normally; every open watch is dropped first. */
        DROP_WATCHES
    }

    /** Chooses the fault of each request of a faulty client. */
    @FunctionalInterface
    public interface Faults {
        /** No faults. */
        Faults NONE = (method, path) -> Fault.NONE;

        /**
         * @param method the HTTP method
         * @param path the request path
         * @return the fault to inject
         */
        Fault next(String method, String path);
    }

    private final Dispatcher dispatcher = new Dispatcher();
    private final KubernetesMockServer server;
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<String> refusals = new CopyOnWriteArrayList<>();
    private static final long SLOW_ANSWER_MILLIS = 2_000;
    private final List<String> slowAnswers = new CopyOnWriteArrayList<>();
    private final AtomicInteger injected = new AtomicInteger();
    private volatile Faults faults = Faults.NONE;
    private volatile long slowMillis = 150;
    private volatile String trainerVersion = CrdSchemas.TRAINER_DEFAULT;
    private volatile java.util.function.UnaryOperator<byte[]> webhook;
    private volatile String adapterUser = "system:serviceaccount:fairway-system:fairway-controller";
    private static final Set<String> WEBHOOK_RESOURCES = Set.of("/pods", "apps/deployments", "apps/statefulsets", "leaderworkerset.x-k8s.io/leaderworkersets");

    /** Starts a server. */
    public RuleServer() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
    }

    /**
     * How long a client of this server waits for an answer: 30 s rather than the client's default 10 s. Once, on a
     * loaded two-core CI machine, an adapter's first request (a list of webhook configurations, nothing else in
     * flight) waited past 10 s; the server's own time per request is checked apart ({@link #slowAnswers()}).
     */
    static final int REQUEST_TIMEOUT_MILLIS = 30_000;

    /** @return a new client of this server (closed with it); faults never hit it */
    public synchronized KubernetesClient newClient() {
        KubernetesClient c = server.createClient(b -> b.editOrNewConfig().withRequestTimeout(REQUEST_TIMEOUT_MILLIS).endConfig());
        clients.add(c);
        return c;
    }

    /**
     * @return a new client whose requests the {@link #faults(Faults) fault plan} may hit (closed with the server); it
     *     retries a 5xx answer once, after 20 ms
     */
    public synchronized KubernetesClient faultyClient() {
        // one retry of a 5xx, soon: the client's default (10 retries with exponential back-off) would make every
        // injected fault cost seconds
        KubernetesClient c = server.createClient(b -> b.editOrNewConfig().addToCustomHeaders(FAULTY_HEADER, "1")
                .withRequestRetryBackoffLimit(1).withRequestRetryBackoffInterval(20).withRequestTimeout(REQUEST_TIMEOUT_MILLIS).endConfig());
        clients.add(c);
        return c;
    }

    /** @param plan the faults of faulty clients' requests from now on */
    public void faults(Faults plan) {
        this.faults = plan == null ? Faults.NONE : plan;
    }

    /**
     * @param version the Trainer release whose TrainJob CRD this server serves ("v2.0.0" or "v2.3.0"; v2.3.0 unless
     *     set)
     */
    public void trainerVersion(String version) {
        this.trainerVersion = version;
    }

    /**
     * Registers a mutating admission webhook, called as kube-apiserver calls one: on every create and update (not of
     * the status subresource) of pods, Deployments, StatefulSets and LeaderWorkerSets, with an
     * {@code admission.k8s.io/v1} AdmissionReview of the object (and the stored one on an update); its JSON patch is
     * applied before the server's own rules, and a denial refuses the write with the webhook's message.
     *
     * @param review answers a review's bytes with the response's bytes (null: no webhook)
     * @param adapterUser the user name the adapter's (faulty) clients have in the reviews; the test's own client is
     *     {@code "test-user"}
     */
    public void mutatingWebhook(java.util.function.UnaryOperator<byte[]> review, String adapterUser) {
        this.webhook = review;
        this.adapterUser = adapterUser;
    }

    /** @param millis how long a {@link Fault#SLOW} answer waits */
    public void slowMillis(long millis) {
        this.slowMillis = millis;
    }

    /** @return how many faults were injected */
    public int injected() {
        return injected.get();
    }

    /** @return every write refused so far: method, path and the reasons */
    public List<String> refusals() {
        return List.copyOf(refusals);
    }

    /** @return the writes of {@link #faultyClient() faulty clients} (the adapter's) refused so far */
    public List<String> clientRefusals() {
        return refusals.stream().filter(r -> r.startsWith("[faulty] ")).toList();
    }

    /**
     * @return the requests the server itself took over {@value #SLOW_ANSWER_MILLIS} ms to answer (injected slowness
     *     aside), each with its time; also logged as they happen, so a client's timeout can be told apart from a slow
     *     server
     */
    public List<String> slowAnswers() {
        return List.copyOf(slowAnswers);
    }

    /** Forgets the refusals so far. */
    public void clearRefusals() {
        refusals.clear();
    }

    /** @return the fabric8 mock server underneath */
    public KubernetesMockServer server() {
        return server;
    }

    /** Drops every open watch: the clients' informers reconnect and re-list. */
    public void dropWatches() {
        dispatcher.dropWatches();
    }

    @Override
    public void close() {
        synchronized (this) {
            clients.forEach(KubernetesClient::close);
        }
        try {
            server.destroy();
        } catch (IllegalStateException slowShutdown) {
            // teardown only: a client's watch socket that is still closing can make the mock server's shutdown
            // time out after the test has asserted everything; it must not fail the test
            java.util.logging.Logger.getLogger(getClass().getName()).warning("mock API server shut down slowly: " + slowShutdown.getMessage());
        }
    }

    /** A parsed request path. */
    record Res(String group, String version, String namespace, String plural, String name, String sub) {
        static Res parse(String rawPath) {
            String path = rawPath;
            int q = path.indexOf('?');
            if (q >= 0) {
                path = path.substring(0, q);
            }
            String[] p = path.split("/");
            int i;
            String group;
            String version;
            if (p.length > 2 && p[1].equals("api")) {
                group = "";
                version = p.length > 2 ? p[2] : "";
                i = 3;
            } else if (p.length > 3 && p[1].equals("apis")) {
                group = p[2];
                version = p[3];
                i = 4;
            } else {
                return new Res("", "", null, "", null, null);
            }
            String ns = null;
            if (p.length > i + 2 && p[i].equals("namespaces")) {
                ns = p[i + 1];
                i += 2;
            }
            String plural = p.length > i ? p[i] : "";
            String name = p.length > i + 1 ? p[i + 1] : null;
            String sub = p.length > i + 2 ? p[i + 2] : null;
            return new Res(group, version, ns, plural, name, sub);
        }

        boolean is(String g, String pl) {
            return group.equals(g) && plural.equals(pl);
        }
    }

    private final class Dispatcher extends KubernetesCrudDispatcher {
        private final Object writes = new Object();

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            long start = System.nanoTime();
            MockResponse r = answer(request);
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (millis > SLOW_ANSWER_MILLIS + slowMillis) { // an injected slowness (slowMillis) aside
                String what = request.getMethod() + " " + request.getPath() + " took " + millis + " ms on " + Thread.currentThread().getName();
                slowAnswers.add(what);
                MOCK_LOG.warning("the tests' API server answered slowly: " + what);
            }
            return r;
        }

        private MockResponse answer(RecordedRequest request) {
            String method = request.getMethod();
            boolean write = !method.equals("GET") && !method.equals("HEAD");
            Fault fault = Fault.NONE;
            if (request.getHeader(FAULTY_HEADER) != null && !request.getPath().contains("watch=true")) {
                fault = faults.next(method, request.getPath());
                if (fault != Fault.NONE) {
                    injected.incrementAndGet();
                }
            }
            switch (fault) {
                case ERROR_500 -> {
                    return status(500, "InternalError", "injected: etcd is unavailable");
                }
                case CONFLICT -> {
                    return status(409, "Conflict", "injected: the object has been modified; please apply your changes to the latest version and try again");
                }
                case TIMEOUT_NOT_APPLIED -> {
                    return status(504, "Timeout", "injected: the request did not complete within the allowed duration");
                }
                case SLOW -> sleep(slowMillis);
                case DROP_WATCHES -> dropWatches();
                default -> {
                }
            }
            MockResponse r;
            if (!write) {
                r = super.dispatch(request);
                Res res = Res.parse(request.getPath());
                if (res.name() == null && !request.getPath().contains("watch=true") && BUILT_IN_GROUPS.contains(res.group()) && r.code() == 200) {
                    r = withoutItemTypes(r);
                }
            } else {
                synchronized (writes) {
                    r = handleWrite(request);
                }
            }
            if (fault == Fault.TIMEOUT_APPLIED) {
                return status(504, "Timeout", "injected: the request did not complete within the allowed duration (it was applied)");
            }
            return r;
        }

        private MockResponse handleWrite(RecordedRequest request) {
            Res res = Res.parse(request.getPath());
            String method = request.getMethod();
            try {
                if (method.equals("POST") && res.name() == null) {
                    return create(request, res);
                }
                if ((method.equals("PUT") || method.equals("PATCH")) && res.name() != null) {
                    return update(request, res);
                }
            } catch (Refused e) {
                refusals.add((request.getHeader(FAULTY_HEADER) != null ? "[faulty] " : "") + method + " " + request.getPath() + ": " + e.getMessage());
                return status(e.code, e.code == 409 ? "Conflict" : "Invalid", e.getMessage());
            }
            return super.dispatch(request);
        }

        private MockResponse create(RecordedRequest request, Res res) throws Refused {
            JsonNode body = read(request.getBody().readUtf8());
            if (!body.isObject()) {
                return super.dispatch(request);
            }
            ObjectNode obj = admit(request, res, "CREATE", (ObjectNode) body, null);
            List<String> errs = new ArrayList<>();
            if (res.is("batch", "jobs")) {
                errs.addAll(ApiRules.jobCreate(obj));
            }
            if (res.is("", "pods")) {
                errs.addAll(ApiRules.podCreate(obj));
            }
            Optional<JsonNode> crd = crdOf(res);
            crd.ifPresent(c -> errs.addAll(CrdSchemas.problems(c, obj)));
            if (!errs.isEmpty()) {
                throw new Refused(422, String.join("; ", errs));
            }
            if (res.is("batch", "jobs") || crd.map(c -> CrdSchemas.hasStatus(c, res.version())).orElse(false)) {
                obj.remove("status");
            }
            return super.dispatch(withBody(request, HttpMethod.POST, request.getPath(), obj));
        }

        private MockResponse update(RecordedRequest request, Res res) throws Refused {
            Map.Entry<io.fabric8.mockwebserver.crud.AttributeSet, String> cur = findResource(getKey(request.getPath()));
            if (cur == null) {
                return super.dispatch(request);
            }
            JsonNode stored = read(cur.getValue());
            String body = request.getBody().readUtf8();
            JsonNode candidate;
            if (request.getMethod().equals("PUT")) {
                candidate = read(body);
            } else {
                String type = String.valueOf(request.getHeader("Content-Type"));
                if (type.contains("json-patch")) {
                    JsonNode ops = read(body);
                    for (JsonNode op : ops) {
                        if (op.path("op").asText().equals("test") && !op.path("value").equals(stored.at(op.path("path").asText()))) {
                            // a stale guard: a conflict, not a broken rule (a real server answers it with 422 too)
                            return status(422, "Invalid", "the JSON patch's test of " + op.path("path").asText() + " failed: the object has changed");
                        }
                    }
                    try {
                        candidate = JsonPatch.apply(ops, stored);
                    } catch (RuntimeException e) {
                        throw new Refused(422, "the JSON patch does not apply: " + e.getMessage());
                    }
                } else if (type.contains("merge-patch")) {
                    candidate = ApiRules.Json.mergePatch(stored, read(body));
                } else {
                    return status(415, "UnsupportedMediaType", "the tests' API server takes JSON and merge patches only: " + type);
                }
            }
            if (!candidate.isObject()) {
                throw new Refused(422, "not an object");
            }
            String storedRv = stored.at("/metadata/resourceVersion").asText();
            JsonNode rv = candidate.at("/metadata/resourceVersion");
            if (request.getMethod().equals("PUT") && rv.isTextual() && !rv.asText().isEmpty() && !rv.asText().equals(storedRv)) {
                throw new Refused(409, "Operation cannot be fulfilled on " + res.plural() + " \"" + res.name()
                        + "\": the object has been modified; please apply your changes to the latest version and try again");
            }
            Optional<JsonNode> crd = crdOf(res);
            boolean statusSub = res.is("batch", "jobs") || res.is("", "pods") || crd.map(c -> CrdSchemas.hasStatus(c, res.version())).orElse(false);
            ObjectNode result;
            boolean statusWrite = "status".equals(res.sub());
            if (statusWrite) {
                result = ((ObjectNode) stored).deepCopy();
                if (candidate.has("status")) {
                    result.set("status", candidate.get("status").deepCopy());
                } else {
                    result.remove("status");
                }
            } else {
                result = admit(request, res, "UPDATE", ((ObjectNode) candidate).deepCopy(), stored);
                if (statusSub) {
                    if (stored.has("status")) {
                        result.set("status", stored.get("status").deepCopy());
                    } else {
                        result.remove("status");
                    }
                }
            }
            List<String> errs = new ArrayList<>();
            if (res.is("batch", "jobs")) {
                errs.addAll(statusWrite ? ApiRules.jobStatusUpdate(stored, result) : ApiRules.jobUpdate(stored, result));
            }
            if (res.is("", "pods") && !statusWrite) {
                errs.addAll(ApiRules.podUpdate(stored, result));
            }
            if (res.is("jobset.x-k8s.io", "jobsets") && !statusWrite) {
                errs.addAll(ApiRules.jobSetUpdate(stored, result));
            }
            if (res.is("trainer.kubeflow.org", "trainjobs") && !statusWrite) {
                // the trainer's webhook reads the JobSet it built for the TrainJob (same name and namespace)
                Map.Entry<io.fabric8.mockwebserver.crud.AttributeSet, String> js = findResource(getKey(
                        "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + res.namespace() + "/jobsets/" + res.name()));
                errs.addAll(ApiRules.trainJobUpdate(stored, result, js == null ? null : read(js.getValue())));
            }
            crd.ifPresent(c -> errs.addAll(CrdSchemas.problems(c, result)));
            if (!errs.isEmpty()) {
                throw new Refused(422, res.plural() + " \"" + res.name() + "\" is invalid: " + String.join("; ", errs));
            }
            ((ObjectNode) result.with("metadata")).put("resourceVersion", storedRv);
            return super.handleUpdate(withBody(request, HttpMethod.PUT, request.getPath(), result));
        }

        /** Calls the registered webhook for the write, as kube-apiserver does; applies its patch or refuses. */
        private ObjectNode admit(RecordedRequest request, Res res, String op, ObjectNode obj, JsonNode old) throws Refused {
            java.util.function.UnaryOperator<byte[]> hook = webhook;
            if (hook == null || !WEBHOOK_RESOURCES.contains(res.group() + "/" + res.plural()) || res.sub() != null) {
                return obj;
            }
            ObjectNode review = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
            ObjectNode req = review.putObject("request").put("uid", java.util.UUID.randomUUID().toString()).put("operation", op)
                    .put("namespace", res.namespace() == null ? obj.at("/metadata/namespace").asText("") : res.namespace());
            req.putObject("resource").put("group", res.group()).put("version", res.version()).put("resource", res.plural());
            req.putObject("userInfo").put("username", request.getHeader(FAULTY_HEADER) != null ? adapterUser : "test-user");
            req.set("object", obj);
            if (old != null) {
                req.set("oldObject", old);
            }
            JsonNode answer;
            try {
                answer = JSON.readTree(hook.apply(review.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))).path("response");
            } catch (java.io.IOException | IllegalArgumentException e) {
                throw new Refused(500, "Internal error occurred: failed calling webhook: " + e.getMessage());
            }
            if (!answer.path("allowed").asBoolean()) {
                throw new Refused(answer.at("/status/code").asInt(403), "admission webhook denied the request: " + answer.at("/status/message").asText());
            }
            if (!answer.has("patch")) {
                return obj;
            }
            try {
                JsonNode ops = JSON.readTree(java.util.Base64.getDecoder().decode(answer.path("patch").asText()));
                return (ObjectNode) JsonPatch.apply(ops, obj);
            } catch (java.io.IOException | RuntimeException e) {
                throw new Refused(500, "Internal error occurred: the webhook's patch does not apply: " + e.getMessage());
            }
        }

        private Optional<JsonNode> crdOf(Res res) {
            if (BUILT_IN_GROUPS.contains(res.group())) {
                return Optional.empty();
            }
            if (res.group().equals("fairway.io")) {
                Path own = Path.of("..", "deploy", "crds", "fairway.io_" + res.plural() + ".yaml");
                if (Files.isRegularFile(own)) {
                    return OWN.computeIfAbsent(own.toString(), k -> {
                        try {
                            return Optional.of(new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(own.toFile()));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
                }
                return Optional.empty();
            }
            return CrdSchemas.crd(res.group(), res.plural(), trainerVersion);
        }

        @SuppressWarnings("unchecked")
        void dropWatches() {
            try {
                java.lang.reflect.Field f = KubernetesCrudDispatcher.class.getDeclaredField("watchEventListeners");
                f.setAccessible(true);
                Collection<Object> listeners = new ArrayList<>((Collection<Object>) f.get(this));
                for (Object l : listeners) {
                    java.lang.reflect.Field ws = l.getClass().getDeclaredField("webSocketRef");
                    ws.setAccessible(true);
                    Object socket = ((java.util.concurrent.atomic.AtomicReference<?>) ws.get(l)).get();
                    if (socket instanceof io.fabric8.mockwebserver.http.WebSocket s) {
                        s.close(1001, "dropped by the tests' API server");
                    }
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot drop the mock server's watches", e);
            }
        }
    }

    private static final Map<String, Optional<JsonNode>> OWN = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A list of a built-in kind as a real API server encodes it: its items carry no apiVersion and kind (only the
     * list does), which the plain mock server sets.
     */
    private static MockResponse withoutItemTypes(MockResponse r) {
        try {
            JsonNode list = JSON.readTree(r.getBody().readUtf8());
            if (list.path("items").isArray()) {
                for (JsonNode item : list.get("items")) {
                    if (item instanceof ObjectNode o) {
                        o.remove("apiVersion");
                        o.remove("kind");
                    }
                }
            }
            return r.setBody(list.toString());
        } catch (java.io.IOException e) {
            return r;
        }
    }

    private static RecordedRequest withBody(RecordedRequest original, HttpMethod method, String path, JsonNode body) {
        return new RecordedRequest(original.getHttpVersion(), method, path, original.getHeaders(), new Buffer().writeUtf8(body.toString()));
    }

    private static JsonNode read(String s) throws Refused {
        try {
            return JSON.readTree(s);
        } catch (java.io.IOException e) {
            throw new Refused(400, "unreadable body: " + e.getMessage());
        }
    }

    private static MockResponse status(int code, String reason, String message) {
        ObjectNode s = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Status").put("status", "Failure")
                .put("message", message).put("reason", reason).put("code", code);
        s.putObject("metadata");
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(s.toString());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A write the API server refuses. */
    private static final class Refused extends Exception {
        final int code;

        Refused(int code, String message) {
            super(message);
            this.code = code;
        }
    }
}
