package io.fairway.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.LocalQueue;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Fairway on a Kubernetes cluster: it watches Nodes, the objects of every enabled kind carrying a queue label
 * (batch/v1 Jobs by default; JobSets, Kubeflow jobs, MPIJobs, TrainJobs … through their
 * {@link io.fairway.k8s.integration.Integration}s) and their pods, feeds them to the engine ({@link Scheduler}), and
 * carries the engine's decisions out the way Kueue does. The points below say "Job" for any such object.
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
    /** The engine keeps every ended job; past this many it is rebuilt from the API server, which holds only live ones. */
    private static final int ENDED_JOBS_BEFORE_REBUILD = 10_000;

    /** What the parts share (package-private: tests reach the fencing seams through it). */
    final AdapterState state;
    private final AdapterLifecycle lifecycle;
    private final ClusterSync sync;
    private final KindObjectSync kindObjects;
    private final Actuation actuation;
    private final PodBinding binding;
    /** When the engine next wants a round by itself (policy wakeups, leases, checks), scheduler clock; MAX_VALUE: never. */
    private volatile long wakeAtMillis = Long.MAX_VALUE;
    private BackgroundLoop loop;

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
        this.state = new AdapterState(client, options, registry);
        this.sync = new ClusterSync(state);
        this.kindObjects = new KindObjectSync(state);
        this.actuation = new Actuation(state);
        this.binding = new PodBinding(state);
        this.lifecycle = new AdapterLifecycle(state, actuation);
    }

    // ------------------------------------------------------------------ life cycle

    /**
     * Starts the informers (waiting up to a minute for their first list) and, when configured, leader election.
     *
     * @return this
     * @throws IllegalStateException when the informers do not sync in time
     */
    public FairwayAdapter start() {
        lifecycle.start();
        return this;
    }

    /**
     * Reconciles in a background thread: at once after any watched object changes, when the engine asked for a
     * round by time ({@link Scheduler#nextWakeupMillis}: a policy's {@code wakeAt}, a lease expiring), and every
     * {@link AdapterOptions#reconcileInterval()} regardless.
     *
     * @return this
     */
    public FairwayAdapter runInBackground() {
        long interval = Math.max(1, state.options.reconcileInterval().toMillis());
        long[] last = {0};
        loop = BackgroundLoop.start("fairway-reconcile", Math.min(200, interval), () -> {
            long now = System.currentTimeMillis();
            boolean due = state.options.clock().millis() >= wakeAtMillis; // a round the engine asked for by time
            if (!state.dirty.getAndSet(false) && now - last[0] < interval && !due) {
                return;
            }
            wakeAtMillis = Long.MAX_VALUE;
            last[0] = now;
            try {
                reconcileOnce();
            } catch (RuntimeException e) {
                state.metrics.error();
                state.dirty.set(true);
                LOG.error("reconcile failed; retrying", e);
            }
        });
        return this;
    }

    /** @return true while this replica acts (always, without leader election) */
    public boolean isLeader() {
        return state.leading && !state.closed;
    }

    /** Stops the loop, gives up the Lease (if held) and stops the informers. The client stays open. */
    @Override
    public void close() {
        state.closed = true;
        if (loop != null) {
            loop.close();
        }
        lifecycle.stop();
        LOG.info("Fairway adapter stopped{}", state.options.identity() == null ? "" : " (" + state.options.identity() + ")");
    }

    // ------------------------------------------------------------------ queries

    /**
     * @param namespace a Job's namespace
     * @param name its name
     * @return its status in the engine, when the adapter tracks it
     */
    public Optional<JobStatus> status(String namespace, String name) {
        synchronized (state.lock) {
            if (state.scheduler == null) {
                return Optional.empty();
            }
            for (TrackedObject t : state.tracked.all()) {
                if (t.namespace.equals(namespace) && t.name.equals(name)) {
                    return state.scheduler.status(t.id);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * @param integration the integration's name ({@code jobset.x-k8s.io/v1alpha2.JobSet})
     * @param namespace the object's namespace
     * @param name its name
     * @return its status in the engine, when the adapter tracks it
     */
    public Optional<JobStatus> status(String integration, String namespace, String name) {
        synchronized (state.lock) {
            if (state.scheduler == null) {
                return Optional.empty();
            }
            for (TrackedObject t : state.tracked.all()) {
                if (t.kind.name().equals(integration) && t.namespace.equals(namespace) && t.name.equals(name)) {
                    return state.scheduler.status(t.id);
                }
            }
            return Optional.empty();
        }
    }

    /** @return the names of the integrations in force (the kinds this adapter queues), in order */
    public List<String> integrations() {
        return List.copyOf(state.kinds.keySet());
    }

    /**
     * @return true when a controller owner of the object is itself of a queued kind (a JobSet's Jobs, a TrainJob's
     *     JobSet): the owner is the gang, so the object is not queued on its own (as Kueue does)
     */
    private boolean ownedByQueuedKind(io.fabric8.kubernetes.api.model.HasMetadata o) {
        if (o.getMetadata().getOwnerReferences() == null) {
            return false;
        }
        for (io.fabric8.kubernetes.api.model.OwnerReference r : o.getMetadata().getOwnerReferences()) {
            if (Boolean.TRUE.equals(r.getController()) && state.unifiedJobs != null && "fairway.io/v1alpha1".equals(r.getApiVersion())
                    && "UnifiedJob".equals(r.getKind())) {
                return true; // the UnifiedJob controller created it at admission: the UnifiedJob is the gang
            }
            if (Boolean.TRUE.equals(r.getController())) {
                for (EnabledKind k : state.kinds.values()) {
                    if (k.integration.kind().apiVersion().equals(r.getApiVersion()) && k.kindName().equals(r.getKind())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** @return the visibility API's write verbs on this adapter's Kubernetes objects ({@code --ui-write}) */
    io.fairway.visibility.OperatorWrites operatorWrites() {
        return new KubernetesWrites(state);
    }

    /** @return the engine now, or null (standing by, or rebuilding): the visibility API reads it */
    io.fairway.core.Scheduler scheduler() {
        synchronized (state.lock) {
            return state.scheduler;
        }
    }

    /** @return the engine's invariant violations (empty when all hold, or when there is no engine) */
    public List<String> checkInvariants() {
        synchronized (state.lock) {
            return state.scheduler == null ? List.of() : state.scheduler.checkInvariants();
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
        synchronized (state.lock) {
            if (state.closed || state.nodeInformer == null) {
                return ReconcileResult.idle(state.closed ? "closed" : "not started");
            }
            if (!state.leading) {
                return ReconcileResult.idle("not the leader");
            }
            if (state.options.leaderElection() && !state.holdsLease()) {
                return ReconcileResult.idle("the Lease is not held");
            }
            lifecycle.refreshConfig();
            if (state.config == null) {
                return ReconcileResult.idle("no configuration yet");
            }
            List<KindObject> jobs;
            if (state.scheduler == null || state.rebuildNeeded) {
                lifecycle.rebuild();
                jobs = lifecycle.listFromServer();
            } else {
                jobs = new ArrayList<>();
                for (EnabledKind k : state.kinds.values()) {
                    k.informer.getStore().list().forEach(o -> jobs.add(new KindObject(k, o)));
                }
            }
            jobs.removeIf(w -> state.translator.queueLabel(w.object()) == null || ownedByQueuedKind(w.object()));
            jobs.sort(Comparator.comparing((KindObject w) -> Kube.creationMillis(w.object())).thenComparing(KindObject::key)
                    .thenComparing(w -> w.kind().name()));
            state.pass = new PassLog();
            state.fenced = false;
            sync.syncNodes(jobs);
            kindObjects.syncJobs(jobs);
            state.handlers.forEach(RoundHandler::beforeRound);
            actuation.retryEvictions();
            kindObjects.feedback();
            long t0 = System.nanoTime();
            RoundResult r = state.scheduler.runRound();
            wakeAtMillis = state.scheduler.nextWakeupMillis(Math.max(1, state.options.reconcileInterval().toMillis())).orElse(Long.MAX_VALUE);
            state.metrics.round(System.nanoTime() - t0);
            for (RoundHandler h : state.handlers) {
                h.afterRound(r);
            }
            actuation.actuateNodes(r);
            actuation.handleActuationFailures();
            actuation.settleRestores(r);
            kindObjects.feedback();
            binding.bindPods();
            binding.publishReasons();
            lifecycle.writeKueueStatus();
            Map<String, LocalQueue> lqs = new TreeMap<>();
            state.config.localQueueModels().forEach(q -> lqs.put(q.key(), q));
            List<JobStatus> all = state.scheduler.jobs().all();
            state.metrics.queues(all, lqs);
            long ended = all.stream().filter(j -> j.state().isTerminal()).count();
            if (ended > ENDED_JOBS_BEFORE_REBUILD) {
                LOG.info("the engine holds {} ended jobs; rebuilding it from the API server on the next pass", ended);
                state.rebuildNeeded = true;
            }
            return new ReconcileResult(true, "", r.round(), state.pass.admitted, state.pass.evicted);
        }
    }
}
