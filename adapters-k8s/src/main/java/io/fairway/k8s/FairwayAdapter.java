package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Deprovision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Provision;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Fairway on a Kubernetes cluster: it watches Nodes, batch/v1 Jobs carrying a queue label and their pods,
 * feeds them to the engine ({@link Scheduler}), and carries the engine's decisions out the way Kueue does.
 *
 * <ul>
 *   <li>A Job not yet admitted stays suspended (one created unsuspended is suspended at once).</li>
 *   <li>Admission unsuspends it, merges its flavor's node labels and tolerations into the pod template, records
 *       the admission in {@value Keys#ADMISSION_ANNOTATION}, and gates its pods with {@value Keys#TOPOLOGY_GATE};
 *       as the pods appear, each is bound to its member's node (node selector on the host) and ungated.</li>
 *   <li>Eviction suspends the Job again and restores its pod template exactly as it was.</li>
 *   <li>Pod and Job status are reported to the engine (started, finished, failed); pending reasons become Events
 *       on the Job and the annotation {@value Keys#PENDING_REASON_ANNOTATION}.</li>
 *   <li>With node pools in the configuration, the engine's Provision decisions become Karpenter NodeClaims and its
 *       Deprovision decisions delete them ({@link NodeClaims}); a claim's Node joins the engine as a node of its pool.</li>
 *   <li>The API server is the store: a new adapter (restart, new leader, new configuration) rebuilds the engine from
 *       it, re-admitting admitted Jobs at their recorded placement, never twice.</li>
 * </ul>
 *
 * <pre>{@code
 * try (FairwayAdapter adapter = new FairwayAdapter(client, AdapterOptions.builder()
 *         .configMap("fairway-system", "fairway-queues", "queues.yaml")
 *         .leaderElection("fairway-system", "fairway-controller", podName)
 *         .build(), registry)) {
 *     adapter.start();              // informers and leader election
 *     adapter.runInBackground();    // reconcile on every change, and every second
 *     ...
 * }
 * }</pre>
 *
 * <p>Tests and embedders may instead call {@link #reconcileOnce()} themselves: one pass of sync, round and
 * actuation, deterministic given the informers' caches.
 */
public final class FairwayAdapter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FairwayAdapter.class);
    private static final String JOB_INDEX = "fairway-job";
    /** A node whose model changed while jobs run on it is re-read by a rebuild, at most this often. */
    private static final long NODE_REBUILD_MIN_INTERVAL_MILLIS = 30_000;
    /** The engine keeps every ended job; past this many it is rebuilt from the API server, which holds only live ones. */
    private static final int ENDED_JOBS_BEFORE_REBUILD = 10_000;

    private final KubernetesClient client;
    private final AdapterOptions options;
    private final KubeWriter kube;
    private final AdapterMetrics metrics;
    private final JobTranslator translator;
    private final Object lock = new Object();
    private final AtomicBoolean dirty = new AtomicBoolean(true);
    /** When the engine next wants a round by itself (policy wakeups, leases, checks), scheduler clock; MAX_VALUE: never. */
    private volatile long wakeAtMillis = Long.MAX_VALUE;
    private volatile boolean leading;
    private volatile boolean closed;

    private SharedIndexInformer<io.fabric8.kubernetes.api.model.Node> nodeInformer;
    private SharedIndexInformer<Job> jobInformer;
    private SharedIndexInformer<Pod> podInformer;
    private SharedIndexInformer<ConfigMap> configMapInformer;
    private CompletableFuture<?> election;
    private ScheduledExecutorService loop;

    // The engine and what it was built from; guarded by lock.
    private Scheduler scheduler;
    private RestoringPolicy policy;
    private QueueConfig config;
    private String configText;
    private boolean rebuildNeeded;
    /** Set during a pass once the Lease is found lost: nothing more is written in that pass. */
    private boolean fenced;
    /** Writes dropped because the Lease was lost mid-pass (for tests and logs). */
    int fencedWrites;
    /** Test seam: runs before each batch of decisions is written (a test takes the Lease over here, mid-pass). */
    Runnable beforeWrites = () -> { };
    private long lastRebuildMillis;
    private long configFileModified = Long.MIN_VALUE;
    private boolean waitingForConfigLogged;
    private final Map<String, Tracked> byUid = new LinkedHashMap<>();
    private final Map<String, Tracked> byId = new HashMap<>();
    private final Map<String, Node> modelNodes = new LinkedHashMap<>();
    private final Set<String> restoring = new HashSet<>();
    private final Map<String, String> invalidPublished = new HashMap<>();
    private final Map<String, Integer> priorityClasses = new HashMap<>();
    private final List<String[]> actuationFailures = new ArrayList<>();
    private final Set<String> evictionsToRetry = new HashSet<>();
    private final List<String> roundAdmitted = new ArrayList<>();
    private final List<String> roundEvicted = new ArrayList<>();
    private final NodeClaims claims;
    private final List<Provision> roundProvisions = new ArrayList<>();
    private final List<Deprovision> roundDeprovisions = new ArrayList<>();
    /** Nodes whose NodeClaim was deleted, while they are still there: nothing new is placed on them. */
    private final Set<String> deprovisioning = new HashSet<>();
    /** Fairway's NodeClaims as last listed, by name; and which node each registered one became. */
    private Map<String, GenericKubernetesResource> claimCache = new TreeMap<>();
    private final Map<String, String> claimOfNode = new HashMap<>();

    /** A Job the engine knows. */
    private static final class Tracked {
        final String uid;
        final String namespace;
        final String name;
        final String id;
        final JobSpec spec;
        int priority;
        boolean ended;
        String published;
        final Map<String, Integer> members = new HashMap<>();

        Tracked(String uid, String namespace, String name, String id, JobSpec spec) {
            this.uid = uid;
            this.namespace = namespace;
            this.name = name;
            this.id = id;
            this.spec = spec;
            this.priority = spec.priority();
        }

        String key() {
            return namespace + "/" + name;
        }
    }

    /**
     * What one {@link #reconcileOnce()} did.
     *
     * @param acted false when this replica is not the leader or has no configuration yet
     * @param note why it did not act, or empty
     * @param round the engine's round number after the pass
     * @param admitted ids of the jobs admitted in the pass
     * @param evicted ids of the jobs evicted (preempted, cancelled, node lost) in the pass
     */
    public record ReconcileResult(boolean acted, String note, long round, List<String> admitted, List<String> evicted) {
        /** Copies. */
        public ReconcileResult {
            admitted = List.copyOf(admitted);
            evicted = List.copyOf(evicted);
        }

        static ReconcileResult idle(String note) {
            return new ReconcileResult(false, note, 0, List.of(), List.of());
        }
    }

    /**
     * @param client the Kubernetes client (the caller closes it)
     * @param options how to run
     * @param registry where metrics go (a Prometheus registry in the controller)
     */
    public FairwayAdapter(KubernetesClient client, AdapterOptions options, MeterRegistry registry) {
        this.client = client;
        this.options = options;
        this.kube = new KubeWriter(client, options.identity());
        this.claims = new NodeClaims(client, options.nodeClassRef());
        this.metrics = new AdapterMetrics(registry == null ? new SimpleMeterRegistry() : registry);
        this.translator = new JobTranslator(options.queueLabels(), options.excludedResourcePrefixes(), this::priorityClassValue);
        this.leading = !options.leaderElection();
        metrics.leading(leading);
    }

    // ------------------------------------------------------------------ life cycle

    /**
     * Starts the informers (waiting up to a minute for their first list) and, when configured, leader election.
     *
     * @return this
     * @throws IllegalStateException when the informers do not sync in time
     */
    public FairwayAdapter start() {
        long resync = options.resyncPeriod().toMillis();
        ResourceEventHandler<Object> wake = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Object obj) {
                dirty.set(true);
            }

            @Override
            public void onUpdate(Object oldObj, Object newObj) {
                dirty.set(true);
            }

            @Override
            public void onDelete(Object obj, boolean deletedFinalStateUnknown) {
                dirty.set(true);
            }
        };
        nodeInformer = client.nodes().runnableInformer(resync);
        jobInformer = options.namespace() == null
                ? client.batch().v1().jobs().inAnyNamespace().runnableInformer(resync)
                : client.batch().v1().jobs().inNamespace(options.namespace()).runnableInformer(resync);
        var pods = options.namespace() == null || options.countUnmanagedPods()
                ? client.pods().inAnyNamespace() : client.pods().inNamespace(options.namespace());
        podInformer = pods.runnableInformer(resync);
        podInformer.addIndexers(Map.of(JOB_INDEX, p -> {
            String j = Kube.jobNameOf(p);
            return j == null ? List.of() : List.of(p.getMetadata().getNamespace() + "/" + j);
        }));
        if (options.configMapName() != null) {
            configMapInformer = client.configMaps().inNamespace(options.configMapNamespace()).withName(options.configMapName())
                    .runnableInformer(resync);
        }
        informers().forEach(i -> i.addEventHandler(wake));
        try {
            CompletableFuture.allOf(informers().stream().map(i -> i.start().toCompletableFuture()).toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the informers did not sync: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the informers synced", e);
        }
        if (options.leaderElection()) {
            election = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                    .withName("fairway")
                    .withLock(new LeaseLock(options.leaseNamespace(), options.leaseName(), options.identity()))
                    .withLeaseDuration(options.leaseDuration())
                    .withRenewDeadline(options.renewDeadline())
                    .withRetryPeriod(options.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading,
                            leader -> LOG.info("{}: the Lease is now held by {}", options.identity(), leader == null ? "nobody" : leader)))
                    .build()).build().start();
        }
        LOG.info("Fairway adapter started: namespace {}, queue labels {}, leader election {}",
                options.namespace() == null ? "(all)" : options.namespace(), options.queueLabels(), options.leaderElection());
        return this;
    }

    private List<SharedIndexInformer<?>> informers() {
        List<SharedIndexInformer<?>> l = new ArrayList<>(List.of(nodeInformer, jobInformer, podInformer));
        if (configMapInformer != null) {
            l.add(configMapInformer);
        }
        return l;
    }

    /**
     * Reconciles in a background thread: at once after any watched object changes, when the engine asked for a
     * round by time ({@link Scheduler#nextWakeupMillis}: a policy's {@code wakeAt}, a lease expiring), and every
     * {@link AdapterOptions#reconcileInterval()} regardless.
     *
     * @return this
     */
    public FairwayAdapter runInBackground() {
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fairway-reconcile");
            t.setDaemon(true);
            return t;
        });
        long interval = Math.max(1, options.reconcileInterval().toMillis());
        long[] last = {0};
        loop.scheduleWithFixedDelay(() -> {
            long now = System.currentTimeMillis();
            boolean due = options.clock().millis() >= wakeAtMillis; // a round the engine asked for by time
            if (!dirty.getAndSet(false) && now - last[0] < interval && !due) {
                return;
            }
            wakeAtMillis = Long.MAX_VALUE;
            last[0] = now;
            try {
                reconcileOnce();
            } catch (RuntimeException e) {
                metrics.error();
                dirty.set(true);
                LOG.error("reconcile failed; retrying", e);
            }
        }, 0, Math.min(200, interval), TimeUnit.MILLISECONDS);
        return this;
    }

    /** @return true while this replica acts (always, without leader election) */
    public boolean isLeader() {
        return leading && !closed;
    }

    private void startedLeading() {
        LOG.info("{} leads: rebuilding the state from the API server", options.identity());
        synchronized (lock) {
            dropEngine();
            leading = true;
        }
        metrics.leading(true);
        dirty.set(true);
    }

    private void stoppedLeading() {
        LOG.info("{} stopped leading", options.identity());
        leading = false;
        metrics.leading(false);
        synchronized (lock) {
            dropEngine();
        }
    }

    /** Stops the loop, gives up the Lease (if held) and stops the informers. The client stays open. */
    @Override
    public void close() {
        closed = true;
        if (loop != null) {
            loop.shutdownNow();
            try {
                loop.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (election != null) {
            election.cancel(true);
        }
        leading = false;
        for (SharedIndexInformer<?> i : nodeInformer == null ? List.<SharedIndexInformer<?>>of() : informers()) {
            i.close();
        }
        metrics.leading(false);
        LOG.info("Fairway adapter stopped{}", options.identity() == null ? "" : " (" + options.identity() + ")");
    }

    // ------------------------------------------------------------------ queries

    /**
     * @param namespace a Job's namespace
     * @param name its name
     * @return its status in the engine, when the adapter tracks it
     */
    public Optional<JobStatus> status(String namespace, String name) {
        synchronized (lock) {
            if (scheduler == null) {
                return Optional.empty();
            }
            for (Tracked t : byUid.values()) {
                if (t.namespace.equals(namespace) && t.name.equals(name)) {
                    return scheduler.status(t.id);
                }
            }
            return Optional.empty();
        }
    }

    /** @return the engine's invariant violations (empty when all hold, or when there is no engine) */
    public List<String> checkInvariants() {
        synchronized (lock) {
            return scheduler == null ? List.of() : scheduler.checkInvariants();
        }
    }

    // ------------------------------------------------------------------ the reconcile pass

    /**
     * One pass: read the configuration, sync nodes and Jobs into the engine, report what pods and Jobs say, run a
     * round and apply its decisions, bind gated pods, publish pending reasons.
     *
     * @return what it did
     */
    public ReconcileResult reconcileOnce() {
        synchronized (lock) {
            if (closed || nodeInformer == null) {
                return ReconcileResult.idle(closed ? "closed" : "not started");
            }
            if (!leading) {
                return ReconcileResult.idle("not the leader");
            }
            if (options.leaderElection() && !holdsLease()) {
                return ReconcileResult.idle("the Lease is not held");
            }
            refreshConfig();
            if (config == null) {
                return ReconcileResult.idle("no configuration yet");
            }
            List<Job> jobs;
            if (scheduler == null || rebuildNeeded) {
                rebuild();
                jobs = listJobsFromServer();
            } else {
                jobs = new ArrayList<>(jobInformer.getStore().list());
            }
            jobs.removeIf(j -> translator.queueLabel(j) == null);
            jobs.sort(Comparator.comparing((Job j) -> Kube.creationMillis(j)).thenComparing(Kube::key));
            roundAdmitted.clear();
            roundEvicted.clear();
            fenced = false;
            syncNodes(jobs);
            syncJobs(jobs);
            retryEvictions();
            feedback();
            long t0 = System.nanoTime();
            roundProvisions.clear();
            roundDeprovisions.clear();
            RoundResult r = scheduler.runRound();
            wakeAtMillis = scheduler.nextWakeupMillis(Math.max(1, options.reconcileInterval().toMillis())).orElse(Long.MAX_VALUE);
            metrics.round(System.nanoTime() - t0);
            actuateNodes(r);
            handleActuationFailures();
            settleRestores(r);
            feedback();
            bindPods();
            publishReasons();
            Map<String, LocalQueue> lqs = new TreeMap<>();
            config.localQueueModels().forEach(q -> lqs.put(q.key(), q));
            List<JobStatus> all = scheduler.jobs().all();
            metrics.queues(all, lqs);
            long ended = all.stream().filter(j -> j.state().isTerminal()).count();
            if (ended > ENDED_JOBS_BEFORE_REBUILD) {
                LOG.info("the engine holds {} ended jobs; rebuilding it from the API server on the next pass", ended);
                rebuildNeeded = true;
            }
            return new ReconcileResult(true, "", r.round(), roundAdmitted, roundEvicted);
        }
    }

    private boolean holdsLease() {
        try {
            Lease l = client.leases().inNamespace(options.leaseNamespace()).withName(options.leaseName()).get();
            return holds(l, options.identity(), options.leaseDuration(), ZonedDateTime.now());
        } catch (KubernetesClientException e) {
            LOG.warn("cannot read the Lease {}/{}: {}", options.leaseNamespace(), options.leaseName(), e.getMessage());
            return false;
        }
    }

    /**
     * Whether a Lease proves that {@code identity} holds it now: it names {@code identity}, and its renewTime is
     * set, not older than the lease duration, and not further in the future than one lease duration (a renewTime
     * our clock cannot vouch for — clocks that disagree — proves nothing). Conservative by design: a replica that
     * cannot prove it leads does not write.
     *
     * @param l the Lease, or null
     * @param identity this replica
     * @param leaseDuration the lease duration
     * @param now this replica's clock
     * @return true when the Lease proves the hold
     */
    static boolean holds(Lease l, String identity, Duration leaseDuration, ZonedDateTime now) {
        if (l == null || l.getSpec() == null || !identity.equals(l.getSpec().getHolderIdentity())) {
            return false;
        }
        ZonedDateTime renewed = l.getSpec().getRenewTime();
        if (renewed == null || renewed.isAfter(now.plus(leaseDuration))) {
            return false;
        }
        return renewed.plus(leaseDuration).isAfter(now);
    }

    /**
     * Fencing inside a pass: before each write that admits, stops, resizes, binds or provisions, a replica with
     * leader election checks it still holds the Lease; once it finds it lost (taken over mid-pass) it writes nothing
     * more in this pass and rebuilds from the API server on the next one it leads.
     *
     * @return true when this replica may write
     */
    private boolean mayWrite() {
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

    // ------------------------------------------------------------------ configuration

    private void refreshConfig() {
        if (options.queues() != null) {
            if (config == null) {
                config = options.queues();
                rebuildNeeded = true;
            }
            return;
        }
        String source;
        String text;
        if (options.configMapName() != null) {
            source = "ConfigMap " + options.configMapNamespace() + "/" + options.configMapName();
            ConfigMap cm = configMapInformer.getStore().getByKey(options.configMapNamespace() + "/" + options.configMapName());
            text = cm == null || cm.getData() == null ? null : cm.getData().get(options.configMapKey());
        } else {
            source = options.configFile().toString();
            text = readConfigFile();
        }
        if (text == null) {
            if (config == null && !waitingForConfigLogged) {
                LOG.warn("waiting for the configuration in {} (key {})", source, options.configMapKey());
                waitingForConfigLogged = true;
            }
            return;
        }
        if (text.equals(configText)) {
            return;
        }
        configText = text;
        try {
            QueueConfig c = QueueConfig.parse(source, text);
            buildEngine(c);
            config = c;
            rebuildNeeded = true;
            LOG.info("configuration from {}: policy {}, {} ClusterQueues, {} LocalQueues", source, c.policy(), c.clusterQueues().size(),
                    c.localQueues().size());
        } catch (InvalidSpecException e) {
            LOG.error("the configuration in {} is invalid; {}: {}", source, config == null ? "waiting for a valid one" : "keeping the previous one",
                    e.getMessage());
            if (configMapInformer != null) {
                ConfigMap cm = configMapInformer.getStore().getByKey(options.configMapNamespace() + "/" + options.configMapName());
                if (cm != null) {
                    kube.event(cm, "Warning", Keys.REASON_INVALID_CONFIG, e.getMessage());
                }
            }
        }
    }

    private String readConfigFile() {
        try {
            long m = Files.getLastModifiedTime(options.configFile()).toMillis();
            if (m == configFileModified && configText != null) {
                return configText;
            }
            configFileModified = m;
            return Files.readString(options.configFile(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /** An engine and the policy wrapper that restores admissions into it. */
    private record Engine(Scheduler scheduler, RestoringPolicy policy) {
    }

    private Engine buildEngine(QueueConfig c) {
        RestoringPolicy p = new RestoringPolicy(Policies.create(c.policy(), c.policyParameters()));
        Scheduler.Builder b = Scheduler.builder()
                .policy(p)
                .actuator(this::apply)
                .clock(options.clock())
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, c.topologyLevels()));
        c.nodePoolModels().forEach(b::nodePool);
        c.flavorModels().forEach(b::flavor);
        c.cohortModels().forEach(b::cohort);
        c.clusterQueueModels().forEach(b::clusterQueue);
        c.localQueueModels().forEach(b::localQueue);
        return new Engine(b.build(), p);
    }

    private void rebuild() {
        dropEngine();
        Engine e = buildEngine(config);
        scheduler = e.scheduler();
        policy = e.policy();
        rebuildNeeded = false;
        lastRebuildMillis = System.currentTimeMillis();
        priorityClasses.clear();
        LOG.info("engine (re)built; reading Nodes and Jobs from the API server");
    }

    private void dropEngine() {
        scheduler = null;
        byUid.clear();
        byId.clear();
        modelNodes.clear();
        restoring.clear();
        actuationFailures.clear();
        evictionsToRetry.clear();
    }

    private List<Job> listJobsFromServer() {
        return new ArrayList<>(options.namespace() == null
                ? client.batch().v1().jobs().inAnyNamespace().list().getItems()
                : client.batch().v1().jobs().inNamespace(options.namespace()).list().getItems());
    }

    private Integer priorityClassValue(String name) {
        return priorityClasses.computeIfAbsent(name, n -> {
            PriorityClass pc = client.scheduling().v1().priorityClasses().withName(n).get();
            return pc == null ? null : pc.getValue();
        });
    }

    // ------------------------------------------------------------------ nodes

    private void syncNodes(List<Job> jobs) {
        Set<String> managed = new HashSet<>();
        jobs.forEach(j -> managed.add(Kube.key(j)));
        Map<String, Resources> unmanaged = new HashMap<>();
        if (options.countUnmanagedPods()) {
            for (Pod p : podInformer.getStore().list()) {
                String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
                String job = Kube.jobNameOf(p);
                if (node == null || Kube.terminal(p) || job != null && managed.contains(p.getMetadata().getNamespace() + "/" + job)) {
                    continue;
                }
                try {
                    unmanaged.merge(node, PodResources.of(p), Resources::plus);
                } catch (InvalidSpecException e) {
                    LOG.debug("pod {}: unreadable requests: {}", Kube.key(p), e.getMessage());
                }
            }
        }
        Map<String, Node> desired = new LinkedHashMap<>();
        List<io.fabric8.kubernetes.api.model.Node> kubeNodes = new ArrayList<>(nodeInformer.getStore().list());
        kubeNodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        refreshClaims();
        claimOfNode.clear();
        for (io.fabric8.kubernetes.api.model.Node n : kubeNodes) {
            try {
                io.fabric8.kubernetes.api.model.Node kn = n;
                boolean goingAway = deprovisioning.contains(n.getMetadata().getName());
                GenericKubernetesResource claim = claimCache.isEmpty() ? null : NodeClaims.claimOf(n, claimCache);
                if (claim != null) {
                    // the claim's labels (pool, instance type, capacity type, GPU shape) fill in what the Node lacks
                    claimOfNode.put(n.getMetadata().getName(), claim.getMetadata().getName());
                    Map<String, String> labels = new TreeMap<>(NodeClaims.labels(claim));
                    if (n.getMetadata().getLabels() != null) {
                        labels.putAll(n.getMetadata().getLabels());
                    }
                    kn = new NodeBuilder(n).editMetadata().withLabels(labels).endMetadata().build();
                    goingAway |= claim.getMetadata().getDeletionTimestamp() != null;
                }
                Node model = NodeTranslator.toModel(kn, unmanaged.getOrDefault(n.getMetadata().getName(), Resources.NONE));
                desired.put(n.getMetadata().getName(), goingAway ? model.withUnschedulable(true) : model);
            } catch (InvalidSpecException e) {
                LOG.warn("node {} is left out: {}", n.getMetadata().getName(), e.getMessage());
            }
        }
        deprovisioning.retainAll(desired.keySet());
        for (String gone : new ArrayList<>(modelNodes.keySet())) {
            if (!desired.containsKey(gone)) {
                LOG.info("node {} is gone", gone);
                modelNodes.remove(gone);
                scheduler.clusters().removeNode(gone);
            }
        }
        for (Node n : desired.values()) {
            Node cur = modelNodes.get(n.name());
            if (cur == null) {
                scheduler.clusters().addNode(n);
                modelNodes.put(n.name(), n);
            } else if (!cur.equals(n)) {
                if (cur.withUnschedulable(n.unschedulable()).equals(n)) {
                    scheduler.clusters().cordon(n.name(), n.unschedulable());
                    modelNodes.put(n.name(), n);
                } else if (!nodeInUse(n.name())) {
                    scheduler.clusters().removeNode(n.name());
                    scheduler.clusters().addNode(n);
                    modelNodes.put(n.name(), n);
                } else if (System.currentTimeMillis() - lastRebuildMillis >= NODE_REBUILD_MIN_INTERVAL_MILLIS) {
                    LOG.info("node {} changed while jobs run on it; the engine is rebuilt on the next pass", n.name());
                    rebuildNeeded = true;
                    dirty.set(true);
                }
            }
        }
    }

    /** Lists Fairway's NodeClaims when node pools are configured (keeping the last list when the API server fails). */
    private void refreshClaims() {
        if (config.nodePools().isEmpty()) {
            claimCache = new TreeMap<>();
            return;
        }
        try {
            claimCache = claims.list();
        } catch (KubernetesClientException e) {
            LOG.warn("cannot list NodeClaims: {}", e.getMessage());
        }
    }

    /**
     * Carries out the round's node decisions: a Provision becomes NodeClaims for the jobs of its node request (none
     * when they exist already), a Deprovision deletes the node's NodeClaim and keeps new work off the node.
     */
    private void actuateNodes(RoundResult r) {
        if (roundProvisions.isEmpty() && roundDeprovisions.isEmpty() || !mayWrite()) {
            return;
        }
        Map<String, NodePool> pools = new HashMap<>();
        config.nodePoolModels().forEach(p -> pools.put(p.name(), p));
        List<io.fairway.core.Provisioning.Request> requests = new ArrayList<>(r.requests());
        for (Provision p : roundProvisions) {
            io.fairway.core.Provisioning.Request req = null;
            for (io.fairway.core.Provisioning.Request q : requests) {
                if (q.pool().equals(p.nodePool()) && q.instanceType().equals(p.instanceType()) && q.count() == p.count()) {
                    req = q;
                    break;
                }
            }
            requests.remove(req);
            NodePool pool = pools.get(p.nodePool());
            io.fairway.api.model.InstanceType type = pool == null ? null : pool.instanceType(p.instanceType());
            if (type == null) {
                LOG.warn("{}: no node pool {} with instance type {} in the configuration", p, p.nodePool(), p.instanceType());
                continue;
            }
            List<JobSpec> specs = new ArrayList<>();
            for (String id : req == null ? List.<String>of() : req.jobs()) {
                Tracked t = byId.get(id);
                if (t != null) {
                    specs.add(t.spec);
                }
            }
            try {
                Set<String> registered = new HashSet<>(claimOfNode.values());
                claims.provision(pool, type, p.count(), specs, p.reason(), claimCache, registered);
            } catch (KubernetesClientException e) {
                LOG.warn("could not create the NodeClaims of {}: {}", p, e.getMessage());
            }
        }
        for (Deprovision d : roundDeprovisions) {
            String claim = claimOfNode.get(d.node());
            if (claim == null && deprovisioning.contains(d.node())) {
                LOG.debug("{}: its NodeClaim is deleted already; the node is going away", d);
                continue;
            }
            if (claim == null) {
                LOG.warn("{}: node {} has no NodeClaim of Fairway's; it is left to the cluster", d, d.node());
                continue;
            }
            try {
                claims.delete(d.node(), claim);
                claimCache.remove(claim);
                deprovisioning.add(d.node());
            } catch (KubernetesClientException e) {
                LOG.warn("could not delete NodeClaim {} of node {}: {}", claim, d.node(), e.getMessage());
            }
        }
    }

    private boolean nodeInUse(String node) {
        for (JobStatus j : scheduler.jobs().all()) {
            if (j.state().holdsResources() && j.admission() != null && j.admission().placement().nodes().contains(node)) {
                return true;
            }
        }
        for (String id : policy.pinned()) {
            Placement p = policy.pinOf(id);
            if (p != null && p.nodes().contains(node)) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ jobs

    private void syncJobs(List<Job> jobs) {
        Set<String> seen = new HashSet<>();
        for (Job job : jobs) {
            String uid = job.getMetadata().getUid();
            if (uid == null) {
                continue;
            }
            seen.add(uid);
            Tracked t = byUid.get(uid);
            if (t == null) {
                admitToEngine(job);
            } else if (!t.ended) {
                updatePriority(t, job);
            }
        }
        for (Tracked t : new ArrayList<>(byUid.values())) {
            if (seen.contains(t.uid)) {
                continue;
            }
            Job now = kube.fetch(t.namespace, t.name);
            if (now != null && t.uid.equals(now.getMetadata().getUid())) {
                continue; // not yet in the cache
            }
            LOG.info("Job {} was deleted; cancelling {}", t.key(), t.id);
            byUid.remove(t.uid);
            byId.remove(t.id);
            policy.unpin(t.id);
            restoring.remove(t.id);
            invalidPublished.remove(t.uid);
            scheduler.cancel(t.id);
        }
        invalidPublished.keySet().retainAll(seen);
    }

    /** A Job the engine does not know yet: submit it, restore its admission, or say why it cannot be queued. */
    private void admitToEngine(Job job) {
        String uid = job.getMetadata().getUid();
        if (Kube.finishedCondition(job) != null || Kube.annotation(job, Keys.FINISHED_ANNOTATION) != null) {
            return;
        }
        String id = idFor(job);
        JobSpec spec;
        try {
            spec = translator.toSpec(job, id);
            scheduler.submit(spec);
        } catch (InvalidSpecException e) {
            String msg = e.getMessage();
            if (!msg.equals(invalidPublished.get(uid)) && !(Keys.REASON_INVALID + ": " + msg).equals(Kube.annotation(job, Keys.PENDING_REASON_ANNOTATION))) {
                LOG.info("Job {} cannot be queued: {}", Kube.key(job), msg);
                try {
                    kube.publishPending(job, Keys.REASON_INVALID + ": " + msg, Keys.REASON_INVALID, "Warning");
                } catch (KubernetesClientException ex) {
                    LOG.warn("cannot annotate {}: {}", Kube.key(job), ex.getMessage());
                }
            }
            invalidPublished.put(uid, msg);
            return;
        }
        invalidPublished.remove(uid);
        Tracked t = new Tracked(uid, job.getMetadata().getNamespace(), job.getMetadata().getName(), id, spec);
        t.published = Kube.annotation(job, Keys.PENDING_REASON_ANNOTATION);
        byUid.put(uid, t);
        byId.put(id, t);
        String adm = Kube.annotation(job, Keys.ADMISSION_ANNOTATION);
        try {
            if (!Kube.suspended(job)) {
                if (adm != null) {
                    try {
                        AdmissionRecord rec = AdmissionRecord.parse(adm);
                        policy.pin(id, rec.placement());
                        restoring.add(id);
                        LOG.info("Job {} is admitted on {}; restoring its admission", t.key(), rec.placement().nodes());
                    } catch (IllegalArgumentException e) {
                        LOG.warn("Job {}: unreadable admission ({}); evicting it so it is admitted afresh", t.key(), e.getMessage());
                        evictFresh(t);
                    }
                } else {
                    kube.suspend(job);
                }
            } else if (adm != null) {
                LOG.info("Job {} is suspended but still carries an admission; finishing its eviction", t.key());
                evictFresh(t);
            }
        } catch (KubernetesClientException e) {
            LOG.warn("Job {}: {}", t.key(), e.getMessage());
        }
    }

    private void evictFresh(Tracked t) {
        Job fresh = kube.fetch(t.namespace, t.name);
        if (fresh != null && t.uid.equals(fresh.getMetadata().getUid())) {
            kube.evict(fresh);
        }
    }

    private String idFor(Job job) {
        String base = Kube.key(job);
        if (!byId.containsKey(base) && scheduler.status(base).isEmpty()) {
            return base;
        }
        String uid = job.getMetadata().getUid();
        return base + "@" + uid.substring(0, Math.min(8, uid.length()));
    }

    private void updatePriority(Tracked t, Job job) {
        int p;
        try {
            p = translator.toSpec(job, t.id).priority();
        } catch (InvalidSpecException e) {
            return;
        }
        if (p != t.priority) {
            scheduler.jobs().setPriority(t.id, p);
            t.priority = p;
        }
    }

    // ------------------------------------------------------------------ feedback from pods and Jobs

    private void feedback() {
        for (Tracked t : byUid.values()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = scheduler.status(t.id).orElse(null);
            if (s == null || !s.state().holdsResources() || restoring.contains(t.id)) {
                continue;
            }
            Job job = jobInformer.getStore().getByKey(t.key());
            if (job == null || !t.uid.equals(job.getMetadata().getUid())) {
                continue;
            }
            List<Pod> pods = podsOf(t);
            int members = s.admission().counts().values().stream().mapToInt(Integer::intValue).sum();
            long succeeded = pods.stream().filter(p -> "Succeeded".equals(Kube.phase(p))).count();
            long running = pods.stream().filter(p -> "Running".equals(Kube.phase(p))).count();
            long live = pods.stream().filter(p -> !Kube.terminal(p)).count();
            Integer completions = job.getSpec().getCompletions();
            String cond = Kube.finishedCondition(job);
            boolean done = "Complete".equals(cond)
                    || completions != null && succeeded >= completions
                    || completions == null && succeeded > 0 && live == 0;
            if ("Failed".equals(cond)) {
                end(t, job, false, Kube.failureMessage(job));
            } else if (done) {
                end(t, job, true, "");
            } else if (s.state() == JobState.ADMITTED && running + succeeded >= members) {
                scheduler.reportStarted(t.id);
            }
        }
    }

    private void end(Tracked t, Job job, boolean success, String message) {
        t.ended = true;
        policy.unpin(t.id);
        if (success) {
            scheduler.reportFinished(t.id);
        } else {
            scheduler.reportFailed(t.id, message);
        }
        try {
            kube.markFinished(job, success ? "Succeeded" : "Failed");
        } catch (KubernetesClientException e) {
            LOG.warn("cannot mark {} finished: {}", t.key(), e.getMessage());
        }
        LOG.info("Job {} {}", t.key(), success ? "succeeded" : "failed: " + message);
    }

    private List<Pod> podsOf(Tracked t) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : podInformer.getIndexer().byIndex(JOB_INDEX, t.key())) {
            boolean ours = true;
            if (p.getMetadata().getOwnerReferences() != null) {
                for (OwnerReference o : p.getMetadata().getOwnerReferences()) {
                    if ("Job".equals(o.getKind()) && o.getUid() != null && !o.getUid().equals(t.uid)) {
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

    // ------------------------------------------------------------------ placement down to the node

    /** Binds each gated pod of an admitted Job to its member's node and removes the gate. */
    private void bindPods() {
        if (!mayWrite()) {
            return;
        }
        for (Tracked t : byUid.values()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = scheduler.status(t.id).orElse(null);
            if (s == null || s.admission() == null || !(s.state() == JobState.ADMITTED || s.state() == JobState.RUNNING)) {
                continue;
            }
            Admit a = s.admission();
            int count = a.counts().getOrDefault(JobTranslator.POD_SET, 0);
            List<Pod> pods = podsOf(t);
            Set<String> liveUids = new HashSet<>();
            Set<Integer> used = new HashSet<>();
            for (Pod p : pods) {
                if (Kube.terminal(p)) {
                    continue;
                }
                liveUids.add(p.getMetadata().getUid());
                Integer m = t.members.get(p.getMetadata().getUid());
                if (m == null && !Kube.hasGate(p)) {
                    String ma = Kube.annotation(p, Keys.MEMBER_ANNOTATION);
                    m = ma == null ? null : parseOrNull(ma);
                }
                if (m != null) {
                    used.add(m);
                }
            }
            t.members.keySet().retainAll(liveUids);
            for (Pod p : pods) {
                if (Kube.terminal(p) || !Kube.hasGate(p) || t.members.containsKey(p.getMetadata().getUid())) {
                    continue;
                }
                Integer member = null;
                String idx = Kube.annotation(p, Keys.COMPLETION_INDEX);
                if (idx == null) {
                    idx = Kube.label(p, Keys.COMPLETION_INDEX);
                }
                Integer ci = idx == null ? null : parseOrNull(idx);
                if (ci != null && ci < count && !used.contains(ci)) {
                    member = ci;
                }
                for (int i = 0; member == null && i < count; i++) {
                    if (!used.contains(i)) {
                        member = i;
                    }
                }
                if (member == null) {
                    LOG.debug("Job {}: pod {} has no free member slot yet", t.key(), p.getMetadata().getName());
                    continue;
                }
                MemberPlacement mp = memberOf(a, member);
                if (mp == null) {
                    continue;
                }
                Node n = modelNodes.get(mp.node());
                String host = n == null ? mp.node() : n.label(Node.HOSTNAME_LABEL);
                try {
                    kube.ungate(p, member, host, mp.gpus());
                    t.members.put(p.getMetadata().getUid(), member);
                    used.add(member);
                    LOG.debug("Job {}: pod {} is member {} on {}", t.key(), p.getMetadata().getName(), member, mp.node());
                } catch (KubernetesClientException e) {
                    LOG.warn("Job {}: cannot bind pod {}: {}", t.key(), p.getMetadata().getName(), e.getMessage());
                }
            }
        }
    }

    private static MemberPlacement memberOf(Admit a, int index) {
        for (MemberPlacement m : a.placement().members()) {
            if (m.podSet().equals(JobTranslator.POD_SET) && m.index() == index) {
                return m;
            }
        }
        return null;
    }

    private static Integer parseOrNull(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ users see why

    private void publishReasons() {
        if (!mayWrite()) {
            return;
        }
        for (Tracked t : byUid.values()) {
            if (t.ended) {
                continue;
            }
            JobStatus s = scheduler.status(t.id).orElse(null);
            if (s == null || s.state() != JobState.PENDING || s.pendingReason() == null
                    || s.pendingReason().code() == PendingReason.Code.NOT_YET_CONSIDERED || policy.pinned().contains(t.id)) {
                continue;
            }
            String text = s.pendingReason().code() + ": " + s.pendingReason().message();
            if (text.equals(t.published)) {
                continue;
            }
            Job job = jobInformer.getStore().getByKey(t.key());
            if (job == null) {
                job = kube.fetch(t.namespace, t.name);
            }
            if (job == null) {
                continue;
            }
            try {
                kube.publishPending(job, text, Keys.REASON_PENDING, "Normal");
                t.published = text;
            } catch (KubernetesClientException e) {
                LOG.warn("cannot publish the pending reason of {}: {}", t.key(), e.getMessage());
            }
        }
    }

    // ------------------------------------------------------------------ decisions to the cluster

    /** The engine's actuator: carries each decision out on the API server. Runs on the reconcile thread. */
    private void apply(List<Decision> decisions) {
        beforeWrites.run();
        for (Decision d : decisions) {
            if ((d instanceof Admit || d instanceof Preempt || d instanceof Resize) && !mayWrite()) {
                fencedWrites++;
                continue;
            }
            try {
                if (d instanceof Admit a) {
                    applyAdmit(a);
                } else if (d instanceof Preempt p) {
                    applyPreempt(p);
                } else if (d instanceof Resize r) {
                    applyResize(r);
                } else if (d instanceof Provision p) {
                    roundProvisions.add(p); // carried out once the round's node requests are known (actuateNodes)
                } else if (d instanceof Deprovision dp) {
                    roundDeprovisions.add(dp);
                } else {
                    LOG.info("{} is left to the cluster's autoscaler", d);
                }
            } catch (KubernetesClientException | IllegalArgumentException e) {
                LOG.warn("could not apply {}: {}", d, e.getMessage());
                if (d instanceof Admit) {
                    actuationFailures.add(new String[] {d.jobId(), e.getMessage()});
                } else if (d instanceof Preempt) {
                    evictionsToRetry.add(d.jobId());
                }
            }
        }
    }

    private void applyAdmit(Admit a) {
        Tracked t = byId.get(a.jobId());
        if (t == null) {
            LOG.warn("admission of unknown job {}", a.jobId());
            return;
        }
        AdmissionRecord rec = AdmissionRecord.of(a);
        Job job = kube.fetch(t.namespace, t.name);
        if (job == null || !t.uid.equals(job.getMetadata().getUid())) {
            actuationFailures.add(new String[] {a.jobId(), "the Job is gone"});
            return;
        }
        if (restoring.remove(a.jobId())) {
            String cur = Kube.annotation(job, Keys.ADMISSION_ANNOTATION);
            if (cur == null || !AdmissionRecord.parse(cur).equals(rec)) {
                kube.recordAdmission(job, rec);
            }
            LOG.info("Job {}: admission restored on {}", t.key(), a.placement().nodes());
            return;
        }
        ResourceFlavor flavor = flavorOf(a.flavors().get(JobTranslator.POD_SET));
        kube.admit(job, rec, flavor, a.counts().getOrDefault(JobTranslator.POD_SET, 1));
        t.published = null;
        t.members.clear();
        roundAdmitted.add(a.jobId());
        metrics.admitted(System.currentTimeMillis() - t.spec.submitTimeMillis());
        kube.event(job, "Normal", Keys.REASON_ADMITTED, "Admitted by ClusterQueue " + a.clusterQueue() + " with flavor "
                + a.flavors().get(JobTranslator.POD_SET) + " on " + String.join(", ", a.placement().nodes()));
        LOG.info("Job {} admitted by {} on {}", t.key(), a.clusterQueue(), a.placement().nodes());
    }

    private ResourceFlavor flavorOf(String name) {
        if (name == null) {
            return null;
        }
        for (ResourceFlavor f : config.flavorModels()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    private void applyPreempt(Preempt p) {
        Tracked t = byId.get(p.jobId());
        restoring.remove(p.jobId());
        if (t == null) {
            return;
        }
        policy.unpin(p.jobId());
        t.members.clear();
        Job job = kube.fetch(t.namespace, t.name);
        if (job == null || !t.uid.equals(job.getMetadata().getUid())) {
            return;
        }
        kube.evict(job);
        roundEvicted.add(p.jobId());
        kube.event(job, "Normal", Keys.REASON_PREEMPTED, "Evicted and suspended: " + p.reason());
        LOG.info("Job {} evicted: {}", t.key(), p.reason());
    }

    private void applyResize(Resize r) {
        Tracked t = byId.get(r.jobId());
        JobStatus s = scheduler.status(r.jobId()).orElse(null);
        if (t == null || s == null || s.admission() == null) {
            return;
        }
        Job job = kube.fetch(t.namespace, t.name);
        if (job == null) {
            return;
        }
        Admit a = s.admission();
        kube.resize(job, r.targetCount(), AdmissionRecord.of(a.clusterQueue(), a.flavors(), a.counts(), r.placement()));
        kube.event(job, "Normal", Keys.REASON_RESIZED, "Parallelism set to " + r.targetCount());
        LOG.info("Job {} resized to {}", t.key(), r.targetCount());
    }

    /** Evictions whose write failed are retried while the engine still has the job waiting. */
    private void retryEvictions() {
        for (String id : new ArrayList<>(evictionsToRetry)) {
            Tracked t = byId.get(id);
            JobStatus s = scheduler.status(id).orElse(null);
            if (t == null || s == null || s.state() != JobState.PENDING) {
                evictionsToRetry.remove(id);
                continue;
            }
            try {
                evictFresh(t);
                evictionsToRetry.remove(id);
                LOG.info("Job {}: eviction retried", t.key());
            } catch (KubernetesClientException e) {
                LOG.warn("Job {}: eviction failed again: {}", t.key(), e.getMessage());
            }
        }
    }

    private void handleActuationFailures() {
        for (String[] f : actuationFailures) {
            scheduler.reportEvicted(f[0], "could not apply the admission: " + f[1]);
        }
        actuationFailures.clear();
    }

    /** Restores that the round made are done; restores that cannot be made because a node is gone become evictions. */
    private void settleRestores(RoundResult r) {
        Set<String> admitted = new HashSet<>();
        for (Decision d : r.decisions()) {
            if (d instanceof Admit a) {
                admitted.add(a.jobId());
            }
        }
        for (String id : policy.pinned()) {
            if (admitted.contains(id)) {
                policy.unpin(id);
                continue;
            }
            Placement p = policy.pinOf(id);
            Tracked t = byId.get(id);
            if (p == null || t == null || modelNodes.keySet().containsAll(p.nodes())) {
                continue;
            }
            policy.unpin(id);
            restoring.remove(id);
            Job job = kube.fetch(t.namespace, t.name);
            if (job != null) {
                kube.evict(job);
                kube.event(job, "Normal", Keys.REASON_PREEMPTED, "Evicted and suspended: a node it ran on is gone");
                roundEvicted.add(id);
            }
        }
    }
}
