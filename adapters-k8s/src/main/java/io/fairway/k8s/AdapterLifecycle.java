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
        waitFor(informers());
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
        Map<String, Kind> next = new LinkedHashMap<>();
        List<SharedIndexInformer<?>> started = new ArrayList<>();
        for (Integration i : want) {
            Kind k = state.kinds.get(i.name());
            if (k == null) {
                i.connect(state.lookup);
                k = new Kind(i);
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
        state.metrics.leading(false);
    }

    /** An engine and the policy wrapper that restores admissions into it. */
    private record Engine(Scheduler scheduler, RestoringPolicy policy) {
    }

    void refreshConfig() {
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
    List<Workload> listFromServer() {
        List<Workload> out = new ArrayList<>();
        for (Kind k : state.kinds.values()) {
            var ops = state.client.genericKubernetesResources(k.context);
            List<GenericKubernetesResource> items = state.options.namespace() == null ? ops.inAnyNamespace().list().getItems()
                    : ops.inNamespace(state.options.namespace()).list().getItems();
            items.forEach(o -> out.add(new Workload(k, o)));
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
