package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.Integrations;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fairway.api.model.Node;
import io.fairway.config.QueuesConfig;
import io.fairway.core.Scheduler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the adapter's parts share: the client and writers, the informers, the Lease, and the engine with what the
 * adapter knows of each Job and Node. Its mutable state is guarded by {@link #lock}; a reconcile pass holds it
 * throughout.
 */
final class AdapterState {
    private static final Logger LOG = LoggerFactory.getLogger(AdapterState.class);
    /** The pod informer's index: pods by the integration, namespace and name of the object they run for. */
    static final String JOB_INDEX = "fairway-job";

    final KubernetesClient client;
    final AdapterOptions options;
    final KubeWriter kube;
    final AdapterMetrics metrics;
    final JobTranslator translator;
    final NodeClaims claims;
    final Object lock = new Object();
    final AtomicBoolean dirty = new AtomicBoolean(true);
    volatile boolean leading;
    volatile boolean closed;

    SharedIndexInformer<io.fabric8.kubernetes.api.model.Node> nodeInformer;
    /** Every integration found on the class path (pods are indexed for each), and the enabled ones by name, in order. */
    final List<Integration> available;
    /** Read access for the integrations (runtimes, CRD schemas), shared by every integration instance. */
    final KubeLookup lookup;
    volatile Map<String, EnabledKind> kinds = new LinkedHashMap<>();
    SharedIndexInformer<Pod> podInformer;
    SharedIndexInformer<ConfigMap> configMapInformer;
    /** Kueue's objects, when the queues come from them (null otherwise), and what they last mapped to. */
    io.fairway.k8s.kueue.KueueSync kueue;
    io.fairway.k8s.kueue.KueueQueues.Mapped kueueMapped;
    LeaseElection election;

    // The engine and what it was built from; guarded by lock.
    Scheduler scheduler;
    RestoringPolicy policy;
    /** Whether the UnifiedJob / pod-group controllers run beside the integrations (the configuration's names). */
    boolean unifiedJobsEnabled;
    boolean podGroupsEnabled;
    /** Those controllers, on the current engine (null when not enabled or when there is no engine). */
    io.fairway.k8s.unifiedjob.UnifiedJobController unifiedJobs;
    io.fairway.k8s.podgroup.PodGroupController podGroups;
    /** Those controllers as the round sees them: told before each round, given its result after (in this order). */
    final List<RoundHandler> handlers = new ArrayList<>();
    QueuesConfig config;
    boolean rebuildNeeded;
    /** Whether the admission key was read (see {@link AdmissionSeal}). */
    boolean sealLoaded;
    /** Set during a pass once the Lease is found lost: nothing more is written in that pass. */
    boolean fenced;
    /** Writes dropped because the Lease was lost mid-pass (for tests and logs). */
    int fencedWrites;
    /** Test seam: runs before each batch of decisions is written (a test takes the Lease over here, mid-pass). */
    Runnable beforeWrites = () -> { };
    long lastRebuildMillis;
    /** The objects the engine knows, by uid and by job id. */
    final TrackedObjects tracked = new TrackedObjects();
    final Map<String, Node> modelNodes = new LinkedHashMap<>();
    final Set<String> restoring = new HashSet<>();
    final Map<String, String> invalidPublished = new HashMap<>();
    final Map<String, Integer> priorityClasses = new HashMap<>();
    final List<String[]> actuationFailures = new ArrayList<>();
    final Set<String> evictionsToRetry = new HashSet<>();
    /** What the current pass did; replaced at the start of each pass. */
    PassLog pass = new PassLog();

    AdapterState(KubernetesClient client, AdapterOptions options, MeterRegistry registry) {
        this.client = client;
        this.options = options;
        this.kube = new KubeWriter(client, options.identity());
        this.claims = new NodeClaims(client, options.nodeClassRef());
        this.metrics = new AdapterMetrics(registry == null ? new SimpleMeterRegistry() : registry);
        this.available = List.copyOf(Integrations.available().values());
        this.lookup = new KubeLookup(client);
        this.available.forEach(i -> i.connect(lookup));
        this.translator = new JobTranslator(options.queueLabels(), options.excludedResourcePrefixes(), this::priorityClassValue);
        this.translator.trust(kube::trusted);
        this.leading = !options.leaderElection();
        metrics.leading(leading);
    }

    /**
     * @return the namespace of the Secret holding the admission key: the Lease's with leader election, else the
     *     configuration ConfigMap's, else {@code $POD_NAMESPACE}, else {@code fairway-system}
     */
    String controllerNamespace() {
        if (options.leaderElection()) {
            return options.leaseNamespace();
        }
        if (options.configMapNamespace() != null) {
            return options.configMapNamespace();
        }
        String env = System.getenv("POD_NAMESPACE");
        return env == null || env.isBlank() ? "fairway-system" : env;
    }

    /** Reads (or creates) the admission key once: admissions are written and trusted only with it. */
    void loadSeal() {
        if (!sealLoaded) {
            kube.seal(AdmissionSeal.load(client, controllerNamespace()));
            sealLoaded = true;
        }
    }

    /** @return true when this replica proves, by reading the Lease now, that it holds it */
    boolean holdsLease() {
        return election != null && election.holdsNow();
    }

    /**
     * Fencing inside a pass: before each write that admits, stops, resizes, binds or provisions, a replica with
     * leader election checks it still holds the Lease; once it finds it lost (taken over mid-pass) it writes nothing
     * more in this pass and rebuilds from the API server on the next one it leads.
     *
     * @return true when this replica may write
     */
    boolean mayWrite() {
        if (!options.leaderElection()) {
            return true;
        }
        if (fenced) {
            return false;
        }
        if (!holdsLease()) {
            fenced = true;
            rebuildNeeded = true;
            LOG.warn("{}: the Lease was lost during a pass; its remaining writes are dropped", options.identity());
            return false;
        }
        return true;
    }

    Integer priorityClassValue(String name) {
        return priorityClasses.computeIfAbsent(name, n -> {
            PriorityClass pc = client.scheduling().v1().priorityClasses().withName(n).get();
            return pc == null ? null : pc.getValue();
        });
    }

    List<Pod> podsOf(TrackedObject t) {
        List<Pod> out = new ArrayList<>();
        GenericKubernetesResource obj = t.kind.informer == null ? null : t.kind.informer.getStore().getByKey(t.key());
        java.util.Set<String> owners = obj == null || !t.uid.equals(obj.getMetadata().getUid()) ? java.util.Set.of(t.name) : t.kind.integration.podOwners(obj);
        List<Pod> indexed = new ArrayList<>();
        for (String owner : new java.util.TreeSet<>(owners)) {
            indexed.addAll(podInformer.getIndexer().byIndex(JOB_INDEX, t.kind.podKey(t.namespace, owner)));
        }
        for (Pod p : indexed) {
            boolean ours = true;
            if (p.getMetadata().getOwnerReferences() != null) {
                for (OwnerReference o : p.getMetadata().getOwnerReferences()) {
                    if (t.kind.kindName().equals(o.getKind()) && o.getUid() != null && !o.getUid().equals(t.uid)) {
                        ours = false;
                    }
                }
            }
            if (ours) {
                out.add(p);
            }
        }
        out.sort(Comparator.comparing((Pod p) -> Kube.creationMillis(p)).thenComparing(p -> p.getMetadata().getName()));
        return out;
    }

    /** @return the object as the API server has it now, or null when it is gone or is another object of that name */
    GenericKubernetesResource fetch(TrackedObject t) {
        GenericKubernetesResource o = kube.fetch(t.kind, t.namespace, t.name);
        return o == null || !t.uid.equals(o.getMetadata().getUid()) ? null : o;
    }

    /**
     * Evicts a tracked object as the API server has it now.
     *
     * @return true when done (or the object is gone); false when it is suspended but the restore waits for its pods
     *     to be gone (retried by {@link Actuation#retryEvictions}, which it is queued for)
     */
    boolean evictFresh(TrackedObject t) {
        GenericKubernetesResource fresh = fetch(t);
        if (fresh == null) {
            return true;
        }
        if (kube.evict(t.kind, fresh, t.original)) {
            t.original = null;
            return true;
        }
        evictionsToRetry.add(t.id);
        return false;
    }
}
