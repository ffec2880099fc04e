package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Node;
import io.fairway.config.QueuesConfig;
import io.fairway.core.Policies;
import io.fairway.core.Scheduler;
import io.fairway.k8s.integration.Integration;
import io.fairway.k8s.integration.Integrations;
import io.fairway.k8s.kueue.KueueDetection;
import io.fairway.k8s.kueue.KueueQueues;
import io.fairway.k8s.kueue.KueueSync;
import io.fairway.k8s.podgroup.PodGroupController;
import io.fairway.k8s.unifiedjob.UnifiedJobController;
import java.util.LinkedHashMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's life cycle: the informers, leader election (the engine is dropped when leadership changes hands and
 * rebuilt from the API server), and the configuration — read from the options, a file or a ConfigMap, reloaded when
 * it changes, and the engine built from it.
 */
final class AdapterLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(AdapterLifecycle.class);

    private final AdapterState state;
    private final Actuation actuation;
    private String configText;
    private long configFileModified = Long.MIN_VALUE;
    private boolean waitingForConfigLogged;
    private ResourceEventHandler<Object> wake;

    AdapterLifecycle(AdapterState state, Actuation actuation) {
        this.state = state;
        this.actuation = actuation;
    }

    /**
     * Starts the informers (waiting up to a minute for their first list) and, when configured, leader election.
     *
     * @return this
     * @throws IllegalStateException when the informers do not sync in time
     */
    void start() {
        long resync = state.options.resyncPeriod().toMillis();
        ResourceEventHandler<Object> wake = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Object obj) {
                state.dirty.set(true);
            }

            @Override
            public void onUpdate(Object oldObj, Object newObj) {
                state.dirty.set(true);
            }

            @Override
            public void onDelete(Object obj, boolean deletedFinalStateUnknown) {
                state.dirty.set(true);
            }
        };
        this.wake = wake;
        state.nodeInformer = state.client.nodes().runnableInformer(resync);
        var pods = state.options.namespace() == null || state.options.countUnmanagedPods()
                ? state.client.pods().inAnyNamespace() : state.client.pods().inNamespace(state.options.namespace());
        state.podInformer = pods.runnableInformer(resync);
        state.podInformer.addIndexers(Map.of(AdapterState.JOB_INDEX, p -> {
            List<String> keys = new ArrayList<>();
            for (Integration i : state.available) {
                i.podOf(p).ifPresent(r -> keys.add(i.name() + "|" + p.getMetadata().getNamespace() + "/" + r.ownerName()));
            }
            return keys;
        }));
        if (state.options.configMapName() != null) {
            state.configMapInformer = state.client.configMaps().inNamespace(state.options.configMapNamespace()).withName(state.options.configMapName())
                    .runnableInformer(resync);
        }
        informers().forEach(i -> i.addEventHandler(wake));
        List<SharedIndexInformer<?>> kueueInformers = List.of();
        AdapterOptions.KueueMode km = state.options.kueue();
        if (!km.allowRunningKueue() && state.options.queueLabels().contains(Keys.KUEUE_QUEUE_LABEL)) {
            // Kueue's label is honoured: Kueue, if it runs, would admit the same objects
            List<String> evidence;
            try {
                evidence = KueueDetection.evidence(state.client, km.kueueNamespace(), java.time.Instant.now());
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 403) {
                    throw e;
                }
                LOG.warn("cannot check whether Kueue runs ({}); apply deploy/rbac-kueue-objects.yaml to let the controller check", e.getMessage());
                evidence = List.of();
            }
            if (!evidence.isEmpty()) {
                throw new IllegalStateException(KueueDetection.refusal(evidence));
            }
        }
        if (km.objects()) {
            state.kueue = new KueueSync(state.client, km.apiVersion());
            kueueInformers = state.kueue.informers(resync, wake);
            state.translator.workloadPriorityClasses(n -> {
                KueueQueues.Mapped m = state.kueueMapped;
                return m == null ? null : m.priorityClasses().get(n);
            });
        }
        List<SharedIndexInformer<?>> all = new ArrayList<>(informers());
        all.addAll(kueueInformers);
        waitFor(all);
        ensureKinds(initialIntegrations());
        if (state.options.leaderElection()) {
            state.election = new LeaseElection(state.client, state.options.leaseNamespace(), state.options.leaseName(), state.options.identity(), state.options.leaseDuration(),
                    state.options.renewDeadline(), state.options.retryPeriod()).start("fairway", this::startedLeading, this::stoppedLeading);
        }
        LOG.info("Fairway adapter started: namespace {}, queue labels {}, leader election {}, integrations {}",
                state.options.namespace() == null ? "(all)" : state.options.namespace(), state.options.queueLabels(), state.options.leaderElection(),
                state.kinds.keySet());
    }

    /** The integrations to start with: the options', else a fixed or file configuration's, else the default. */
    private List<String> initialIntegrations() {
        if (!state.options.integrations().isEmpty()) {
            return state.options.integrations();
        }
        if (state.options.queues() != null) {
            return state.options.queues().integrations();
        }
        if (state.options.configMapName() == null && state.options.configFile() == null) {
            return List.of(); // queues from Kueue's objects, no configuration: the default integrations
        }
        try {
            String text = state.options.configMapName() != null ? configMapText() : readConfigFile();
            configFileModified = Long.MIN_VALUE;
            return text == null ? List.of() : QueuesConfig.parse("configuration", text).integrations();
        } catch (InvalidSpecException e) {
            return List.of(); // reported when the configuration is read for the engine
        }
    }

    /**
     * @param config a configuration's integration names
     * @return the integrations in force under it (the options' names win over the configuration's)
     * @throws InvalidSpecException naming the value when a name is unknown
     */
    private List<Integration> integrationsFor(List<String> config) {
        return Integrations.enabled(state.options.integrations().isEmpty() ? config : state.options.integrations());
    }

    /**
     * Starts an informer for each enabled integration not yet watched and stops those no longer enabled (the engine
     * is then rebuilt from the API server).
     */
    private void ensureKinds(List<String> names) {
        List<Integration> want;
        try {
            want = integrationsFor(names);
        } catch (InvalidSpecException e) {
            LOG.error("{}; queueing {} until the configuration is fixed", e.getMessage(), state.kinds.isEmpty() ? Integrations.DEFAULT : state.kinds.keySet());
            if (!state.kinds.isEmpty()) {
                return;
            }
            want = Integrations.enabled(Integrations.DEFAULT);
        }
        List<String> effective = state.options.integrations().isEmpty() ? names : state.options.integrations();
        boolean uj = effective != null && effective.contains(Integrations.UNIFIED_JOB);
        boolean pg = effective != null && effective.contains(Integrations.POD_GROUPS);
        if (uj != state.unifiedJobsEnabled || pg != state.podGroupsEnabled) {
            state.unifiedJobsEnabled = uj;
            state.podGroupsEnabled = pg;
            state.rebuildNeeded = true;
            LOG.info("UnifiedJob controller {}, pod groups controller {}", uj ? "on" : "off", pg ? "on" : "off");
        }
        List<String> wantNames = want.stream().map(Integration::name).toList();
        if (wantNames.equals(List.copyOf(state.kinds.keySet()))) {
            return;
        }
        Map<String, EnabledKind> next = new LinkedHashMap<>();
        List<SharedIndexInformer<?>> started = new ArrayList<>();
        for (Integration i : want) {
            EnabledKind k = state.kinds.get(i.name());
            if (k == null) {
                i.connect(state.lookup);
                k = new EnabledKind(i);
                var ops = state.client.genericKubernetesResources(k.context);
                k.informer = state.options.namespace() == null ? ops.inAnyNamespace().runnableInformer(state.options.resyncPeriod().toMillis())
                        : ops.inNamespace(state.options.namespace()).runnableInformer(state.options.resyncPeriod().toMillis());
                k.informer.addEventHandler(wake);
                started.add(k.informer);
            }
            next.put(i.name(), k);
        }
        state.kinds.forEach((n, k) -> {
            if (!next.containsKey(n)) {
                k.informer.close();
            }
        });
        state.kinds = next;
        waitFor(started);
        state.rebuildNeeded = true;
        LOG.info("queueing {}", wantNames);
    }

    private static void waitFor(List<SharedIndexInformer<?>> informers) {
        try {
            CompletableFuture.allOf(informers.stream().map(i -> i.start().toCompletableFuture()).toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the informers did not sync: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the informers synced", e);
        }
    }

    /** Gives up the Lease (if held) and stops the informers. */
    void stop() {
        if (state.election != null) {
            state.election.close();
        }
        state.leading = false;
        for (SharedIndexInformer<?> i : state.nodeInformer == null ? List.<SharedIndexInformer<?>>of() : informers()) {
            i.close();
        }
        state.kinds.values().forEach(k -> k.informer.close());
        if (state.kueue != null) {
            state.kueue.close();
        }
        state.metrics.leading(false);
    }

    /** An engine and the policy wrapper that restores admissions into it. */
    private record Engine(Scheduler scheduler, RestoringPolicy policy) {
    }

    void refreshConfig() {
        if (state.kueue != null) {
            refreshFromKueue();
            return;
        }
        if (state.options.queues() != null) {
            if (state.config == null) {
                state.config = state.options.queues();
                state.rebuildNeeded = true;
            }
            return;
        }
        String source;
        String text;
        if (state.options.configMapName() != null) {
            source = "ConfigMap " + state.options.configMapNamespace() + "/" + state.options.configMapName();
            text = configMapText();
        } else {
            source = state.options.configFile().toString();
            text = readConfigFile();
        }
        if (text == null) {
            if (state.config == null && !waitingForConfigLogged) {
                LOG.warn("waiting for the configuration in {} (key {})", source, state.options.configMapKey());
                waitingForConfigLogged = true;
            }
            return;
        }
        if (text.equals(configText)) {
            return;
        }
        configText = text;
        try {
            QueuesConfig c = QueuesConfig.parse(source, text);
            integrationsFor(c.integrations());
            buildEngine(c);
            ensureKinds(c.integrations());
            state.config = c;
            state.rebuildNeeded = true;
            LOG.info("configuration from {}: policy {}, {} ClusterQueues, {} LocalQueues", source, c.policy(), c.clusterQueues().size(),
                    c.localQueues().size());
        } catch (InvalidSpecException e) {
            LOG.error("the configuration in {} is invalid; {}: {}", source, state.config == null ? "waiting for a valid one" : "keeping the previous one",
                    e.getMessage());
            if (state.configMapInformer != null) {
                ConfigMap cm = state.configMapInformer.getStore().getByKey(state.options.configMapNamespace() + "/" + state.options.configMapName());
                if (cm != null) {
                    state.kube.event(cm, "Warning", Keys.REASON_INVALID_CONFIG, e.getMessage());
                }
            }
        }
    }

    /**
     * The queues from Kueue's objects, with the policy, node pools and integrations of the configuration (when one is
     * given). A change is applied to the running engine through its reconfiguration ({@link io.fairway.core.Queues}:
     * admitted work keeps its admission, over-use left by a lowered quota is only drained); a change it cannot apply
     * that way (policy, topology levels, node pools, integrations, a busy ClusterQueue removed) rebuilds the engine
     * from the API server, as a changed ConfigMap does.
     */
    private void refreshFromKueue() {
        QueuesConfig base = kueueBase();
        if (base == null && (state.options.configMapName() != null || state.options.configFile() != null) && state.config == null) {
            return; // waiting for the policy's configuration (logged by kueueBase)
        }
        KueueQueues.Mapped m;
        try {
            m = state.kueue.read(base);
        } catch (InvalidSpecException e) {
            LOG.error("Kueue's objects do not make a valid configuration; {}: {}", state.config == null ? "waiting" : "keeping the previous one",
                    e.getMessage());
            return;
        }
        state.kueueMapped = m;
        state.kueue.reportFindings(m, state.kube::event);
        QueuesConfig c = m.config();
        if (c.equals(state.config)) {
            return;
        }
        try {
            integrationsFor(c.integrations());
            buildEngine(c);
        } catch (InvalidSpecException e) {
            LOG.error("the configuration from Kueue's objects is invalid; {}: {}", state.config == null ? "waiting for a valid one" : "keeping the previous one",
                    e.getMessage());
            return;
        }
        ensureKinds(c.integrations());
        QueuesConfig old = state.config;
        boolean live = old != null && state.scheduler != null && !state.rebuildNeeded && applyLive(old, c);
        state.config = c;
        if (!live) {
            state.rebuildNeeded = true;
        }
        LOG.info("queues from Kueue's objects ({}): {} flavors, {} cohorts, {} ClusterQueues, {} LocalQueues; {}", state.kueue.version(),
                c.flavors().size(), c.cohorts().size(), c.clusterQueues().size(), c.localQueues().size(),
                old == null ? "first configuration" : live ? "applied to the running engine" : "rebuilding the engine");
    }

    /** @return the configuration giving the policy, node pools and integrations in Kueue mode, or null (defaults) */
    private QueuesConfig kueueBase() {
        if (state.options.queues() != null) {
            return state.options.queues();
        }
        if (state.options.configMapName() == null && state.options.configFile() == null) {
            return null;
        }
        String source = state.options.configMapName() != null ? "ConfigMap " + state.options.configMapNamespace() + "/" + state.options.configMapName()
                : state.options.configFile().toString();
        String text = state.options.configMapName() != null ? configMapText() : readConfigFile();
        if (text == null) {
            if (!waitingForConfigLogged) {
                LOG.warn("waiting for the configuration in {} (key {})", source, state.options.configMapKey());
                waitingForConfigLogged = true;
            }
            return kueueBase;
        }
        if (text.equals(configText)) {
            return kueueBase;
        }
        configText = text;
        try {
            kueueBase = QueuesConfig.parse(source, text);
            if (!kueueBase.clusterQueues().isEmpty() || !kueueBase.localQueues().isEmpty() || !kueueBase.flavors().isEmpty()
                    || !kueueBase.cohorts().isEmpty()) {
                LOG.warn("{}: the queues come from Kueue's objects; its flavors, cohorts, ClusterQueues and LocalQueues are not used", source);
            }
        } catch (InvalidSpecException e) {
            LOG.error("the configuration in {} is invalid; {}: {}", source, kueueBase == null ? "waiting for a valid one" : "keeping the previous one",
                    e.getMessage());
            if (state.configMapInformer != null) {
                ConfigMap cm = state.configMapInformer.getStore().getByKey(state.options.configMapNamespace() + "/" + state.options.configMapName());
                if (cm != null) {
                    state.kube.event(cm, "Warning", Keys.REASON_INVALID_CONFIG, e.getMessage());
                }
            }
        }
        return kueueBase;
    }

    private QueuesConfig kueueBase;

    /**
     * Applies a change of queues to the running engine.
     *
     * @return false when the change needs a rebuild (nothing is then left half-applied that the rebuild does not replace)
     */
    private boolean applyLive(QueuesConfig old, QueuesConfig now) {
        if (!old.policy().equals(now.policy()) || !old.policyParameters().equals(now.policyParameters())
                || !old.topologyLevels().equals(now.topologyLevels()) || !old.nodePools().equals(now.nodePools())
                || !old.integrations().equals(now.integrations())) {
            return false;
        }
        io.fairway.core.Queues q = state.scheduler.queues();
        try {
            Map<String, io.fairway.api.model.LocalQueue> oldLq = new LinkedHashMap<>();
            old.localQueueModels().forEach(l -> oldLq.put(l.key(), l));
            Map<String, io.fairway.api.model.LocalQueue> newLq = new LinkedHashMap<>();
            now.localQueueModels().forEach(l -> newLq.put(l.key(), l));
            for (var e : oldLq.entrySet()) {
                if (!e.getValue().equals(newLq.get(e.getKey()))) {
                    q.removeLocalQueue(e.getValue().namespace(), e.getValue().name());
                }
            }
            Map<String, io.fairway.api.model.ResourceFlavor> oldF = byName(old.flavorModels(), io.fairway.api.model.ResourceFlavor::name);
            Map<String, io.fairway.api.model.ResourceFlavor> newF = byName(now.flavorModels(), io.fairway.api.model.ResourceFlavor::name);
            for (var f : newF.values()) {
                if (!oldF.containsKey(f.name())) {
                    q.addFlavor(f);
                } else if (!oldF.get(f.name()).equals(f)) {
                    q.updateFlavor(f);
                }
            }
            Map<String, io.fairway.api.model.Cohort> oldC = byName(old.cohortModels(), io.fairway.api.model.Cohort::name);
            java.util.Set<String> modelNames = new java.util.HashSet<>(byName(now.cohortModels(), io.fairway.api.model.Cohort::name).keySet());
            if (!addOrUpdateCohorts(q, oldC, now.cohortModels(), modelNames)) {
                return false;
            }
            Map<String, io.fairway.api.model.ClusterQueue> oldQ = byName(old.clusterQueueModels(), io.fairway.api.model.ClusterQueue::name);
            Map<String, io.fairway.api.model.ClusterQueue> newQ = byName(now.clusterQueueModels(), io.fairway.api.model.ClusterQueue::name);
            for (var cq : newQ.values()) {
                if (!cq.equals(oldQ.get(cq.name()))) {
                    q.addClusterQueue(cq);
                }
            }
            for (String n : oldQ.keySet()) {
                if (!newQ.containsKey(n)) {
                    q.removeClusterQueue(n);
                }
            }
            for (String n : oldC.keySet()) {
                if (!modelNames.contains(n)) {
                    q.removeCohort(n);
                }
            }
            for (String n : oldF.keySet()) {
                if (!newF.containsKey(n)) {
                    q.removeFlavor(n);
                }
            }
            for (var e : newLq.entrySet()) {
                if (!e.getValue().equals(oldLq.get(e.getKey()))) {
                    q.addLocalQueue(e.getValue());
                }
            }
            return true;
        } catch (InvalidSpecException e) {
            LOG.info("the engine cannot take this change in place ({}); rebuilding it from the API server", e.getMessage());
            return false;
        }
    }

    /**
     * Adds the new cohorts and updates the changed ones, parents before children: a cohort is added once its parent is known
     * (or is not a cohort of the model).
     *
     * @return false when some cohorts wait for a parent that never comes (a cycle): the change needs a rebuild
     */
    private static boolean addOrUpdateCohorts(io.fairway.core.Queues q, Map<String, io.fairway.api.model.Cohort> oldC,
                                              List<io.fairway.api.model.Cohort> cohorts, java.util.Set<String> modelNames) {
        List<io.fairway.api.model.Cohort> pendingCohorts = new ArrayList<>(cohorts);
        java.util.Set<String> known = new java.util.HashSet<>(oldC.keySet());
        while (!pendingCohorts.isEmpty()) {
            boolean progressed = false;
            for (var it = pendingCohorts.iterator(); it.hasNext();) {
                io.fairway.api.model.Cohort c = it.next();
                if (c.parent() != null && modelNames.contains(c.parent()) && !known.contains(c.parent())) {
                    continue;
                }
                if (!oldC.containsKey(c.name())) {
                    q.addCohort(c);
                } else if (!oldC.get(c.name()).equals(c)) {
                    q.updateCohort(c);
                }
                known.add(c.name());
                it.remove();
                progressed = true;
            }
            if (!progressed) {
                return false;
            }
        }
        return true;
    }

    private static <T> Map<String, T> byName(List<T> items, java.util.function.Function<T, String> name) {
        Map<String, T> out = new LinkedHashMap<>();
        items.forEach(i -> out.put(name.apply(i), i));
        return out;
    }

    /**
     * Writes ClusterQueue and LocalQueue status from the engine (Kueue mode only; nothing otherwise).
     */
    void writeKueueStatus() {
        if (state.kueue == null || state.kueueMapped == null) {
            return;
        }
        state.kueue.writeStatus(state.kueueMapped, state.config, state.scheduler == null ? List.of() : state.scheduler.jobs().all(), java.time.Instant.now());
    }

    private String configMapText() {
        ConfigMap cm = state.configMapInformer.getStore().getByKey(state.options.configMapNamespace() + "/" + state.options.configMapName());
        return cm == null || cm.getData() == null ? null : cm.getData().get(state.options.configMapKey());
    }

    private String readConfigFile() {
        try {
            long m = Files.getLastModifiedTime(state.options.configFile()).toMillis();
            if (m == configFileModified && configText != null) {
                return configText;
            }
            configFileModified = m;
            return Files.readString(state.options.configFile(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    private Engine buildEngine(QueuesConfig c) {
        RestoringPolicy p = new RestoringPolicy(Policies.create(c.policy(), c.policyParameters()));
        Scheduler.Builder b = Scheduler.builder()
                .policy(p)
                .actuator(actuation::apply)
                .clock(state.options.clock())
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, c.topologyLevels()));
        c.nodePoolModels().forEach(b::nodePool);
        c.flavorModels().forEach(b::flavor);
        c.cohortModels().forEach(b::cohort);
        c.clusterQueueModels().forEach(b::clusterQueue);
        c.localQueueModels().forEach(b::localQueue);
        return new Engine(b.build(), p);
    }

    void rebuild() {
        state.loadSeal(); // before anything is adopted: only admissions sealed with this key are trusted
        dropEngine();
        Engine e = buildEngine(state.config);
        state.scheduler = e.scheduler();
        state.policy = e.policy();
        String ns = state.options.namespace();
        if (state.unifiedJobsEnabled) {
            UnifiedJobController uj = new UnifiedJobController(state.client, state.scheduler,
                    UnifiedJobController.integrations(new ArrayList<>(UnifiedJobController.jobTypes())), state.config.flavorModels(), ns);
            state.unifiedJobs = uj;
            state.handlers.add(RoundHandler.of(UnifiedJobController::owns, uj::beforeRound, uj::afterRound));
        }
        if (state.podGroupsEnabled) {
            PodGroupController pg = new PodGroupController(state.client, state.scheduler, state.config.flavorModels(), ns, state.podInformer);
            state.podGroups = pg;
            state.handlers.add(RoundHandler.of(PodGroupController::owns, pg::beforeRound, pg::afterRound));
        }
        state.rebuildNeeded = false;
        state.lastRebuildMillis = System.currentTimeMillis();
        state.priorityClasses.clear();
        LOG.info("engine (re)built; reading Nodes and Jobs from the API server");
    }

    private void dropEngine() {
        state.scheduler = null;
        state.unifiedJobs = null;
        state.podGroups = null;
        state.handlers.clear();
        state.tracked.clear();
        state.modelNodes.clear();
        state.restoring.clear();
        state.actuationFailures.clear();
        state.evictionsToRetry.clear();
    }

    /** @return every object of every enabled kind, as the API server has them now */
    List<KindObject> listFromServer() {
        List<KindObject> out = new ArrayList<>();
        for (EnabledKind k : state.kinds.values()) {
            var ops = state.client.genericKubernetesResources(k.context);
            List<GenericKubernetesResource> items = state.options.namespace() == null ? ops.inAnyNamespace().list().getItems()
                    : ops.inNamespace(state.options.namespace()).list().getItems();
            items.forEach(o -> out.add(new KindObject(k, o)));
        }
        return out;
    }

    private void startedLeading() {
        LOG.info("{} leads: rebuilding the state from the API server", state.options.identity());
        synchronized (state.lock) {
            dropEngine();
            state.leading = true;
        }
        state.metrics.leading(true);
        state.dirty.set(true);
    }

    private void stoppedLeading() {
        LOG.info("{} stopped leading", state.options.identity());
        state.leading = false;
        state.metrics.leading(false);
        synchronized (state.lock) {
            dropEngine();
        }
    }

    private List<SharedIndexInformer<?>> informers() {
        List<SharedIndexInformer<?>> l = new ArrayList<>(List.of(state.nodeInformer, state.podInformer));
        if (state.configMapInformer != null) {
            l.add(state.configMapInformer);
        }
        return l;
    }
}
