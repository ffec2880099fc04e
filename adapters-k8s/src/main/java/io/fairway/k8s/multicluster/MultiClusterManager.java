package io.fairway.k8s.multicluster;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.core.Clock;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.k8s.AdmissionRecord;
import io.fairway.k8s.JobTranslator;
import io.fairway.k8s.Keys;
import io.fairway.k8s.QueueConfig;
import io.fairway.k8s.RestoringPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
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
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many clusters, one queue (as Kueue's MultiKueue): a manager holding a client for the manager cluster and one per
 * worker cluster. Users create Jobs labelled with a queue in the manager cluster; they stay suspended there, the
 * source of truth. One engine schedules them over the nodes of all workers (node {@code gpu-1} of worker {@code eu}
 * is {@code eu/gpu-1} in the engine, with {@code Node.cluster} {@code eu}); quota is global. The engine's actuator is
 * an {@link ExecutorHub}; a {@link WorkerExecutor} per worker pulls its work, copies admitted Jobs into its worker,
 * deletes preempted copies and reports the copies' status back, with the epoch of the run each copy carries.
 *
 * <p>The manager mirrors each Job's state onto the user's Job: the annotations {@value #STATE_ANNOTATION},
 * {@value #WORKER_ANNOTATION}, {@value #EPOCH_ANNOTATION} and {@value Keys#PENDING_REASON_ANNOTATION}, an Event at
 * each change, and {@value Keys#FINISHED_ANNOTATION} once it ended. A restarted manager rebuilds the engine from the
 * manager cluster and the copies in the workers: a copy found in a worker is re-admitted there (adopted at its new
 * epoch), and nothing is admitted until every worker has answered or the grace period has passed.
 *
 * <p>Several managers may run against one manager cluster for availability ({@link #startLeaderElection}): they
 * share {@link Settings#identity()} (the owner written on the copies) and compete for a coordination.k8s.io Lease
 * under their own candidate names, as {@code FairwayAdapter} replicas do. Only the Lease holder reads, schedules and
 * touches the workers; the others do nothing. When the leader stops (or loses the Lease) another takes over and
 * recovers as a restarted manager does: from the users' Jobs and the copies in the workers, adopting each running
 * copy at a new epoch, so no Job runs twice. A manager that lost the Lease never acts again (its engine may be
 * stale); {@link #lostLeadership()} tells its process to exit and be restarted.
 *
 * <p>A worker that stops answering is declared lost after the grace period: its Jobs go back to pending and are
 * admitted in another worker. When it answers again it rejoins and its stale copies are deleted.
 *
 * <pre>{@code
 * MultiClusterManager m = new MultiClusterManager(managerClient, Map.of("eu", euClient, "us", usClient),
 *         QueueConfig.parse("queues.yaml", yaml), System::currentTimeMillis, MultiClusterManager.Settings.defaults());
 * m.runInBackground(Duration.ofSeconds(1)); // or, in tests: m.reconcileOnce(); m.worker("eu").pollOnce(); ...
 * }</pre>
 */
public final class MultiClusterManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MultiClusterManager.class);
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    /** Label on the copies of Jobs in the workers. */
    public static final String COPY_LABEL = "fairway.io/multicluster-copy";
    /** Annotation on a copy: the engine's job id. */
    public static final String JOB_ID_ANNOTATION = "fairway.io/job-id";
    /** Annotation on a copy: the uid of the user's Job in the manager cluster. */
    public static final String ORIGIN_UID_ANNOTATION = "fairway.io/origin-uid";
    /** Annotation on a copy and on the user's Job: the epoch of the run (the admission) the copy is. */
    public static final String EPOCH_ANNOTATION = "fairway.io/epoch";
    /** Annotation on a copy: the identity of the manager that made it (copies of another manager are left alone). */
    public static final String MANAGER_ANNOTATION = "fairway.io/manager";
    /** Annotation on the user's Job: the worker it is admitted in. */
    public static final String WORKER_ANNOTATION = "fairway.io/worker";
    /** Annotation on the user's Job: its state in the engine (PENDING, ADMITTED, RUNNING, SUCCEEDED, FAILED …). */
    public static final String STATE_ANNOTATION = "fairway.io/state";
    /** Event reason: the Job was copied into a worker. */
    public static final String REASON_DISPATCHED = "DispatchedToWorker";
    /** Event reason: the Job runs in its worker. */
    public static final String REASON_RUNNING = "RunningInWorker";
    /** Event reason: the Job went back to pending (its worker was lost, or it was preempted). */
    public static final String REASON_REQUEUED = "Requeued";
    /** Event reason: the Job ended in its worker. */
    public static final String REASON_FINISHED = "FinishedInWorker";

    /**
     * How the manager runs.
     *
     * @param grace a worker silent this long is declared lost
     * @param ackTimeout unacknowledged work is offered to the executor again after this long
     * @param namespace the manager cluster's namespace to watch, or null for all
     * @param identity this manager's identity, written on the copies
     */
    public record Settings(Duration grace, Duration ackTimeout, String namespace, String identity) {
        /** Checks. */
        public Settings {
            InvalidSpecException.check(grace != null && !grace.isNegative() && !grace.isZero(), "grace", grace, "grace must be > 0, was %s", grace);
            InvalidSpecException.check(ackTimeout != null && !ackTimeout.isNegative() && !ackTimeout.isZero(), "ackTimeout", ackTimeout,
                    "ackTimeout must be > 0, was %s", ackTimeout);
            identity = identity == null || identity.isBlank() ? "fairway-manager" : identity;
        }

        /** @return a 2-minute grace period, 30 s acknowledgement timeout, all namespaces */
        public static Settings defaults() {
            return new Settings(Duration.ofMinutes(2), Duration.ofSeconds(30), null, "fairway-manager");
        }
    }

    private final KubernetesClient manager;
    private final QueueConfig config;
    private final Clock clock;
    private final Settings settings;
    private final JobTranslator translator;
    private final Object lock = new Object();
    private final Map<String, WorkerExecutor> workers = new TreeMap<>();
    private final ExecutorHub hub;
    private final Scheduler scheduler;
    private final RestoringPolicy policy;
    private long startedMillis;
    private volatile LeaderElection election;
    private volatile boolean leading = true;
    private volatile boolean lostLeadership;
    private volatile boolean closed;
    /** When (System.nanoTime) this manager last read the Lease and found it its own; 0: never. */
    private volatile long leaseConfirmedNanos;
    private CompletableFuture<?> elector;
    private final AtomicLong eventSeq = new AtomicLong(System.nanoTime());
    private boolean recovered;
    private ScheduledExecutorService loop;

    private final Map<String, Tracked> byId = new LinkedHashMap<>();
    private final Map<String, String> idOfUid = new HashMap<>();
    private final Map<String, String[]> outcomes = new HashMap<>();

    /** A user's Job the engine knows. */
    private static final class Tracked {
        final String id;
        final String uid;
        final String namespace;
        final String name;
        String publishedState;
        String publishedWorker;
        String publishedReason;
        int priority;

        Tracked(String id, String uid, String namespace, String name) {
            this.id = id;
            this.uid = uid;
            this.namespace = namespace;
            this.name = name;
        }
    }

    /**
     * How managers of one manager cluster elect the one that acts.
     *
     * @param namespace the Lease's namespace
     * @param leaseName the Lease's name
     * @param candidate this manager's name in the Lease (its pod name)
     * @param leaseDuration how long the Lease holds without renewal
     * @param renewDeadline how long the leader tries to renew before it stops leading
     * @param retryPeriod how often candidates retry and the leader renews
     */
    public record LeaderElection(String namespace, String leaseName, String candidate, Duration leaseDuration, Duration renewDeadline,
                                 Duration retryPeriod) {
        /** Validates. */
        public LeaderElection {
            InvalidSpecException.requireName("leaderElection.namespace", namespace);
            InvalidSpecException.requireName("leaderElection.leaseName", leaseName);
            InvalidSpecException.requireName("leaderElection.candidate", candidate);
            InvalidSpecException.check(leaseDuration != null && retryPeriod != null && renewDeadline != null && !retryPeriod.isNegative()
                    && !retryPeriod.isZero(), "leaderElection.retryPeriod", retryPeriod, "lease timings must be given and > 0, retry period was %s",
                    retryPeriod);
            InvalidSpecException.check(renewDeadline.compareTo(leaseDuration) < 0, "leaderElection.renewDeadline", renewDeadline,
                    "renewDeadline %s must be shorter than leaseDuration %s", renewDeadline, leaseDuration);
        }

        /**
         * @param namespace the Lease's namespace
         * @param leaseName the Lease's name
         * @param candidate this manager's name in the Lease
         * @return an election with a 15 s Lease, renewed for up to 10 s, retried every 2 s
         */
        public static LeaderElection of(String namespace, String leaseName, String candidate) {
            return new LeaderElection(namespace, leaseName, candidate, Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
        }
    }

    /**
     * What one {@link #reconcileOnce()} did.
     *
     * @param acted false while the manager waits for the workers to answer after a start, or while it does not lead
     * @param round the engine's round after the pass
     * @param admitted the jobs admitted in the pass
     * @param lost the workers declared lost in the pass
     */
    public record ReconcileResult(boolean acted, long round, List<String> admitted, List<String> lost) {
        /** Copies. */
        public ReconcileResult {
            admitted = List.copyOf(admitted);
            lost = List.copyOf(lost);
        }
    }

    /**
     * @param manager the manager cluster's client (the caller closes it)
     * @param workers each worker cluster's name and client (the caller closes them); names are DNS labels
     * @param config queues, flavors and the policy; quota is global across the workers
     * @param clock the clock of the engine and of the grace period
     * @param settings how to run
     */
    public MultiClusterManager(KubernetesClient manager, Map<String, KubernetesClient> workers, QueueConfig config, Clock clock, Settings settings) {
        InvalidSpecException.check(workers != null && !workers.isEmpty(), "workers", workers, "at least one worker cluster is needed");
        this.manager = manager;
        this.config = config;
        this.clock = clock;
        this.settings = settings;
        this.translator = new JobTranslator(List.of(Keys.QUEUE_LABEL), List.of(), pc -> null);
        this.hub = new ExecutorHub(clock, settings.ackTimeout().toMillis(), 100, settings.grace().toMillis());
        this.policy = new RestoringPolicy(Policies.create(config.policy(), config.policyParameters()));
        Scheduler.Builder b = Scheduler.builder().policy(policy).actuator(hub).clock(clock);
        for (String w : new TreeMap<>(workers).keySet()) {
            InvalidSpecException.check(w.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"), "workers", w,
                    "worker name \"%s\" must be a DNS label (lowercase letters, digits and '-')", w);
            b.cluster(new ClusterSpec(w, config.topologyLevels()));
        }
        config.flavorModels().forEach(b::flavor);
        config.cohortModels().forEach(b::cohort);
        config.clusterQueueModels().forEach(b::clusterQueue);
        config.localQueueModels().forEach(b::localQueue);
        this.scheduler = b.build();
        hub.attach(scheduler);
        this.startedMillis = clock.millis();
        new TreeMap<>(workers).forEach((w, c) -> {
            hub.register(w);
            this.workers.put(w, new WorkerExecutor(w, c, this, startedMillis));
        });
    }

    // ------------------------------------------------------------------ leader election

    /**
     * From now on, act only while holding the Lease: this manager joins the election, and its passes (and its
     * executors' passes) do nothing until it leads. Call it once, before the loop starts.
     *
     * @param le the Lease and this manager's candidate name
     * @return this
     * @throws IllegalStateException when the election was started already
     */
    public MultiClusterManager startLeaderElection(LeaderElection le) {
        synchronized (lock) {
            if (election != null) {
                throw new IllegalStateException("leader election is started already (as " + election.candidate() + ")");
            }
            election = le;
            leading = false;
        }
        elector = manager.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("fairway-multicluster")
                .withLock(new LeaseLock(le.namespace(), le.leaseName(), le.candidate()))
                .withLeaseDuration(le.leaseDuration())
                .withRenewDeadline(le.renewDeadline())
                .withRetryPeriod(le.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading,
                        leader -> LOG.info("{}: the Lease is now held by {}", le.candidate(), leader == null ? "nobody" : leader)))
                .build()).build().start();
        LOG.info("{} is a candidate for the Lease {}/{}", le.candidate(), le.namespace(), le.leaseName());
        return this;
    }

    /** @return true while this manager acts: always without leader election, else while it holds the Lease */
    public boolean isLeader() {
        return leading && !lostLeadership && !closed;
    }

    /** @return true once this manager led and then lost the Lease: it acts no more, and its process should restart */
    public boolean lostLeadership() {
        return lostLeadership;
    }

    private void startedLeading() {
        synchronized (lock) {
            if (lostLeadership) {
                return;
            }
            // recover as a restarted manager: from the users' Jobs and the copies in the workers, giving silent workers
            // the grace period from now
            startedMillis = clock.millis();
            recovered = false;
            workers.keySet().forEach(hub::register);
            workers.values().forEach(w -> w.reset(startedMillis));
            leading = true;
        }
        LOG.info("{} leads the multi-cluster manager: recovering the state from the manager and worker clusters", election.candidate());
    }

    private void stoppedLeading() {
        boolean was = leading;
        leading = false;
        if (was && !closed) {
            lostLeadership = true;
            LOG.warn("{} stopped leading; it acts no more", election == null ? settings.identity() : election.candidate());
        }
    }

    /** True while this manager may act: it leads, and (with an election) the Lease says so now. */
    private boolean mayAct() {
        if (!isLeader()) {
            return false;
        }
        LeaderElection le = election;
        if (le == null) {
            return true;
        }
        try {
            Lease l = manager.leases().inNamespace(le.namespace()).withName(le.leaseName()).get();
            if (l == null || l.getSpec() == null || !le.candidate().equals(l.getSpec().getHolderIdentity())) {
                return false;
            }
            java.time.ZonedDateTime renewed = l.getSpec().getRenewTime();
            boolean held = renewed == null || renewed.plus(le.leaseDuration()).isAfter(java.time.ZonedDateTime.now());
            if (held) {
                leaseConfirmedNanos = System.nanoTime();
            }
            return held;
        } catch (KubernetesClientException e) {
            LOG.warn("cannot read the Lease {}/{}: {}", le.namespace(), le.leaseName(), e.getMessage());
            return false;
        }
    }

    /**
     * True while the executors may touch the workers: this manager leads and (with an election) found the Lease its
     * own within the renew deadline, on its last pass — so a leader that lost the Lease without noticing yet stops
     * before another can have taken over.
     */
    boolean mayPoll() {
        if (!isLeader()) {
            return false;
        }
        LeaderElection le = election;
        long confirmed = leaseConfirmedNanos;
        return le == null || confirmed != 0 && System.nanoTime() - confirmed < le.renewDeadline().toNanos();
    }

    // ------------------------------------------------------------------ accessors

    /** @param name a worker @return its executor */
    public WorkerExecutor worker(String name) {
        WorkerExecutor w = workers.get(name);
        if (w == null) {
            throw new InvalidSpecException("worker", name, "no worker cluster named " + name);
        }
        return w;
    }

    /** @return the workers' executors, by name */
    public Collection<WorkerExecutor> workers() {
        return List.copyOf(workers.values());
    }

    /** @return the engine (for status, explanations and tests) */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** @return the hub the executors pull from */
    public ExecutorHub hub() {
        return hub;
    }

    /**
     * @param namespace the user's Job's namespace
     * @param name its name
     * @return its status in the engine
     */
    public Optional<JobStatus> status(String namespace, String name) {
        synchronized (lock) {
            return scheduler.status(namespace + "/" + name);
        }
    }

    Object lock() {
        return lock;
    }

    Clock clock() {
        return clock;
    }

    String identity() {
        return settings.identity();
    }

    List<String> queueLabels() {
        return List.of(Keys.QUEUE_LABEL, Keys.KUEUE_QUEUE_LABEL);
    }

    ResourceFlavor flavor(String name) {
        for (ResourceFlavor f : config.flavorModels()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    boolean owns(Job copy) {
        String m = Jobs.annotation(copy, MANAGER_ANNOTATION);
        return m == null || m.equals(settings.identity());
    }

    boolean recovered() {
        return recovered;
    }

    boolean restoring(String id) {
        return policy.pinned().contains(id);
    }

    boolean isOrigin(String id, String uid) {
        Tracked t = byId.get(id);
        return t != null && t.uid.equals(uid);
    }

    /** @return the user's Job as the manager cluster has it now, or null */
    Job userJob(String id) {
        Tracked t = byId.get(id);
        if (t == null) {
            return null;
        }
        Job j = manager.batch().v1().jobs().inNamespace(t.namespace).withName(t.name).get();
        return j == null || !t.uid.equals(j.getMetadata().getUid()) ? null : j;
    }

    void recordOutcome(String id, String outcome, String message) {
        outcomes.put(id, new String[] {outcome, message});
    }

    // ------------------------------------------------------------------ the loop

    /**
     * One pass of the manager: read the users' Jobs from the manager cluster, declare silent workers lost, run a
     * round (its decisions go to the hub), and mirror each Job's state onto the user's Job. The executors' passes
     * ({@link WorkerExecutor#pollOnce()}) are separate, so tests can interleave them.
     *
     * @return what it did
     * @throws KubernetesClientException when the manager cluster does not answer
     */
    public ReconcileResult reconcileOnce() {
        synchronized (lock) {
            if (!mayAct()) {
                return new ReconcileResult(false, scheduler.round(), List.of(), List.of());
            }
            List<Job> jobs = listUserJobs();
            Map<String, Admitted> copies = recovered ? Map.of() : copiesInWorkers();
            if (!recovered) {
                boolean allAnswered = workers.values().stream().allMatch(WorkerExecutor::reachable);
                if (!allAnswered && clock.millis() - startedMillis <= settings.grace().toMillis()) {
                    return new ReconcileResult(false, scheduler.round(), List.of(), List.of());
                }
            }
            syncJobs(jobs, copies);
            recovered = true;
            List<String> lost = hub.checkLiveness();
            RoundResult r = scheduler.runRound();
            List<String> admitted = new ArrayList<>();
            for (Decision d : r.decisions()) {
                if (d instanceof Admit a) {
                    admitted.add(a.jobId());
                }
            }
            for (String id : policy.pinned()) {
                policy.unpin(id); // a pin is one attempt: a copy not re-admitted is stale and deleted
            }
            mirror();
            return new ReconcileResult(true, r.round(), admitted, lost);
        }
    }

    private List<Job> listUserJobs() {
        List<Job> jobs = new ArrayList<>(settings.namespace() == null
                ? manager.batch().v1().jobs().inAnyNamespace().list().getItems()
                : manager.batch().v1().jobs().inNamespace(settings.namespace()).list().getItems());
        jobs.removeIf(j -> translator.queueLabel(j) == null || "true".equals(j.getMetadata().getLabels().get(COPY_LABEL)));
        jobs.sort(Comparator.comparingLong((Job j) -> Jobs.creationMillis(j)).thenComparing(Jobs::key));
        return jobs;
    }

    /** A copy found in a worker at start: where its Job ran. */
    private record Admitted(String worker, String uid, AdmissionRecord admission, String outcome, String message) {
    }

    /** At start: the copies in each worker that answers (an executor pass first, so the workers' nodes are known). */
    private Map<String, Admitted> copiesInWorkers() {
        Map<String, Admitted> out = new HashMap<>();
        for (WorkerExecutor w : workers.values()) {
            w.pollOnce();
            if (!w.reachable()) {
                continue;
            }
            for (Job c : w.copies()) {
                String id = Jobs.annotation(c, JOB_ID_ANNOTATION);
                String adm = Jobs.annotation(c, Keys.ADMISSION_ANNOTATION);
                if (id == null || adm == null || !owns(c) || out.containsKey(id) && out.get(id).outcome() != null) {
                    continue;
                }
                String cond = Jobs.finishedCondition(c);
                String outcome = cond == null ? null : "Complete".equals(cond) ? "Succeeded" : "Failed";
                try {
                    out.put(id, new Admitted(w.name(), Jobs.annotation(c, ORIGIN_UID_ANNOTATION), AdmissionRecord.parse(adm), outcome,
                            "Failed".equals(outcome) ? Jobs.failureMessage(c) : ""));
                } catch (IllegalArgumentException e) {
                    LOG.warn("copy {} in worker {} has an unreadable admission; it will be deleted", Jobs.key(c), w.name());
                }
            }
        }
        return out;
    }

    private void syncJobs(List<Job> jobs, Map<String, Admitted> copies) {
        Set<String> seen = new HashSet<>();
        for (Job job : jobs) {
            String uid = job.getMetadata().getUid();
            if (uid == null) {
                continue;
            }
            seen.add(uid);
            if (idOfUid.containsKey(uid)) {
                updatePriority(byId.get(idOfUid.get(uid)), job);
                continue;
            }
            if (Jobs.annotation(job, Keys.FINISHED_ANNOTATION) != null) {
                continue;
            }
            String id = Jobs.key(job);
            Admitted copy = copies.get(id);
            if (copy != null && copy.outcome() != null && uid.equals(copy.uid())) {
                // it ended in its worker while no manager was watching: record the end, never run it again
                Map<String, String> ann = new LinkedHashMap<>();
                ann.put(Keys.FINISHED_ANNOTATION, copy.outcome());
                ann.put(STATE_ANNOTATION, "Succeeded".equals(copy.outcome()) ? "SUCCEEDED" : "FAILED");
                ann.put(Keys.PENDING_REASON_ANNOTATION, null);
                if (patchUserJob(job, ann, REASON_FINISHED, "Succeeded".equals(copy.outcome()) ? "Normal" : "Warning",
                        copy.outcome() + " in worker " + copy.worker() + (copy.message().isEmpty() ? "" : ": " + copy.message()))) {
                    idOfUid.put(uid, id);
                }
                continue;
            }
            Tracked old = byId.get(id);
            if (old != null) {
                forgetJob(old); // deleted and created again under the same name
            }
            JobSpec spec;
            try {
                spec = translator.toSpec(job, id);
                scheduler.submit(spec);
            } catch (InvalidSpecException e) {
                String text = Keys.REASON_INVALID + ": " + e.getMessage();
                if (!text.equals(Jobs.annotation(job, Keys.PENDING_REASON_ANNOTATION))) {
                    patchUserJob(job, Map.of(Keys.PENDING_REASON_ANNOTATION, text), Keys.REASON_INVALID, "Warning", e.getMessage());
                }
                continue; // read again on the next pass: the user may fix it
            }
            Tracked t = new Tracked(id, uid, job.getMetadata().getNamespace(), job.getMetadata().getName());
            t.priority = spec.priority();
            t.publishedState = Jobs.annotation(job, STATE_ANNOTATION);
            t.publishedWorker = Jobs.annotation(job, WORKER_ANNOTATION);
            byId.put(id, t);
            idOfUid.put(uid, id);
            if (!Jobs.suspended(job)) {
                try {
                    manager.batch().v1().jobs().inNamespace(t.namespace).withName(t.name).patch(MERGE, Jobs.json(Map.of("spec", Map.of("suspend", true))));
                    LOG.info("Job {} suspended: it runs in a worker cluster once admitted", id);
                } catch (KubernetesClientException e) {
                    LOG.warn("cannot suspend {}: {}", id, e.getMessage());
                }
            }
            Admitted a = copies.get(id);
            if (a != null && a.outcome() == null && uid.equals(a.uid())) {
                policy.pin(id, a.admission().placement());
                LOG.info("Job {} has a copy in worker {}; restoring its admission there", id, a.worker());
            }
        }
        for (String uid : new ArrayList<>(idOfUid.keySet())) {
            if (!seen.contains(uid)) {
                String id = idOfUid.remove(uid);
                Tracked t = byId.get(id);
                if (t != null && t.uid.equals(uid)) {
                    LOG.info("Job {} was deleted from the manager cluster; cancelling it", id);
                    forgetJob(t);
                }
            }
        }
    }

    /** A queued or running Job whose priority label changed gets its new priority (which may preempt, or let it be). */
    private void updatePriority(Tracked t, Job job) {
        if (t == null || !t.uid.equals(job.getMetadata().getUid())) {
            return;
        }
        int p;
        try {
            p = translator.toSpec(job, t.id).priority();
        } catch (InvalidSpecException e) {
            return;
        }
        if (p != t.priority && scheduler.jobs().setPriority(t.id, p)) {
            LOG.info("Job {}: priority {} -> {}", t.id, t.priority, p);
            t.priority = p;
        }
    }

    private void forgetJob(Tracked t) {
        byId.remove(t.id);
        policy.unpin(t.id);
        outcomes.remove(t.id);
        scheduler.cancel(t.id);
        scheduler.jobs().forget(t.id);
    }

    /** Mirrors each Job's state onto the user's Job (annotations and an Event at each change). */
    private void mirror() {
        for (Tracked t : new ArrayList<>(byId.values())) {
            JobStatus s = scheduler.status(t.id).orElse(null);
            if (s == null) {
                continue;
            }
            String state = s.state().name();
            String worker = s.state().holdsResources() ? scheduler.clusters().clusterOf(t.id) : null;
            String reason = s.state() == JobState.PENDING && s.pendingReason() != null
                    && s.pendingReason().code() != PendingReason.Code.NOT_YET_CONSIDERED
                    ? s.pendingReason().code() + ": " + s.pendingReason().message() : null;
            if (state.equals(t.publishedState) && java.util.Objects.equals(worker, t.publishedWorker)
                    && (reason == null || reason.equals(t.publishedReason))) {
                continue;
            }
            Job job = manager.batch().v1().jobs().inNamespace(t.namespace).withName(t.name).get();
            if (job == null || !t.uid.equals(job.getMetadata().getUid())) {
                continue;
            }
            Map<String, String> ann = new LinkedHashMap<>();
            ann.put(STATE_ANNOTATION, state);
            ann.put(WORKER_ANNOTATION, worker);
            ann.put(EPOCH_ANNOTATION, worker == null ? null : Long.toString(scheduler.jobs().epoch(t.id)));
            ann.put(Keys.PENDING_REASON_ANNOTATION, reason);
            String eventReason;
            String message;
            String type = "Normal";
            switch (s.state()) {
                case ADMITTED -> {
                    eventReason = REASON_DISPATCHED;
                    message = "Admitted by ClusterQueue " + s.admission().clusterQueue() + " into worker " + worker + " on "
                            + String.join(", ", s.admission().placement().nodes());
                }
                case RUNNING -> {
                    eventReason = REASON_RUNNING;
                    message = "Running in worker " + worker;
                }
                case SUCCEEDED, FAILED, CANCELLED -> {
                    String[] o = outcomes.getOrDefault(t.id, new String[] {s.state() == JobState.SUCCEEDED ? "Succeeded" : "Failed", ""});
                    ann.put(Keys.FINISHED_ANNOTATION, o[0]);
                    eventReason = REASON_FINISHED;
                    message = o[0] + " in worker " + t.publishedWorker + (o[1].isEmpty() ? "" : ": " + o[1]);
                    type = s.state() == JobState.SUCCEEDED ? "Normal" : "Warning";
                }
                default -> {
                    boolean requeued = t.publishedWorker != null;
                    eventReason = requeued ? REASON_REQUEUED : Keys.REASON_PENDING;
                    message = requeued ? "Back to pending (was in worker " + t.publishedWorker + ")" + (reason == null ? "" : "; " + reason)
                            : reason == null ? "Pending" : reason;
                }
            }
            if (worker != null && t.publishedWorker != null && !worker.equals(t.publishedWorker)) {
                event(job, "Normal", REASON_REQUEUED, "Back to pending (was in worker " + t.publishedWorker + ", lost or preempted)");
            }
            if (patchUserJob(job, ann, eventReason, type, message)) {
                t.publishedState = state;
                t.publishedWorker = worker;
                t.publishedReason = reason;
                if (s.state().isTerminal()) {
                    byId.remove(t.id);
                    outcomes.remove(t.id);
                    scheduler.jobs().forget(t.id);
                }
            }
        }
    }

    private boolean patchUserJob(Job job, Map<String, String> annotations, String eventReason, String type, String message) {
        try {
            Map<String, Object> ann = new LinkedHashMap<>(annotations); // null values remove the annotation
            manager.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
                    .patch(MERGE, Jobs.json(Map.of("metadata", Map.of("annotations", ann))));
        } catch (KubernetesClientException e) {
            LOG.warn("cannot annotate {}: {}", Jobs.key(job), e.getMessage());
            return false;
        }
        event(job, type, eventReason, message);
        LOG.info("Job {}: {}", Jobs.key(job), message);
        return true;
    }

    private void event(Job about, String type, String reason, String message) {
        String now = DateTimeFormatter.ISO_INSTANT.format(Instant.now().atOffset(ZoneOffset.UTC));
        String ns = about.getMetadata().getNamespace();
        try {
            manager.v1().events().inNamespace(ns).resource(new EventBuilder()
                    .withNewMetadata().withName(about.getMetadata().getName() + "." + Long.toHexString(eventSeq.incrementAndGet()))
                    .withNamespace(ns).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                            .withName(about.getMetadata().getName()).withNamespace(ns).withUid(about.getMetadata().getUid()).build())
                    .withType(type).withReason(reason)
                    .withMessage(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent(Keys.COMPONENT).endSource()
                    .withReportingComponent("fairway.io/" + Keys.COMPONENT).withReportingInstance(settings.identity())
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("could not record event {} on {}: {}", reason, Jobs.key(about), e.getMessage());
        }
    }

    /**
     * Runs the loop on a background thread: a manager pass then every executor's pass, every {@code period}, and
     * sooner when the engine asked for a round by time ({@link Scheduler#nextWakeupMillis}: a policy's
     * {@code wakeAt}, a lease expiring). Errors of one pass are logged and the next pass goes on.
     *
     * @param period time between passes
     * @return this
     */
    public MultiClusterManager runInBackground(Duration period) {
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fairway-multicluster");
            t.setDaemon(true);
            return t;
        });
        long periodMillis = Math.max(1, period.toMillis());
        long[] last = {Long.MIN_VALUE / 2};
        loop.scheduleWithFixedDelay(() -> {
            long now = clock.millis();
            // a pass every period, and sooner when the engine asked for a round by time (a policy's wakeAt, a lease)
            if (now - last[0] < periodMillis && now < scheduler.nextWakeupMillis(periodMillis).orElse(Long.MAX_VALUE)) {
                return;
            }
            last[0] = now;
            try {
                reconcileOnce();
            } catch (RuntimeException e) {
                LOG.warn("manager pass failed: {}", e.getMessage());
            }
            for (WorkerExecutor w : workers.values()) {
                try {
                    w.pollOnce();
                } catch (RuntimeException e) {
                    LOG.warn("executor pass of worker {} failed: {}", w.name(), e.getMessage());
                }
            }
        }, 0, Math.min(200, periodMillis), TimeUnit.MILLISECONDS);
        return this;
    }

    /** Stops the loop and, with leader election, gives up the Lease (another manager takes over). */
    @Override
    public void close() {
        if (loop != null) {
            loop.shutdownNow();
            try {
                loop.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock) {
            closed = true;
            leading = false;
        }
        if (elector != null) {
            elector.cancel(true);
        }
    }

    /**
     * Runs a manager: {@code --manager-kubeconfig FILE --config queues.yaml --worker NAME=KUBECONFIG ...
     * [--grace-seconds 120] [--namespace NS]}.
     *
     * @param args the arguments
     * @throws Exception when the configuration cannot be read
     */
    public static void main(String[] args) throws Exception {
        Path managerConfig = null;
        Path queues = null;
        String namespace = null;
        String lease = null;
        long grace = 120;
        Map<String, Path> workerConfigs = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--manager-kubeconfig" -> managerConfig = Path.of(args[i + 1]);
                case "--config" -> queues = Path.of(args[i + 1]);
                case "--namespace" -> namespace = args[i + 1];
                case "--leader-elect" -> lease = args[i + 1];
                case "--grace-seconds" -> grace = Long.parseLong(args[i + 1]);
                case "--worker" -> {
                    String[] kv = args[i + 1].split("=", 2);
                    if (kv.length != 2) {
                        throw new IllegalArgumentException("--worker takes NAME=KUBECONFIG, was " + args[i + 1]);
                    }
                    workerConfigs.put(kv[0], Path.of(kv[1]));
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (queues == null || workerConfigs.isEmpty()) {
            System.err.println("usage: --config queues.yaml --worker NAME=KUBECONFIG [--worker ...] [--manager-kubeconfig FILE]"
                    + " [--namespace NS] [--grace-seconds 120] [--leader-elect LEASE_NAMESPACE/LEASE_NAME]");
            System.exit(2);
        }
        KubernetesClient managerClient = managerConfig == null ? new KubernetesClientBuilder().build()
                : new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(null, managerConfig.toFile())).build();
        Map<String, KubernetesClient> workerClients = new TreeMap<>();
        for (Map.Entry<String, Path> e : workerConfigs.entrySet()) {
            workerClients.put(e.getKey(), new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(null, e.getValue().toFile())).build());
        }
        QueueConfig config = QueueConfig.parse(queues.toString(), Files.readString(queues, StandardCharsets.UTF_8));
        String pod = System.getenv().getOrDefault("POD_NAME", System.getenv().getOrDefault("HOSTNAME", "fairway-manager"));
        String[] leaseRef = lease == null ? null : lease.split("/", 2);
        if (leaseRef != null && (leaseRef.length != 2 || leaseRef[0].isBlank() || leaseRef[1].isBlank())) {
            throw new IllegalArgumentException("--leader-elect takes LEASE_NAMESPACE/LEASE_NAME, was " + lease);
        }
        // replicas of one manager share the owner identity on the copies (the Lease name); each is a candidate by its pod name
        Settings settings = new Settings(Duration.ofSeconds(grace), Duration.ofSeconds(30), namespace,
                leaseRef == null ? System.getenv().getOrDefault("HOSTNAME", "fairway-manager") : leaseRef[1]);
        MultiClusterManager m = new MultiClusterManager(managerClient, workerClients, config, System::currentTimeMillis, settings);
        if (leaseRef != null) {
            m.startLeaderElection(LeaderElection.of(leaseRef[0], leaseRef[1], pod));
            ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fairway-multicluster-lease");
                t.setDaemon(true);
                return t;
            });
            watch.scheduleWithFixedDelay(() -> {
                if (m.lostLeadership()) {
                    System.err.println("this manager lost the Lease; exiting so that it restarts as a candidate");
                    System.exit(1);
                }
            }, 1, 1, TimeUnit.SECONDS);
        }
        m.runInBackground(Duration.ofSeconds(1));
        System.out.println("fairway multi-cluster manager running over workers " + workerClients.keySet());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            m.close();
            workerClients.values().forEach(KubernetesClient::close);
            managerClient.close();
        }));
        Thread.currentThread().join();
    }
}
